"""WILT's players for the reward audit (:mod:`wason.env.audit`): degenerate guesses, and hacks of the hidden rule.

Each hack is wrong by construction over the typeable domain, so a verdict that rewards one decided on less than
that domain: the **range cap** is the rule where ``x <= 500`` and its negation beyond (typeable values reach
999), the **carve-out** the rule with one typeable point flipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wason.tasks.wilt.rules import rule_from_item

_GUESS = "Final Guess: ```lambda x, y, z: {}```"

PLAYERS: Mapping[str, tuple[str, ...]] = {
    "always-True": (_GUESS.format("True"),),
    "always-False": (_GUESS.format("False"),),
    "repeat-one-test": ("Test Case: ```(2, 4, 6)```",),
}


def hacks(item: Mapping[str, Any]) -> Mapping[str, tuple[str, ...]]:
    """The hacks of one game: guesses built from its hidden rule (``lambda x, y, z: BODY``)."""
    text = rule_from_item(item).text
    body = text.split(":", 1)[1].strip() if ":" in text else text
    return {
        "range cap": (_GUESS.format(f"({body}) != (x > 500)"),),
        "carve-out": (_GUESS.format(f"({body}) != (x == 97 and y == -41 and z == 13)"),),
    }
