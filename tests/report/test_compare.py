"""Runs of one family in one table, from real runs in a temporary store: two model runs and the solver baseline,
in the terminal (80 columns), markdown, LaTeX, CSV and JSON, with paired comparisons and the truncation warning."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from tests.conftest import FakeModel, wilt_script_reply
from wason.cli import main
from wason.core import registry
from wason.core.labels import family_solver_legend
from wason.engine import create_run, execute_run, llm_player_factory, run_baseline, solver_player_factory
from wason.models.base import ChatMessage, GenerationParams, ModelResponse
from wason.models.client import ModelClient
from wason.report.compare import (
    build_comparison,
    comparison_runs,
    latex_escape,
    print_comparison,
    truncation_warning,
)
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig

ODD_MODEL = "fake:m_1%&#$"  # a model name with every character LaTeX needs escaped


def _quick_guesser(messages: list[ChatMessage]) -> str:
    # two tests, then a guess that is right for some rules and wrong for others
    turn = sum(m.role == "assistant" for m in messages)
    if turn < 2:
        return f"Test Case: ```({turn}, {turn + 1}, {turn + 2})```"
    return "Final Guess: ```lambda x, y, z: x < y < z```"


class _CutModel(FakeModel):
    """Every reply stops at the token limit (finish reason ``length``)."""

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        reply = await super().generate(messages, params, timeout=timeout)
        return reply.model_copy(update={"finish_reason": "length", "text": "Test Case: ```(1, 2"})


async def _model_run(db: str, model: FakeModel, **config: object) -> int:
    store = Store(db)
    cfg = WiltRunConfig(model=model.spec, split="lite", **config)  # type: ignore[arg-type]
    rid = create_run(store, cfg)
    client = ModelClient(model=model, store=store)
    await execute_run(store, rid, llm_player_factory(client, cfg, rid), concurrency=2)
    return rid


async def _solver_run(db: str, ids: list[int]) -> int:
    store = Store(db)
    cfg = WiltRunConfig(player="solver", split="lite", ids=ids)
    rid = create_run(store, cfg)
    await execute_run(store, rid, solver_player_factory(cfg), concurrency=2)
    return rid


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, int, int, list[int]]:
    """Two model runs on the same ten rules, each with its solver baseline (the same measurement twice)."""
    db = f"sqlite:///{tmp_path_factory.mktemp('compare') / 'runs.db'}"
    first = asyncio.run(_model_run(db, FakeModel(wilt_script_reply, spec="fake:scripted")))
    second = asyncio.run(_model_run(db, FakeModel(_quick_guesser, spec=ODD_MODEL)))
    store = Store(db)
    baselines = [run_baseline(store, first), run_baseline(store, second)]
    assert None not in baselines
    return db, first, second, [b for b in baselines if b is not None]


def _markdown_rows(text: str) -> list[list[str]]:
    # the first table of the text: its header and rows as cells (the separator line left out)
    rows = []
    for line in text.splitlines():
        if not line.startswith("|"):
            if rows:
                break
            continue
        if not line.startswith("|:"):
            rows.append([c.strip() for c in line.strip("|").split(" | ")])
    return rows


def test_baselines_of_the_same_measurement_are_shown_once(runs: tuple[str, int, int, list[int]]) -> None:
    db, first, second, baselines = runs
    store = Store(db)
    assert comparison_runs(store, [first, second], baselines=True) == [first, second, baselines[0]]
    assert comparison_runs(store, [second, first], baselines=True) == [second, first, baselines[1]]
    assert comparison_runs(store, [first, second], baselines=False) == [first, second]
    # a baseline given as a run is not repeated as another run's baseline
    assert comparison_runs(store, [first, baselines[1]], baselines=True) == [first, baselines[1]]


def test_two_models_and_the_solver_in_one_markdown_table(
    runs: tuple[str, int, int, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    db, first, second, baselines = runs
    assert main(["show", str(first), str(second), "--format", "markdown", "--db", db]) == 0
    out = capsys.readouterr().out
    header, *rows = _markdown_rows(out)
    family_columns = [s.name for s in registry.get("wilt").scores(Store(db), first)]
    assert family_columns and header[1 : 1 + len(family_columns)] == family_columns
    assert header[0] == "Model" and header[1 + len(family_columns) :] == [
        "Unreadable",
        "Truncated",
        "Errored",
        "Tokens in/out",
        "Run",
    ]
    assert [r[0] for r in rows] == ["fake:scripted", ODD_MODEL.replace("|", "\\|"), "solver (reference)"]
    assert [r[-1] for r in rows] == [str(first), str(second), str(baselines[0])]
    # the solver's row says what it is, once, in its family's words
    legend = family_solver_legend("wilt")
    assert legend is not None and out.count(legend) == 1
    assert main(["show", str(first), str(second), "--no-baselines", "--format", "markdown", "--db", db]) == 0
    assert legend not in capsys.readouterr().out
    # the model run's accuracy: 1 of 10 with its Wilson interval; the solver's 10 of 10 (as the terminal has it)
    accuracy = header.index("Accuracy")
    assert rows[0][accuracy] == "10% [2-40] 1/10"
    assert rows[2][accuracy] == "100% [72-100] 10/10"
    tokens = header.index("Tokens in/out")
    assert rows[2][tokens] == "-" and " / " in rows[0][tokens]
    # the paired comparisons follow, in their own table
    assert "Paired with run" in out and "| McNemar p |" in out


def test_json_has_numbers_and_paired_comparisons(
    runs: tuple[str, int, int, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    db, first, second, baselines = runs
    assert main(["show", str(first), str(second), "--json", "--db", db]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["task"] == "wilt" and [r["run"] for r in data["rows"]] == [first, second, baselines[0]]
    top, other, solver = data["rows"]
    accuracy = next(s for s in top["scores"] if s["name"] == "Accuracy")
    assert (accuracy["k"], accuracy["n"], accuracy["value"]) == (1, 10, 0.1)
    assert accuracy["interval"][0] < 0.1 < accuracy["interval"][1]
    assert top["paired"] is None and top["input_tokens"] > 0 and solver["input_tokens"] is None
    assert top["unreadable"] == 0 and top["truncated"] == 0 and top["errored"] == 0
    paired = solver["paired"]
    # the scripted model wins one rule, the solver all ten: nine pairs only the solver won
    assert (paired["n"], paired["b"], paired["c"]) == (10, 0, 9)
    assert paired["first"] == {"k": 1, "n": 10, "rate": 0.1, "interval": accuracy["interval"]}
    assert paired["mcnemar_p"] == pytest.approx(2 / 2**9)
    assert paired["difference"] == pytest.approx(0.9) and paired["interval"][0] > 0.5
    assert other["paired"]["n"] == 10 and other["paired"]["with_run"] == first


def test_csv_reads_back_one_row_per_run(
    runs: tuple[str, int, int, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    db, first, second, _ = runs
    assert main(["show", str(first), str(second), "--format", "csv", "--db", db]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["label"] for r in rows] == ["fake:scripted", ODD_MODEL, "solver (reference)"]
    expected = {s.name: s for s in registry.get("wilt").scores(Store(db), first)}
    accuracy = expected["Accuracy"]
    assert accuracy.interval is not None
    assert int(rows[0]["Accuracy k"]) == accuracy.k and int(rows[0]["Accuracy n"]) == accuracy.n
    assert float(rows[0]["Accuracy"]) == pytest.approx(accuracy.value)
    assert float(rows[0]["Accuracy low"]) == pytest.approx(accuracy.interval[0])
    assert float(rows[0]["Accuracy high"]) == pytest.approx(accuracy.interval[1])
    assert int(rows[2]["Accuracy k"]) == 10
    assert int(rows[0]["Tokens in"]) > 0 and rows[2]["Tokens in"] == "" and rows[2]["Errored"] == "0"
    # every column is a number or empty, apart from the run's description
    for row in rows:
        for name, value in row.items():
            if name not in ("label", "player", "model") and value != "":
                float(value)


def test_latex_is_a_booktabs_tabular_with_escaped_names(runs: tuple[str, int, int, list[int]]) -> None:
    db, first, second, _ = runs
    out = io.StringIO()
    console = Console(file=out, width=80)
    code = print_comparison(
        Store(db), [first, second], fmt="latex", as_json=False, baselines=True, console=console
    )
    assert code == 0
    text = out.getvalue()
    table = text[: text.index(r"\end{tabular}")]
    assert table.startswith(r"\begin{tabular}{l") and r"\toprule" in table and r"\bottomrule" in table
    assert r"fake:m\_1\%\&\#\$ &" in table and ODD_MODEL not in text
    # each body row has as many cells as the header
    body = [ln for ln in table.splitlines() if ln.endswith(r"\\")]
    assert len(body) == 4 and len({ln.replace(r"\&", "").count("&") for ln in body}) == 1
    assert latex_escape("a\\b~c^d{e}") == r"a\textbackslash{}b\textasciitilde{}c\textasciicircum{}d\{e\}"


def _rendered(db: str, run_ids: list[int], width: int) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    print_comparison(Store(db), run_ids, fmt="table", as_json=False, baselines=True, console=console)
    return console.export_text()


def test_the_table_fits_80_columns_without_cutting(runs: tuple[str, int, int, list[int]]) -> None:
    db, first, second, _ = runs
    text = _rendered(db, [first, second], 80)
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    data = build_comparison(Store(db), [first, second])
    for row in data.rows:
        assert row.label in text
        accuracy = next(s for s in row.scores if s.name == "Accuracy")
        assert f"{accuracy.k}/{accuracy.n}" in text
    # abbreviated headers come with a legend saying what they stand for
    assert "Acc = Accuracy" in text and "Unread = Unreadable" in text
    # wide enough, the headers are whole and no legend of abbreviations is printed
    wide = _rendered(db, [first, second], 320)
    assert "Approx. Correct" in wide and "Acc = Accuracy" not in wide and "Paired with run" in wide


def test_a_long_model_name_folds_instead_of_cutting(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'long.db'}"
    name = "fake:" + "very-long-model-name/" * 3 + "instruct"
    rid = asyncio.run(_model_run(db, FakeModel(wilt_script_reply, spec=name)))
    text = _rendered(db, [rid], 80)
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    # the name is folded within its column, whole: its pieces are the first column of the first table's body
    lines = text.splitlines()
    body = lines[lines.index(next(ln for ln in lines if "───" in ln)) + 1 :]
    pieces = [
        ln.split("   ")[0].strip() for ln in body[: body.index(next(ln for ln in body if not ln.strip()))]
    ]
    assert "".join(pieces) == name and len(pieces) > 1


def test_mixed_families_are_one_line_and_exit_2(
    runs: tuple[str, int, int, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    db, first, _, _ = runs
    other = registry.get("lists")
    lists_run = create_run(Store(db), other.config_type(player="solver"))
    assert main(["show", str(first), str(lists_run), "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("wason: error: compare runs of one family: ")
    assert f"run {first} is wilt" in err and f"run {lists_run} is lists" in err


def test_runs_without_common_items_say_so(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'apart.db'}"
    a = asyncio.run(_solver_run(db, [1, 2]))
    b = asyncio.run(_solver_run(db, [3, 4]))
    data = build_comparison(Store(db), [a, b])
    # two runs of one player: each label names its run
    assert [r.label for r in data.rows] == [f"solver (reference) (run {a})", f"solver (reference) (run {b})"]
    assert data.rows[1].paired is None
    assert data.notes == [
        f"run {b} (solver (reference) (run {b})) shares no items with run {a}: no paired comparison"
    ]
    for fmt in ("table", "markdown", "latex"):
        out = io.StringIO()
        print_comparison(Store(db), [a, b], fmt=fmt, as_json=False, baselines=True, console=Console(file=out))
        assert "shares no items" in out.getvalue() and "McNemar" not in out.getvalue()
    # a run on the same items that finished none of them (never played): nothing to pair either
    unplayed = create_run(Store(db), WiltRunConfig(player="solver", split="lite", ids=[1, 2]))
    notes = build_comparison(Store(db), [a, unplayed]).notes
    assert notes == [
        f"run {unplayed} (solver (reference) (run {unplayed})) finished none of the items it shares with run {a}: "
        "no paired comparison"
    ]


def test_many_truncated_replies_warn_with_the_limit(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cut.db'}"
    cut = asyncio.run(
        _model_run(
            db, _CutModel(spec="fake:cut"), params=GenerationParams(max_tokens=256), format_error_limit=2
        )
    )
    fine = asyncio.run(_model_run(db, FakeModel(wilt_script_reply, spec="fake:fine")))
    store = Store(db)
    totals = store.call_totals(cut)
    replies = totals["calls"] + totals["cached_calls"]
    assert replies > 0 and totals["truncated"] == replies
    warning = truncation_warning(store, cut)
    assert warning == (
        f"run {cut}: {replies} of {replies} replies (100%) stopped at the token limit (max_tokens 256); "
        "they are counted as truncated, not as format errors; raise --max-tokens"
    )
    assert truncation_warning(store, fine) is None
    row = build_comparison(store, [cut], baselines=False).rows[0]
    # replies cut off are counted apart from the replies the player could not read
    assert row.truncated == replies and row.unreadable == 0


def test_an_unknown_format_is_refused(runs: tuple[str, int, int, list[int]]) -> None:
    db, first, _, _ = runs
    with pytest.raises(ValueError, match=r"^format: one of table, markdown, latex, csv"):
        print_comparison(Store(db), [first], fmt="html", as_json=False, baselines=True, console=Console())
