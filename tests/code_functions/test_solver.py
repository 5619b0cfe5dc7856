"""The reference solver: version-space elimination over the word grammar."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from wason.tasks.code_functions.game import CodeFunctionsGame, GameSettings, Observation
from wason.tasks.code_functions.grammar import ATOM_INDEX, LEVELS, Rule, combine, extension, generate_rules
from wason.tasks.code_functions.judge import rule_truth
from wason.tasks.code_functions.solver import SHAPE_CODES, CodeFunctionsSolver, VersionSpace, hypotheses


def play(rule: Rule, seed: int, max_turns: int | None = 7) -> CodeFunctionsGame:
    game = CodeFunctionsGame(rule, rule_truth(rule), GameSettings(seed=seed, max_turns=max_turns))
    solver = CodeFunctionsSolver(rule.level)
    obs: Observation = game.start()
    while not game.done:
        obs = game.step(asyncio.run(solver.act(obs)).action)
    return game


@pytest.mark.parametrize("level", LEVELS)
def test_every_generated_rule_is_a_hypothesis_of_its_level(level: str) -> None:
    shapes, atoms = hypotheses(level)
    table = {
        (int(s), tuple(sorted(int(a) for a in row if a >= 0))) for s, row in zip(shapes, atoms, strict=True)
    }
    for rule in generate_rules(level, 11, 10):
        code = SHAPE_CODES.index(rule.shape or "")
        ids = [ATOM_INDEX[a] for a in rule.atoms]
        if rule.shape in ("and_or", "or_and"):  # C is kept apart from the unordered pair {A, B}
            matches = [
                (s, row)
                for s, row in zip(shapes, atoms, strict=True)
                if int(s) == code and {int(row[0]), int(row[1])} == set(ids[:2]) and int(row[2]) == ids[2]
            ]
            assert matches, rule.key
        else:
            assert (code, tuple(sorted(ids))) in table, rule.key


def test_the_space_sizes() -> None:
    assert [len(hypotheses(level)[0]) for level in LEVELS] == [94, 7940, 801442]
    assert len(hypotheses("any")[0]) == 94 + 7940 + 801442  # the space for rules from outside the grammar


def test_observing_words_keeps_only_consistent_hypotheses() -> None:
    rule = generate_rules("L2", 3, 1)[0]
    truth = extension(rule)
    space = VersionSpace("L2")
    for i in range(0, len(truth), 37):
        space.observe(i, bool(truth[i]))
    table = space.table
    exact = 0
    for k in range(len(space)):
        shape = SHAPE_CODES[int(space.shape[k])]
        values = combine(shape, [table[int(a)] if a >= 0 else None for a in space.atoms[k]])
        assert np.array_equal(values[::37], truth[::37])
        exact += bool(np.array_equal(values, truth))
    assert exact >= 1  # the hidden rule (or a synonym) survives
    classes = space.classes()
    assert classes and sum(len(c) for c in classes) == len(space)


@pytest.mark.parametrize(("level", "n"), [("L1", 3), ("L2", 3), ("L3", 2)])
def test_the_solver_wins_generated_games(level: str, n: int) -> None:
    for k, rule in enumerate(generate_rules(level, 21, n)):
        game = play(rule, k)
        out = game.outcome()
        assert out.success, (rule.key, out.metrics["final_predicate"])
        assert out.metrics["turns"] <= 7 and out.metrics["quiz_accuracy"] == 1.0


def test_a_rule_outside_the_grammar_is_not_won_by_luck() -> None:
    rule = Rule(key="x", level="L1", text="third letter is r", source="lambda w: w[2] == 'r'")
    game = play(rule, 0)
    out = game.outcome()
    assert not out.success and out.metrics["status"] == "lost"
