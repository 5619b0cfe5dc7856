"""The shared renderers of results as data: cells, the 80-column terminal, HTML, markdown, LaTeX, CSV, JSON and
transcripts, on tables built here (every family's own tables are checked in its tests and the contract check)."""

from __future__ import annotations

import csv
import io

import pytest
from rich.console import Console

from wason.core.records import Rate
from wason.core.results import Column, Mean, Message, Results, Table, Transcript, mean_cell
from wason.report.render import (
    cell_text,
    results_csv,
    results_html,
    results_latex,
    results_markdown,
    results_terminal,
    transcript_html,
    transcript_terminal,
)

RATE = Column(key="won", name="Won", kind="rate", legend="games won")
MEAN = Column(key="turns", name="Turns", kind="mean", legend="turns played")


def _printed(parts: object, width: int = 80) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO())
    for part in parts if isinstance(parts, list) else [parts]:
        console.print(part)
    return console.export_text().splitlines()


def _wide(columns: int) -> Results:
    cols = [Column(key="who", name="Player")]
    cols += [Column(key=f"c{i}", name=f"Level {i}", kind="rate", legend=f"level {i}") for i in range(columns)]
    rows = [
        {
            "who": "a-model/with-a-rather-long-name:latest",
            "run": 3,
            **{f"c{i}": Rate.of(i, 9) for i in range(columns)},
        },
        {"who": "solver (baseline)", **{f"c{i}": Rate.of(9 - i, 9) for i in range(columns)}},
    ]
    table = Table(name="levels", title="Win rate per level", columns=cols, rows=rows)
    return Results(
        title="Run 3: game:L1 by a-model", protocol="as published", tables=[table], notes=["a note"]
    )


def test_cells_read_the_same_way_in_every_format() -> None:
    rate = Rate.of(1, 4)
    assert cell_text(RATE, rate) == "25% [5-70]\n1/4"
    assert cell_text(RATE, rate, paper=True) == "25% [5-70] 1/4"  # one format: the counts on the same line
    assert cell_text(RATE, Rate.of(0, 0)) == "-"  # no games: no rate
    assert cell_text(RATE, None) == "-"
    mean = mean_cell([1, 2, None, 3])
    assert mean.n == 3 and mean.value == pytest.approx(2.0)
    assert cell_text(MEAN, mean, paper=True).startswith("2.00 [")
    assert cell_text(MEAN, 2.5) == "2.50"
    assert cell_text(Column(key="k", name="k", kind="mean", digits=3), Mean(value=0.1234)) == "0.123"
    assert cell_text(Column(key="n", name="n", kind="count"), 7) == "7"


def test_a_wide_table_is_split_to_fit_80_columns_repeating_the_row_names() -> None:
    lines = _printed(results_terminal(_wide(9)))
    assert max(len(line) for line in lines) <= 80
    text = "\n".join(lines)
    for i in range(9):  # every column is shown, none cut
        assert f"Level {i}" in text
        assert f"{i}/9" in text
    assert text.count("solver (baseline)") >= 2  # the row names repeat in each part
    assert "Level 0: level 0" in text and "Wilson" in text  # the legend
    assert "protocol: as published" in text and "a note" in text


def test_html_is_a_sortable_table_with_escaped_cells_and_row_links() -> None:
    results = _wide(2)
    hostile = results.tables[0].rows[1] | {"who": "<script>alert(1)</script>", "episode": 4}
    table = results.tables[0].model_copy(update={"rows": [results.tables[0].rows[0], hostile]})
    page = results_html(
        results.model_copy(update={"tables": [table]}),
        episode_href=lambda i: f"/runs/3/episodes/{i}",
        run_href=lambda r: f"/runs/{r}",
    )
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert '<table class="results sortable"' in page
    assert '<a href="/runs/3/episodes/4">' in page  # a row naming an episode links to it
    assert '<a href="/runs/3">' in page  # a row naming a run links to it
    assert 'data-kind="rate"' in page and 'data-sort="0.000000"' in page  # 0/9, sortable as a number
    assert "11% [2-43] 1/9" in page and "percent [95% Wilson interval] over k/n" in page


def test_paper_formats_and_csv_carry_every_number() -> None:
    results = _wide(2)
    md = results_markdown(results)
    assert "| Player | Level 0 | Level 1 |" in md and "|:---|---:|---:|" in md
    latex = results_latex(results)
    assert r"\begin{tabular}{lrr}" in latex and r"a-model/with-a-rather-long-name:latest" in latex
    rows = list(csv.DictReader(io.StringIO(results_csv(results))))
    assert [r["Level 1 k"] for r in rows] == ["1", "8"]
    assert float(rows[0]["Level 1"]) == pytest.approx(1 / 9)
    assert float(rows[0]["Level 1 low"]) == pytest.approx(Rate.of(1, 9).interval[0])


def test_results_round_trip_through_json_with_their_cell_types() -> None:
    results = _wide(2)
    table = results.tables[0]
    with_mean = table.model_copy(
        update={
            "columns": [*table.columns, MEAN],
            "rows": [table.rows[0] | {"turns": mean_cell([1, 2])}, table.rows[1] | {"turns": 3}],
        }
    )
    results = results.model_copy(update={"tables": [with_mean]})
    again = Results.model_validate_json(results.model_dump_json())
    assert again == results
    assert isinstance(again.tables[0].rows[0]["c1"], Rate)
    assert isinstance(again.tables[0].rows[0]["turns"], Mean)
    assert again.tables[0].rows[1]["turns"] == 3


def test_a_table_needs_unique_column_keys() -> None:
    with pytest.raises(ValueError, match="unique"):
        Table(name="t", title="t", columns=[RATE, RATE], rows=[])


def test_transcripts_fold_the_system_prompt_unless_asked_in_full() -> None:
    system = "\n".join(f"line {i}" for i in range(20))
    transcript = Transcript(
        title="Run 1, episode 0: r1",
        messages=[
            Message(role="system", name="system", text=system),
            Message(role="player", name="model, turn 1", text="Test Case: (1, 2, 3)", turn=0),
            Message(role="game", name="harness", text="True", turn=0, annotations={"verdict": "ok"}),
            Message(role="outcome", name="ended", text="succeeded"),
        ],
        success=True,
    )
    folded = "\n".join(_printed(transcript_terminal(transcript, hint="see it all: --full")))
    assert "line 19" not in folded and "see it all: --full" in folded
    full = "\n".join(_printed(transcript_terminal(transcript, full=True)))
    assert "line 19" in full and "[model, turn 1]" in full and "verdict: ok" in full
    page = transcript_html(transcript)
    assert '<details class="message system">' in page and "line 19" in page
    assert '<div class="message game">' in page and "verdict: ok" in page
