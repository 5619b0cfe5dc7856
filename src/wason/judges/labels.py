"""Reading "1. Yes / 2. No" label lists from text: the pilot labeller's reply format, reused by the quiz."""

from __future__ import annotations

import re

# The pilot's "<response>" line, tolerant of spacing and case (also read by the list protocol).
RESPONSE_TAG = re.compile(r"<[ \t]*response[ \t]*>", re.IGNORECASE)
# "1. Yes", "**2.** No", "3) yes", and the echoed form "4. [1, 2, 3]: No".
_LABEL_LINE = re.compile(
    r"^[ \t*#>-]*(\d+)[ \t]*[.):][ \t*]*(?:[\[(][^\]\)\n]*[\])][ \t]*[:=\-\u2013\u2014]?[ \t*]*)?(yes|no)\b",
    re.IGNORECASE | re.MULTILINE,
)


def read_labels(reply: str, n: int) -> list[bool | None]:
    """Labels ``1. Yes`` ... ``n. No`` from a labeller's or player's reply, after its last ``<response>`` tag.

    Without the tag the whole reply is read. The last line for each number wins; numbers never given are None.
    """
    markers = list(RESPONSE_TAG.finditer(reply))
    text = reply[markers[-1].end() :] if markers else reply
    labels: list[bool | None] = [None] * n
    for match in _LABEL_LINE.finditer(text):
        index = int(match.group(1)) - 1
        if 0 <= index < n:
            labels[index] = match.group(2).lower() == "yes"
    return labels
