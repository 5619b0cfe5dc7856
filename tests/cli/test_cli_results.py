"""The results commands' edges as a user meets them: --version, show's flags that go together, model flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wason import __version__
from wason.cli import main


def exit_code(argv: list[str]) -> int | str | None:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse exits for --version and bad flags
        return exc.code


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'cli.db'}"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code(["--version"]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith("wason ") and out.split()[1][0].isdigit()
    assert out == f"wason {__version__}"


def _solver_run(db: str, capsys: pytest.CaptureFixture[str]) -> int:
    assert (
        main(["eval", "wilt", "--split", "lite", "--ids", "1,2", "--player", "solver", "--db", db, "--json"])
        == 0
    )
    return int(json.loads(capsys.readouterr().out)["run"])


def test_an_episode_is_shown_for_one_run_only(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = _solver_run(db, capsys), _solver_run(db, capsys)
    assert exit_code(["show", str(first), str(second), "--episode", "0", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--episode N shows one run's episode" in err


def test_full_goes_with_an_episode(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    rid = _solver_run(db, capsys)
    assert exit_code(["show", str(rid), "--full", "--db", db]) == 2
    assert "--full goes with --episode N" in capsys.readouterr().err
    assert exit_code(["show", str(rid), "--episode", "0", "--full", "--db", db]) == 0
    assert "rule" in capsys.readouterr().out


def test_an_unknown_run_among_several_is_one_line(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    rid = _solver_run(db, capsys)
    assert exit_code(["show", str(rid), "999", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "999" in err


@pytest.mark.parametrize(
    ("body", "message"),
    [("{not json", "--extra-body is not JSON"), ("[1, 2]", "--extra-body is a JSON object")],
)
def test_a_bad_extra_body_is_one_line_and_makes_no_run(
    db: str, body: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = exit_code(
        ["eval", "wilt", "--split", "lite", "--model", "openai:x", "--extra-body", body, "--db", db]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert main(["runs", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_figures_are_announced_on_stderr_so_piped_tables_stay_clean(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rid = _solver_run(db, capsys)
    figures = tmp_path / "figures"
    assert main(["show", str(rid), "--json", "--plots", str(figures), "--db", db]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["run"] == rid  # stdout is the JSON alone
    written = sorted(figures.iterdir())
    assert written and all(f"  {path}" in captured.err for path in written)
    assert main(["show", str(rid), "--format", "csv", "--plots", str(figures), "--db", db]) == 0
    rows = capsys.readouterr().out.strip().splitlines()
    assert rows[0].startswith("run,label,") and len(rows) == 2
