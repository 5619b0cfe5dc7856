"""docs/examples/zendo.py, the Zendo-like family written from docs/families.md alone, on every surface: the
contract, the solver, the terminal, sessions, the text environment and Inspect."""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from wason.cli import main
from wason.core import registry
from wason.store import Store
from wason.testing import check_family

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "docs" / "examples" / "zendo.py"


@pytest.fixture
def zendo() -> Iterator[Any]:
    family = registry.load_target(str(FILE))
    yield sys.modules["zendo"]
    registry.unregister(family.name)


def test_the_family_passes_the_contract(zendo: Any) -> None:
    report = check_family(zendo.FAMILY, target="zendo:FAMILY")
    assert "leaks: nothing read before the end names the hidden item" in report.passed


def test_the_solver_finds_every_rule_of_the_menu_within_the_tests(zendo: Any) -> None:
    config = zendo.ZendoConfig()
    for rule in range(1, len(zendo.MENU) + 1):
        game, solver = zendo.ZendoGame(rule, config.max_tests), zendo.ZendoSolver()
        seen = game.start()
        while not game.done:
            seen = game.step(asyncio.run(solver.act(seen)).action)
        assert game.outcome().success, zendo.MENU[rule - 1]


def test_a_person_plays_it_at_the_terminal(
    zendo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'z.db'}"
    monkeypatch.setattr("sys.stdin", io.StringIO("test red circle, red circle\ntest purple\nguess 2\n"))
    assert main(["play", "zendo", "--db", db, "--name", "ada", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "row: 1 to 6 pieces such as 'red circle, blue square'. Nothing was played." in out
    rule = Store(db).list_episodes(1)[0].item["rule"]
    follows = zendo.RULES[zendo.MENU[rule - 1]]((("red", "circle"), ("red", "circle")))
    assert f"That row {'follows' if follows else 'breaks'} the rule. Tests left: 9." in out
    assert out.rstrip().endswith("Correct!\nYou won." if rule == 2 else "Wrong.\nGame over: not won.")


def test_a_session_takes_a_model_s_text_and_the_environment_and_inspect_play_it(
    zendo: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path / 'z.db'}"
    assert main(["session", "start", "zendo", "--db", db]) == 0
    capsys.readouterr()
    assert main(["session", "step", "1", "--text", "TEST green square", "--db", db]) == 0
    assert "follows" in capsys.readouterr().out

    from wason.env import make

    env = make("zendo")
    prompt, _ = env.reset(seed=0)
    assert "1. has a red piece" in prompt
    observation, reward, terminated, _, _ = env.step("TEST blue triangle")
    assert "Tests left: 9" in observation and reward == 0.0 and not terminated
    env.close()

    from inspect_ai import eval as inspect_eval

    from wason.inspect._registry import family_task

    with FakeOpenAIServer(reply=lambda messages, body: "TEST red circle\n") as server:
        monkeypatch.setenv("FAKE_BASE_URL", server.base_url)
        monkeypatch.setenv("FAKE_API_KEY", "k")
        task = family_task("zendo", {"n": 2, "max_tests": 2})
        logs = inspect_eval(task, model="openai-api/fake/fake-model", log_dir=str(tmp_path), display="none")
        asked = len(server.bodies)
    assert logs[0].status == "success" and len(logs[0].samples or []) == 2
    assert asked == 2 * 3  # each game: two tests, then the reply after them ends it (no guess)
    verdicts = [s.scores["verdict"] for s in logs[0].samples or [] if s.scores]
    assert [(v.value, v.metadata["turns"] if v.metadata else None) for v in verdicts] == [("I", 3), ("I", 3)]
