"""Code Functions Picnic's players for the reward audit (:mod:`wason.env.audit`): degenerate guesses, and hacks
of the hidden rule.

The code verdict wins a predicate that agrees with the rule on every word of the list (the held-out words and
the examples shown), so each player here is wrong on at least one word of it:

- **always-True** / **always-False** (``lambda w: True`` / ``False``): no rule the game draws is constant (a
  generated rule is true for 10-90% of the list, a published one for 6-83%; a rules file is the user's own);
- **give-up**: leaves at once (``give up``);
- **ask-for-more** (``more 2``, every turn): the one experiment repeated under the ``game-api`` protocol; the
  published protocols read it as a guess in words without a predicate, and then as a predicate that does not
  compile.

The hacks are the hidden rule's own predicate, changed where the list has words, so wrong by construction: the
**range cap** is the rule on the words of up to 6 letters and its negation on the 7-letter ones (about 3,000
of the list's words of 4 to 7 letters have 7); the **carve-out** the rule with the list's last (rarest) word
flipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from wason.tasks.code_functions import vocabulary as words

PLAYERS: Mapping[str, tuple[str, ...]] = {
    "always-True": ("lambda w: True",),
    "always-False": ("lambda w: False",),
    "give-up": ("give up",),
    "ask-for-more": ("more 2",),
}

_LAMBDA = re.compile(r"\s*lambda\s+([A-Za-z_]\w*)\s*:(.*)", re.DOTALL)


def hacks(item: Mapping[str, Any]) -> Mapping[str, tuple[str, ...]]:
    """The hacks of one game: predicates built from its hidden rule (``lambda w: BODY``), each on one line; none
    for a game of writing rules (it hides no rule)."""
    if "rule" not in item:
        return {}
    source = str(item["rule"]["source"])
    m = _LAMBDA.fullmatch(source)
    word, body = (m.group(1), m.group(2)) if m else ("w", source)
    body = " ".join(body.split("\n")).strip()
    rarest = words.vocabulary()[-1]
    return {
        "range cap": (f"lambda {word}: ({body}) != (len({word}) >= {words.MAX_LETTERS})",),
        "carve-out": (f"lambda {word}: ({body}) != ({word} == {rarest!r})",),
    }
