"""Lab reports: prediction accuracy, the theory's verdicts, experiments used, and where a player stands between
random experiments and an ideal learner on its own experiments, so its experiments read against a good design and
a blind one.

A game that errored counts in ``n`` of the success rate as a loss (and apart), a void one in nothing. The curves
are means over games of the ideal learner's test accuracy after k experiments; a game whose player stopped before
k counts at its last point (what it had learned stays).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from wason.core import columns as col
from wason.core.family import RunReader
from wason.core.game import VOID
from wason.core.labels import results_title
from wason.core.records import (
    SOLVER_LABEL,
    CallTotals,
    EpisodeRow,
    Figure,
    Rate,
    RunReport,
    RunRow,
    Score,
    Series,
    run_header,
    series_names,
)
from wason.core.reporting import games_text, said_text
from wason.core.results import (
    Cell,
    Message,
    Results,
    Table,
    Transcript,
    calls_notes,
    episode_outcome,
    player_message,
)
from wason.core.results import Mean as ResultMean
from wason.core.tally import Tally
from wason.metrics.rates import mean_present, t_interval
from wason.tasks.lab.laws import changes, format_value
from wason.tasks.lab.world import BUDGETS, Domain, Trial

SOLVER_LEGEND = (
    "the ideal scientist over the law grammar (docs/lab.md), choosing each experiment by expected "
    "information: its theory was exactly the hidden laws in 50 of 50 games at each difficulty "
    "(bench/bench_lab.py), a reference for what the budget allows, not a ceiling of reasoning."
)

CURVE_POINTS = (0, 5, 10, 20, 40)
"""Experiments at which table 2 reads the curves (and the budget)."""
SMALL_RUN = 30
"""Runs of at most this many games get a table of their games."""


class Mean(BaseModel):
    """A mean over games with its 95% Student t interval (None for fewer than two games)."""

    mean: float | None
    n: int
    low: float | None
    high: float | None
    method: str = "t"


class Curves(BaseModel):
    """Mean test accuracy after k = 0, 1, ... experiments, of the ideal learner on the player's and on random ones."""

    ideal: list[float]
    random: list[float]


class LabNumbers(BaseModel):
    """The numbers of a set of games."""

    episodes: int
    completed: int
    errored: int
    void: int
    unfinished: int
    success: Rate
    prediction_accuracy: Mean
    boolean_accuracy: float | None
    number_accuracy: float | None
    changed_accuracy: float | None
    median_relative_error: float | None
    null_accuracy: float | None
    theories: int
    theory_errors: int
    theory_equivalent: Rate
    theory_equivalent_all: Rate
    theory_accuracy: float | None
    experiments: float | None
    turns: float | None
    ideal_accuracy: float | None
    random_accuracy_budget: float | None
    random_accuracy_same: float | None
    invalid_requests: int
    format_errors: int
    truncated: int = 0
    finished_early: int
    report_judge: Rate | None
    curves: Curves


class LabEpisodeRow(BaseModel):
    """One game."""

    index: int
    domain: int | None
    trial: int | None
    status: str
    success: bool | None
    prediction_accuracy: float | None
    theory: str
    experiments: int | None
    ideal_accuracy: float | None
    error: str | None


class LabRunReport(RunReport):
    """``wason show RUN --json`` for a lab run."""

    design: str
    summary: LabNumbers
    calls: CallTotals
    episodes: list[LabEpisodeRow]
    baselines: list[LabRunReport] | None = None


# -- numbers -------------------------------------------------------------------------------------------------
def mean_interval(values: Sequence[float]) -> dict[str, Any]:
    """A mean with its 95% Student t interval (clipped to [0, 1], for accuracies)."""
    interval = t_interval(values)
    low, high = (max(0.0, interval[0]), min(1.0, interval[1])) if interval else (None, None)
    mean = sum(values) / len(values) if values else None
    return {"mean": mean, "n": len(values), "low": low, "high": high, "method": "t"}


def curve_points(curve: Any) -> dict[int, float]:
    """A stored curve as {experiments: accuracy}: a list of accuracies (index k), of [k, accuracy] pairs, or of
    records with ``experiments`` (or ``k``) and ``accuracy``; what cannot be read is left out."""
    out: dict[int, float] = {}
    if not isinstance(curve, list):
        return out
    for i, p in enumerate(curve):
        k: Any = i
        acc: Any = p
        if isinstance(p, Mapping):
            k, acc = p.get("experiments", p.get("k", i)), p.get("accuracy")
        elif isinstance(p, list | tuple) and len(p) == 2:
            k, acc = p
        if isinstance(k, int) and isinstance(acc, int | float) and not isinstance(acc, bool):
            out[k] = float(acc)
    return out


def value_at(points: Mapping[int, float], k: int) -> float | None:
    """The curve after ``k`` experiments: its last point at or before k (None when it has none)."""
    before = [j for j in points if j <= k]
    return points[max(before)] if before else None


def last_point(points: Mapping[int, float]) -> float | None:
    return points[max(points)] if points else None


def theory_verdict(m: Mapping[str, Any]) -> str:
    """``equivalent``, ``not equivalent``, ``unreadable`` (the parser refused it) or ``none`` (no theory)."""
    if not m.get("theory"):
        return "none"
    if m.get("theory_error"):
        return "unreadable"
    if m.get("theory_equivalent") is None:
        return "unchecked"
    return "equivalent" if m["theory_equivalent"] else "not equivalent"


def judge_verdict(judged: Mapping[str, Any]) -> bool | None:
    """The report judge's yes or no: its majority (``equivalent``, as the shared LLM judge writes it) or a
    ``verdict``; None when it has neither."""
    for key in ("verdict", "equivalent"):
        if isinstance(judged.get(key), bool):
            return bool(judged[key])
    return None


def _mean_curve(curves: Sequence[Mapping[int, float]], xs: Sequence[int] | None = None) -> list[float | None]:
    """The mean over games after each k of ``xs``; a game that stopped before k counts at its last point.
    Without ``xs``: from 0 up to the longest curve, ending where no game has a point."""
    if xs is not None:
        at = [[v for v in (value_at(c, k) for c in curves if c) if v is not None] for k in xs]
        return [sum(values) / len(values) if values else None for values in at]
    out: list[float | None] = []
    for v in _mean_curve(curves, range(max((max(c) for c in curves if c), default=-1) + 1)):
        if v is None:
            break
        out.append(v)
    return out


def _void(e: EpisodeRow) -> bool:
    return e.status == "completed" and bool((e.metrics or {}).get(VOID))


def summarize(eps: Sequence[EpisodeRow]) -> dict[str, Any]:
    """The numbers of a set of games (see the module's note on what counts where)."""
    t = Tally(e for e in eps if not _void(e))
    ms = t.metrics
    given = [m for m in ms if m.get("theory")]
    ideal = [curve_points(m.get("curve")) for m in ms]
    rand = [curve_points(m.get("random_curve")) for m in ms]
    same = [value_at(r, int(m.get("experiments") or 0)) for r, m in zip(rand, ms, strict=True) if r]
    judged = [m["report_judge"] for m in ms if isinstance(m.get("report_judge"), Mapping)]
    verdicts = [v for v in (judge_verdict(j) for j in judged) if v is not None]
    means = (
        "boolean_accuracy",
        "number_accuracy",
        "changed_accuracy",
        "median_relative_error",
        "null_accuracy",
    )
    return {
        "episodes": len(eps),
        "completed": len(t.done),
        "errored": t.errored,
        "void": len(eps) - len(t.episodes),
        "unfinished": t.unfinished,
        "success": t.rate(len(t.succeeded)),
        "prediction_accuracy": mean_interval(
            [float(m["prediction_accuracy"]) for m in ms if m.get("prediction_accuracy") is not None]
        ),
        **{key: t.mean(key) for key in (*means, "experiments", "turns")},
        "theories": len(given),
        "theory_errors": sum(bool(m.get("theory_error")) for m in given),
        "theory_equivalent": Rate.of(sum(m.get("theory_equivalent") is True for m in given), len(given)),
        "theory_equivalent_all": Rate.of(sum(m.get("theory_equivalent") is True for m in ms), len(ms)),
        "theory_accuracy": mean_present([m.get("theory_accuracy") for m in given]),
        "ideal_accuracy": mean_present([last_point(c) for c in ideal]),
        "random_accuracy_budget": mean_present([last_point(c) for c in rand]),
        "random_accuracy_same": mean_present(same),
        **{key: t.total(key) for key in ("invalid_requests", "format_errors", "truncated")},
        "finished_early": sum(bool(m.get("finished_early")) for m in ms),
        "report_judge": Rate.of(sum(verdicts), len(verdicts)) if verdicts else None,
        "curves": {"ideal": _mean_curve(ideal), "random": _mean_curve(rand)},
    }


def _episode(e: EpisodeRow) -> dict[str, Any]:
    m = e.metrics or {}
    item = e.item or {}
    return {
        "index": e.index,
        "domain": item.get("index"),
        "trial": item.get("trial"),
        "status": e.status,
        "success": e.success,
        "prediction_accuracy": m.get("prediction_accuracy"),
        "theory": theory_verdict(m) if e.status == "completed" else "-",
        "experiments": m.get("experiments"),
        "ideal_accuracy": last_point(curve_points(m.get("curve"))),
        "error": e.error,
    }


def run_json(store: RunReader, run_id: int) -> LabRunReport:
    """A run's numbers and its games."""
    run = store.get_run(run_id)
    eps = store.list_episodes(run_id)
    return LabRunReport.model_validate(
        {
            **run_header(run),
            "design": str(run.config.get("design", "information")) if run.player == "solver" else "player",
            "summary": summarize(eps),
            "calls": store.call_totals(run_id),
            "episodes": [_episode(e) for e in eps],
        }
    )


# -- tables --------------------------------------------------------------------------------------------------
def _who(data: Mapping[str, Any]) -> str:
    """A run's row label: the model (or the player) and, for a solver, its design."""
    if data["player"] == "llm" and data["model"]:
        who = str(data["model"])
    elif data["player"] == "solver":
        # the solver is a strong reference (SOLVER_LABEL), with its design where it is not the ideal one
        return SOLVER_LABEL if data["design"] == "information" else f"{SOLVER_LABEL[:-1]}, {data['design']})"
    else:
        who = str(data["player"])
    return who + (" (baseline)" if data["config"].get("baseline_for") else "")


def _f(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ratio(rate: Mapping[str, Any] | None) -> str:
    """``k/n``: a rate in a sentence (tables show its interval)."""
    return "-" if not rate or not rate["n"] else f"{rate['k']}/{rate['n']}"


def _mean(mean: Mapping[str, Any]) -> ResultMean:
    low, high = mean.get("low"), mean.get("high")
    interval = (float(low), float(high)) if low is not None and high is not None else None
    return ResultMean(value=mean.get("mean"), interval=interval, n=mean.get("n"))


def _budget(data: Mapping[str, Any]) -> int:
    budget = data["config"].get("budget")
    if isinstance(budget, int):
        return budget

    return int(BUDGETS.get(str(data["config"].get("difficulty", "easy")), 20))


def results(store: RunReader, run_ids: Sequence[int]) -> Results:
    """Table 1, what is beside the score, the curves (a player between random and ideal), a small run's games."""
    runs = [run_json(store, r).model_dump() for r in run_ids]
    first = runs[0]
    cfg = first["config"]
    budget = _budget(first)
    tables = [_scores_table(runs, budget), _beside_table(runs)]
    notes = []
    if any(d["summary"]["curves"]["ideal"] or d["summary"]["curves"]["random"] for d in runs):
        tables.append(_curve_table(runs, budget))
    elif cfg.get("curve") is False:
        notes.append("No curves: the ideal learner was not run (--no-curve).")
    notes += _notes(runs)
    if first["summary"]["episodes"] <= SMALL_RUN:
        tables.append(_episode_table(first))
    notes += calls_notes(first["calls"])
    return Results(title=results_title(store.get_run(run_ids[0])), tables=tables, notes=notes)


def _scores_table(runs: Sequence[Mapping[str, Any]], budget: int) -> Table:
    """Table 1: a run's success, test accuracy, exact theories and experiments used."""
    cfg = runs[0]["config"]
    pass_mark = f"games with at least {cfg.get('pass_mark', 0.9):.0%} of the test predicted right"
    return Table(
        name="scores",
        title=(
            f"Lab {cfg.get('difficulty', '?')}, seed {cfg.get('seed', 0)}, {runs[0]['summary']['episodes']} games, "
            f"budget {budget}"
        ),
        columns=[
            col.PLAYER,
            col.rate("succ", "Succ", f"{pass_mark} (errored games count as losses)"),
            col.mean("acc", "Acc", "share of test experiments predicted right", digits=2),
            col.rate("thy", "Thy≡", "theories exactly equivalent to the hidden laws, of those given"),
            col.mean("exp", "Exp", "experiments used", digits=1),
        ],
        rows=[
            {
                "player": _who(data),
                "run": data["run"],
                "succ": Rate.model_validate(data["summary"]["success"]),
                "acc": _mean(data["summary"]["prediction_accuracy"]),
                "thy": Rate.model_validate(data["summary"]["theory_equivalent"]),
                "exp": data["summary"]["experiments"],
            }
            for data in runs
        ],
        legend="Means over games.",
    )


BESIDE = (
    (col.mean("chg", "Chg", "changed properties predicted right", digits=2), "changed_accuracy"),
    (col.mean("ideal", "Ideal", "an ideal learner on the player's experiments", digits=2), "ideal_accuracy"),
    (
        col.mean("rand", "Rand", "an ideal learner on as many random experiments", digits=2),
        "random_accuracy_same",
    ),
    (col.count("refused", "Refused", "requests the lab refused"), "invalid_requests"),
    (col.count("format", "Format", "replies that could not be read"), "format_errors"),
    (
        col.count("cut", "Cut", "replies cut off at the token limit (--max-tokens; counted apart)"),
        "truncated",
    ),
)
"""The columns beside the score, after the player, and the summary's numbers they show."""


def _beside_table(runs: Sequence[Mapping[str, Any]]) -> Table:
    return Table(
        name="beside",
        title="Beside the score",
        columns=[col.PLAYER, *(column for column, _ in BESIDE)],
        rows=[
            {"player": _who(data), "run": data["run"]}
            | {column.key: data["summary"][number] for column, number in BESIDE}
            for data in runs
        ],
        legend="Each refused or unreadable reply cost its turn.",
    )


def _curve_table(runs: Sequence[Mapping[str, Any]], budget: int) -> Table:
    points = sorted({k for k in CURVE_POINTS if k < budget} | {budget})
    rows: list[dict[str, Cell]] = []

    def row(label: str, curve: Sequence[float]) -> None:
        rows.append(
            {"learner": label, **{f"k{k}": curve[min(k, len(curve) - 1)] if curve else None for k in points}}
        )

    for data in runs:
        ideal = data["summary"]["curves"]["ideal"]
        row(_who(data) if data["player"] == "solver" else f"ideal on {_who(data)}'s experiments", ideal)
    row("random experiments", runs[0]["summary"]["curves"]["random"])
    null = runs[0]["summary"]["null_accuracy"]
    if null is not None:
        row("'nothing changes'", [null])
    return Table(
        name="curves",
        title="Test accuracy after k experiments (mean over games)",
        columns=[col.text("learner", "Learner"), *(col.mean(f"k{k}", f"k={k}", digits=2) for k in points)],
        rows=rows,
        legend=(
            "Each row: what an ideal learner predicts after k experiments of that design (a player that stopped "
            "early counts at its last point); 'nothing changes': predicting no change at all."
        ),
    )


def _notes(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    notes = []
    whole = runs[0]["summary"]["random_accuracy_budget"]
    if whole is not None:  # the same domains and tests for every run: one random design
        notes.append(f"An ideal learner on random experiments, the whole budget: {_f(whole)}")
    for data in runs:
        s = data["summary"]
        who = f"run {data['run']} ({_who(data)})"
        if s["theories"]:
            eq_all = s["theory_equivalent_all"]
            notes.append(
                f"{who}: {s['theories']} theories given, {s['theory_errors']} unreadable; equivalent "
                f"{_ratio(s['theory_equivalent'])} of those given, {_ratio(eq_all)} of all games; "
                f"their test accuracy {_f(s['theory_accuracy'])}"
            )
        if s["report_judge"]:
            notes.append(
                f"{who}: the report judge said yes to {_ratio(s['report_judge'])} reports (decides nothing)"
            )
        if s["errored"] or s["void"] or s["unfinished"]:
            notes.append(
                f"{who}: {s['errored']} errored, {s['void']} void, {s['unfinished']} not finished "
                f"of {s['episodes']} games"
            )
    return notes


def _episode_table(data: Mapping[str, Any]) -> Table:
    rows: list[dict[str, Cell]] = []
    for e in data["episodes"]:
        domain = "-" if e["domain"] is None else str(e["domain"])
        if e["trial"] and e["trial"] > 1:
            domain += f".{e['trial']}"
        status = e["status"] if e["status"] != "completed" else ("passed" if e["success"] else "failed")
        rows.append(
            {
                "index": e["index"],
                "episode": e["index"],
                "domain": domain,
                "acc": e["prediction_accuracy"],
                "theory": e["theory"],
                "exp": e["experiments"],
                "ideal": e["ideal_accuracy"],
                "status": status,
            }
        )
    return Table(
        name="games",
        title="Game by game",
        columns=[
            col.count("index", "#"),
            col.text("domain", "Domain"),
            col.mean("acc", "Acc", digits=2),
            col.text("theory", "Theory"),
            col.count("exp", "Exp"),
            col.mean("ideal", "Ideal", digits=2),
            col.text("status", "Status"),
        ],
        rows=rows,
    )


# -- one game ------------------------------------------------------------------------------------------------
def _values(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={_fmt(v)}" for k, v in values.items())


def _fmt(v: Any) -> str:
    return format_value(v) if isinstance(v, bool | int | float) else str(v)


def _describe(action: Mapping[str, Any]) -> str:
    kind = action.get("type")
    if kind == "Request":
        steps = []
        for s in action.get("steps") or []:
            if s.get("kind") == "create":
                steps.append(f"create({s.get('type')})")
            else:
                head = "reset" if s.get("kind") == "reset" else s.get("op")
                steps.append(f"{head}({', '.join(s.get('objects') or [])})")
        return "request: " + "; ".join(steps)
    if kind == "Finish":
        return "done"
    if kind == "Answer":
        return f"answer: {len(action.get('predictions') or [])} predictions"
    return f"{kind}: {action.get('reason', '')}"


def _prediction(p: Mapping[str, Any] | None) -> str:
    if p is None:
        return "(none)"
    parts = [f"{name}.{prop}={_fmt(v)}" for name, values in p.items() for prop, v in values.items()]
    return ", ".join(parts) or "nothing changes"


def _truths(domain_json: Any, trials: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """What each test experiment really changes (None where the domain cannot be read)."""
    try:
        domain = Domain.from_json(domain_json)
        tests = [Trial.from_json(t) for t in trials]
    except (KeyError, TypeError, ValueError):
        return [None] * len(trials)
    return [_prediction(changes(t.things, t.outcome(domain.laws))) for t in tests]


def messages(data: Mapping[str, Any], run: RunRow, system: str | None = None) -> Transcript:
    """One game: the lab, each request and report, the test against the truth, the theory and the scores."""
    item = data.get("item") or {}
    domain = {**(item.get("lab") or {}), **(item.get("domain") or {})}
    m = data.get("metrics") or {}
    title = (
        f"Run {data['run']}, game {data['index']}: lab {item.get('difficulty')}, domain {item.get('index')} "
        f"(seed {domain.get('seed')}), trial {item.get('trial', 1)}"
    )
    out: list[Message] = [Message(role="system", name="system", text=system)] if system else []
    lab = ["The lab:"]
    for o in domain.get("objects") or []:
        lab.append(f"  {o.get('name')} ({o.get('type')}): {_values(o.get('values') or {})}")
    for op in domain.get("operations") or []:
        args = "X" if op.get("arity") == 1 else "X, Y"
        lab.append(f"  operation {op.get('name')}({args})")
    out.append(Message(role="game", name="lab", text="\n".join(lab)))
    trials: list[Mapping[str, Any]] = []
    answer: Mapping[str, Any] | None = None
    for t in data.get("turns") or []:
        action = t.get("action") or {}
        text = t["reply"] if t.get("reply") is not None else _describe(action)
        out.append(player_message(run, t["index"], text))
        if t.get("feedback"):
            out.append(Message(role="game", name="lab", text=t["feedback"], turn=t["index"]))
        obs = t.get("observation") or {}
        if obs.get("trials"):
            trials = list(obs["trials"])
        if action.get("type") == "Answer":
            answer = action
    if trials:
        predictions = list((answer or {}).get("predictions") or [])
        right = m.get("predicted") or []
        truths = _truths(domain, trials)
        lines = []
        for k, trial in enumerate(trials):
            pred = _prediction(predictions[k]) if k < len(predictions) and answer is not None else "(none)"
            line = f"{k + 1}. {_experiment(trial)}\n   predicted: {pred}"
            if truths[k] is not None:
                line += f"\n   truth: {truths[k]}"
            if k < len(right):
                line += "   right" if right[k] else "   WRONG"
            lines.append(line)
        out.append(Message(role="note", name="the test (prediction / truth)", text="\n".join(lines)))
    if data.get("status") != "completed":
        out.append(episode_outcome(data))
        return Transcript(title=title, messages=out, success=data.get("success"))
    said = f"verdict: {theory_verdict(m)}"
    if m.get("theory_error"):
        said += f" ({m['theory_error']})"
    if m.get("theory_accuracy") is not None:
        said += f"; its test accuracy {m['theory_accuracy']:.2f}"
    theory = [str(m.get("theory") or "(none)"), said]
    if m.get("counterexample"):
        theory.append(f"counterexample: {_counterexample(m['counterexample'])}")
    out.append(Message(role="note", name="theory", text="\n".join(theory)))
    laws = m.get("laws") or domain.get("law_text") or []
    out.append(Message(role="note", name="hidden laws", text="\n".join(f"  {law}" for law in laws)))
    if m.get("report"):
        out.append(Message(role="note", name="report", text=str(m["report"])))
    if isinstance(m.get("report_judge"), Mapping):
        out.append(Message(role="note", name="report judge", text=_judge_line(m["report_judge"])))
    out.append(Message(role="outcome", name="score", text="\n".join(_score_lines(m))))
    return Transcript(title=title, messages=out, success=data.get("success"))


def _counterexample(ce: Any) -> str:
    """An experiment on which the theory and the laws part: ``{trial, theory, truth}`` as the equivalence check
    writes it (the objects after, by each), read as "op(objects) where ...: obj.prop: theory X, laws Y"."""
    if isinstance(ce, str):
        return ce
    if not isinstance(ce, Mapping):
        return str(ce)
    trial = ce.get("trial")
    theory, truth = ce.get("theory"), ce.get("truth")
    if not (isinstance(trial, Mapping) and isinstance(theory, list) and isinstance(truth, list)):
        return "; ".join(f"{k}: {v}" for k, v in ce.items())
    diffs = []
    for mine, real in zip(theory, truth, strict=False):
        if not (isinstance(mine, Mapping) and isinstance(real, Mapping)):
            continue
        ours, theirs = mine.get("values") or {}, real.get("values") or {}
        for prop, value in theirs.items():
            if prop in ours and ours[prop] != value:
                diffs.append(
                    f"{real.get('name')}.{prop}: your theory {_fmt(ours[prop])}, the laws {_fmt(value)}"
                )
    return f"{_experiment(trial)}: " + ("; ".join(diffs) or "the outcomes differ")


def _experiment(trial: Mapping[str, Any]) -> str:
    """A stored experiment: ``op(objects) where object: values; ...``."""
    objects = [o for o in trial.get("objects") or [] if isinstance(o, Mapping)]
    names = ", ".join(str(o.get("name")) for o in objects)
    where = "; ".join(f"{o.get('name')}: {_values(o.get('values') or {})}" for o in objects)
    return f"{trial.get('op')}({names}) where {where}"


def _judge_line(judged: Mapping[str, Any]) -> str:
    verdict = judge_verdict(judged)
    text = "yes" if verdict is True else "no" if verdict is False else "no verdict"
    votes = [v for v in judged.get("votes") or [] if isinstance(v, Mapping)]
    if votes:
        text += f" ({sum(v.get('judgment') is True for v in votes)} of {len(votes)} votes yes)"
    return text


def _score_lines(m: Mapping[str, Any]) -> list[str]:
    acc = m.get("prediction_accuracy")
    lines = [
        f"score: {_f(acc)} of the test predicted right (booleans {_f(m.get('boolean_accuracy'))}, numbers "
        f"{_f(m.get('number_accuracy'))}, changed properties {_f(m.get('changed_accuracy'))}; 'nothing "
        f"changes' would score {_f(m.get('null_accuracy'))})",
        f"experiments {m.get('experiments')} of {m.get('budget')}, turns {m.get('turns')}, refused "
        f"{m.get('invalid_requests', 0)}, unreadable {m.get('format_errors', 0)}, cut off at the token limit "
        f"{m.get('truncated', 0)}",
    ]
    ideal = last_point(curve_points(m.get("curve")))
    rand = curve_points(m.get("random_curve"))
    if ideal is not None:
        same = value_at(rand, int(m.get("experiments") or 0)) if rand else None
        lines.append(
            f"ideal learner on these experiments {_f(ideal)}; on as many random ones {_f(same)}; "
            f"on the whole budget of random ones {_f(last_point(rand))}"
        )
    return lines


def lab_ending(item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
    """What ``wason play lab`` prints after a game: the hidden laws, the score, the theory's verdict."""
    domain = {**(item.get("lab") or {}), **(item.get("domain") or {})}
    m = metrics or {}
    laws = list(m.get("laws") or domain.get("law_text") or [])
    lines = ["The hidden laws were:", *(f"  {law}" for law in laws)]
    if not metrics:
        return lines
    acc = m.get("prediction_accuracy")
    n = m.get("test_size")
    right = sum(bool(x) for x in m.get("predicted") or [])
    lines.append(
        f"You predicted {right} of {n} test experiments right ({_f(acc)}), after "
        f"{m.get('experiments')} experiments."
    )
    verdict = theory_verdict(m)
    if verdict == "none":
        lines.append("You wrote no theory.")
    elif verdict == "unreadable":
        lines.append(f"Your theory could not be read: {m.get('theory_error')}")
    elif verdict == "equivalent":
        lines.append("Your theory is exactly equivalent to the hidden laws.")
    else:
        line = f"Your theory is {verdict}"
        if m.get("theory_accuracy") is not None:
            line += f" (it predicts {m['theory_accuracy']:.0%} of the test right)"
        lines.append(line + ".")
        if m.get("counterexample"):
            lines.append(f"Counterexample: {_counterexample(m['counterexample'])}")
    ideal = last_point(curve_points(m.get("curve")))
    if ideal is not None:
        lines.append(f"An ideal learner on your experiments would have predicted {ideal:.0%} right.")
    return lines


def scores(store: RunReader, run_id: int) -> list[Score]:
    """The comparison's columns in the main table's order (exact theories over every finished game)."""
    eps = store.list_episodes(run_id)
    s = summarize(eps)
    acc = s["prediction_accuracy"]
    exact: Rate = s["theory_equivalent_all"]
    return [
        Score.rate(
            "Success",
            "Success",
            s["success"].k,
            s["success"].n,
            "games passed (errored games count as losses)",
        ),
        Score.mean(
            "Test accuracy",
            "Acc",
            acc["mean"],
            n=acc["n"],
            interval=(acc["low"], acc["high"]) if acc["low"] is not None else None,
            legend="share of the test predicted right, mean over games [95% t]",
        ),
        Score.rate(
            "Exact theories",
            "Exact",
            exact.k,
            exact.n,
            "theories exactly equivalent to the hidden laws, of the finished games",
        ),
        Score.mean_of(
            "Experiments",
            "Exp",
            Tally(e for e in eps if not _void(e)).values("experiments"),
            "experiments used, mean over games [95% t]",
            higher_is_better=False,
        ),
    ]


def inspect_sample(item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """An Inspect sample's target (the hidden laws, one a line) and answer (the theory)."""
    m = metrics or {}
    laws = m.get("laws") or (item.get("domain") or {}).get("law_text") or []
    return "\n".join(str(law) for law in laws), said_text(m, "theory")


# -- figures ------------------------------------------------------------------------------------------------
def curves_figure(store: RunReader, run_ids: Sequence[int]) -> Figure:
    """Mean test accuracy of an ideal learner after k experiments: each run's, and random ones (dashed)."""
    runs = [store.get_run(r) for r in run_ids]
    ideal: list[list[dict[int, float]]] = []
    rand: list[list[dict[int, float]]] = []
    for run in runs:
        ms = Tally(e for e in store.list_episodes(run.id) if e.metrics and not _void(e)).metrics
        ideal.append([curve_points(m.get("curve")) for m in ms])
        rand.append([curve_points(m.get("random_curve")) for m in ms])
    top = max((max(c) for cs in (*ideal, *rand) for c in cs if c), default=0)
    xs = list(range(top + 1))
    series = [
        Series(name=f"{name} ({games_text(sum(bool(c) for c in cs))})", values=_mean_curve(cs, xs))
        for name, cs in zip(series_names(runs), ideal, strict=True)
    ]
    references: list[tuple[str, list[float | None]]] = []
    for name, cs in zip(series_names(runs), rand, strict=True):
        values = _mean_curve(cs, xs)
        if any(v is not None for v in values) and values not in [v for _, v in references]:
            references.append((name, values))
    for name, values in references:
        # runs on different domains each have their own random line, named for the run whose games it is on
        label = "random experiments" + (f" (games of {name})" if len(references) > 1 else "")
        series.append(Series(name=label, values=values, reference=True))
    return Figure(
        name="test-accuracy-by-experiments",
        title="Lab: test accuracy an ideal learner reaches after k experiments",
        kind="lines",
        x=[float(k) for k in xs],
        series=series,
        x_label="experiments (k)",
        y_label="share of the test predicted right",
        y_range=(0.0, 1.0),
        caption="Solid: an ideal learner that saw the first k experiments a run's player made, mean over its "
        "finished games (a game that stopped earlier keeps its last point); dashed: the same learner on random "
        "experiments, up to the budget.",
    )


def figures(store: RunReader, run_ids: Sequence[int]) -> list[Figure]:
    """The lab's figures of ``run_ids``: test accuracy by number of experiments."""
    return [curves_figure(store, run_ids)]
