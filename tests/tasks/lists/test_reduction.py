"""The list rules' hypothesis-space reduction: the share of the solver's hypotheses (those the examples leave) the
tests ruled out, after each round; never falling, 0 for tests that tell nothing, nearly 1 for the solver, and
paid by the text environment as the "information" reward."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence

import pytest

from wason.env import make
from wason.tasks.lists.game import FinalHypothesis, ListsGame, PredicateAnswer, QuizAnswer, TestRound
from wason.tasks.lists.protocol import write_action
from wason.tasks.lists.reduction import MAX_ABS, MAX_ITEMS, SPACE, reduction_curve
from wason.tasks.lists.rules import get_rule
from wason.tasks.lists.solver_player import ListSolverPlayer
from wason.tasks.lists.solver_space import SOLVER_SPACE_VERSION, solver_space

INCREASING = get_rule("pilot", 1)  # strictly increasing
EXAMPLES = tuple(tuple(e) for e in INCREASING.examples)


def _accepts(h: object, xs: tuple[int, ...]) -> bool:
    try:
        return bool(h.predicate(xs))  # type: ignore[attr-defined]
    except Exception:
        return False


def _by_definition(
    examples: Sequence[tuple[int, ...]], tested: Sequence[tuple[tuple[int, ...], bool]]
) -> float:
    """The share by its definition, over the whole space at once (no survivors, no list evaluated once)."""
    cut = [h for h in solver_space() if all(_accepts(h, e) for e in examples)]
    out = [h for h in cut if any(_accepts(h, xs) != label for xs, label in tested)]
    return len(out) / len(cut)


def _solver_game(rule_id: int) -> ListsGame:
    rule = get_rule("pilot", rule_id)
    game = ListsGame(rule, tuple(tuple(e) for e in rule.examples))
    player = ListSolverPlayer(seed=0)

    async def run() -> None:
        obs = game.start()
        while not game.done:
            move = await player.act(obs)
            await game.settle(move.action)
            obs = game.step(move.action)

    asyncio.run(run())
    return game


@pytest.mark.parametrize("rule_id", [1, 2, 3, 4])
def test_the_solver_rules_out_nearly_everything_and_the_curve_never_falls(rule_id: int) -> None:
    game = _solver_game(rule_id)
    m = game.outcome().metrics
    curve = m["reduction"]
    assert m["hypothesis_space"] == SPACE and SPACE.startswith(SOLVER_SPACE_VERSION)
    assert len(curve) == m["rounds"] >= 1
    assert all(0.0 <= c <= 1.0 for c in curve)
    assert all(b >= a for a, b in itertools.pairwise(curve))
    assert curve[-1] >= 0.99
    # the same episode, the same curve: and it is the share its definition gives
    rounds = [tuple(zip(r.cases, r.code_labels, strict=True)) for r in game.rounds]
    assert reduction_curve(game.examples, rounds) == curve
    tested = [(tuple(c), label) for r in rounds for c, label in r]
    assert curve[-1] == pytest.approx(_by_definition(game.examples, tested))


def test_tests_that_repeat_the_examples_rule_out_nothing() -> None:
    game = ListsGame(INCREASING, EXAMPLES)
    game.start()
    for _ in range(4):
        game.step(TestRound(EXAMPLES + EXAMPLES[:1], leading_hypothesis="The items increase."))
    assert game.outcome().metrics["reduction"] == [0.0] * 4


def test_a_repeated_list_rules_out_nothing_new() -> None:
    tested = [((1, 2, 3), True), ((3, 2, 1), False)]
    curve = reduction_curve(EXAMPLES, [tested, tested, tested[:1]])
    assert curve[0] > 0 and curve == [curve[0]] * 3
    assert curve[0] == pytest.approx(_by_definition(EXAMPLES, tested))


def test_lists_past_the_bounds_and_non_integer_lists_rule_out_nothing() -> None:
    long_list = tuple(range(MAX_ITEMS + 1))  # increasing: the rule's label is True
    assert reduction_curve(EXAMPLES, [[(long_list, True)]]) == [0.0]
    assert reduction_curve(EXAMPLES, [[(long_list[:MAX_ITEMS], True)]])[0] > 0  # within them it does
    assert reduction_curve(EXAMPLES, [[((1, MAX_ABS + 1), True)]]) == [0.0]
    assert reduction_curve(EXAMPLES, [[((1.5, 2), False), (("1", "2"), False), ((True,), False)]]) == [0.0]


def test_no_round_no_curve() -> None:
    assert reduction_curve(EXAMPLES, []) == []
    game = ListsGame(INCREASING, EXAMPLES)
    game.start()
    game.step(FinalHypothesis("The items increase."))
    assert game.outcome().metrics["reduction"] == []


def test_the_text_environment_pays_the_win_and_the_last_share() -> None:
    env = make("lists", shaping={"information": 1.0})
    try:
        env.reset(seed=0)
        player = ListSolverPlayer(seed=0)
        total, terminated, info = 0.0, False, {}
        while not terminated:
            move = asyncio.run(player.act(env.env.observation))
            assert isinstance(move.action, TestRound | FinalHypothesis | PredicateAnswer | QuizAnswer)
            _, reward, terminated, truncated, info = env.step(write_action(move.action))
            assert not truncated
            total += reward
        curve = info["metrics"]["reduction"]
        assert info["success"] is True and curve[-1] >= 0.99
        assert total == pytest.approx(1.0 + curve[-1])
        assert info["reward_components"] == pytest.approx({"win": 1.0, "information": curve[-1]})
    finally:
        env.close()
