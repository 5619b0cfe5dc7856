"""The answer histogram PNG."""

from __future__ import annotations

import struct
import warnings
from pathlib import Path

import matplotlib
import pytest

from wason.metrics import answer_distribution
from wason.tasks.aiw.plots import answer_histogram_png

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    # IHDR is the first chunk: 8-byte signature, 4-byte length, b"IHDR", then width and height.
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_writes_a_valid_png(tmp_path: Path) -> None:
    dist = answer_distribution([3] * 12 + [4] * 9 + [5, 7, None, "n/a"])
    out = answer_histogram_png(dist, expected=4, path=tmp_path / "sub" / "hist.png", title="AIW v1 STANDARD")
    assert out == tmp_path / "sub" / "hist.png"
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert len(data) > 5_000
    width, height = _png_size(out)
    assert width > 100 and height > 100


def test_more_answers_make_a_wider_figure(tmp_path: Path) -> None:
    few = answer_histogram_png({3: 5, 4: 5}, 4, tmp_path / "few.png", "few")
    many = answer_histogram_png({i: 1 for i in range(30)} | {None: 2}, 4, tmp_path / "many.png", "many")
    assert _png_size(many)[0] > _png_size(few)[0]


def test_expected_answer_nobody_gave_and_empty_input(tmp_path: Path) -> None:
    out = answer_histogram_png({None: 0}, 6, tmp_path / "empty.png", "nothing")
    assert out.read_bytes().startswith(PNG_MAGIC)


def test_leaves_no_figures_or_backend_change(tmp_path: Path) -> None:
    backend = matplotlib.get_backend()
    with warnings.catch_warnings():
        # pyplot warns past 20 open figures; drawing more than that must stay silent.
        warnings.simplefilter("error")
        for i in range(25):
            answer_histogram_png({1: i, 2: 3}, 2, tmp_path / f"h{i}.png", f"run {i}")
    assert matplotlib.get_backend() == backend
    assert len(list(tmp_path.glob("h*.png"))) == 25


def test_rejects_bad_input(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        answer_histogram_png({1: 2}, -1, tmp_path / "x.png", "t")
    with pytest.raises(ValueError):
        answer_histogram_png({1: -2}, 1, tmp_path / "x.png", "t")
    with pytest.raises(ValueError):
        answer_histogram_png({-1: 2}, 1, tmp_path / "x.png", "t")
    assert not (tmp_path / "x.png").exists()
