"""WILT results, as data the shared renderers draw: the paper's Table 1 columns, the hypothesis-space reduction,
episodes and transcripts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from wason.core import columns as col
from wason.core.family import RunReader
from wason.core.game import PLAYER_METRICS
from wason.core.labels import results_title
from wason.core.records import (
    CallTotals,
    EpisodeRow,
    Rate,
    RunReport,
    RunRow,
    Score,
    episode_line,
    run_header,
    series_names,
)
from wason.core.reporting import said_text
from wason.core.results import (
    Cell,
    Message,
    Moves,
    Results,
    Table,
    Transcript,
    calls_notes,
    end_reason_text,
    episode_outcome,
    turn_messages,
)
from wason.core.tally import Tally, group_by
from wason.tasks.wilt.complexity import RunComplexity, run_complexity
from wason.tasks.wilt.judge import APPROX_JACCARD_THRESHOLD
from wason.tasks.wilt.protocol import load_instruction
from wason.tasks.wilt.scoring import DECIDED_ORDER, WiltSummary, summarize

SOLVER_LEGEND = (
    "the scientist of docs/solver.md, a strong reference and not a ceiling: on rules written by others "
    "that it had never seen, it won 1,802 of 2,195 (82%, each set measured once)."
)


def run_summary(
    store: RunReader, run_id: int
) -> tuple[RunRow, list[EpisodeRow], WiltSummary, dict[str, int]]:
    run = store.get_run(run_id)
    eps = store.list_episodes(run_id)
    return run, eps, summarize([(e.status, e.metrics) for e in eps]), store.call_totals(run_id)


class WiltTable(BaseModel):
    """The paper's Table 1 columns for one run (rates over every trial of every rule), with what it did not count."""

    accuracy: Rate
    approx_correct: Rate
    avg_guesses: float | None
    repeats: int
    invalid_tests: int
    format_errors: int
    truncated: int
    errored: int
    input_tokens: int
    output_tokens: int
    reduction: dict[int, float] | None
    uninformative_share: float | None


class WiltRuleRow(BaseModel):
    """One rule's trials: how many were guessed correctly (and approximately) of how many were played."""

    rule: str
    text: str | None
    trials: int
    correct: Rate
    approximately_correct: Rate


class WiltEpisodeRow(BaseModel):
    """One episode of a run: its rule and trial, how it ended, the guess."""

    index: int
    rule: str
    trial: int
    text: str | None
    status: str
    correct: bool | None
    approximately_correct: bool | None
    attempts: int | None
    repeats: int | None
    guess: str | None
    end_reason: str | None
    error: str | None
    decided: str | None = None
    """How the verdict was reached: ``proved``, ``refuted``, ``sampled`` (None: no accepted guess, or a verdict
    stored before judge version ``decided-1``)."""


class WiltRunReport(RunReport):
    """``wason show RUN --json`` for a WILT run."""

    protocol: str
    table: WiltTable
    summary: WiltSummary
    calls: CallTotals
    rules: list[WiltRuleRow]
    complexity: RunComplexity
    episodes: list[WiltEpisodeRow]
    baselines: list[WiltRunReport] | None = None


def rule_key(e: EpisodeRow) -> str:
    """The rule an episode played (its trials share it): ``split/id``."""
    return f"{e.item.get('split')}/{e.item.get('id')}"


def trial_of(e: EpisodeRow) -> int:
    """The trial an episode is of (1 for runs made before WILT had trials)."""
    return int(e.item.get("trial") or 1)


def rule_rows(eps: list[EpisodeRow]) -> list[WiltRuleRow]:
    """A row per rule, its trials pooled: errored trials count as not correct, those not played in nothing."""
    rows = []
    for key, group in group_by(eps, rule_key).items():
        t = Tally(group)
        rows.append(
            WiltRuleRow(
                rule=key,
                text=group[0].item.get("rule"),
                trials=len(group),
                correct=t.rate(len(t.where(lambda m: m.get("correct")))),
                approximately_correct=t.rate(len(t.where(lambda m: m.get("approximately_correct")))),
            )
        )
    return rows


EPISODE_METRICS = ("correct", "approximately_correct", "attempts", "repeats", "guess", "end_reason")
"""The metrics of an episode's line in the JSON report."""


def run_json(store: RunReader, run_id: int) -> WiltRunReport:
    run, eps, s, calls = run_summary(store, run_id)
    return WiltRunReport(
        **run_header(run),
        protocol=protocol_name(run.config),
        complexity=_complexity(eps),
        table=WiltTable(
            **s.model_dump(include=set(WiltTable.model_fields)),
            accuracy=s.accuracy,
            approx_correct=s.approx,
            input_tokens=calls["input_tokens"],
            output_tokens=calls["output_tokens"],
        ),
        summary=s,
        calls=CallTotals(**calls),
        rules=rule_rows(eps),
        episodes=[
            WiltEpisodeRow.model_validate(
                episode_line(
                    e,
                    EPISODE_METRICS,
                    rule=e.item_key,
                    trial=trial_of(e),
                    text=e.item.get("rule"),
                    decided=((e.metrics or {}).get("verdict") or {}).get("method"),
                )
            )
            for e in eps
        ],
    )


def scores(store: RunReader, run_id: int) -> list[Score]:
    """The paper's Table 1 columns of one run, in its order (trials pooled), then the verdicts and medians."""
    _, eps, s, _ = run_summary(store, run_id)
    attempts = [(e.metrics or {}).get("attempts") for e in eps if e.status == "completed" and e.metrics]
    return [
        Score.rate(
            "Accuracy", "Acc", s.correct, s.n, "final guesses equivalent to the rule, of the episodes played"
        ),
        Score.rate(
            "Approx. Correct",
            "Approx",
            s.approximately_correct,
            s.n,
            f"final guesses close to the rule (Jaccard >= {APPROX_JACCARD_THRESHOLD} on probes), not equivalent",
        ),
        Score.mean_of(
            "Avg. Guesses",
            "Guesses",
            attempts,
            "attempts used before the final guess (of 30), mean over finished episodes [95% t]",
            higher_is_better=False,
        ),
        Score.count("Repeats", "Repeats", s.repeats, "tests asked again, summed over episodes"),
        Score.count(
            "Invalid tests", "Invalid", s.invalid_tests, "tests with values out of range or unreadable"
        ),
        *decided_scores(s.decided or {}),
        *complexity_scores(_complexity(eps)),
    ]


def decided_scores(decided: Mapping[str, int]) -> list[Score]:
    """How many verdicts were proved, refuted and sampled (a comparison's columns, the Inspect log's metrics)."""
    legends = {
        "proved": "verdicts proved over every test the game accepts (z3, or the rule's own expression)",
        "refuted": "verdicts refuted by a counterexample a player could type (the episode's test, a probe, z3)",
        "sampled": "verdicts where z3 could not decide: no counterexample among the tests and the probes",
    }
    return [Score.count(k.capitalize(), k.capitalize(), decided.get(k, 0), legends[k]) for k in legends]


def complexity_scores(c: RunComplexity) -> list[Score]:
    """Paper Table 2's medians as comparison columns (no interval: medians of a few guesses)."""
    return [
        Score.mean(
            "Median operators",
            "Ops",
            c.median_operators,
            n=c.guesses,
            legend="operators of the final guess (paper A.3), median over accepted guesses",
            higher_is_better=False,
        ),
        Score.mean(
            "Median length",
            "Len",
            c.median_length,
            n=c.guesses,
            legend="characters of the final guess's expression, spaces removed, median",
            higher_is_better=False,
        ),
        Score.mean(
            "Median set inclusion",
            "Incl",
            c.median_set_inclusion,
            n=c.set_inclusion_defined,
            legend="|guess true-set| / |rule true-set| where one contains the other, median (1: same set)",
        ),
    ]


CONSTRAINED = (
    "; replies constrained (--constrain) to a line of reasoning, then a test case or a final guess in the "
    "required form, so none is unreadable"
)


def protocol_name(config: dict[str, Any]) -> str:
    """Which protocol a run used, stated in every report (and whether its replies were constrained)."""
    return _protocol_name(config) + (CONSTRAINED if config.get("constrain") else "")


def _protocol_name(config: dict[str, Any]) -> str:
    if config.get("protocol") == "testswap":
        return (
            f"WILT test swap (paper A.2, instruction_testswap.txt: the tests of run {config.get('tests_from')} "
            "given, reasoning stripped; one guess)"
        )
    if config.get("protocol") == "single":
        return (
            "WILT single-variable, the reference's instruction_single.txt (one whole number from 1 to 100, "
            f"{config.get('max_tests', 5)} tests then one lambda x guess, judged on every number from 1 to 100; "
            "our 12 one-variable rules)"
        )
    if config.get("protocol") == "bayesian":
        parts = [
            "WILT, the reference's Bayesian prompt (instruction_bayesian.txt: whole numbers from 1 to 100"
        ]
    else:
        parts = ["WILT as published (paper A.1.2 prompt"]
    parts.append(", instructions as first user message" if config.get("system_as_user") else "")
    parts.append(f", {config.get('max_tests', 30)} tests then one guess")
    limit = config.get("format_error_limit", 2)
    parts.append(f", ends after {limit} consecutive unreadable replies)" if limit else ")")
    return "".join(parts)


def results(store: RunReader, run_ids: Sequence[int]) -> Results:
    """The first run's episodes (and rules), the paper's Table 1 (a row per run), the reduction curve."""
    first = store.get_run(run_ids[0])
    tables = [_episodes_table(store, first.id)]
    if int(first.config.get("trials") or 1) > 1:
        tables.append(_rules_table(store, first.id))
    names = dict(zip(run_ids, series_names([store.get_run(r) for r in run_ids]), strict=True))
    table1: list[dict[str, Cell]] = []
    reduction: list[dict[str, Cell]] = []
    notes: list[str] = []
    space: str | None = None
    for run_id in run_ids:
        run, _, s, calls = run_summary(store, run_id)
        who = names[run_id]
        table1.append(
            {
                "player": who,
                "run": run.id,
                "accuracy": s.accuracy,
                "approx": s.approx,
                "guesses": s.avg_guesses,
                "repeats": s.repeats,
                "invalid": s.invalid_tests,
            }
        )
        row: dict[str, Cell] = {"player": who, "run": run.id}
        row |= {f"r{k}": v for k, v in sorted((s.reduction or {}).items())}
        row["share"] = s.uninformative_share
        reduction.append(row)
        if run_id == run_ids[0]:
            notes += _notes(run, s, calls, store.list_episodes(run_id))
            space = s.hypothesis_space
    tables.append(
        Table(
            name="table1",
            title="The paper's Table 1",
            columns=[
                col.PLAYER,
                col.rate("accuracy", "Accuracy", "correct final guesses"),
                col.rate(
                    "approx",
                    "Approx. Correct",
                    f"approximately correct (not equivalent, Jaccard >= {APPROX_JACCARD_THRESHOLD} on the probes)",
                ),
                col.mean("guesses", "Avg. Guesses", "mean attempts used before the guess", digits=2),
                col.count("repeats", "Repeats", "tests asked again"),
                col.count("invalid", "Invalid tests", "tests with bad values"),
            ],
            rows=table1,
            legend="Rates are of the episodes played.",
        )
    )
    if any(len(r) > 3 for r in reduction):  # a curve: the three-variable game made some test
        points = sorted({int(k[1:]) for r in reduction for k in r if k.startswith("r") and k[1:].isdigit()})
        tables.append(
            Table(
                name="reduction",
                title="Hypothesis-space reduction (paper 4.1): share of the space ruled out after k tests",
                columns=[
                    col.PLAYER,
                    *(col.mean(f"r{k}", f"k={k}", digits=3) for k in points),
                    col.mean(
                        "share", "Nothing new", "share of the tests that ruled out nothing new", digits=2
                    ),
                ],
                rows=reduction,
                legend=(
                    "Each column: the mean share of the hypothesis space"
                    + (f" ({space})" if space else "")
                    + " ruled out after that many tests (an episode that stopped earlier keeps its last value)."
                ),
            )
        )
    return Results(title=results_title(first), protocol=_protocol_line(first), tables=tables, notes=notes)


def _protocol_line(run: RunRow) -> str:
    seed = run.config.get("probe_seed", 0)
    judged = "" if run.config.get("protocol") == "single" else f"; guesses judged on probe set seed {seed}"
    return f"{protocol_name(run.config)}{judged}"


def _complexity(eps: Sequence[EpisodeRow]) -> RunComplexity:
    return run_complexity(e.metrics for e in eps if e.status == "completed")


def _complexity_note(c: RunComplexity) -> str:
    def num(v: float | None) -> str:
        return "-" if v is None else f"{v:g}" if float(v).is_integer() else f"{v:.2f}"

    return (
        f"complexity (paper A.3), medians over {c.guesses} accepted guesses: operators "
        f"{num(c.median_operators)}, length {num(c.median_length)}, set inclusion "
        f"{num(c.median_set_inclusion)} (defined for {c.set_inclusion_defined})"
    )


def _notes(run: RunRow, s: WiltSummary, calls: dict[str, int], eps: Sequence[EpisodeRow] = ()) -> list[str]:
    trials = int(run.config.get("trials") or 1)
    lines = []
    if eps:
        lines.append(_complexity_note(_complexity(eps)))
    if trials > 1:
        lines.append(
            f"{trials} trials per rule: the rates pool every trial played (per rule: k of its trials)"
        )
    if s.decided:
        lines.append(_decided_note(s.decided))
    lines.append(
        f"Format errors: {s.format_errors} unreadable replies; Truncated: {s.truncated} replies cut off at the "
        f"token limit (each cost an attempt, as a format error does); Errored: {s.errored} episode(s)"
    )
    lines += calls_notes(calls)
    if s.pending:
        lines.append(f"{s.pending} episode(s) not finished: `wason eval --resume {run.id}` finishes them")
    if s.no_guess:
        lines.append(f"{s.no_guess} episode(s) ended without a final guess")
    return lines


def _decided_note(decided: Mapping[str, int]) -> str:
    """How the verdicts were reached, for the notes under Table 1."""
    parts = [f"{decided.get(k, 0)} {k}" for k in DECIDED_ORDER[:3]]
    if decided.get("earlier"):
        parts.append(f"{decided['earlier']} by an earlier judge (sampled)")
    return (
        "Verdicts: "
        + ", ".join(parts)
        + " (proved or refuted over every test the game accepts, by z3 or a counterexample one could type; "
        "sampled: no counterexample among the episode's tests and the probes, where z3 could not decide)"
    )


def _rules_table(store: RunReader, run_id: int) -> Table:
    """A row per rule of a run with trials: correct (and approximately correct) guesses of its trials."""
    return Table(
        name="rules",
        title="Per rule: correct of the trials played",
        columns=[
            col.text("rule", "Rule"),
            col.text("text", "Text"),
            col.rate("correct", "Correct"),
            col.rate("approx", "Approx."),
        ],
        rows=[
            {"rule": r.rule, "text": r.text or "", "correct": r.correct, "approx": r.approximately_correct}
            for r in rule_rows(store.list_episodes(run_id))
        ],
    )


def _episodes_table(store: RunReader, run_id: int) -> Table:
    eps = store.list_episodes(run_id)
    trials = any(trial_of(e) > 1 for e in eps)
    rows: list[dict[str, Cell]] = []
    for e in eps:
        m = e.metrics or {}
        if e.status == "completed":
            result = _result(m, "approx.")
            detail = m.get("guess") or f"(no guess: {end_reason_text(m)})"
        else:
            result, detail = "-", (e.error or "").splitlines()[0] if e.error else ""
        rows.append(
            {
                "index": e.index,
                "episode": e.index,
                "rule": f"{rule_key(e)}: {e.item.get('rule', '')}",
                "trial": trial_of(e),
                "status": e.status,
                "result": result,
                "tests": m.get("attempts"),
                "repeats": m.get("repeats"),
                "detail": str(detail)[:200],
            }
        )
    return Table(
        name="episodes",
        title="Episodes",
        columns=[
            col.count("index", "#"),
            col.text("rule", "Rule"),
            *((col.count("trial", "Trial"),) if trials else ()),
            col.text("status", "Status"),
            col.text("result", "Result"),
            col.count("tests", "Tests", "attempts used before the guess"),
            col.count("repeats", "Rep.", "tests asked again"),
            col.text("detail", "Guess / error"),
        ],
        rows=rows,
    )


def messages(data: Mapping[str, Any], run: RunRow, system: str | None = None) -> Transcript:
    """One episode's transcript from its JSON record: the published prompt, each turn, the verdict. The prompt
    is the run's protocol's instruction, shown whoever played (``system``, what a model read, is the same)."""
    trial = (data.get("item") or {}).get("trial")
    title = f"Run {data['run']}, episode {data['index']}: rule {data['rule']}  {data['rule_text']}" + (
        f"  (trial {trial})" if trial else ""
    )
    out = [
        Message(
            role="system",
            name="system",
            text=load_instruction(str(run.config.get("protocol") or "published")),
        )
    ]
    out += turn_messages(data, run, MOVES, game="harness")
    m = data["metrics"] or {}
    if data["status"] != "completed":
        out.append(episode_outcome(data))
        return Transcript(title=title, messages=out, success=data.get("success"))
    v = m.get("verdict") or {}
    notes: dict[str, str] = {}
    if v.get("rejection"):
        notes["guess rejected by the sandbox"] = str(v["rejection"])
    elif v:
        if v.get("method"):
            notes["decided"] = f"{v['method']}: {v.get('evidence')}"
        notes["agreement"] = (
            f"{v.get('agreement', 0):.4f} on {v.get('n_probes')} probes; jaccard {v.get('jaccard')}"
        )
    certainty = (m.get(PLAYER_METRICS) or {}).get("certainty")
    if certainty is not None:
        notes["certainty"] = f"{certainty:.4f} (the guess's share of the solver's surviving weight)"
    said = f"result: {_result(m, 'approximately correct')}; guess: {m.get('guess') or '-'}; end: {end_reason_text(m)}"
    out.append(Message(role="outcome", name="ended", text=said, annotations=notes))
    return Transcript(title=title, messages=out, success=data.get("success"))


def _result(m: Mapping[str, Any], approx: str) -> str:
    return "correct" if m.get("correct") else approx if m.get("approximately_correct") else "wrong"


MOVES: Moves = {
    "ProposeTest": lambda a: "test (" + ", ".join(a.get("values", [])) + ")",
    "FinalGuess": "guess {expression}",
}
"""How a transcript says a move that wrote no text."""


def inspect_sample(item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """An Inspect sample's target (the hidden rule) and answer (the final guess)."""
    return str(item.get("rule") or ""), said_text(metrics, "guess")
