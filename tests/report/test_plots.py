"""Figures: every family's figures built from real runs and written as PNG and SVG, reproducibly, in one style
(titles wrapped and inside the figure, legends beside the axes, whole-number ticks on count axes)."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools
import json
import threading
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib
import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from wason.cli import main
from wason.core import registry
from wason.core.records import Figure, Series
from wason.report.plots import accuracy_figure, draw, render, write_plots
from wason.store import Store
from wason.tasks.aiw.plots import correct_rate_figure

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@dataclass
class Runs:
    store: Store
    path: Path
    ids: dict[str, int] = field(default_factory=dict)


def _eval(db: str, *argv: str) -> int:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["eval", *argv, "--db", db, "--json"]) == 0
    return int(json.loads(out.getvalue())["run"])


def _replies() -> Any:
    """A fake model: WILT tests a few points then guesses; AIW answers 3, 4, 4, 7, then text with no number."""
    lock = threading.Lock()
    count = [0]

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        text = str(messages[-1].get("content", ""))
        with lock:
            count[0] += 1
            n = count[0]
        if "Alice" in text or "Answer" in text:
            return ["### Answer: 3", "### Answer: 4", "### Answer: 4", "### Answer: 7", "no idea"][n % 5]
        turns = sum(m.get("role") == "assistant" for m in messages)
        if turns < 4:
            return f"Test Case: ```({turns}, {n % 3}, {turns * 2})```"
        return "Final Guess: ```lambda x, y, z: x < y```"

    return reply


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    path = tmp_path_factory.mktemp("plots") / "plots.db"
    db = str(path)
    data = Runs(store=Store(db), path=path)
    data.ids["wilt_solver"] = _eval(db, "wilt", "--player", "solver", "--split", "lite", "--ids", "1,2,3")
    data.ids["lists"] = _eval(db, "lists", "--player", "solver", "--ids", "1,2", "--trials", "2")
    data.ids["lab"] = _eval(db, "lab", "--player", "solver", "--difficulty", "easy", "--n", "2")
    with FakeOpenAIServer(_replies()) as server:
        model = ["--model", "vllm:fake-model", "--base-url", server.base_url, "--no-cache"]
        data.ids["wilt_model"] = _eval(db, "wilt", *model, "--split", "lite", "--ids", "1,2,3")
        data.ids["aiw"] = _eval(db, "aiw", *model, "--trials", "5")
    data.ids["wilt_baseline"] = next(
        r.id for r in data.store.list_runs() if r.config.get("baseline_for") == data.ids["wilt_model"]
    )
    yield data
    data.store.close()


def _written(paths: list[Path]) -> dict[str, Path]:
    for p in paths:
        if p.suffix == ".png":
            assert p.read_bytes()[:8] == PNG_MAGIC, p
        else:
            assert p.suffix == ".svg"
            assert ET.parse(p).getroot().tag == "{http://www.w3.org/2000/svg}svg", p
    return {p.name: p for p in paths}


def _figures(runs: Runs, *names: str) -> dict[str, Figure]:
    ids = [runs.ids[n] for n in names]
    task = runs.store.get_run(ids[0]).task
    return {f.name: f for f in registry.get(task).figures(runs.store, ids)}


# -- every family, from real runs ----------------------------------------------------------------------------
def test_wilt_reduction_curves_and_accuracy(runs: Runs, tmp_path: Path) -> None:
    ids = [runs.ids["wilt_model"], runs.ids["wilt_baseline"]]
    files = _written(write_plots(runs.store, ids, tmp_path))
    assert set(files) == {"accuracy.png", "accuracy.svg", "reduction.png", "reduction.svg"}
    reduction = _figures(runs, "wilt_model", "wilt_baseline")["reduction"]
    assert reduction.kind == "lines" and reduction.x[0] == 1 and len(reduction.x) == 30
    model, solver = reduction.series
    assert model.name == "vllm:fake-model (3 games)" and solver.name == "solver (reference) (3 games)"
    for s in (model, solver):
        values = [v for v in s.values if v is not None]
        assert len(values) == 30 and all(0 <= a <= b <= 1 for a, b in itertools.pairwise(values))
    # the mean of the episodes' stored curves, an ended game keeping its last value
    curves = [e.metrics["reduction"] for e in runs.store.list_episodes(ids[0]) if e.metrics]
    assert model.values[29] == pytest.approx(sum(c[-1] for c in curves) / len(curves))
    # the solver rules out more than four arbitrary tests do
    assert solver.values[29] is not None and model.values[29] is not None
    assert solver.values[29] > model.values[29]


def test_the_accuracy_figure_is_every_rate_of_the_scores(runs: Runs) -> None:
    fam = registry.get("wilt")
    rows = [runs.store.get_run(runs.ids[n]) for n in ("wilt_model", "wilt_baseline")]
    figure = accuracy_figure(runs.store, fam, rows)
    assert figure.categories == ["vllm:fake-model", "solver (reference)"]
    rates = [s for s in fam.scores(runs.store, rows[1].id) if s.kind == "rate"]
    assert [s.name for s in figure.series] == [s.name for s in rates]
    first = figure.series[0]
    assert first.values[1] == rates[0].value and first.labels is not None
    assert first.labels[1] == f"{rates[0].k}/{rates[0].n}"
    assert first.low is not None and rates[0].interval is not None and first.low[1] == rates[0].interval[0]
    assert figure.y_range == (0.0, 1.0)


def test_lists_success_and_rounds_per_rule(runs: Runs, tmp_path: Path) -> None:
    files = _written(write_plots(runs.store, [runs.ids["lists"]], tmp_path))
    assert {"success-by-rule.png", "rounds-by-rule.svg", "accuracy.png"} <= set(files)
    figs = _figures(runs, "lists")
    success, rounds = figs["success-by-rule"], figs["rounds-by-rule"]
    episodes = runs.store.list_episodes(runs.ids["lists"])
    rules = list(dict.fromkeys(e.item["rule"]["key"] for e in episodes))
    assert success.categories == rules == rounds.categories
    for i, rule in enumerate(rules):
        mine = [e for e in episodes if e.item["rule"]["key"] == rule]
        assert success.series[0].values[i] == sum(bool(e.success) for e in mine) / len(mine)
        used = [e.metrics["rounds"] for e in mine if e.metrics]
        assert rounds.series[0].values[i] == pytest.approx(sum(used) / len(used))
        assert rounds.series[0].high is not None and rounds.series[0].high[i] == max(used)
    assert rounds.integer_y and success.y_range == (0.0, 1.0)


def test_aiw_correct_rate_per_variation_and_answer_distributions(runs: Runs, tmp_path: Path) -> None:
    files = _written(write_plots(runs.store, [runs.ids["aiw"]], tmp_path))
    figs = _figures(runs, "aiw")
    rate = figs["correct-by-variation"]
    episodes = runs.store.list_episodes(runs.ids["aiw"])
    cells = list(dict.fromkeys(e.item["variation"] for e in episodes))
    assert rate.categories == cells and len(rate.series) == 1
    dists = [f for name, f in figs.items() if name.startswith("distribution-")]
    assert len(dists) == len(cells) and all(f"{f.name}.png" in files for f in dists)
    for variation, dist in zip(cells, dists, strict=True):
        mine = [e for e in episodes if e.item["variation"] == variation]
        expected = str(mine[0].item["expected"])
        assert dist.highlight == [expected] and expected in dist.categories
        assert dist.integer_y and "vllm:fake-model" in dist.title and variation in dist.title
        counts = dict(zip(dist.categories, dist.series[0].values, strict=True))
        assert sum(v or 0 for v in counts.values()) == len(mine) == 5
        unreadable = sum(e.metrics["status"] != "ok" for e in mine if e.metrics)
        assert counts.get("unparseable", 0) == unreadable
        k = sum(bool(e.success) for e in mine)
        assert counts.get(expected, 0) == k
        assert rate.series[0].values[cells.index(variation)] == k / 5


def test_aiw_variations_of_two_problem_families_that_share_a_name_stay_apart() -> None:
    def trial(correct: bool, expected: str) -> dict[str, Any]:
        return {
            "correct": correct,
            "status": "ok",
            "answer": expected if correct else "0",
            "expected": expected,
        }

    trials = {
        ("aiw.bs", "variation 1", "STANDARD"): [trial(True, "3"), trial(False, "3")],
        ("aiw.sb", "variation 1", "STANDARD"): [trial(False, "5")],
        ("aiw.sb", "variation 2", "STANDARD"): [trial(True, "2")],
    }
    figure = correct_rate_figure(["m"], [trials])
    assert figure.categories == ["variation 1 (aiw.bs)", "variation 1 (aiw.sb)", "variation 2"]
    assert figure.series[0].values == [0.5, 0.0, 1.0]


def test_lab_test_accuracy_by_experiments(runs: Runs, tmp_path: Path) -> None:
    files = _written(write_plots(runs.store, [runs.ids["lab"]], tmp_path))
    assert "test-accuracy-by-experiments.png" in files
    figure = _figures(runs, "lab")["test-accuracy-by-experiments"]
    solver, random_line = figure.series
    assert not solver.reference and random_line.reference and random_line.name == "random experiments"
    assert figure.x[0] == 0 and figure.y_range == (0.0, 1.0)
    games = [e.metrics for e in runs.store.list_episodes(runs.ids["lab"]) if e.metrics]
    assert solver.values[0] == pytest.approx(sum(m["curve"][0] for m in games) / len(games))
    assert solver.values[-1] == pytest.approx(sum(m["curve"][-1] for m in games) / len(games))


class _Unfinished:
    """The store as a web page reads a run whose first game is under way: that game without metrics and its
    item reduced to nothing (its hidden part is not shown before the game ends)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def list_episodes(self, run_id: int) -> list[Any]:
        episodes = self.store.list_episodes(run_id)
        hidden = dataclasses.replace(episodes[0], status="running", item={}, metrics=None, success=None)
        return [hidden, *episodes[1:]]


@pytest.mark.parametrize("runs_of", [("wilt_model", "wilt_baseline"), ("lists",), ("aiw",), ("lab",)])
def test_figures_of_a_run_with_a_game_not_over_leave_that_game_out(
    runs: Runs, runs_of: tuple[str, ...], tmp_path: Path
) -> None:
    ids = [runs.ids[n] for n in runs_of]
    whole = write_plots(runs.store, ids, tmp_path / "whole")
    partial = write_plots(_Unfinished(runs.store), ids, tmp_path / "partial")  # type: ignore[arg-type]
    assert [p.name for p in partial] == [p.name for p in whole]
    task = runs.store.get_run(ids[0]).task
    first = registry.get(task).figures(_Unfinished(runs.store), ids)[0]  # type: ignore[arg-type]
    assert first != registry.get(task).figures(runs.store, ids)[0]  # the game under way is not counted


def test_runs_of_two_families_are_refused(runs: Runs, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="one family; these are of lab, lists"):
        write_plots(runs.store, [runs.ids["lists"], runs.ids["lab"]], tmp_path)
    assert write_plots(runs.store, [], tmp_path / "none") == []


def test_show_plots_writes_and_prints_each_path(runs: Runs, tmp_path: Path) -> None:
    err = io.StringIO()
    argv = ["show", str(runs.ids["wilt_model"]), "--plots", str(tmp_path / "p"), "--db", str(runs.path)]
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0
    # on stderr, so that the table on stdout can be piped alone
    printed = [line.strip() for line in err.getvalue().splitlines() if line.strip().startswith(str(tmp_path))]
    assert sorted(Path(p).name for p in printed) == [
        "accuracy.png",
        "accuracy.svg",
        "reduction.png",
        "reduction.svg",
    ]
    assert all(Path(p).is_file() for p in printed)
    # the baseline is drawn with the model's run
    assert "solver (reference)" in (tmp_path / "p" / "reduction.svg").read_text()


# -- one style ---------------------------------------------------------------------------------------------
def test_the_same_runs_give_the_same_files(runs: Runs, tmp_path: Path) -> None:
    ids = [runs.ids["wilt_model"], runs.ids["wilt_baseline"]]
    first = write_plots(runs.store, ids, tmp_path / "a")
    second = write_plots(runs.store, ids, tmp_path / "b")
    assert [p.name for p in first] == [p.name for p in second]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert "<dc:date>" not in first[1].read_text()


def _bars(**fields: Any) -> Figure:
    base: dict[str, Any] = {
        "name": "t",
        "title": "short",
        "kind": "bars",
        "categories": ["a", "b", "c"],
        "series": [Series(name="m", values=[1, 3, 2])],
    }
    return Figure(**(base | fields))


def _inside(fig: Any, artist: Any) -> bool:
    box = artist.get_window_extent(fig.canvas.get_renderer())
    whole = fig.bbox
    return bool(box.x0 >= whole.x0 and box.y0 >= whole.y0 and box.x1 <= whole.x1 and box.y1 <= whole.y1)


def test_a_long_title_and_caption_are_wrapped_inside_the_figure() -> None:
    title = "A title far too long for one line: " + "openrouter:meta-llama/llama-3.1-405b-instruct " * 4
    caption = "A caption that goes on and on. " * 12
    fig = render(_bars(title=title, caption=caption))
    fig.canvas.draw()
    suptitle = fig.get_suptitle()
    assert suptitle.count("\n") >= 2 and suptitle.replace("\n", "").replace(" ", "") == title.replace(" ", "")
    texts = [t for t in fig.texts if t.get_text()]
    assert len(texts) == 2  # the title and the caption
    assert all(_inside(fig, t) for t in texts)


def test_count_axes_have_whole_number_ticks_and_legends_stay_off_the_bars() -> None:
    two = [Series(name="m1", values=[1, 3, 2]), Series(name="m2", values=[0, 1, 2])]
    fig = render(_bars(integer_y=True, series=two))
    fig.canvas.draw()
    (ax,) = fig.axes
    low, high = ax.get_ylim()
    ticks = [t for t in ax.get_yticks() if low <= t <= high]
    assert ticks and all(float(t).is_integer() for t in ticks)
    (legend,) = fig.legends
    renderer = fig.canvas.get_renderer()
    assert not legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))
    assert [t.get_text() for t in legend.get_texts()] == ["m1", "m2"]


def test_long_model_names_are_wrapped_in_ticks_and_legend() -> None:
    name = "openrouter:meta-llama/llama-3.1-405b-instruct"
    fig = render(_bars(categories=[name, "b", "c"], series=[Series(name=name, values=[0.5, 0.2, 0.1])]))
    fig.canvas.draw()
    (ax,) = fig.axes
    tick = ax.get_xticklabels()[0].get_text()
    assert "\n" in tick and tick.replace("\n", "") == name
    (legend,) = fig.legends
    assert legend.get_texts()[0].get_text().replace("\n", "") == name
    assert _inside(fig, legend)


def test_many_answers_keep_their_tick_labels_apart() -> None:
    answers = [*(str(i) for i in range(60)), "unparseable"]
    fig = render(
        _bars(categories=answers, series=[Series(name="m", values=[1.0] * len(answers))], highlight=["7"])
    )
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in fig.axes[0].get_xticklabels()]
    assert len(boxes) == 61 and not any(a.overlaps(b) for a, b in itertools.pairwise(boxes))
    assert all(_inside(fig, t) for t in fig.axes[0].get_xticklabels())


def test_malformed_figures_are_refused_naming_the_field(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"figure name '\.\./x'"):
        draw(_bars(name="../x"), tmp_path)
    with pytest.raises(ValueError, match="series 'm' has 2 values for 3 categories"):
        draw(_bars(series=[Series(name="m", values=[1, 2])]), tmp_path)
    line = Series(name="m", values=[0, 1], low=[0, 1], high=[1])
    with pytest.raises(ValueError, match="series 'm' has 1 high for 2 x"):
        draw(Figure(name="l", title="t", kind="lines", x=[0, 1], series=[line]), tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_drawing_many_leaves_no_open_figures_or_backend_change(tmp_path: Path) -> None:
    backend = matplotlib.get_backend()
    rc = dict(matplotlib.rcParams)
    with warnings.catch_warnings():
        # pyplot warns past 20 open figures; drawing more than that must stay silent
        warnings.simplefilter("error")
        for i in range(25):
            draw(_bars(name=f"f{i}"), tmp_path)
    assert matplotlib.get_backend() == backend
    assert dict(matplotlib.rcParams) == rc  # the house style does not leak into the process
    assert len(list(tmp_path.glob("f*.png"))) == 25


def test_a_lone_value_on_a_dense_line_gets_a_marker() -> None:
    xs = [float(k) for k in range(1, 31)]  # dense: no markers on lines
    lone = [0.2, *([None] * 29)]
    full = [k / 30 for k in range(30)]
    fig = render(
        Figure(
            name="n",
            title="t",
            kind="lines",
            x=xs,
            series=[Series(name="one point", values=lone), Series(name="a line", values=full)],
        )
    )
    first, second = fig.axes[0].get_lines()[:2]
    assert first.get_marker() == "o" and list(first.get_markevery()) == [0]
    assert second.get_marker() in ("None", None, "")
