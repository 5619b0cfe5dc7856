"""`wason export`: the four tables read back with pandas equal the store, in every format, with the same columns
and types; the columns are the documented ones."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest

from tests.report.test_runs import Made, make_runs
from wason.cli import main
from wason.report.export import FORMATS, TABLES, export_runs, export_tables, frame, read_export, read_table
from wason.store import Store

DOC = Path(__file__).resolve().parents[2] / "docs" / "export.md"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    path = tmp_path_factory.mktemp("export") / "runs.db"
    return make_runs(f"sqlite:///{path}")


@pytest.fixture(scope="module")
def exported(made: Made, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every run exported in each format through the command line."""
    out = {}
    for fmt in FORMATS:
        folder = tmp_path_factory.mktemp(fmt)
        runs = [str(r) for r in (made.solver, made.model, made.baseline)]
        assert main(["export", *runs, "--to", str(folder), "--format", fmt, "--db", made.url]) == 0
        out[fmt] = folder
    return out


def _loads(text: Any) -> Any:
    return None if text is None or text is pd.NA else json.loads(text)


@pytest.mark.parametrize("fmt", FORMATS)
def test_read_back_equals_the_store(fmt: str, made: Made, exported: dict[str, Path]) -> None:
    store = made.store
    tables = read_export(exported[fmt])
    ids = [made.solver, made.model, made.baseline]

    runs = tables["runs"]
    assert list(runs["run_id"]) == ids
    for row in runs.to_dict("records"):
        run = store.get_run(row["run_id"])
        assert (row["family"], row["player"], row["status"]) == (run.task, run.player, run.status)
        assert _loads(row["config"]) == run.config
        assert row["created_at"].to_pydatetime().replace(tzinfo=None) == run.created_at.replace(tzinfo=None)
        totals = store.call_totals(run.id)
        assert (row["calls"], row["input_tokens"], row["output_tokens"]) == (
            totals["calls"],
            totals["input_tokens"],
            totals["output_tokens"],
        )
    model_row = runs[runs["run_id"] == made.model].iloc[0]
    assert model_row["temperature"] == 0.7 and model_row["max_tokens"] == 64 and model_row["trials"] == 2
    assert runs[runs["run_id"] == made.baseline].iloc[0]["baseline_for"] == made.model
    assert pd.isna(runs[runs["run_id"] == made.solver].iloc[0]["model"])

    episodes = tables["episodes"]
    stored = [e for r in ids for e in store.list_episodes(r)]
    assert len(episodes) == len(stored) == 50
    for row, e in zip(episodes.to_dict("records"), stored, strict=True):
        assert (row["run_id"], row["episode"], row["episode_id"], row["item_key"]) == (
            e.run_id,
            e.index,
            e.id,
            e.item_key,
        )
        assert row["success"] == e.success and row["status"] == e.status
        assert _loads(row["item"]) == e.item and "rule" in e.item  # the hidden rule is exported
        assert _loads(row["metrics"]) == e.metrics
        assert row["metric_tests"] == e.metrics["tests"] and row["metric_correct"] == e.metrics["correct"]
        assert row["seconds"] == pytest.approx(e.seconds)

    turns = tables["turns"]
    stored_turns = [(e, t) for e in stored for t in store.list_turns(e.id)]
    assert len(turns) == len(stored_turns) > 50
    for row, (e, t) in zip(turns.to_dict("records"), stored_turns, strict=True):
        assert (row["run_id"], row["episode"], row["turn"]) == (e.run_id, e.index, t["index"])
        assert _loads(row["action"]) == t["action"] and row["action_type"] == t["action"]["type"]
        assert _loads(row["observation"]) == t["observation"]
        assert ((None if pd.isna(row["reply"]) else row["reply"]) or None) == (t["reply"] or None)
        assert ((None if pd.isna(row["feedback"]) else row["feedback"]) or None) == (t["feedback"] or None)

    calls = tables["calls"]
    stored_calls = [c for r in ids for c in store.list_calls(run_id=r)]
    assert len(calls) == len(stored_calls) > 0
    index_of = {e.id: e.index for e in stored}
    for row, c in zip(calls.to_dict("records"), stored_calls, strict=True):
        assert (row["call_id"], row["run_id"], row["turn"]) == (c["id"], c["run_id"], c["turn"])
        assert row["episode"] == index_of[c["episode_id"]]
        assert (row["input_tokens"], row["output_tokens"], row["cached"]) == (
            c["input_tokens"],
            c["output_tokens"],
            c["cached"],
        )
        assert row["response"] == c["response"] and row["finish_reason"] == c["finish_reason"]
        assert row["latency_s"] == pytest.approx(c["latency_s"])
        assert _loads(row["messages"]) == c["new_messages"] and _loads(row["params"]) == c["params"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_reads_back_as_the_frames(fmt: str, made: Made, exported: dict[str, Path]) -> None:
    ids = [made.solver, made.model, made.baseline]
    for table in export_tables(made.store, ids):
        expected = frame(table)
        got = read_table(exported[fmt] / f"{table.name}.{fmt}")
        pd.testing.assert_frame_equal(got, expected)
        assert str(expected["run_id"].dtype) == "Int64"


def test_plain_pandas_reads_the_same_columns(exported: dict[str, Path]) -> None:
    """Without wason's reader: the same column names in every format, JSON columns as text, numbers as
    numbers."""
    for name in TABLES:
        csv_frame = pd.read_csv(exported["csv"] / f"{name}.csv")
        jsonl = pd.read_json(exported["jsonl"] / f"{name}.jsonl", lines=True, dtype=False)
        parquet = pd.read_parquet(exported["parquet"] / f"{name}.parquet")
        assert list(csv_frame.columns) == list(jsonl.columns) == list(parquet.columns)
        assert pd.api.types.is_integer_dtype(csv_frame["run_id"]) and pd.api.types.is_integer_dtype(
            parquet["run_id"]
        )
    first = json.loads((exported["jsonl"] / "episodes.jsonl").read_text().splitlines()[0])
    assert isinstance(first["item"], str) and isinstance(json.loads(first["item"]), dict)
    assert isinstance(first["success"], bool) and isinstance(first["metric_tests"], int)
    schema = pq.read_schema(exported["parquet"] / "calls.parquet")
    assert str(schema.field("created_at").type) == "timestamp[us, tz=UTC]"
    assert str(schema.field("cached").type) == "bool" and str(schema.field("input_tokens").type) == "int64"
    described = json.loads((exported["csv"] / "columns.json").read_text())
    assert [c["name"] for c in described["runs"]] == [c.name for c in TABLES["runs"]]


def test_the_columns_are_documented() -> None:
    """docs/export.md has a row for every column of every table, with its type."""
    text = DOC.read_text()
    for name, columns in TABLES.items():
        section = text.split(f"### `{name}`", 1)[1].split("\n### ", 1)[0]
        rows = dict(re.findall(r"^\| `([a-z_<>]+)` \| (\w+) \|", section, flags=re.MULTILINE))
        assert {c.name: c.kind for c in columns}.items() <= rows.items(), name
    assert "metric_<key>" in text


def test_parquet_without_pyarrow_is_one_line(
    made: Made, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # an import of it fails as if it were not installed
    out = tmp_path / "out"
    assert main(["export", str(made.solver), "--to", str(out), "--format", "parquet", "--db", made.url]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'wason[data]'" in err
    assert not out.exists()
    # before any work: not even a store is opened (or made)
    never = tmp_path / "never.db"
    assert main(["export", "1", "--to", str(out), "--format", "parquet", "--db", f"sqlite:///{never}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'wason[data]'" in err
    assert not never.exists() and not out.exists()


def test_an_unknown_run_writes_nothing(
    made: Made, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["export", str(made.solver), "77", "--to", str(out), "--db", made.url]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no run 77" in err and not out.exists()


def test_texts_that_look_like_missing_values_survive_csv(made: Made, tmp_path: Path) -> None:
    """A reply of "NA" or "null", commas, quotes and new lines come back as they were."""
    copy = tmp_path / "copy.db"
    shutil.copyfile(made.url.removeprefix("sqlite:///"), copy)
    store = Store(f"sqlite:///{copy}")
    episode = store.list_episodes(made.solver)[0]
    odd = 'NA, "null"\nsecond line'
    store.add_turn(episode.id, 999, action={"type": "Odd"}, observation={}, reply=odd, feedback="NA")
    export_runs(store, [made.solver], tmp_path / "csv", "csv")
    turns = read_table(tmp_path / "csv" / "turns.csv")
    last = turns[turns["turn"] == 999].iloc[0]
    assert last["reply"] == odd and last["feedback"] == "NA"
