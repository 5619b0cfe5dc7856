"""AIW results a researcher can use: the pooled correct response rate with its Wilson interval, the scores,
truncated replies apart from unreadable ones, folded prompts, 80-column tables."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rich.console import Console

from tests.fakes.openai_server import FakeOpenAIServer
from tests.tasks.aiw.test_aiw_runs import alice_reply
from wason.cli import main
from wason.core.game import Malformed
from wason.core.records import RunRow
from wason.metrics import robustness, wilson_interval
from wason.report.render import transcript_terminal
from wason.report.tables import report_tables
from wason.store import Store
from wason.tasks.aiw.family import FAMILY
from wason.tasks.aiw.game import AiwGame, Reply
from wason.tasks.aiw.protocol import AiwProtocol
from wason.tasks.aiw.report import messages

RUN = RunRow(3, "aiw", "llm", "fake:m", {}, "completed", datetime.now(UTC), None)


def _run(db: str, *extra: str) -> None:
    with FakeOpenAIServer(alice_reply) as server:
        argv = ["eval", "aiw", "--model", "vllm:fake", "--base-url", server.base_url, "--db", db, "--json"]
        assert main([*argv, *extra]) == 0


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, int]:
    """Six variations x two prompt types x two trials; the script is right only on variation 4."""
    db = f"sqlite:///{tmp_path_factory.mktemp('aiw') / 'wason.db'}"
    _run(db, "--trials", "2", "--prompt-types", "STANDARD,THINKING")
    store = Store(db)
    (only,) = store.list_runs()
    return store, only.id


def test_the_correct_response_rate_pools_every_cell_with_its_wilson_interval(run: tuple[Store, int]) -> None:
    store, rid = run
    data = json.loads(FAMILY.report_json(store, [rid]).model_dump_json())
    assert (data["correct"]["k"], data["correct"]["n"]) == (4, 24)
    assert data["correct"]["interval"] == pytest.approx(list(wilson_interval(4, 24)))
    standard = data["by_prompt_type"]["STANDARD"]["correct"]
    assert (standard["k"], standard["n"], standard["rate"]) == (2, 12, pytest.approx(2 / 12))
    assert all(c["truncated"] == 0 and c["unparseable"] == 0 for c in data["cells"])


def test_scores(run: tuple[Store, int]) -> None:
    store, rid = run
    scores = FAMILY.scores(store, rid)
    assert [s.name for s in scores] == ["Correct response rate", "Mean rate over variations", "Robustness R"]
    assert all(len(s.short) <= 8 and s.legend for s in scores)
    correct, mean, r = scores
    assert (correct.kind, correct.k, correct.n) == ("rate", 4, 24)
    assert correct.interval == pytest.approx(wilson_interval(4, 24))
    rates = [1.0 if v == 4 else 0.0 for v in range(1, 7)] * 2
    assert mean.value == pytest.approx(robustness(rates).mean_rate) and mean.n == 12
    assert r.value == pytest.approx(robustness(rates).score)


def test_the_tables_fit_80_columns_without_cutting_text(run: tuple[Store, int]) -> None:
    store, rid = run
    console = Console(width=80, record=True)
    for part in report_tables(store, [rid]):
        console.print(part)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    low, high = wilson_interval(2, 12)
    assert "Prompt type STANDARD" in text and "Prompt type THINKING" in text and "AIW variation 6" in text
    assert "2/12" in text and f"[{100 * low:.0f}-{100 * high:.0f}]" in text and "truncated 0" in text


def test_a_reply_cut_off_before_its_answer_is_counted_as_truncated(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cut.db'}"
    # the script's replies are 13 words, the marker at the end: four tokens cut every one before it
    _run(db, "--trials", "1", "--max-tokens", "4")
    store = Store(db)
    (only,) = store.list_runs()
    report = FAMILY.report_json(store, [only.id]).model_dump()
    assert sum(c["truncated"] for c in report["cells"]) == 6
    assert sum(c["unparseable"] for c in report["cells"]) == 0 and report["correct"]["k"] == 0
    assert store.unreadable_counts(only.id) == {"unreadable": 0, "truncated": 6}
    # the answers column says no answer was read, and does not call it unparseable: Unp. says 0 of them were
    cells = [row for table in FAMILY.results(store, [only.id]).tables[:-1] for row in table.rows]
    assert len(cells) == 6 and all(row["unp"] == 0 and row["top"] == "no answer: 1" for row in cells)


def test_the_game_scores_a_truncated_reply_as_a_reply_without_an_answer() -> None:
    protocol = AiwProtocol("Alice has 3 brothers and 6 sisters. How many sisters does her brother have?")
    assert isinstance(protocol.parse("She has 6 sisters, so the answer"), Malformed)
    assert isinstance(protocol.parse("### Answer: 7"), Reply)
    cut, unread = AiwGame("q", 7), AiwGame("q", 7)
    cut.step(Malformed("cut off", truncated=True))
    unread.step(Malformed("no marker"))
    assert cut.outcome().metrics["status"] == "truncated" and cut.outcome().metrics["truncated"] == 1
    assert unread.outcome().metrics["status"] == "no_marker" and unread.outcome().metrics["truncated"] == 0
    assert cut.outcome().success is unread.outcome().success is False


def test_a_long_prompt_is_folded_unless_full() -> None:
    prompt = "\n".join(f"line {i}" for i in range(1, 21))
    data = {
        "run": 3,
        "index": 5,
        "rule": "AIW variation 1|STANDARD|1",
        "item": {"prompt": prompt},
        "turns": [],
        "metrics": {},
        "status": "completed",
        "error": None,
    }
    console = Console(width=120, record=True)
    hint = "the whole prompt: wason show 3 --episode 5 --full"  # as wason show adds it
    console.print(transcript_terminal(messages(data, RUN), hint=hint))
    folded = console.export_text()
    assert "line 6" in folded and "line 20" not in folded
    assert "the whole prompt: wason show 3 --episode 5 --full" in folded
    console = Console(width=120, record=True)
    console.print(transcript_terminal(messages(data, RUN), full=True))
    assert "line 20" in console.export_text()
