"""The lab's players for the reward audit (:mod:`wason.env.audit`): degenerate players, and answers built from the
hidden laws, each wrong by construction.

Success is the code verdict on the test: the share of its experiments whose every property is predicted right (a
number within the tolerance, of at least 1 in size) reaches the pass mark. Every player below but *no-answer* ends
with an answer the game reads and scores, in the replies the solver writes
(:func:`~wason.tasks.lab.protocol.write_action`). The test (its
experiments on fresh objects, drawn from the item's seed) is the one the default run configuration's game draws:
``hacks`` sees the item, not the run configuration, so the answers are built for the default test size (20),
tolerance (5%) and pass mark (90%).

Players, the same in every game:

- **leave-at-once**: done before any experiment, then "nothing changes" (``{}``) for every test experiment; wrong
  wherever a test experiment changes something, which half the test is drawn to do
  (:func:`~wason.tasks.lab.world.trials`), so it scores at most 0.5;
- **no-answer**: done at once, and done again when the test asks for predictions: refused until the tries run
  out, the test ends unanswered (no prediction is right).

Built from each game's item:

- **repeat-one-experiment**: the lab's first operation on its first objects, once a turn, until the budget of the
  difficulty runs out, then "nothing changes" (a script the same in every game cannot name a domain's operations:
  they are drawn with it);
- **one value off**: the true outcome of every test experiment with one number (the first that changes, else the
  first) moved to twice the tolerance away: every prediction is wrong by the verdict's own measure;
- **pass-mark edge**: the true outcomes but for the fewest experiments that put the share right under the pass
  mark (3 of 20), those as in *one value off*;
- **one law off**: the hidden laws with one law changed (a constant moved up by one, a value set flipped, or the
  law left out), as the theory and the predictions it makes; of these changes, the one that makes the most test
  predictions wrong (a change shows only on the test experiments its law acts on). The verdict scores
  predictions, not the theory: at the 90% pass mark a test of 20 forgives 2 wrong, so where no law of the domain
  acts on more than 2 of its test experiments, a theory with any one law wrong passes (7 laws share a hard
  domain's 20). Of seed 0's first 100 domains, 1 hard one (hard|0|54: 18 of 20 right) and no medium or easy one;
  an audit whose games hold such a domain fails this check there. That is the pass mark's allowance, not a test
  that changes nothing (``theory_equivalent``, false for every one-law-off theory, tells the two apart).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from wason.core.family import EpisodeContext
from wason.tasks.lab.family import FAMILY, LabRunConfig
from wason.tasks.lab.game import Answer, Finish, LabGame, Request, Step, number_right
from wason.tasks.lab.laws import Arith, Bool, Compare, Law, Num, Thing, Value, format_theory
from wason.tasks.lab.laws import changes as _changes
from wason.tasks.lab.laws import outcome_right as _right
from wason.tasks.lab.protocol import write_action
from wason.tasks.lab.world import BUDGETS, Trial

Prediction = dict[str, dict[str, Value]]

TEST_SIZE = LabRunConfig().test_size
"""The default test's size: the predictions a scripted answer gives."""

_DONE = write_action(Finish())
_NOTHING = write_action(Answer(({},) * TEST_SIZE))

PLAYERS: Mapping[str, tuple[str, ...]] = {"leave-at-once": (_DONE, _NOTHING), "no-answer": (_DONE,)}


def _one_off(trial: Trial, after: Sequence[Thing], tolerance: float) -> Prediction:
    """The true outcome of ``trial`` with one number twice the tolerance away: the first number it changes,
    else its first object's first number (every type has one)."""
    right = _changes(trial.things, after)
    numbers = [(t.name, p, v) for t in after for p, v in t.values.items() if not isinstance(v, bool)]
    changed = [(n, p, v) for n, p, v in numbers if p in right.get(n, {})]
    name, prop, value = (changed or numbers)[0]
    off = value + 2 * tolerance * max(1.0, abs(value))
    assert not number_right(off, value, tolerance)
    return {**right, name: {**right.get(name, {}), prop: off}}


def _variants(law: Law) -> list[Law | None]:
    """One law changed: a constant up by one, a value set flipped, or left out (None)."""
    v = law.value
    out: list[Law | None] = []
    if isinstance(v, Bool):
        out.append(dataclasses.replace(law, value=Bool(not v.value)))
    elif isinstance(v, Arith | Compare) and isinstance(v.right, Num):
        out.append(dataclasses.replace(law, value=dataclasses.replace(v, right=Num(v.right.value + 1))))
    return [*out, None]


def _answer(predictions: Sequence[Prediction], theory: str = "") -> tuple[str, ...]:
    return _DONE, write_action(Answer(tuple(predictions), theory))


def hacks(item: Mapping[str, Any]) -> Mapping[str, tuple[str, ...]]:
    """The hacks of one game: answers built from its hidden laws and the test its seed draws."""
    config = LabRunConfig(difficulty=item["difficulty"])
    game = FAMILY.game(config, item, EpisodeContext())
    assert isinstance(game, LabGame)
    laws, test, tolerance = game.domain.laws, game.test, config.tolerance
    truth = [t.outcome(laws) for t in test]
    right = [_changes(t.things, after) for t, after in zip(test, truth, strict=True)]
    off = [_one_off(t, after, tolerance) for t, after in zip(test, truth, strict=True)]
    wrong = 0
    while (len(test) - wrong) / len(test) >= config.pass_mark:
        wrong += 1

    def mistakes(theory: Sequence[Law]) -> int:
        return sum(
            not _right(t.outcome(theory), after, tolerance) for t, after in zip(test, truth, strict=True)
        )

    changed = [
        tuple(x for x in (*laws[:k], variant, *laws[k + 1 :]) if x is not None)
        for k, law in enumerate(laws)
        for variant in _variants(law)
    ]
    worst = max(changed, key=mistakes)
    op = item["lab"]["operations"][0]
    objects = tuple(o["name"] for o in item["lab"]["objects"][: op["arity"]])
    repeat = write_action(Request((Step("experiment", op=op["name"], objects=objects),)))
    return {
        "repeat-one-experiment": (repeat,) * BUDGETS[item["difficulty"]] + (_NOTHING,),
        "one value off": _answer(off),
        "pass-mark edge": _answer(off[:wrong] + right[wrong:]),
        "one law off": _answer([_changes(t.things, t.outcome(worst)) for t in test], format_theory(worst)),
    }
