"""List-rules results a researcher can use: the report's columns as scores, rates as numbers with Wilson
intervals, truncated replies apart from format errors, the first prompt folded, 80-column tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tests.fakes.openai_server import FakeOpenAIServer
from tests.tasks.lists.test_lists_runs import scientist
from wason.cli import main
from wason.metrics import wilson_interval
from wason.report.tables import report_tables
from wason.store import Store
from wason.tasks.lists.family import FAMILY


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, int, int]:
    """A model run (two rules x two trials, code judges) and its solver baseline."""
    db = f"sqlite:///{tmp_path_factory.mktemp('lists') / 'wason.db'}"
    with FakeOpenAIServer(scientist) as server:
        argv = ["eval", "lists", "--model", "vllm:fake", "--base-url", server.base_url, "--db", db]
        assert main([*argv, "--ids", "1,2", "--trials", "2", "--judges", "predicate,quiz"]) == 0
    store = Store(db)
    model_run, baseline = (r.id for r in sorted(store.list_runs(), key=lambda r: r.id))
    return db, model_run, baseline


def test_scores_follow_the_report_columns_with_intervals(runs: tuple[str, int, int]) -> None:
    db, rid, baseline = runs
    scores = FAMILY.scores(Store(db), rid)
    names = [s.name for s in scores]
    assert names == [
        "predicate (code)",
        "quiz (all right)",
        "Quiz accuracy",
        "Rounds",
        "Rounds to solve",
        "Lists tested",
        "Repeats",
    ]
    assert all(len(s.short) <= 8 and s.legend for s in scores)
    predicate = scores[0]
    # the scripted model believes "strictly increasing": right for rule 1 in both trials, wrong for rule 2
    assert (predicate.kind, predicate.k, predicate.n) == ("rate", 2, 4)
    assert (
        predicate.interval == pytest.approx(wilson_interval(2, 4)) and "decides success" in predicate.legend
    )
    assert scores[3].kind == "mean" and scores[3].value == 1.0 and scores[3].n == 4
    solver = FAMILY.scores(Store(db), baseline)
    assert (solver[0].k, solver[0].n) == (4, 4)


def test_json_rates_are_numbers(runs: tuple[str, int, int]) -> None:
    db, rid, baseline = runs
    data: dict[str, Any] = json.loads(FAMILY.report_json(Store(db), [rid, baseline]).model_dump_json())
    success = data["summary"]["success"]
    assert (success["k"], success["n"], success["rate"]) == (2, 4, 0.5)
    assert success["interval"] == pytest.approx(list(wilson_interval(2, 4)))
    rule = data["rules"][0]["judges"]["predicate"]
    assert isinstance(rule["k"], int) and isinstance(rule["interval"], list)
    assert data["summary"]["truncated"] == 0


def test_the_tables_fit_80_columns_without_cutting_text(runs: tuple[str, int, int]) -> None:
    db, rid, baseline = runs
    console = Console(width=80, record=True)
    for part in report_tables(Store(db), [rid, baseline]):
        console.print(part)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    low, high = wilson_interval(2, 4)
    assert "2/4" in text and f"50% [{100 * low:.0f}-{100 * high:.0f}]" in text and "vllm:fake" in text
    assert "solver (reference)" in text and "Trunc." in text and "format errors" in text
    results = FAMILY.results(Store(db), [rid, baseline])
    summary = next(t for t in results.tables if t.name == "summary")
    assert [r["run"] for r in summary.rows] == [rid, baseline]
    assert [r["truncated"] for r in summary.rows] == [0, 0]


def test_the_first_prompt_is_folded_with_its_examples_in_view(
    runs: tuple[str, int, int], capsys: pytest.CaptureFixture[str]
) -> None:
    db, rid, _ = runs
    assert main(["show", str(rid), "--episode", "1", "--db", db]) == 0
    folded = capsys.readouterr().out
    assert f"the whole prompt: wason show {rid} --episode 1 --full" in folded
    assert "Remember: good scientists" not in folded and "example lists: [" in folded
    assert main(["show", str(rid), "--episode", "1", "--full", "--db", db]) == 0
    full = capsys.readouterr().out
    assert "Remember: good scientists" in full and "--full]" not in full


def test_truncated_replies_are_counted_apart_and_cost_a_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'cut.db'}"
    with FakeOpenAIServer(scientist) as server:
        argv = ["eval", "lists", "--model", "vllm:fake", "--base-url", server.base_url, "--db", db]
        # every reply of the script is longer than five words: each is cut off at the token limit
        argv += ["--ids", "1", "--judges", "predicate", "--max-tokens", "5", "--no-baseline", "--json"]
        assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    (episode,) = data["episodes"]
    assert episode["end_reason"] == "format_errors"  # two in a row end the episode, as unreadable replies do
    assert (data["summary"]["truncated"], data["summary"]["format_errors"]) == (2, 0)
    (stored,) = Store(db).list_episodes(data["run"])
    assert stored.metrics is not None and stored.metrics["rounds_used"] == 2


def test_episodes_not_played_yet_are_in_no_rate(tmp_path: Path) -> None:
    from wason.engine import create_run
    from wason.tasks.lists.family import ListsRunConfig

    store = Store(f"sqlite:///{tmp_path / 'pending.db'}")
    rid = create_run(store, ListsRunConfig(model="fake:x", ids=[1], trials=3, judges=["predicate", "quiz"]))
    data = json.loads(FAMILY.report_json(store, [rid]).model_dump_json())
    assert data["summary"]["episodes"] == 3 and data["summary"]["unfinished"] == 3
    assert (data["summary"]["success"]["n"], data["summary"]["success"]["rate"]) == (0, None)
    assert FAMILY.scores(store, rid)[0].n == 0
