"""The reference solver: version-space elimination over the word grammar, making only the moves its protocol can
express (asking for more words under ``game-api``, a guess every turn under the published protocols)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from wason.tasks.code_functions.game import CodeFunctionsGame, GameSettings, Guess, More, Observation
from wason.tasks.code_functions.grammar import (
    ATOM_INDEX,
    LEVELS,
    MIN_EFFECT,
    VOCABULARY_HIGH,
    VOCABULARY_LOW,
    Rule,
    combine,
    effect,
    extension,
    generate_rules,
)
from wason.tasks.code_functions.judge import rule_truth
from wason.tasks.code_functions.solver import (
    SHAPE_CODES,
    CodeFunctionsSolver,
    VersionSpace,
    hypotheses,
)


def play(
    rule: Rule, seed: int, max_turns: int | None = 7, *, ask_for_more: bool = True
) -> tuple[CodeFunctionsGame, list[object]]:
    """One game of the solver; the game and the solver's moves."""
    game = CodeFunctionsGame(rule, rule_truth(rule), GameSettings(seed=seed, max_turns=max_turns))
    solver = CodeFunctionsSolver(rule.level, ask_for_more=ask_for_more)
    obs: Observation = game.start()
    moves: list[object] = []
    while not game.done:
        move = asyncio.run(solver.act(obs)).action
        moves.append(move)
        obs = game.step(move)
    return game, moves


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
        game, moves = play(rule, k)
        out = game.outcome()
        assert out.success, (rule.key, out.metrics["final_predicate"])
        assert out.metrics["turns"] <= 7 and out.metrics["quiz_accuracy"] == 1.0
        assert isinstance(moves[0], More)  # the game-api protocol can ask for more, and it does


def test_a_rule_outside_the_grammar_is_not_won_by_luck() -> None:
    rule = Rule(key="x", level="L1", text="third letter is r", source="lambda w: w[2] == 'r'")
    for ask_for_more in (True, False):
        game, _ = play(rule, 0, ask_for_more=ask_for_more)
        out = game.outcome()
        assert not out.success and out.metrics["status"] == "lost"


def test_without_more_it_guesses_every_turn_and_learns_from_each_wrong_guess() -> None:
    # under the published protocols every reply is a guess: the solver asks for nothing; each wrong guess
    # (and the pair the game adds after it) removes that guess's class, so it never guesses the same twice
    played = 0
    for k, rule in enumerate(generate_rules("L1", 21, 6)):
        game, moves = play(rule, k, ask_for_more=False)
        out = game.outcome()
        guesses = [m for m in moves if isinstance(m, Guess)]
        assert not any(isinstance(m, More) for m in moves) and len(guesses) == out.metrics["turns"]
        assert len({g.predicate for g in guesses}) == len(guesses)
        verdicts = [h["verdict"] for h in out.metrics["history"]]
        assert all(not v["equivalent"] for v in verdicts[:-1])
        assert out.success, (rule.key, out.metrics["final_predicate"])  # L1 is small enough for 7 guesses
        played += len(guesses) > 1
    assert played  # some game took more than one guess


def test_a_wrong_guess_removes_exactly_the_hypotheses_that_say_what_it_said() -> None:
    space = VersionSpace("L2")
    rule = generate_rules("L2", 5, 1)[0]
    truth = extension(rule)
    for i in range(0, len(truth), 2999):
        space.observe(i, bool(truth[i]))
    before = [space.truth(i) for i in range(len(space))]
    assert 1 < len(space) < len(hypotheses("L2")[0])
    largest = space.classes()[0]  # a class of synonyms: every one of them goes
    guessed = before[largest[0]]
    same = sum(bool(np.array_equal(t, guessed)) for t in before)
    assert same == len(largest) > 1
    assert space.refute(guessed) == same and len(space) == len(before) - same
    assert not any(np.array_equal(space.truth(i), guessed) for i in range(len(space)))
    assert space.refute(guessed) == 0


def test_its_prior_is_the_generators_filters() -> None:
    # the vectorised plausibility is the generator's balance and effect filters, rule by rule
    space = VersionSpace("L3")
    table = space.table
    picks = np.linspace(0, len(space) - 1, 300).round().astype(np.intp)
    got = space.plausible(picks)
    for k, i in enumerate(picks):
        shape = SHAPE_CODES[int(space.shape[i])]
        values = [table[int(a)] for a in space.atoms[i] if a >= 0]
        fraction = float(np.asarray(combine(shape, values), dtype=bool).mean())
        want = VOCABULARY_LOW <= fraction <= VOCABULARY_HIGH and effect(shape, values) >= MIN_EFFECT
        assert bool(got[k]) == want, (shape, space.atoms[i])
    assert got.any() and not got.all()
