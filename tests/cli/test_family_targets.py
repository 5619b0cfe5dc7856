"""Families named by where they are defined: `wason eval ./game.py`, `./game.py:ATTR`, `package.module:ATTR`, and
`$WASON_FAMILIES` for the commands after; every mistake one line, nothing played."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from wason.cli import main
from wason.core import registry
from wason.examples import hello


@pytest.fixture
def game_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "my_hello.py"
    shutil.copy(hello.__file__, path)
    monkeypatch.chdir(tmp_path)
    yield path
    registry.unregister("hello")
    sys.modules.pop("my_hello", None)
    if str(tmp_path) in sys.path:
        sys.path.remove(str(tmp_path))


def test_eval_plays_a_family_from_a_file_and_show_finds_it_through_the_variable(
    game_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{game_file.parent / 'w.db'}"
    assert main(["eval", "./my_hello.py", "--player", "solver", "--n", "3", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "Run 1: hello by solver [completed]" in out and "3/3" in out
    assert sys.modules["my_hello"].__file__ == str(game_file)  # imported as the module of its name
    registry.unregister("hello")
    sys.modules.pop("my_hello")
    assert main(["show", "1", "--db", db]) == 2
    assert "unknown task family 'hello'" in capsys.readouterr().err  # a later process: the file is not known
    monkeypatch.setenv("WASON_FAMILIES", f"{game_file}:FAMILY")
    assert main(["show", "1", "--db", db]) == 0
    assert "Run 1: hello by solver [completed]" in capsys.readouterr().out


def test_a_module_s_family_and_a_named_attribute(game_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{game_file.parent / 'w.db'}"
    assert main(["eval", "wason.examples.hello:FAMILY", "--player", "solver", "--n", "1", "--db", db]) == 0
    assert "hello by solver [completed]" in capsys.readouterr().out
    registry.unregister("hello")
    game_file.write_text(game_file.read_text() + "\nGAME = HelloFamily()\n", encoding="utf-8")
    assert main(["session", "start", "my_hello.py:GAME", "--db", db]) == 0
    assert '"session"' in capsys.readouterr().out


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("./nope.py", "./nope.py: no such file"),
        ("./my_hello.py:NOPE", "./my_hello.py defines no NOPE (name the family: ./my_hello.py:ATTRIBUTE)"),
        ("./my_hello.py:HelloGame", "./my_hello.py:HelloGame is not a wason.core.Family instance"),
        ("wason.examples.nope:FAMILY", "wason.examples.nope:FAMILY cannot be loaded: ModuleNotFoundError"),
        ("./broken.py", "./broken.py cannot be loaded: ZeroDivisionError: division by zero"),
        ("./random.py", "./random.py: a module named 'random' is already imported from elsewhere"),
        ("./my-game.py", "./my-game.py: the file's name must be a Python module name"),
    ],
)
def test_a_target_that_is_no_family_is_one_line(
    target: str, message: str, game_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (game_file.parent / "broken.py").write_text("1 / 0\n", encoding="utf-8")
    (game_file.parent / "random.py").write_text("FAMILY = None\n", encoding="utf-8")
    (game_file.parent / "my-game.py").write_text("FAMILY = None\n", encoding="utf-8")
    assert main(["eval", target, "--player", "solver"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"wason: error: {message}") and err.count("\n") == 1
    assert not (game_file.parent / "wason.db").exists()  # nothing was played


def test_a_broken_file_in_the_variable_is_a_warning_and_the_rest_works(
    game_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("WASON_FAMILIES", f"./nope.py:{game_file}")
    assert main(["runs", "--db", f"sqlite:///{game_file.parent / 'w.db'}"]) == 0
    err = capsys.readouterr().err
    assert "warning: WASON_FAMILIES: ./nope.py: no such file" in err
    assert "hello" in registry.names()


def test_the_variable_s_entries_split_on_the_path_separator_and_attributes() -> None:
    assert registry._file_targets("a.py:GAME:b.py:pkg.mod:FAMILY:/x/c.py") == [
        "a.py:GAME",
        "b.py",
        "pkg.mod:FAMILY",
        "/x/c.py",
    ]
