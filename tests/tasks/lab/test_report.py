"""Lab reports: a run played through the real engine by a scripted player, reported as JSON (numbers as
numbers), as tables that fit 80 columns, as a transcript and as the ending of `wason play`; the summary's
intervals and curves on hand-made games."""

from __future__ import annotations

import asyncio
import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from wason.core.game import VOID
from wason.core.records import EpisodeRow, RunRow
from wason.engine import create_run, execute_run
from wason.metrics import t_interval, t_quantile
from wason.players.scripted import ScriptedPlayer
from wason.report.render import results_terminal, transcript_terminal
from wason.report.tables import episode_json, report_tables
from wason.store import Store
from wason.tasks.lab.family import FAMILY, LabRunConfig, domain_of
from wason.tasks.lab.game import Answer, Finish, Request, Step
from wason.tasks.lab.laws import same_value
from wason.tasks.lab.report import (
    curve_points,
    lab_ending,
    mean_interval,
    messages,
    run_json,
    summarize,
    value_at,
)
from wason.tasks.lab.world import trials

TEST_SIZE = 6


def truth_of(item: dict[str, Any]) -> list[dict[str, dict[str, Any]]]:
    """What each test experiment of the item's game changes: the right answer."""
    domain = domain_of(item)
    out = []
    for t in trials(domain, TEST_SIZE, f"test|{item['seed']}|{item['index']}"):
        changes: dict[str, dict[str, Any]] = {}
        for old, new in zip(t.things, t.outcome(domain.laws), strict=True):
            for prop, v in new.values.items():
                if not same_value(old.values[prop], v):
                    changes.setdefault(new.name, {})[prop] = v
        out.append(changes)
    return out


def scripted_run(store: Store, n: int = 3, curve: bool = False) -> int:
    """Game 1 answered right, the others "nothing changes"; every game one experiment, one refused request."""
    config = LabRunConfig(player="scripted", n=n, seed=4, curve=curve, test_size=TEST_SIZE)
    rid = create_run(store, config)

    def factory(item: dict[str, Any], episode_id: int, index: int) -> ScriptedPlayer:
        domain = domain_of(item)
        op = domain.operations[0]
        objects = tuple(o[0] for o in domain.objects[: op.arity])
        right = index == 0
        preds = truth_of(item) if right else [{}] * TEST_SIZE
        return ScriptedPlayer(
            [
                Request((Step("experiment", op=op.name, objects=objects),)),
                Request((Step("experiment", op="no-such-op", objects=objects),)),
                Finish(),
                Answer(tuple(preds), "", "right" if right else "lazy"),
            ]
        )

    asyncio.run(execute_run(store, rid, factory, concurrency=1))
    return rid


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, int]:
    path = Path(tmp_path_factory.mktemp("lab")) / "lab.db"
    store = Store(f"sqlite:///{path}")
    return store, scripted_run(store)


def lab_tables(store: Any, run_ids: list[int]) -> list[Any]:
    """The run's results as ``wason show`` draws them."""
    return results_terminal(FAMILY.results(store, run_ids))


def lab_transcript(data: dict[str, Any], player: str) -> Any:
    """One game's transcript as ``wason show --episode`` draws it."""
    return transcript_terminal(messages(data, run_row(1, player, None)))


def render(parts: Any, width: int = 200) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    for p in parts if isinstance(parts, list) else [parts]:
        console.print(p)
    return [line.rstrip() for line in console.export_text().splitlines()]


def assert_numbers(value: Any, where: str = "summary") -> None:
    """No number in the report is written as text."""
    if isinstance(value, dict):
        for k, v in value.items():
            assert_numbers(v, f"{where}.{k}")
    elif isinstance(value, list):
        for k, v in enumerate(value):
            assert_numbers(v, f"{where}[{k}]")
    elif isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return
        raise AssertionError(f"{where} is a number written as text: {value!r}")


def test_the_json_report_of_a_played_run(played: tuple[Store, int]) -> None:
    store, rid = played
    eps = store.list_episodes(rid)
    assert [e.status for e in eps] == ["completed"] * 3
    data = json.loads(FAMILY.report_json(store, [rid]).model_dump_json())
    s = data["summary"]
    assert_numbers(s)
    # only the game answered right is a success; the errored and void counts are zero
    assert s["success"]["k"] == 1 and s["success"]["n"] == 3 and (s["errored"], s["void"]) == (0, 0)
    low, high = s["success"]["interval"]
    assert 0 < low < 1 / 3 < high < 1 and s["success"]["rate"] == pytest.approx(1 / 3)
    accs = [e.metrics["prediction_accuracy"] for e in eps if e.metrics]
    assert accs[0] == 1.0 and all(a < 1.0 for a in accs[1:])
    acc = s["prediction_accuracy"]
    assert acc["method"] == "t" and acc["n"] == 3 and math.isclose(acc["mean"], sum(accs) / 3)
    assert isinstance(acc["low"], float) and acc["low"] <= acc["mean"] <= acc["high"] <= 1.0
    # every game ran one experiment and had one request refused
    assert s["experiments"] == 1.0 and s["invalid_requests"] == 3 and s["finished_early"] == 3
    assert s["theories"] == 0 and s["theory_equivalent"]["n"] == 0 and s["theory_equivalent_all"]["n"] == 3
    # no curves in this run (curve=False): the fields are there, empty
    assert s["curves"] == {"ideal": [], "random": []} and s["ideal_accuracy"] is None
    assert [e["theory"] for e in data["episodes"]] == ["none"] * 3
    assert [e["domain"] for e in data["episodes"]] == [1, 2, 3]
    assert s["null_accuracy"] == pytest.approx(sum(e.metrics["null_accuracy"] for e in eps if e.metrics) / 3)


def test_the_tables_fit_80_columns(played: tuple[Store, int]) -> None:
    store, rid = played
    parts = report_tables(store, [rid])
    for width in (200, 80):
        lines = render(parts, width)
        long = [line for line in lines if len(line) > 80]
        assert not long, long
    text = "\n".join(render(parts))
    assert "Acc" in text and "Succ: games with at least 90%" in text
    assert "No curves: the ideal learner was not run" in text and "Game by game" in text
    assert f"run id: {rid}" in text
    assert "1/3" in text  # the success rate in its row


def test_the_transcript_shows_requests_the_test_and_the_laws(played: tuple[Store, int]) -> None:
    store, rid = played
    data = episode_json(store, rid, 0)
    text = "\n".join(render(lab_transcript(data, "scripted"), 120))
    item = data["item"]
    for law in item["domain"]["law_text"]:
        assert law in text
    assert "[scripted, turn 1]" in text and "request: " in text and "[lab] Results:" in text
    assert "unknown operation 'no-such-op'" in text
    # the game answered right: every test experiment is marked right, none wrong
    assert text.count("   right") == TEST_SIZE and "WRONG" not in text
    assert "truth: " in text and "verdict: none" in text
    lost = "\n".join(render(lab_transcript(episode_json(store, rid, 1), "llm"), 120))
    assert "[model, turn 1]" in lost and "WRONG" in lost and "predicted: nothing changes" in lost


def test_the_ending_shows_the_laws_and_the_score(played: tuple[Store, int]) -> None:
    store, rid = played
    e = store.list_episodes(rid)[0]
    lines = lab_ending(e.item, e.metrics)
    assert lines[0] == "The hidden laws were:"
    assert [x.strip() for x in lines[1 : 1 + len(e.item["domain"]["law_text"])]] == e.item["domain"][
        "law_text"
    ]
    assert f"You predicted {TEST_SIZE} of {TEST_SIZE} test experiments right (1.00)" in "\n".join(lines)
    assert "You wrote no theory." in lines
    assert lab_ending(e.item, None)[0] == "The hidden laws were:"


# -- the summary on hand-made games -------------------------------------------------------------------------
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def episode(index: int, status: str = "completed", **metrics: Any) -> EpisodeRow:
    m = {"prediction_accuracy": 0.5, "experiments": 2, **metrics} if status == "completed" else None
    success = None if m is None else m["prediction_accuracy"] >= 0.9
    return EpisodeRow(
        id=index + 1,
        run_id=1,
        index=index,
        item_key=f"k{index}",
        item={"index": index + 1, "trial": 1},
        status=status,
        success=success,
        metrics=m,
        error="boom" if status == "errored" else None,
    )


class FakeStore:
    """A run reader over hand-made runs and games."""

    url = "memory"

    def __init__(self, runs: dict[int, tuple[RunRow, list[EpisodeRow]]]) -> None:
        self.runs = runs

    def get_run(self, run_id: int) -> RunRow:
        return self.runs[run_id][0]

    def list_runs(self) -> list[RunRow]:
        return [r for r, _ in self.runs.values()]

    def list_episodes(self, run_id: int) -> list[EpisodeRow]:
        return self.runs[run_id][1]

    def list_turns(self, episode_id: int) -> list[dict[str, Any]]:
        return []

    def call_totals(self, run_id: int) -> dict[str, int]:
        keys = ("calls", "cached_calls", "failed_calls", "attempts", "input_tokens", "output_tokens")
        return {k: 0 for k in (*keys, "cached_input_tokens", "cached_output_tokens")}


def run_row(run_id: int, player: str, model: str | None, **config: Any) -> RunRow:
    cfg = {"task": "lab", "difficulty": "medium", "seed": 0, "budget": 40, **config}
    return RunRow(run_id, "lab", player, model, cfg, "completed", NOW, NOW)


def test_a_t_interval_of_known_values() -> None:
    # mean 3, sd sqrt(2.5), n 5: half width t(0.975, 4) * sd / sqrt(5) = 2.776 * 0.7071 = 1.963
    low, high = t_interval([1.0, 2.0, 3.0, 4.0, 5.0]) or (0.0, 0.0)
    assert (low, high) == pytest.approx((3 - 1.963, 3 + 1.963), abs=1e-3)
    assert t_interval([4.0]) is None


def test_t_quantiles_match_the_tables() -> None:
    for df, t in ((1, 12.706), (2, 4.303), (10, 2.228), (30, 2.042), (1000, 1.962)):
        assert t_quantile(0.95, df) == pytest.approx(t, abs=1e-3)
    ci = mean_interval([0.5, 0.7, 0.9])
    # mean 0.7, sd 0.2, t(2) 4.303: half width 0.497
    assert (
        ci["mean"] == pytest.approx(0.7) and ci["high"] == 1.0 and ci["low"] == pytest.approx(0.203, abs=1e-3)
    )
    assert mean_interval([]) == {"mean": None, "n": 0, "low": None, "high": None, "method": "t"}
    assert mean_interval([0.4])["low"] is None


def test_curves_are_read_in_every_stored_form() -> None:
    assert curve_points([0.1, 0.5, 0.9]) == {0: 0.1, 1: 0.5, 2: 0.9}
    assert curve_points([[0, 0.2], [5, 0.8]]) == {0: 0.2, 5: 0.8}
    assert curve_points([{"experiments": 3, "accuracy": 0.6}, {"k": 4, "accuracy": 0.7}]) == {3: 0.6, 4: 0.7}
    assert curve_points("0.5") == {} and curve_points([None, "x", True]) == {}
    assert value_at({0: 0.2, 5: 0.8}, 4) == 0.2 and value_at({0: 0.2, 5: 0.8}, 9) == 0.8
    assert value_at({3: 0.5}, 1) is None


def test_the_summary_counts_void_errored_curves_and_the_judge() -> None:
    eps = [
        episode(
            0,
            prediction_accuracy=1.0,
            experiments=2,
            curve=[0.2, 0.6, 1.0],
            random_curve=[0.2, 0.3, 0.4, 0.5, 0.6],
            theory="on a(a): a.x = 1",
            theory_equivalent=True,
            theory_accuracy=1.0,
            report_judge={"verdict": True},
        ),
        episode(
            1,
            prediction_accuracy=0.5,
            experiments=4,
            curve=[0.2, 0.2, 0.4, 0.4, 0.8],
            random_curve=[0.0, 0.1, 0.2, 0.3, 0.4],
            theory="nonsense",
            theory_error="line 1: not a law",
            report_judge={"equivalent": False, "votes": [{"judgment": False}], "majority": 2},
        ),
        episode(2, status="errored"),
        episode(3, **{VOID: "no game"}),
    ]
    s = summarize(eps)
    assert (s["episodes"], s["completed"], s["errored"], s["void"]) == (4, 2, 1, 1)
    # the errored game is a loss in n; the void one is nowhere
    assert (s["success"].k, s["success"].n) == (1, 3)
    assert s["prediction_accuracy"]["mean"] == pytest.approx(0.75)
    assert (s["theories"], s["theory_errors"]) == (2, 1)
    assert (s["theory_equivalent"].k, s["theory_equivalent"].n) == (1, 2)
    assert s["theory_accuracy"] == 1.0
    # the first game stopped after 2 experiments: its last point (1.0) counts at k = 3, 4
    assert s["curves"]["ideal"] == pytest.approx([0.2, 0.4, 0.7, 0.7, 0.9])
    assert s["curves"]["random"] == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5])
    assert s["ideal_accuracy"] == pytest.approx(0.9)
    assert s["random_accuracy_budget"] == pytest.approx(0.5)
    # random experiments as many as the player's: 2 and 4
    assert s["random_accuracy_same"] == pytest.approx((0.4 + 0.4) / 2)
    assert (s["report_judge"].k, s["report_judge"].n) == (1, 2)


def test_model_and_solver_rows_with_a_long_model_name_fit_80_columns() -> None:
    curve = [min(1.0, 0.3 + 0.02 * k) for k in range(41)]
    model = [
        episode(i, prediction_accuracy=0.6 + 0.1 * i, experiments=12, curve=curve[:13]) for i in range(3)
    ]
    solver = [episode(i, prediction_accuracy=1.0, experiments=30, curve=curve[:31]) for i in range(3)]
    for eps in (model, solver):
        for e in eps:
            assert e.metrics is not None
            e.metrics["random_curve"] = [0.3 + 0.01 * k for k in range(41)]
    store = FakeStore(
        {
            1: (run_row(1, "llm", "openrouter:some-provider/a-rather-long-model-name-v2"), model),
            2: (run_row(2, "solver", None, design="information", baseline_for=1), solver),
        }
    )
    report = FAMILY.report_json(store, [1, 2]).model_dump()
    assert [b["player"] for b in report["baselines"]] == ["solver"]
    parts = lab_tables(store, [1, 2])
    for width in (200, 80):
        lines = render(parts, width)
        assert not [line for line in lines if len(line) > 80], [line for line in lines if len(line) > 80]
    text = "\n".join(render(parts))
    assert "solver (reference)" in text and "ideal on " in text and "…" not in "\n".join(render(parts, 80))
    # the long name is wrapped where a reader expects a break, not in the middle of a word
    narrow = render(parts, 80)
    assert any(line.split()[0:1] == ["openrouter:some-"] for line in narrow)
    assert any(line.strip() == "model-name-v2" for line in narrow)
    assert any(line.startswith("long-model-name-v2's") for line in narrow)
    # the comparison's columns: success (Wilson), test accuracy (t), exact theories, experiments
    scores = FAMILY.scores(store, 1)
    assert [s.short for s in scores] == ["Success", "Acc", "Exact", "Exp"]
    assert (scores[0].k, scores[0].n, scores[2].k, scores[2].n) == (0, 3, 0, 3)
    assert scores[1].value == pytest.approx(0.7) and scores[1].interval == pytest.approx(
        (0.4516, 0.9484), 1e-3
    )
    assert scores[3].value == 12.0 and scores[3].interval == (12.0, 12.0)
    assert "k=40" in text and "k=0" in text
    # the model's row in the curve table: 0.30 at k=0, its last point (0.54 after 12 experiments) from k=20 on
    curve_row = next(line for line in render(parts) if line.startswith("ideal on"))
    assert curve_row.split()[-5:] == ["0.30", "0.40", "0.50", "0.54", "0.54"]
    parsed = run_json(store, 1).model_dump()
    assert parsed["summary"]["random_accuracy_same"] == pytest.approx(0.42)


def test_a_transcript_of_a_judged_game_and_of_an_errored_one(played: tuple[Store, int]) -> None:
    store, rid = played
    data = episode_json(store, rid, 1)
    data["metrics"] = {
        **data["metrics"],
        "theory": "on nothing",
        "theory_error": "line 1: expected ':'",
        "report": "it wobbles",
        "report_judge": {"equivalent": False, "votes": [{"judgment": True}, {"judgment": False}]},
        "curve": [0.0, 0.5],
        "random_curve": [0.0, 0.25, 0.75],
    }
    text = "\n".join(render(lab_transcript(data, "llm"), 120))
    assert "verdict: unreadable (line 1: expected ':')" in text
    assert "[report judge] no (1 of 2 votes yes)" in text
    assert "ideal learner on these experiments 0.50; on as many random ones 0.25" in text
    errored = {**data, "status": "errored", "error": "HTTP 500", "metrics": None}
    assert "errored: HTTP 500" in "\n".join(render(lab_transcript(errored, "llm"), 120))
    ending = lab_ending(data["item"], data["metrics"])
    assert "Your theory could not be read: line 1: expected ':'" in ending
    assert "An ideal learner on your experiments would have predicted 50% right." in ending


def test_a_run_with_curves_places_the_player_between_random_and_ideal(tmp_path: Path) -> None:
    pytest.importorskip("wason.tasks.lab.learner", reason="the lab's ideal learner has not landed yet")
    store = Store(f"sqlite:///{tmp_path / 'curves.db'}")
    config = LabRunConfig(player="scripted", n=2, seed=5, budget=6, test_size=TEST_SIZE)
    rid = create_run(store, config)

    def factory(item: dict[str, Any], episode_id: int, index: int) -> ScriptedPlayer:
        domain = domain_of(item)
        steps = tuple(
            Step("experiment", op=op.name, objects=tuple(o[0] for o in domain.objects[: op.arity]))
            for op in domain.operations
        )
        return ScriptedPlayer([Request(steps[:3]), Finish(), Answer(tuple([{}] * TEST_SIZE))])

    asyncio.run(execute_run(store, rid, factory, concurrency=1))
    eps = store.list_episodes(rid)
    assert [e.status for e in eps] == ["completed"] * 2, [e.error for e in eps]
    s = run_json(store, rid).model_dump()["summary"]
    assert_numbers(s)
    ideal, rand = s["curves"]["ideal"], s["curves"]["random"]
    assert ideal and rand and all(0.0 <= v <= 1.0 for v in ideal + rand)
    lasts = [max(curve_points(e.metrics["random_curve"]).items())[1] for e in eps if e.metrics]
    assert s["random_accuracy_budget"] == pytest.approx(sum(lasts) / 2)
    assert s["ideal_accuracy"] is not None and s["random_accuracy_same"] is not None
    lines = render(lab_tables(store, [rid]))
    assert any(line.startswith("ideal on scripted's") for line in lines)
    assert any(line.startswith("random experiments") for line in lines)
    assert all(len(line) <= 80 for line in lines)


def test_a_run_beside_its_solver_baseline(tmp_path: Path) -> None:
    pytest.importorskip("wason.tasks.lab.theory", reason="the lab's theory reader has not landed yet")
    from wason.engine.runs import solver_player_factory

    store = Store(f"sqlite:///{tmp_path / 'baseline.db'}")
    rid = scripted_run(store, n=2, curve=True)
    config = LabRunConfig.model_validate(store.get_run(rid).config)
    baseline = FAMILY.baseline(config, rid)
    bid = create_run(store, baseline)
    asyncio.run(execute_run(store, bid, solver_player_factory(baseline), concurrency=1))
    report = FAMILY.report_json(store, [rid, bid]).model_dump()
    (solver,) = report["baselines"]
    assert solver["player"] == "solver" and solver["design"] == "information"
    s = solver["summary"]
    assert s["completed"] == 2 and s["theories"] == 2
    # the solver writes the laws it identified: at least as good as the scripted player
    assert s["prediction_accuracy"]["mean"] >= report["summary"]["prediction_accuracy"]["mean"]
    lines = render(report_tables(store, [rid, bid]))
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    # the baseline's row in each table and its curve
    assert sum(line.startswith("solver (reference)") for line in lines) >= 3


def test_a_counterexample_reads_as_the_experiment_and_what_differs() -> None:
    from wason.tasks.lab.report import _counterexample

    ce = {
        "trial": {
            "op": "tooz",
            "objects": [{"name": "p-1", "type": "z", "values": {"glow": True, "zib": -14.0}}],
        },
        "theory": [{"name": "p-1", "values": {"glow": True, "zib": -14.0}}],
        "truth": [{"name": "p-1", "values": {"glow": False, "zib": -14.0}}],
    }
    assert (
        _counterexample(ce)
        == "tooz(p-1) where p-1: glow=true, zib=-14: p-1.glow: your theory true, the laws false"
    )
    assert _counterexample("as text") == "as text"
    assert _counterexample({"trial": 3}) == "trial: 3"


def test_a_model_game_shows_its_system_prompt_folded(played: tuple[Store, int]) -> None:
    store, rid = played
    data = episode_json(store, rid, 0)
    run = store.get_run(rid)
    as_model = RunRow(
        rid, "lab", "llm", "x:y", {**run.config, "player": "llm", "model": "x:y"}, "completed", NOW, NOW
    )
    config = LabRunConfig.model_validate(as_model.config)
    prompt = FAMILY.protocol(config, data["item"]).system_prompt()
    hint = f"the whole prompt: wason show {rid} --episode 0 --full"  # as wason show adds it

    def transcript(run: RunRow, *, full: bool = False) -> Any:
        return transcript_terminal(FAMILY.messages(data, run), full=full, hint=hint)

    folded = "\n".join(render(transcript(as_model), 200))
    assert f"[system]\n{prompt.splitlines()[0][:60]}" in folded
    assert f"more lines; the whole prompt: wason show {rid} --episode 0 --full]" in folded
    assert prompt.splitlines()[-1] not in folded
    whole = "\n".join(render(transcript(as_model, full=True), 200))
    assert " ".join(prompt.split()) in " ".join(whole.split()) and "more lines;" not in whole
    # a scripted player read no prompt: none is shown
    assert "[system]" not in "\n".join(render(transcript(run), 200))
