"""80 columns (issue 49, item 14, the command line's part): the live bar of ``wason eval`` is two lines at any
width, each cut with an ellipsis; output to a file or a pipe is as wide as ``$COLUMNS``, else 100 columns."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from rich.console import Console

from wason.cli import main
from wason.cli.eval import _Progress
from wason.engine.progress import Standing
from wason.store.db import CALL_TOTALS


def _bar_lines(width: int, standing: Standing) -> list[str]:
    progress = _Progress(Console(file=io.StringIO()), None, quiet=False)  # type: ignore[arg-type]
    progress.run = 2_147_483

    class Started:
        started = time.monotonic() - 4000

    progress.tracker = Started()  # type: ignore[assignment]
    progress.latest = standing
    out = Console(file=io.StringIO(), width=width, force_terminal=True, color_system=None)
    out.print(progress._view())
    text = out.file.getvalue()  # type: ignore[attr-defined]
    return text.rstrip("\n").split("\n")


BUSY = Standing(
    todo=13_800,
    done=4_120,
    correct=1_180,
    errored=37,
    running=8,
    turns=123_456,
    calls={
        **dict.fromkeys(CALL_TOTALS, 0),
        "calls": 12_340,
        "attempts": 12_400,
        "failed_calls": 2,
        "cached_calls": 40,
        "input_tokens": 12_345_678,
        "output_tokens": 1_234_567,
    },
    elapsed=4000.0,
)


@pytest.mark.parametrize("width", [80, 60, 40, 120])
def test_the_live_bar_is_two_lines_that_fit_the_terminal(width: int) -> None:
    lines = _bar_lines(width, BUSY)
    assert len(lines) == 2, lines
    assert all(len(line.rstrip()) <= width for line in lines), lines
    first, second = lines
    assert first.startswith("run 2147483: ") and "━" in first  # the bar is never squeezed out
    assert second.startswith("  1,180 correct, 37 errored; ")
    if width >= 80:
        assert "4,120/13,800 episodes, 8 running, 1 h 6 min, ETA 2 h 36 min" in first, first
    else:
        assert first.rstrip().endswith("…") and second.rstrip().endswith("…"), lines


def _widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


@pytest.fixture
def two_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    db = f"sqlite:///{tmp_path / 'w.db'}"
    for ids in ("1,2", "3"):
        assert main(["eval", "wilt", "--ids", ids, "--player", "solver", "--db", db, "-q"]) == 0
    capsys.readouterr()
    return db


def test_piped_tables_are_100_columns_wide_unless_columns_says(
    two_runs: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`wason show 1 2 > f` wrote lines of 160 columns (and some 429); the comparison is laid out for 100."""
    assert main(["show", "1", "2", "--db", two_runs]) == 0
    piped = capsys.readouterr().out
    assert "Acc" in piped and _widest(piped) == 100
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["show", "1", "2", "--db", two_runs]) == 0
    narrow = capsys.readouterr().out
    assert _widest(narrow) == 80 and narrow != piped
    monkeypatch.setenv("COLUMNS", "132")
    assert main(["runs", "--db", two_runs]) == 0
    assert _widest(capsys.readouterr().out) <= 132
