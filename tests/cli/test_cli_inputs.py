"""Hostile and unlucky inputs get one line, not a traceback or a hang (issue 49, item 7): a file without end, a
folder that cannot be written, input nested thousands deep; and text a store cannot export (a lone surrogate)
is refused where it enters, by the game API."""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from wason.cli import main
from wason.games import GameError, Games
from wason.store import Store

DEEP_JSON = "[" * 100_000


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("wason: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def db(tmp_path: Path) -> str:
    store = f"sqlite:///{tmp_path / 'inputs.db'}"
    assert main(["eval", "wilt", "--ids", "1", "--player", "solver", "--db", store, "-q"]) == 0
    return store


def _memory_cap() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def test_checking_a_file_without_end_is_one_line() -> None:
    """``/dev/zero`` has no end: reading it whole never finished (and grew until memory ran out)."""
    done = subprocess.run(
        [sys.executable, "-m", "wason.cli", "code-functions", "check", "/dev/zero"],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_memory_cap,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert _one_line(done.stderr) == "wason: error: /dev/zero: larger than 1 MiB"


@pytest.mark.parametrize("where", ["/proc/self/x", "{file}/sub"])
def test_exporting_into_a_folder_that_cannot_be_made_is_one_line(
    where: str, db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    target = where.format(file=a_file)
    for fmt in ("csv", "jsonl"):
        assert main(["export", "1", "--to", target, "--format", fmt, "--db", db]) == 2
        line = _one_line(capsys.readouterr().err)
        assert line.startswith(f"wason: error: --to {target}: cannot write "), line


def test_a_file_a_command_cannot_write_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = tmp_path / "rules.py"
    code.write_text("def f(word):\n    return word.startswith('a')\n")
    assert main(["code-functions", "check", str(code), "-o", "/proc/self/x/rules.jsonl"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line == "wason: error: /proc/self/x/rules.jsonl: No such file or directory", line


@pytest.mark.parametrize(
    "text", ["a = " + "[" * 5000 + "]" * 5000, "a = " + "{b = " * 5000 + "1" + "}" * 5000]
)
def test_a_sweep_file_nested_thousands_deep_is_one_line(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(text)
    assert main(["sweep", str(path), "--db", f"sqlite:///{tmp_path / 's.db'}"]) == 2
    assert (
        _one_line(capsys.readouterr().err)
        == f"wason: error: {path}: nested too deeply to read (is it a sweep file?)"
    )


def test_json_arguments_nested_thousands_deep_are_one_line(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["session", "start", "wilt", "--db", db]) == 0
    session = str(json.loads(capsys.readouterr().out)["session"])
    assert main(["session", "step", session, DEEP_JSON, "--db", db]) == 2
    assert (
        _one_line(capsys.readouterr().err) == "wason: error: the action is nested too deeply to read as JSON"
    )
    assert main(["eval", "wilt", "--model", "vllm:fake", "--extra-body", DEEP_JSON, "--db", db]) == 2
    assert (
        _one_line(capsys.readouterr().err)
        == "wason: error: --extra-body is nested too deeply to read as JSON"
    )


@pytest.mark.parametrize("text", ["a \ud800 b", "\udcff"])
def test_the_game_api_refuses_a_lone_surrogate_where_it_enters(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A guess or a player name holding half of a UTF-16 pair was stored, and `wason export` then refused the
    store; now it is refused in one line naming the field, nothing is played, and the store exports."""
    db = f"sqlite:///{tmp_path / 'games.db'}"
    games = Games(db)
    game = asyncio.run(games.create("static_picnic", "L1", 2, seed=1))
    with pytest.raises(GameError) as refused:
        asyncio.run(games.validate_guess(game["game_uuid"], text))
    assert refused.value.field == "guess" and "surrogate" in str(refused.value)
    with pytest.raises(GameError) as named:
        asyncio.run(games.create("static_picnic", "L1", 2, seed=1, player=text))
    assert named.value.field == "player"
    summary = asyncio.run(games.summary(game["game_uuid"]))
    assert summary["status"] == "ongoing" and summary["turns_taken"] == 1  # the start only
    assert main(["export", game["game_uuid"], "--to", str(tmp_path / "out"), "--db", db]) == 0
    assert "U+" not in capsys.readouterr().err
    assert len(Store(db).list_runs()) == 1  # the refused creation made nothing
