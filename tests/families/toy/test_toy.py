"""The toy family's own tests: the family contract (``wason.testing.check_family``), its parser under hostile
replies, its game's rules, its solver, its items, and that registering it is all ``wason eval``, ``wason show``
and ``wason play`` need."""

from __future__ import annotations

import ast
import asyncio
import builtins
import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.families.toy import (
    FAMILY,
    HIGH,
    LOW,
    Guess,
    Probe,
    ToyGame,
    ToyObservation,
    ToyProtocol,
    ToyRunConfig,
    ToySolver,
)
from wason.cli import main
from wason.core import registry
from wason.core.family import EpisodeContext
from wason.core.game import Malformed, Outcome
from wason.testing import check_family


@pytest.fixture
def toy() -> Iterator[None]:
    registry.register(FAMILY)
    yield
    registry.unregister(FAMILY.name)


def play(game: ToyGame, solver: ToySolver) -> Outcome:
    async def go() -> None:
        observation = game.start()
        while not game.done:
            observation = game.step((await solver.act(observation)).action)

    asyncio.run(go())
    return game.outcome()


# -- the protocol ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("PROBE 17", Probe(17)),
        ("guess 42", Guess(42)),
        ("Halving the range.\n\n  Probe 50  \n", Probe(50)),
        ("PROBE -3", Probe(-3)),
        ("Windows line ends.\r\nGUESS 9\r\n", Guess(9)),
    ],
)
def test_parser_reads_one_command_on_its_own_line(reply: str, expected: object) -> None:
    assert ToyProtocol(10).parse(reply) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "   \n\t",
        "PROBE",
        "PROBE seventeen",
        "PROBE 17.5",
        "PROBE 1e3",
        "PROBE 0x10",
        "PROBE ١٧",  # Arabic-Indic digits: \d would take them
        "PROBE 9999999999999999999999999",  # int() of a huge string is slow; it is refused before
        "I will PROBE 17 now",
        "PROBE 3\nGUESS 4",
        "GUESS 4\nGUESS 4",
        "PROBE\u00a017",
        "```\nPROBE 17; import os\n```",
        "x" * 200_000,
    ],
)
def test_parser_turns_hostile_replies_into_malformed(reply: str) -> None:
    parsed = ToyProtocol(10).parse(reply)
    assert isinstance(parsed, Malformed) and "PROBE x" in parsed.reason


def test_system_prompt_states_the_limits_and_the_commands() -> None:
    prompt = ToyProtocol(7).system_prompt()
    assert "up to 7 numbers" in prompt and "PROBE x" in prompt and "GUESS t" in prompt


def test_feedback_renders_every_observation_kind() -> None:
    protocol = ToyProtocol(3)
    game = ToyGame(threshold=40, max_probes=3)
    texts = [protocol.feedback(game.start())]
    texts += [protocol.feedback(game.step(a)) for a in (Probe(39), Probe(40), Malformed("no command"))]
    texts.append(protocol.feedback(game.step(Probe(1))))
    assert texts == [
        "Probes left: 3.",
        "39 >= t is False. Probes left: 2.",
        "40 >= t is True. Probes left: 1.",
        "Unreadable reply: no command. Probes left: 0.",
        "Game over: a guess was due.",
    ]


# -- the game ---------------------------------------------------------------------------------------------------
def test_probes_answer_the_rule_x_at_least_t() -> None:
    game = ToyGame(threshold=50, max_probes=10)
    game.start()
    answers = {x: game.step(Probe(x)).result for x in (-5, 49, 50, 51, 1000)}
    assert answers == {-5: False, 49: False, 50: True, 51: True, 1000: True}
    assert game.outcome().metrics["history"] == [[x, r] for x, r in answers.items()]


def test_the_guess_ends_the_game_and_is_scored() -> None:
    right, wrong = ToyGame(threshold=12, max_probes=5), ToyGame(threshold=12, max_probes=5)
    for game in (right, wrong):
        game.start()
        game.step(Probe(6))
    assert right.step(Guess(12)).correct and right.done and right.outcome().success
    assert wrong.step(Guess(13)).correct is False and wrong.done and not wrong.outcome().success
    with pytest.raises(RuntimeError):
        right.step(Guess(12))


def test_an_unreadable_move_costs_a_probe_and_is_counted() -> None:
    game = ToyGame(threshold=12, max_probes=2)
    game.start()
    observation = game.step(Malformed("no command"))
    assert observation.kind == "format_error" and observation.remaining == 1
    assert game.outcome().metrics["format_errors"] == 1 and not game.done


def test_after_the_last_probe_only_a_guess_is_accepted() -> None:
    forced = ToyGame(threshold=12, max_probes=2)
    refused = ToyGame(threshold=12, max_probes=2)
    for game in (forced, refused):
        game.start()
        game.step(Probe(1))
        assert game.step(Probe(2)).remaining == 0
    assert forced.step(Guess(12)).correct and forced.outcome().metrics["end_reason"] == "guess"
    ended = refused.step(Probe(3))
    assert ended.kind == "ended" and refused.done
    metrics = refused.outcome().metrics
    assert metrics["end_reason"] == "no_guess" and metrics["guess"] is None and metrics["probes"] == 2


def test_observations_never_carry_the_threshold() -> None:
    assert set(ToyObservation.model_fields) == {"kind", "remaining", "x", "result", "reason", "correct"}


# -- the solver ----------------------------------------------------------------------------------------------
def test_solver_finds_every_threshold_within_log2_probes() -> None:
    bound = math.ceil(math.log2(HIGH - LOW + 1))
    for t in range(LOW, HIGH + 1):
        outcome = play(ToyGame(t, max_probes=10), ToySolver())
        assert outcome.success, t
        assert outcome.metrics["probes"] <= bound, (t, outcome.metrics["probes"])


def test_solver_guesses_when_the_probes_run_out() -> None:
    outcome = play(ToyGame(100, max_probes=2), ToySolver())
    assert outcome.metrics["end_reason"] == "guess" and outcome.metrics["probes"] == 2


# -- items and configuration -----------------------------------------------------------------------------------
def test_items_are_deterministic_under_their_seed_and_record_provenance() -> None:
    config = ToyRunConfig(seed=7, n=20)
    first, again = FAMILY.items(config), FAMILY.items(ToyRunConfig(seed=7, n=20))
    assert first == again
    assert FAMILY.items(ToyRunConfig(seed=8, n=20)) != first
    assert len({key for key, _ in first}) == len(first)
    for _, item in first:
        assert LOW <= item["threshold"] <= HIGH
        provenance = item["provenance"]
        assert (provenance["generator"], provenance["version"], provenance["seed"]) == ("toy.threshold", 1, 7)
        assert provenance["params"] == {"n": 20, "low": LOW, "high": HIGH}
        assert FAMILY.game(config, item, EpisodeContext()).threshold == item["threshold"]


@pytest.mark.parametrize("field", ["n", "max_probes"])
def test_config_rejects_a_bad_count_naming_the_field(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        ToyRunConfig.model_validate({field: 0})


def test_family_imports_only_the_core() -> None:
    source = Path(__file__).with_name("__init__.py").read_text()
    modules = [
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    wason = {m for m in modules if m and m.split(".")[0] == "wason"}
    assert wason and all(m.startswith("wason.core.") for m in wason), wason


# -- the contract, as a plugin author proves it -------------------------------------------------------------------
def test_the_toy_honours_the_family_contract() -> None:
    report = check_family(FAMILY)
    assert not report.skipped and report.player == "solver", report


# -- nothing else needed: the CLI takes it once it is registered ---------------------------------------------------
def test_wason_eval_and_show_play_the_toy_once_registered(
    toy: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'toy.db'}"
    assert main(["eval", "toy", "--player", "solver", "--n", "4", "--seed", "3", "--db", db, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = {key: item["threshold"] for key, item in FAMILY.items(ToyRunConfig(seed=3, n=4))}
    # the default JSON report: every episode with its metrics
    assert {row["key"]: row["metrics"]["guess"] for row in report["episodes"]} == expected
    assert all(row["success"] for row in report["episodes"]) and report["player"] == "solver"

    # the default results: a row per run, the share of games won
    assert main(["show", str(report["run"]), "--db", db]) == 0
    shown = capsys.readouterr().out
    assert f"run id: {report['run']}" in shown and "Toy threshold" in shown
    assert "Success" in shown and "4/4" in shown

    # the default transcript: each move (the solver writes none: its action) and the game's answer
    assert main(["show", str(report["run"]), "--episode", "0", "--db", db]) == 0
    out = capsys.readouterr().out
    first = dict(FAMILY.items(ToyRunConfig(seed=3, n=4)))["toy-3-1"]["threshold"]
    assert '"type": "Guess"' in out and f'"t": {first}' in out and "succeeded" in out


def test_wason_play_toy_reads_a_person_at_the_terminal(
    toy: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    typed = iter(["what is this?", "PROBE 50", "GUESS 50"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(typed))
    db = f"sqlite:///{tmp_path / 'play.db'}"
    assert main(["play", "toy", "--rule", "2", "--db", db]) == 0
    out = capsys.readouterr().out
    threshold = dict(FAMILY.items(ToyRunConfig()))["toy-0-2"]["threshold"]
    assert "'what' is not a move here; type probe X, guess T or help" in out  # asked again, at no cost
    assert f"50 >= t is {threshold <= 50}" in out
    assert f"The threshold was {threshold}." in out


def test_the_toy_plays_on_the_web_page_and_by_session_with_nothing_of_its_own(
    toy: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The web play page's form and `wason session` come from the toy's declared moves; `wason show` reads the
    runs they close."""
    from fastapi.testclient import TestClient

    from wason.server import create_app
    from wason.store import Store

    db = str(tmp_path / "toy.db")
    store = Store(f"sqlite:///{db}")
    with TestClient(create_app(store), base_url="http://127.0.0.1") as web:
        started = web.post(
            "/play", data={"family": "toy", "player": "ada", "seed": "1"}, follow_redirects=False
        )
        assert started.status_code == 303, started.text[-500:]
        sid = int(started.headers["location"].rsplit("/", 1)[1])
        threshold = int(store.get_episode(sid).item["threshold"])
        page = web.get(f"/play/{sid}").text
        assert 'name="f_x"' in page and 'name="f_t"' in page and str(threshold) not in page.split("<main")[-1]
        probe = web.post(f"/play/{sid}", data={"move": "probe", "turn": "0", "f_x": "50"})
        assert probe.status_code == 200 and f"50 &gt;= t is {threshold <= 50}" in probe.text
        over = web.post(f"/play/{sid}", data={"move": "guess", "turn": "1", "f_t": str(threshold)})
        assert over.status_code == 200 and f"The threshold was {threshold}. You found it." in over.text
    web_run = store.get_episode(sid).run_id
    assert store.get_run(web_run).status == "completed" and store.get_run(web_run).player == "human:ada"

    assert main(["session", "start", "toy", "--seed", "1", "--db", db]) == 0
    started_session = json.loads(capsys.readouterr().out)["session"]
    assert main(["session", "moves", str(started_session), "--db", db]) == 0
    assert '{"type": "Probe", "x": integer}' in capsys.readouterr().out
    guess = json.dumps({"type": "Guess", "t": threshold})
    assert main(["session", "step", str(started_session), guess, "--db", db]) == 0
    capsys.readouterr()
    session_run = store.get_episode(started_session).run_id
    assert store.get_run(session_run).status == "completed"
    assert main(["show", str(session_run), "--db", db]) == 0
    assert "1/1" in capsys.readouterr().out
