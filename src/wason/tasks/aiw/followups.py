"""Multi-turn self-verification (paper section 3 / Suppl. G): after the first answer, the user asks the model to
review and improve it, and the answer is read again after each turn.

The follow-up messages are the published ones (records 110-112). In those records the first message ends the
STANDARD instruction without its final period; :func:`first_message` reproduces that when asked.
"""

from __future__ import annotations

from collections.abc import Mapping

FOLLOWUPS: Mapping[str, tuple[str, ...]] = {
    # record 110
    "review": (
        "Review your previous answer and find problems with your answer.",
        "Based on the problems you found, improve your answer. Please reiterate your answer, with your final "
        'answer a single numerical number, in the following form: "### Answer: "',
    ),
    # records 111 and 112
    "double-check": (
        "Please double check the solution, find mistakes if any and correct those, providing revised correct "
        "solution.",
        "The provided solution still contains mistakes. Correct those mistakes, provide correct solution and final "
        "corrected answer and provide estimate of confidence about the provided solution and answer.",
    ),
}


def first_message(prompt: str, *, as_published: bool) -> str:
    """The opening message of a self-verification conversation.

    Args:
        prompt: the rendered single-turn prompt.
        as_published: drop the STANDARD instruction's final period, as records 110-112 do.
    """
    if as_published and prompt.endswith('"### Answer: ".'):
        return prompt[:-1]
    return prompt
