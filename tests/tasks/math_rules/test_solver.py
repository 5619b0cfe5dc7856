"""The reference solver: version-space elimination over the sequence grammar wins at every level."""

from __future__ import annotations

import asyncio
import random

import pytest

from wason.core.family import EpisodeContext
from wason.metrics.rates import wilson_interval
from wason.tasks.math_rules.family import FAMILY, PUBLISHED_MAX_TURNS, MathRunConfig
from wason.tasks.math_rules.game import MathConfig, MathGame, MathObservation
from wason.tasks.math_rules.rules import MathRule, Op, draw_sequences, sequence
from wason.tasks.math_rules.solver import MathSolverPlayer, VersionSpace, solver_ops


def play(level: str, seed: int) -> bool:
    config = MathRunConfig(level=level, n=1, seed=seed, player="solver")
    ((_, item),) = config.items()
    game = FAMILY.game(config, item, EpisodeContext())
    player = FAMILY.solver(config, item)
    obs = game.start()
    while not game.done:
        obs = game.step(asyncio.run(player.act(obs)).action)
    out = game.outcome()
    assert out.metrics["judges"]["expression"] == out.success
    return out.success


@pytest.mark.parametrize("level", ["L1", "L2", "L3"])
def test_the_solver_wins_a_sample_of_games(level: str) -> None:
    wins = sum(play(level, seed) for seed in range(200))
    assert wins / 200 >= 0.95, f"{level}: {wins}/200"


@pytest.mark.slow
@pytest.mark.parametrize("level", ["L1", "L2", "L3"])
def test_the_solver_wins_at_least_95_percent_of_1000_games(level: str) -> None:
    wins = sum(play(level, seed) for seed in range(1000, 2000))
    low, _ = wilson_interval(wins, 1000)
    assert low >= 0.95, f"{level}: {wins}/1000"


def test_the_version_space_covers_every_levels_grammar() -> None:
    from wason.tasks.math_rules.rules import OPERATIONS

    ops = set(solver_ops())
    assert all(Op(kind, c) in ops for level in OPERATIONS.values() for kind, cs in level.items() for c in cs)  # type: ignore[arg-type]


def test_one_sequence_can_leave_rules_that_differ_and_more_resolve_them() -> None:
    rule = MathRule(Op("mul", 2), Op("mul", 2))
    space = VersionSpace("L1")
    space.observe([[0] * 15])  # only zeros: every multiplication fits
    assert not space.resolved() and space.size > 1
    space.observe([sequence(rule, 3)])
    assert space.resolved() and space.best() == rule


def test_the_solver_asks_for_more_until_resolved_then_guesses() -> None:
    rule = MathRule(Op("add", 2), Op("mul", 3))
    player = MathSolverPlayer("L3", 20)
    obs = MathObservation(kind="start", turn=0, turns_left=20, sequences=((0, 2, 6),))
    move = asyncio.run(player.act(obs))
    assert type(move.action).__name__ == "More"
    seqs = tuple(tuple(s) for s in draw_sequences(rule, "L3", random.Random(1), 5))
    move = asyncio.run(player.act(MathObservation(kind="examples", turn=1, turns_left=19, sequences=seqs)))
    assert type(move.action).__name__ == "Guess" and move.action.expression == rule.expression()


def test_a_rule_outside_the_space_ends_in_a_lost_game_not_an_error() -> None:
    rule = MathRule(Op("add", 25), Op("add", 25))  # beyond the solver's constants
    seqs = tuple(tuple(s) for s in draw_sequences(rule, "L1", random.Random(2), 5))
    game = MathGame(rule, "L1", seqs, MathConfig(max_turns=PUBLISHED_MAX_TURNS["L1"], judges=("expression",)))
    player = MathSolverPlayer("L1", 10)
    obs = game.start()
    while not game.done:
        obs = game.step(asyncio.run(player.act(obs)).action)
    assert not game.outcome().success and game.turns == 10
