"""The Python API: `wason.evaluate` with the solver and with a model behind the fake OpenAI-compatible server,
DataFrames equal to the export, scores per run, and the example script in docs/examples."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import wason
from tests.fakes.openai_server import FakeOpenAIServer
from tests.test_golden import wilt_reply
from wason.core import registry
from wason.engine import baselines_of
from wason.report.export import export_runs, read_table

ROOT = Path(__file__).resolve().parents[1]


def test_evaluate_with_the_solver_and_frames_equal_the_export(tmp_path: Path) -> None:
    db = str(tmp_path / "api.db")
    run = wason.evaluate("wilt", player="solver", db=db, split="lite")
    store = wason.open_store(db)
    assert store.get_run(run).status == "completed" and store.get_run(run).player == "solver"
    episodes = store.list_episodes(run)
    assert len(episodes) == 10 and all(e.status == "completed" for e in episodes)

    export_runs(store, [run], tmp_path / "out", "parquet")
    frames = {
        "runs": wason.runs_frame(store),
        "episodes": wason.episodes_frame(store, [run]),
        "turns": wason.turns_frame(store, [run]),
        "calls": wason.calls_frame(store, [run]),
    }
    for name, got in frames.items():
        pd.testing.assert_frame_equal(got, read_table(tmp_path / "out" / f"{name}.parquet"))
    assert list(frames["episodes"]["success"]) == [e.success for e in episodes]
    assert frames["calls"].empty and list(frames["calls"].columns)[:3] == ["call_id", "run_id", "episode"]
    assert wason.runs_frame(store, family="aiw").empty and len(wason.runs_frame(store, model="SOLV")) == 1


def test_evaluate_a_model_with_its_baseline(tmp_path: Path) -> None:
    db = str(tmp_path / "api.db")
    with FakeOpenAIServer(wilt_reply) as server:
        run = wason.evaluate(
            "wilt",
            model="vllm:fake",
            base_url=server.base_url,
            db=db,
            split="lite",
            ids=[1, 2, 3],
            temperature=0.25,
            max_tokens=300,
            baseline=True,
        )
    store = wason.open_store(db)
    assert store.get_run(run).status == "completed" and store.get_run(run).model == "vllm:fake"
    calls = store.list_calls(run_id=run)
    assert len(calls) > 0 and not any(c["cached"] for c in calls)
    assert all(c["params"]["temperature"] == 0.25 and c["params"]["max_tokens"] == 300 for c in calls)
    (baseline,) = baselines_of(store, run)
    assert store.get_run(baseline).status == "completed"

    scores = wason.scores_frame(store, [run], baselines=True)
    assert list(scores["run_id"]) == [run, baseline]
    family_scores = registry.get("wilt").scores(store, run)
    first = family_scores[0]
    assert scores.loc[0, first.name] == pytest.approx(first.value)
    low, high = first.interval or (None, None)
    assert scores.loc[0, f"{first.name} low"] == pytest.approx(low)
    assert scores.loc[0, f"{first.name} high"] == pytest.approx(high)
    assert (scores.loc[0, f"{first.name} k"], scores.loc[0, f"{first.name} n"]) == (first.k, first.n)
    assert [c for c in scores.columns if " " not in c or c.split(" ")[-1] not in {"low", "high", "k", "n"}][
        4:
    ] == [s.name for s in family_scores]

    frame = wason.calls_frame(store, [run])
    assert list(frame["call_id"]) == [c["id"] for c in calls]
    assert int(frame["input_tokens"].sum()) == store.call_totals(run)["input_tokens"]


async def test_evaluate_from_inside_an_event_loop(tmp_path: Path) -> None:
    """In a notebook, code runs inside an event loop: evaluate still runs to its end."""
    run = wason.evaluate("wilt", player="solver", db=str(tmp_path / "loop.db"), split="lite", ids=[1, 2])
    store = wason.open_store(str(tmp_path / "loop.db"))
    assert store.get_run(run).status == "completed" and len(store.list_episodes(run)) == 2


@pytest.mark.parametrize(
    ("call", "words"),
    [
        ({"family": "nope"}, ["no family 'nope'", "wilt"]),
        ({"family": "wilt", "player": "human"}, ["player 'human'", "llm, solver"]),
        (
            {"family": "wilt", "player": "solver", "splitt": "lite"},
            ["splitt: not a setting of wilt", "split"],
        ),
        ({"family": "wilt", "player": "solver", "split": "nope"}, ["split"]),
        ({"family": "wilt", "temperature": -1.0}, ["temperature"]),
    ],
)
def test_bad_arguments_are_one_line(call: dict[str, object], words: list[str], tmp_path: Path) -> None:
    db = tmp_path / "bad.db"
    family = str(call.pop("family"))
    with pytest.raises(ValueError) as caught:
        wason.evaluate(family, db=str(db), **call)  # type: ignore[arg-type]
    assert all(w in str(caught.value) for w in words), str(caught.value)
    assert not db.exists() or wason.open_store(str(db)).list_runs() == []


def test_frames_without_pandas_say_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = wason.open_store(str(tmp_path / "x.db"))
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"pip install 'wason\[data\]'"):
        wason.runs_frame(store)


def test_the_example_analysis_runs(tmp_path: Path) -> None:
    script = ROOT / "docs" / "examples" / "analysis.py"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "example.db")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "accuracy" in out and "solver" in out
    store = wason.open_store(str(tmp_path / "example.db"))
    assert [r.status for r in store.list_runs()] == ["completed"] * len(store.list_runs())
    assert len(store.list_runs()) >= 2
