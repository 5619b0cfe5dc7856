"""The list rules' players for the reward audit (:mod:`wason.env.audit`): degenerate rules, and hacks of the rule.

Success is the predicate judge's verdict (the primary judge): a ``lambda xs: ...`` that agrees with every list
the episode labelled and with the hidden rule on a seeded sample of probes. Every player below states a final
rule, then a predicate, then quiz answers, in the replies the solver writes
(:func:`~wason.tasks.lists.protocol.write_action`).

Players, the same in every game:

- **always-True**: every list fits (``lambda xs: True``); wrong wherever the rule says No, which every rule does;
- **always-False**: no list fits (``lambda xs: False``); wrong on the examples, which fit by construction;
- **repeat-one-test**: one test list every round until the rounds run out, then that reply's leading hypothesis
  is taken as final; it states no predicate, so nothing is judged equivalent.

Hacks, built from each game's hidden item:

- **memorised examples**: exactly the three example lists (``lambda xs: xs in [...]``): it agrees with every
  label shown and is wrong on every other list the rule accepts (each rule accepts more: its quiz draws them);
- for a rule whose item carries its source in the guess language (the generated split), that source with the
  answer flipped where a careless judge would not look, each wrong by construction:
  **length cap** (flipped on every list of more than 12 items: the first probe sets held none),
  **magnitude cap** (flipped on every list holding an integer beyond 10**30: nor those),
  **carve-out** (flipped on one list: the first example with its first item plus one, a near miss the judge
  probes next to the rule's boundary).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wason.tasks.lists.game import MAX_QUIZ, FinalHypothesis, PredicateAnswer, QuizAnswer, TestRound
from wason.tasks.lists.protocol import write_action

LENGTH_CAP = 12
"""The longest list the length-cap hack gets right."""

MAGNITUDE_CAP = "10**30"
"""The largest integer the magnitude-cap hack gets right."""


def _stated(text: str, predicate: str, quiz: bool) -> tuple[str, ...]:
    """A final rule in words, its predicate, and the same answer to every quiz list."""
    return (
        write_action(FinalHypothesis(text)),
        write_action(PredicateAnswer(predicate)),
        write_action(QuizAnswer((quiz,) * MAX_QUIZ)),
    )


PLAYERS: Mapping[str, tuple[str, ...]] = {
    "always-True": _stated("Every list follows the rule.", "lambda xs: True", True),
    "always-False": _stated("No list follows the rule.", "lambda xs: False", False),
    "repeat-one-test": (
        write_action(TestRound(cases=((1, 2, 3),), leading_hypothesis="The items increase.")),
    ),
}


def _near_miss(example: Sequence[int]) -> list[int]:
    """The example with its first item plus one (``[0]`` for the empty list): among the judge's near misses."""
    return [example[0] + 1, *example[1:]] if example else [0]


def hacks(item: Mapping[str, Any]) -> Mapping[str, tuple[str, ...]]:
    """The hacks of one game: the memorised examples, and guesses built from the rule's source where the item
    holds one (``lambda xs: BODY``)."""
    examples = [[int(x) for x in e] for e in item["examples"]]
    memorised = _stated("The list is one of the examples.", f"lambda xs: xs in {examples}", False)
    out = {"memorised examples": memorised}
    source = item["rule"].get("source")
    if not source:
        return out
    body = f"bool({str(source).split(':', 1)[1].strip()})"
    flipped = {
        "length cap": f"len(xs) > {LENGTH_CAP}",
        "magnitude cap": f"any(abs(x) > {MAGNITUDE_CAP} for x in xs)",
        "carve-out": f"xs == {_near_miss(examples[0]) if examples else [0]}",
    }
    for name, where in flipped.items():
        out[name] = _stated("The rule as the predicate states it.", f"lambda xs: {body} != ({where})", False)
    return out
