"""The single-variable protocol (the reference's ``instruction_single.txt``): one whole number from 1 to 100,
5 tests, a ``lambda x`` guess judged on the whole domain, our one-variable rules, the solver and a model's run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.conftest import FakeModel
from tests.reference import reference
from wason.cli import main
from wason.core.game import Malformed
from wason.engine import create_run, execute_run, llm_player_factory
from wason.models.base import ChatMessage
from wason.models.client import ModelClient, RetryPolicy
from wason.sandbox import GuessRejected
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig
from wason.tasks.wilt.family import FAMILY
from wason.tasks.wilt.game import ProposeTest, WiltConfig, WiltGame, WiltObservation
from wason.tasks.wilt.protocol import (
    FORMAT_COMPLAINT,
    WiltProtocol,
    load_instruction,
    parse_reply,
    render_feedback,
)
from wason.tasks.wilt.single import (
    SINGLE_RULES,
    SingleSolver,
    compile_single,
    domain_points,
    judge_single,
    lift,
)
from wason.tasks.wilt.solver_player import SingleSolverPlayer


def test_the_prompt_is_the_references_byte_for_byte() -> None:
    assert load_instruction("single") == reference("wilt", "instruction_single.txt").read_text(
        encoding="utf-8"
    )
    config = WiltRunConfig(protocol="single")
    assert (config.split, config.max_tests) == ("single", 5)  # the prompt's own budget and our rules
    assert FAMILY.protocol(config, FAMILY.items(config)[0][1]).system_prompt() == load_instruction("single")


def test_a_one_argument_guess_is_lifted_and_judged_on_every_number() -> None:
    assert lift("lambda x: x > 50") == "lambda x, y_unused, z_unused: x > 50"
    rule = compile_single("lambda x: x > 50")
    assert judge_single(rule, "lambda x: x >= 51").equivalent  # the same on 1..100
    near = judge_single(rule, "lambda x: x > 49")
    assert not near.equivalent and near.n_disagree == 1 and near.n_probes == 100
    assert near.counterexamples[0][0] == (50.0, 0.0, 0.0)
    for bad, reason in (
        ("lambda x, y: x", "exactly one plain parameter"),
        ("x > 3", "a lambda of one parameter"),
        ("lambda x: y_unused > 1", "reserved"),
        ("lambda x: __import__('os')", ""),
    ):
        verdict = judge_single(rule, bad)
        assert not verdict.accepted and reason in (verdict.rejection or "")
    with pytest.raises(GuessRejected):
        compile_single("lambda x: x +")


def test_every_rule_is_one_variable_and_not_trivial_on_the_domain() -> None:
    assert len(SINGLE_RULES) == 12 and len({r.rule for r in SINGLE_RULES}) == 12
    for r in SINGLE_RULES:
        truth = compile_single(r.rule).evaluate(domain_points())
        assert 0 < int(truth.sum()) < 100, r.rule


@pytest.mark.parametrize(
    ("reply", "valid"),
    [
        ("Test Case: ```(42)```", True),
        ("I will probe the top.\n**Test Case:** ```(100)```", True),
        ("Final Guess is not yet possible.\nTest Case: `(1)`", True),
        ("Test Case: ```(+7)```", True),
        ("Test Case: ```(42.0)```", True),  # a whole number, written as a float
        ("Test Case: ```(4, 2)```", False),
        ("Test Case: ```(5,)```", False),
        ("Test Case: ```()```", False),
        ("Test Case: ```(0)```", False),
        ("Test Case: ```(-5)```", False),
        ("Test Case: ```(5.5)```", False),
        ("Test Case: ```(101)```", False),
        ("Test Case: ```(1e2)```", True),  # 100, as in the published game the value counts, not its spelling
        ("Test Case: ```(nan)```", False),
        ("Test Case: ```(inf)```", False),
        ("Test Case: ```(x)```", False),
        ("Test Case: ```(__import__('os'))```", False),
    ],
)
def test_a_test_is_one_whole_number_from_1_to_100(reply: str, valid: bool) -> None:
    game = WiltGame(compile_single("lambda x: x > 50"), WiltRunConfig(protocol="single").game_config())
    game.start()
    action = parse_reply(reply)
    assert isinstance(action, ProposeTest)
    seen = game.step(action)
    assert (seen.kind == "result") is valid
    if not valid:
        assert game.invalid_tests == 1


@pytest.mark.parametrize(
    "reply",
    [
        "Test Case: ```42```",  # the prompt asks for (x): a bare number is no test
        "Test Case: 42",
        "I would test 42 next.",
        "Test Case: ```(42",
        "",
    ],
)
def test_a_reply_without_the_prompts_test_form_is_a_format_error(reply: str) -> None:
    action = parse_reply(reply)
    assert isinstance(action, Malformed) and action.reason
    game = WiltGame(compile_single("lambda x: x > 50"), WiltRunConfig(protocol="single").game_config())
    game.start()
    seen = game.step(action)
    assert seen.kind == "format_error" and game.format_errors == 1 and not game.tests and seen.remaining == 4


def test_the_harness_speaks_of_one_number() -> None:
    protocol = FAMILY.protocol(WiltRunConfig(protocol="single"), {})
    complaint = protocol.feedback(WiltObservation(kind="format_error", remaining=5, reason="x"))
    assert "'Test Case: ```(1)```' or 'Final Guess: ```lambda x: x```'" in complaint
    assert complaint == FORMAT_COMPLAINT.replace("```(0,0,0)```", "```(1)```") != FORMAT_COMPLAINT
    game = WiltGame(compile_single("lambda x: x > 50"), WiltRunConfig(protocol="single").game_config())
    game.start()
    invalid = protocol.feedback(game.step(ProposeTest(("5.5",))))
    assert invalid == (
        "Invalid test case: 5.5 is not a whole number from 1 to 100. Each value must be a whole number from 1 "
        "to 100. This used one attempt. Attempts Remaining: 4"
    )
    # the Bayesian prompt's tests are whole numbers too; the published game keeps the digits rule
    bayesian = WiltProtocol(load_instruction("bayesian"), whole_1_100=True)
    observation = WiltObservation(
        kind="invalid_test", remaining=3, reason="0 is not a whole number from 1 to 100"
    )
    assert "Each value must be a whole number from 1 to 100." in bayesian.feedback(observation)
    assert "3 or fewer digits" in render_feedback(observation)


def test_the_game_needs_its_domain() -> None:
    with pytest.raises(ValueError, match="integer_range"):
        WiltConfig(arity=1)


def _solve(rule_text: str, budget: int) -> WiltGame:
    rule = compile_single(rule_text)
    game = WiltGame(rule, WiltRunConfig(protocol="single", max_tests=budget).game_config())
    player = SingleSolverPlayer(max_tests=budget)
    seen = game.start()
    while not game.done:
        seen = game.step(asyncio.run(player.act(seen)).action)
    return game


def test_the_solver_tests_five_times_and_guesses_what_the_evidence_allows() -> None:
    for r in SINGLE_RULES:
        game = _solve(r.rule, 5)
        assert len(game.tests) == 5 and game.invalid_tests == 0 and game.repeats == 0
        assert game.guess is not None and game.verdict is not None and game.verdict.accepted
        guess = compile_single(game.guess)
        # an ideal scientist never guesses against its own evidence
        assert all(guess(x, 0.0, 0.0) == result for (x, _, _), result in game.tests), r.rule


def test_the_solver_finds_every_single_rule_when_the_evidence_allows() -> None:
    # 5 results are at most 32 outcomes; with 15 tests every one of our rules is found exactly
    for r in SINGLE_RULES:
        game = _solve(r.rule, 15)
        assert game.verdict is not None and game.verdict.equivalent, (r.rule, game.guess)
        assert len(game.tests) <= 15 and game.invalid_tests == 0 and game.repeats == 0


def test_the_solver_space_holds_every_kind_of_our_rules() -> None:
    solver = SingleSolver()
    tables = {row.tobytes() for row in solver.truth}
    for r in SINGLE_RULES:
        truth = compile_single(r.rule).evaluate(domain_points())
        assert truth.tobytes() in tables, r.rule
    # every text of the space is a lambda the guess language reads, with the truth table it is stored with
    for index in range(0, len(solver.texts), 97):
        truth = compile_single(solver.texts[index]).evaluate(domain_points())
        assert (truth == solver.truth[index]).all(), solver.texts[index]


def test_a_rule_of_no_known_kind_is_tested_out_and_stated_as_a_set() -> None:
    game = _solve("lambda x: x in (3, 50, 77, 78)", 100)
    assert game.verdict is not None and game.verdict.equivalent
    assert game.guess is not None and game.guess.startswith("lambda x: x in (")
    assert len(game.tests) <= 100 and game.repeats == 0


def _tester(messages: list[ChatMessage]) -> str:
    turn = sum(m.role == "assistant" for m in messages)
    if turn < 5:
        return f"Probe the middle.\nTest Case: ```({10 + 20 * turn})```"
    return "Final Guess: ```lambda x: x > 50```"


def test_a_model_plays_the_single_protocol(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    store = Store(db)
    config = WiltRunConfig(model="fake:one", protocol="single", ids=[1, 2])
    rid = create_run(store, config, FAMILY.items(config))
    model = FakeModel(reply=_tester, spec="fake:one")
    client = ModelClient(model=model, store=store, policy=RetryPolicy(retries=0, base_delay=0.0))
    asyncio.run(execute_run(store, rid, llm_player_factory(client, config, rid), concurrency=1))
    first, second = store.list_episodes(rid)
    assert first.metrics is not None and first.metrics["correct"] is True and first.metrics["tests"] == 5
    assert second.metrics is not None and second.metrics["correct"] is False
    assert first.metrics["history"][0] == [[10.0], False] and first.metrics["arity"] == 1
    turns = store.list_turns(first.id)
    assert turns[0]["feedback"] == "Result for input (10.0): False. Attempts Remaining: 4"
    assert main(["show", str(rid), "--json", "--db", db]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["table"]["accuracy"]["k"] == 1 and report["table"]["accuracy"]["n"] == 2
    assert main(["show", str(rid), "--db", db]) == 0
    assert "instruction_single.txt" in capsys.readouterr().out


def test_the_solver_run_and_bad_combinations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'v.db'}"
    assert main(["eval", "wilt", "--protocol", "single", "--player", "solver", "--json", "--db", db]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["table"]["accuracy"]["n"] == 12 and report["table"]["invalid_tests"] == 0
    argv = ["eval", "wilt", "--protocol", "single", "--player", "solver", "--max-tests", "15", "--json"]
    assert main([*argv, "--db", db]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["table"]["accuracy"]["k"] == 12 and report["table"]["accuracy"]["n"] == 12
    assert "15 tests then one lambda x guess" in report["protocol"]
    for argv, message in (
        (["--protocol", "single", "--split", "full"], "--protocol single plays the one-variable rules"),
        (["--split", "single"], "--protocol single plays the one-variable rules"),
        (["--protocol", "single", "--ids", "13"], "no 13"),
    ):
        assert main(["eval", "wilt", *argv, "--player", "solver", "--db", db]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err


def test_constrained_single_replies_are_one_number_or_a_lambda_of_x() -> None:
    fmt = FAMILY.protocol(WiltRunConfig(protocol="single"), {}).reply_format(None)  # type: ignore[attr-defined]
    assert 'test ::= "Test Case: ```(" num ")```"' in fmt.grammar
    assert 'guess ::= "Final Guess: ```lambda x: " expr "```"' in fmt.grammar
    assert 'var ::= "x"\n' in fmt.grammar and 'num ::= [1-9] | [1-9] [0-9] | "100"' in fmt.grammar


def test_a_person_plays_it_at_the_terminal_and_on_the_web() -> None:
    from wason.core.family import PlayIO

    lines = iter(["1 2", "42", "guess x > 50"])
    shown: list[str] = []
    config = WiltRunConfig(protocol="single", max_tests=5)
    player = FAMILY.human(config, FAMILY.items(config)[0][1], PlayIO(lambda _: next(lines), shown.append))
    assert player is not None
    game = WiltGame(compile_single("lambda x: x > 50"), config.game_config())
    seen = game.start()
    while not game.done:
        seen = game.step(asyncio.run(player.act(seen)).action)
    assert "one whole number x from 1 to 100" in shown[0]
    assert "'1 2' is not a move here; type 42, guess EXPR" in shown[2]  # asked again, not counted
    assert any(line.startswith("Result for input (42.0): False.") for line in shown)
    assert game.guess == "lambda x: x > 50" and game.verdict is not None and game.verdict.equivalent

    item = FAMILY.items(config)[0][1]
    form = FAMILY.web_form(config, item, game.start(), 0)
    (test, guess) = form.moves
    assert [f.name for f in test.fields] == ["x"] and "1 to 100" in test.hint
    assert guess.fields[0].placeholder == "x > 50"
    assert FAMILY.web_move(config, item, None, "test", {"x": "7"}) == {
        "type": "ProposeTest",
        "values": ("7",),
    }
    assert FAMILY.web_move(config, item, None, "guess", {"expression": "x % 2 == 0"})["expression"] == (
        "lambda x: x % 2 == 0"
    )


def test_our_rules_are_data_that_says_it_is_ours() -> None:
    from importlib import resources

    raw = json.loads((resources.files("wason.tasks.wilt") / "data" / "single_rules.json").read_text("utf-8"))
    assert "not published" in raw["source"] and "ours" in raw["source"]
    assert [(r.id, r.rule, r.kind) for r in SINGLE_RULES] == [
        (r["id"], r["rule"], r["kind"]) for r in raw["rules"]
    ]
    assert [r.id for r in SINGLE_RULES] == list(range(1, len(SINGLE_RULES) + 1))
    kinds = " ".join(r.kind for r in SINGLE_RULES)
    for kind in ("comparison", "parity", "multiple", "range", "square", "disjunction"):
        assert kind in kinds
