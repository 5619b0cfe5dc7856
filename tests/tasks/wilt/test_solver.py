"""The ideal-scientist solver: it plays WILT through structured actions and finds the published rules."""

from __future__ import annotations

import numpy as np
import pytest

from wason.sandbox import compile_rule
from wason.tasks.wilt import FinalGuess, ProposeTest, WiltConfig, WiltGame, load_split
from wason.tasks.wilt.elimination import ALWAYS_FALSE, IdealSolver, binary_entropy, weighted_rows
from wason.tasks.wilt.judge import judge
from wason.tasks.wilt.listed_space import build_space, candidate_tests
from wason.tasks.wilt.solver_player import WiltSolverPlayer
from wason.tasks.wilt.values import parse_value


async def play(rule_text: str, player: WiltSolverPlayer | None = None) -> WiltGame:
    """One episode of the solver player against a rule, through the game's structured actions."""
    game = WiltGame(compile_rule(rule_text), WiltConfig())
    player = player or WiltSolverPlayer()
    observation = game.start()
    while not game.done:
        move = await player.act(observation)
        assert isinstance(move.action, ProposeTest | FinalGuess)
        observation = game.step(move.action)
    return game


def solved(game: WiltGame) -> bool:
    assert game.verdict is not None and game.guess is not None
    return game.verdict.equivalent


async def test_lite_split_is_solved_entirely() -> None:
    games = [await play(rule.text) for rule in load_split("lite")]
    assert [g.end_reason for g in games] == ["guess"] * 10
    assert sum(solved(g) for g in games) == 10
    assert max(len(g.tests) for g in games) <= 30


async def test_full_split_is_solved() -> None:
    games = [await play(rule.text) for rule in load_split("full")]
    failed = [(rule.key, g.guess) for rule, g in zip(load_split("full"), games, strict=True) if not solved(g)]
    assert failed == []
    # by default every test goes to finding the rule or trying to break the guess
    assert all(len(g.tests) == 30 and g.invalid_tests == 0 and g.repeats == 0 for g in games)


async def test_full_split_is_solved_stopping_when_confident() -> None:
    rules = load_split("full")
    games = [await play(rule.text, WiltSolverPlayer(falsify=False)) for rule in rules]
    failed = [(rule.key, g.guess) for rule, g in zip(rules, games, strict=True) if not solved(g)]
    assert len(failed) <= 2, failed
    assert all(len(g.tests) <= 30 and g.invalid_tests == 0 and g.repeats == 0 for g in games)
    mean_tests = np.mean([len(g.tests) for g in games])
    assert mean_tests < 20  # an ideal scientist should need far fewer than the 30 allowed


@pytest.mark.parametrize(
    "rule",
    [
        "lambda x, y, z: x > 2 and y > 2",
        "lambda x, y, z: x + z == y and x > 0",
        "lambda x, y, z: x % 3 == 0 and y % 3 == 0 and z % 3 == 0",
        "lambda x, y, z: y == 2 * x",
        "lambda x, y, z: z <= x <= y",
        "lambda x, y, z: x < y and z < 0",
        "lambda x, y, z: x ** 2 == y",
    ],
)
async def test_rules_outside_the_published_splits_are_solved(rule: str) -> None:
    game = await play(rule)
    assert game.guess is not None
    assert judge(rule, game.guess).equivalent, game.guess
    assert len(game.tests) <= 30


async def test_play_is_deterministic() -> None:
    first = await play("lambda x, y, z: x * z == y")
    second = await play("lambda x, y, z: x * z == y")
    assert first.tests == second.tests and first.guess == second.guess


async def test_player_moves_are_typed_candidates_with_metadata() -> None:
    player = WiltSolverPlayer()
    game = WiltGame(compile_rule("lambda x, y, z: x < y < z"), WiltConfig())
    move = await player.act(game.start())
    assert isinstance(move.action, ProposeTest)
    assert len(move.action.values) == 3 and all(isinstance(parse_value(v), float) for v in move.action.values)
    assert move.meta["remaining_hypotheses"] == len(build_space(0))
    assert move.meta["information_bits"] > 0.9  # the first test splits the prior nearly in half
    observation = game.step(move.action)
    move = await player.act(observation)
    assert move.meta["remaining_hypotheses"] < len(build_space(0))


async def test_player_guesses_when_the_game_forces_it() -> None:
    game = WiltGame(compile_rule("lambda x, y, z: x < y < z"), WiltConfig(max_tests=3))
    player = WiltSolverPlayer()
    observation = game.start()
    moves = []
    while not game.done:
        move = await player.act(observation)
        moves.append(move.action)
        observation = game.step(move.action)
    assert [type(a) for a in moves] == [ProposeTest] * 3 + [FinalGuess]
    assert game.end_reason == "guess"


def test_solver_eliminates_exactly_the_inconsistent_hypotheses() -> None:
    space = build_space(0)
    points, _ = candidate_tests(0)
    solver = IdealSolver(space, points)
    table = space.evaluate(points)
    consistent = np.ones(len(space), dtype=bool)
    for point in ([1, 2, 3], [3, 2, 1], [0, 0, 0], [2.5, 2.5, 7]):
        result = 1 <= point[0] < point[1]  # some rule; only the observations matter
        solver.observe(point, result)
        column = space.evaluate(np.array([point], dtype=np.float64))[:, 0]
        consistent &= column == result
    assert solver.remaining_hypotheses == int(consistent.sum())
    survivors = solver.survivors()
    assert [space.hypotheses.index(h) for h, _ in survivors] == np.flatnonzero(consistent).tolist()
    assert sum(share for _, share in survivors) == pytest.approx(1.0)
    assert solver.consistent
    top, share = solver.posterior_top()
    assert consistent[space.hypotheses.index(top)]
    alive_prior = space.prior[consistent]
    assert share == pytest.approx(alive_prior.max() / alive_prior.sum())
    # the information of each candidate is the entropy of the surviving weight that says True there
    p = (space.prior[consistent] @ table[consistent].astype(float)) / alive_prior.sum()
    info = solver.information()
    tested = info < 0
    assert np.allclose(info[~tested], binary_entropy(p)[~tested])
    assert tested.sum() == 3  # (2.5, 2.5, 7) is not a candidate: observed, but nothing to mark


def test_next_test_never_repeats_and_stops_at_the_budget() -> None:
    space = build_space(0)
    points, _ = candidate_tests(0)
    rule = compile_rule("lambda x, y, z: (x * 7 + y) % 13 == z % 5")  # outside the space
    solver = IdealSolver(space, points, max_tests=12)
    chosen = []
    while not solver.should_guess():
        index = solver.next_test()
        assert index is not None
        chosen.append(index)
        solver.observe(points[index], rule(*points[index]))
    assert len(chosen) == len(set(chosen)) == solver.tests_used <= 12


def test_fallback_when_no_hypothesis_is_consistent() -> None:
    space = build_space(0)
    points, _ = candidate_tests(0)
    solver = IdealSolver(space, points)
    # (1, 2, 3) answered both ways: no rule at all is consistent with these observations
    observations = [
        ([1, 2, 3], True),
        ([1, 2, 3], False),
        ([0, 1, 5], True),
        ([3, 2, 1], False),
        ([7, 7, 7], False),
    ]
    for point, result in observations:
        solver.observe(point, result)
    assert not solver.consistent and solver.remaining_hypotheses > 0
    # the guess disagrees with as few observations as any hypothesis of the space or a constant does
    observed = np.array([p for p, _ in observations], dtype=np.float64)
    results = np.array([r for _, r in observations])
    fewest = min(
        int((space.evaluate(observed) != results).sum(axis=1).min()),
        int(results.sum()),
        int((~results).sum()),
    )
    guess = compile_rule(solver.guess())
    assert int((guess.evaluate(observed) != results).sum()) == fewest
    assert solver.should_guess() or solver.next_test() is not None


def test_fallback_guesses_a_constant_when_it_fits_better() -> None:
    space = build_space(0)
    points, _ = candidate_tests(0)
    table = space.evaluate(points)
    # False at every candidate, True at one point q: the constant False then misses one observation, and every
    # hypothesis at least two (each is True at some candidate; those True at only one are False at q)
    rare = table.sum(axis=1) <= 1
    probes = np.array([[12, 3, -1], [19, 8, -4], [-8, 3, -4], [40, -7, 13]], dtype=np.float64)
    q = probes[int(np.flatnonzero(~space.evaluate(probes)[rare].any(axis=0))[0])]
    solver = IdealSolver(space, points)
    for point in points:
        solver.observe(point, False)
    solver.observe(q, True)
    assert not solver.consistent
    assert solver.guess() == ALWAYS_FALSE


def test_answers_off_the_candidates_counted_later_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # off-candidate answers are counted for the survivors at once and for the rest only when the survivors all
    # disagree with something: every state must be the one of counting them all at once
    space = build_space(0)
    points, _ = candidate_tests(0)
    answers = np.random.default_rng(5).random(16) < 0.4  # no rule: the survivors run out
    off = [(1.5, 2.25, 3.5), (7.5, 3.25, -1.5), (0.5, 0.5, 0.5), (-6.5, -4.25, 3.5), (9.5, 2.5, 0.25)]
    states, deferred = [], []
    for defer in (8, 10**9):  # 10**9: never deferred
        monkeypatch.setattr("wason.tasks.wilt.elimination._DEFER_BELOW", defer)
        solver = IdealSolver(space, points)
        trace, most = [], 0
        for k, answer in enumerate(answers.tolist()):
            if k % 3 == 2 and k // 3 < len(off):
                point = off[k // 3]
            else:
                index = solver.next_test()
                if index is None:  # nothing tells the survivors apart: any untested candidate
                    index = int(np.flatnonzero(~solver._tested)[0])
                point = tuple(float(v) for v in points[index])
            solver.observe(point, answer)
            most = max(most, len(solver._deferred))
            trace.append((point, solver.consistent, solver._alive.tolist(), solver.guess()))
            trace.append(solver.information().tolist())
        solver._count_deferred()
        states.append((trace, solver._mismatches.tolist()))
        deferred.append(most)
    assert states[0] == states[1]
    assert deferred[0] > 0 and deferred[1] == 0
    # the survivors did run out on the way (so deferred answers were counted when they were needed)
    assert not all(consistent for _, consistent, _, _ in states[0][0][::2])


def test_observe_rejects_a_point_without_three_values() -> None:
    solver = IdealSolver(build_space(0), candidate_tests(0)[0])
    with pytest.raises(ValueError):
        solver.observe([1.0, 2.0], True)


def test_the_true_weight_read_late_or_shared_is_the_survivors_sum() -> None:
    # the surviving True weight is brought up to date only when the search reads it, and the first answers'
    # states are shared by every solver of the table: every read must equal summing the survivors afresh
    space = build_space(0)
    points, _ = candidate_tests(0)
    answers = np.random.default_rng(11).random(14) < 0.45
    eager, lazy = IdealSolver(space, points), IdealSolver(space, points)
    for k, answer in enumerate(answers.tolist()):
        index = eager.next_test()  # the eager solver reads the weight at every test
        if index is None:
            index = int(np.flatnonzero(~eager._tested)[0])
        point = tuple(float(v) for v in points[index])
        for solver in (eager, lazy):
            solver.observe(point, answer)
        if k % 4 == 3:  # the lazy one only now and then
            assert np.array_equal(lazy._true(), eager._true())
            assert np.array_equal(lazy.information(), eager.information())
        if k == 5:
            twin = lazy.copy()
        fresh = eager._table.weighted(eager._alive)
        assert np.array_equal(eager._true(), fresh)
    twin.observe(eager.history[6][0], eager.history[6][1])
    assert np.array_equal(twin._true(), eager._table.weighted(twin._alive))
    # the first answer eliminated many hypotheses, so its state is kept for every later solver of the table
    kept = eager._table.true_after(eager.history[:1])
    assert kept is not None and not kept.flags.writeable
    again = IdealSolver(space, points)
    again.observe(*eager.history[0])
    assert again._true() is kept


@pytest.mark.parametrize("n_rows", [5, 127, 128, 700, 2048, 2049, 5000])
def test_weighted_sums_equal_the_sum_of_products_at_every_size(n_rows: int) -> None:
    # under _COUNTED_FROM rows a sum of products; from there the rows of each weight are counted first, and over
    # _BLOCK rows a block at a time: each must give exactly the sum of products in floats
    space = build_space(0)
    points, _ = candidate_tests(0)
    table = IdealSolver(space, points)._table
    rows = np.sort(np.random.default_rng(n_rows).choice(len(space), n_rows, replace=False))
    expected = table.weights[rows] @ table.rows(rows).astype(np.float64)
    assert np.array_equal(table.weighted(rows), expected)
    assert len(np.unique(table.weights[rows])) > 1 or n_rows < 10


def test_weighted_rows_of_every_row_or_some_are_the_sum_of_products() -> None:
    rng = np.random.default_rng(4)
    table = rng.random((300, 900)) < 0.4
    weights = rng.random(300) * 10.0 ** rng.integers(-9, 1, 300)
    # every row is summed from the table itself, without gathering it: the same sums to the last bit
    for rows in (np.arange(300), np.flatnonzero(rng.random(300) < 0.6)):
        expected = np.einsum("h,hc->c", weights[rows], table[rows].copy(), dtype=np.float64)
        assert np.array_equal(weighted_rows(table, rows, weights), expected)


def test_information_is_read_afresh_after_an_answer_or_an_exclusion() -> None:
    space = build_space(0)
    points, _ = candidate_tests(0)
    solver = IdealSolver(space, points)
    before = solver.information()
    assert not before.flags.writeable and solver.information() is before  # kept between answers
    index = int(np.argmax(before))
    solver.exclude(index)
    assert solver.information()[index] == -1.0
    solver.observe(tuple(float(v) for v in points[0]), True)
    after = solver.information()
    expected = binary_entropy(solver._true() / solver._total)
    expected[solver._tested] = -1.0
    assert np.array_equal(after, expected) and not np.array_equal(after, before)


def test_binary_entropy_is_none_at_certainty_and_one_bit_at_even_odds() -> None:
    assert float(binary_entropy(0.5)) == 1.0 and float(binary_entropy(0.0)) == 0.0  # a number as well
    h = binary_entropy(np.array([0.0, 1.0, 0.5, 0.25, 1.0 + 1e-16, -1e-16]))
    assert h.tolist()[:3] == [0.0, 0.0, 1.0] and not np.signbit(h).any() and np.isfinite(h).all()
    assert h[3] == pytest.approx(0.8112781244591328)
