"""The hello-world family of docs/families.md: at most 100 lines, the docs' copy identical, every tutorial step
(moves for people, report columns) passing the contract and playing as a person plays it."""

from __future__ import annotations

import asyncio
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from wason.cli import main
from wason.core import registry
from wason.examples import hello
from wason.testing import check_family

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "families.md"
SOURCE = Path(hello.__file__)


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def test_hello_is_a_whole_family_in_at_most_100_lines() -> None:
    lines = SOURCE.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 100, f"{len(lines)} lines"
    report = check_family(hello.FAMILY, target="wason.examples.hello:FAMILY")
    assert "sessions: finished in another process equal the run" in report.passed
    assert "leaks: nothing read before the end names the hidden item" in report.passed


def test_the_docs_show_the_module_as_it_is() -> None:
    assert _blocks()[0] == SOURCE.read_text(encoding="utf-8")


def test_the_solver_wins_every_game_and_a_bad_reply_costs_a_test() -> None:
    config = hello.HelloConfig(n=40, seed=3)
    for _key, item in hello.FAMILY.items(config):
        game = hello.FAMILY.game(config, item, None)  # type: ignore[arg-type]
        protocol = hello.FAMILY.protocol(config, item)
        seen = game.start()
        assert isinstance(protocol.parse("I think TEST 4"), hello.Malformed)  # the command stands on its line
        seen = game.step(protocol.parse("no command here"))
        assert seen.tests_left == config.max_tests - 1 and "Write TEST x" in protocol.feedback(seen)
        game = hello.FAMILY.game(config, item, None)  # type: ignore[arg-type]
        seen = game.start()
        while not game.done:
            seen = game.step(asyncio.run(hello.HelloSolver().act(seen)).action)
        assert game.outcome().success


@pytest.fixture
def tutorial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The docs' tutorial steps as one module file (the last step's family as FAMILY), loaded as a user's file."""
    steps = [b for b in _blocks() if b.startswith("# tutorial:")]
    assert [b.splitlines()[0] for b in steps] == ["# tutorial: moves", "# tutorial: columns"]
    path = tmp_path / "hello_tutorial.py"
    path.write_text("\n\n".join(steps) + "\n\nFAMILY = MeasuredHello()\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield str(path)
    registry.unregister("hello")
    sys.modules.pop("hello_tutorial", None)


def test_the_tutorial_steps_pass_the_contract_and_play_at_the_terminal(
    tutorial: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    family = registry.load_target(tutorial)
    report = check_family(family, target="hello_tutorial:FAMILY")
    assert "command line: flags derived from the config" in report.passed
    db = f"sqlite:///{tmp_path / 'play.db'}"
    # the first secret of seed 0 is 8: a person tests, is refused a bad value in one line, then guesses
    assert hello.FAMILY.items(hello.HelloConfig())[0][1]["secret"] == 8
    monkeypatch.setattr("sys.stdin", io.StringIO("test 16\ntest x\nguess 8\n"))
    assert main(["play", "hello", "--rule", "0", "--db", db, "--name", "ada"]) == 0
    out = capsys.readouterr().out
    assert "16 is a multiple of k: True" in out and "x: a whole number, not 'x'. Nothing was played." in out
    assert out.rstrip().endswith("Correct!\nYou won.")  # the family's ending is the default: its last answer
    assert main(["eval", "hello", "--player", "solver", "--db", db]) == 0
    assert "Tests left" in capsys.readouterr().out
