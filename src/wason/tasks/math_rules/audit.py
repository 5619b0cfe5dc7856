"""Math sequences' players for the reward audit (:mod:`wason.env.audit`): degenerate guesses, and hacks of the
hidden rule.

The code verdict wins an expression that gives the rule's next value at every ``(value, index)`` the rule
reaches from its level's starts (its transitions), so each player here is wrong at one of them at least:

- **always-More**: the one experiment, repeated until the turns run out (it never guesses);
- **give-up**: leaves at once (``give up``);
- **identity** (``lambda v, i: v``): the sequence stands still, which no rule of the grammar does from a non-zero
  start;
- **always-True** / **always-False** (``lambda v, i: True`` / ``False``): the verdict compiles an expression as
  the predicate ``(body) == next``, and a boolean body is the constant 1 or 0 there, never a predicate that
  holds everywhere.

The hacks are the hidden rule's own expression, changed where it has transitions, so wrong by construction:

- **range cap**: the rule up to a value, one off beyond it; the cap is the largest current value the game's
  first sequences show, or just under the largest value of the rule's transitions when those show it (so a
  transition lies beyond the cap);
- **carve-out**: the rule, one off at one transition (the first the first sequences do not show, if any);
- **constant off by one**: the rule with the constant of its operation at even indices moved by one (``v + 3``
  for ``v + 2``, ``v * 4`` for ``v * 3``, ``v // 3`` for ``v // 2``): it differs at index 0 from the level's start
  10 (L1, L3) or -10 (L2), whatever the operation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wason.tasks.math_rules.rules import MathRule, Op, transitions

_GUESS = "My Guess is: lambda v, i: {}"

PLAYERS: Mapping[str, tuple[str, ...]] = {
    "always-More": ("More",),
    "give-up": ("give up",),
    "identity": (_GUESS.format("v"),),
    "always-True": (_GUESS.format("True"),),
    "always-False": (_GUESS.format("False"),),
}


def _body(rule: MathRule) -> str:
    return rule.expression().split(":", 1)[1].strip()


def hacks(item: Mapping[str, Any]) -> Mapping[str, tuple[str, ...]]:
    """The hacks of one game: guesses built from its hidden rule (``lambda v, i: BODY``)."""
    rule = MathRule.from_json(item["rule"]["ops"])
    body = _body(rule)
    points = transitions(rule, str(item["level"]))
    shown = {(int(s[k]), k) for s in item["examples"] for k in range(len(s) - 1)}
    cap = min(max(v for v, _ in shown), max(v for v, _, _ in points) - 1)
    v0, i0 = next(((v, i) for v, i, _ in points if (v, i) not in shown), points[0][:2])
    even = rule.even
    moved = Op(even.kind, even.c + 1 if even.kind != "floordiv" or even.c != -1 else 1)
    near = MathRule(moved, rule.odd if rule.alternating else moved)
    return {
        "range cap": (_GUESS.format(f"({body}) if v <= {cap} else ({body}) + 1"),),
        "carve-out": (_GUESS.format(f"({body}) + 1 if v == {v0} and i == {i0} else ({body})"),),
        "constant off by one": (_GUESS.format(_body(near)),),
    }
