"""``wason export`` streams (issue 39): it never reads a whole table into memory, and a table written a few rows at
a time is the same file as one written at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import wason.report.export as export
from tests.report.test_runs import Made, make_runs
from wason.report.export import FORMATS, TABLES, export_runs
from wason.store import Store


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    return make_runs(f"sqlite:///{tmp_path_factory.mktemp('stream') / 'runs.db'}")


def _runs(made: Made) -> list[int]:
    return [made.solver, made.model, made.baseline]


def test_export_reads_no_table_whole(made: Made, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = {folder.name: folder for folder in (tmp_path / f"whole-{f}" for f in FORMATS)}
    for fmt in FORMATS:
        export_runs(made.store, _runs(made), whole[f"whole-{fmt}"], fmt)

    def refused(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a whole table was read into memory")

    for name in ("export_episodes", "export_turns", "export_calls", "list_runs"):
        monkeypatch.setattr(Store, name, refused)
    monkeypatch.setattr(export, "BATCH", 2)
    for fmt in FORMATS:
        folder = tmp_path / f"batched-{fmt}"
        export_runs(made.store, _runs(made), folder, fmt)
        for name in [*TABLES, "columns"]:
            suffix = "json" if name == "columns" else fmt
            batched, at_once = folder / f"{name}.{suffix}", whole[f"whole-{fmt}"] / f"{name}.{suffix}"
            if fmt == "parquet" and name != "columns":
                assert pq.read_table(batched).equals(pq.read_table(at_once)), name
            else:
                assert batched.read_bytes() == at_once.read_bytes(), name
    turns = pq.ParquetFile(tmp_path / "batched-parquet" / "turns.parquet")
    assert turns.metadata.num_rows > 2
    assert turns.metadata.num_row_groups == -(-turns.metadata.num_rows // 2)  # one row group per batch
