"""WILT reports: the paper's Table 1 columns, the hypothesis-space reduction, episodes and transcripts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from wason.core.family import RunReader
from wason.core.game import PLAYER_METRICS
from wason.core.records import (
    CallTotals,
    EpisodeRow,
    Rate,
    RunReport,
    RunRow,
    Score,
    calls_note,
    fold_text,
    player_name,
    run_header,
    run_label,
)
from wason.tasks.wilt.complexity import RunComplexity, run_complexity
from wason.tasks.wilt.judge import APPROX_JACCARD_THRESHOLD
from wason.tasks.wilt.protocol import load_instruction
from wason.tasks.wilt.scoring import WiltSummary, summarize


def run_summary(
    store: RunReader, run_id: int
) -> tuple[RunRow, list[EpisodeRow], WiltSummary, dict[str, int]]:
    run = store.get_run(run_id)
    eps = store.list_episodes(run_id)
    return run, eps, summarize([(e.status, e.metrics) for e in eps]), store.call_totals(run_id)


class WiltTable(BaseModel):
    """The paper's Table 1 columns for one run, with what it did not count.

    ``accuracy`` and ``approx_correct`` are rates over every episode of the run (every trial of every rule),
    with their 95% Wilson intervals; ``format_errors`` are unreadable replies and ``truncated`` replies cut off
    at the token limit (each costs an attempt; they are counted apart)."""

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


class WiltRunReport(RunReport):
    """``wason show RUN --json`` for a WILT run: the table, the summary, the calls, a row per rule (its trials
    pooled), every episode, and the runs made as its baselines."""

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
    """A row per rule, its trials pooled: correct (and approximately correct) of the trials played, errored
    trials counted as not correct, trials not played yet left out."""
    by_rule: dict[str, list[EpisodeRow]] = {}
    for e in eps:
        by_rule.setdefault(rule_key(e), []).append(e)
    rows = []
    for key, group in by_rule.items():
        done = [e.metrics or {} for e in group if e.status == "completed"]
        played = sum(e.status in ("completed", "errored") for e in group)
        rows.append(
            WiltRuleRow(
                rule=key,
                text=group[0].item.get("rule"),
                trials=len(group),
                correct=Rate.of(sum(bool(m.get("correct")) for m in done), played),
                approximately_correct=Rate.of(
                    sum(bool(m.get("approximately_correct")) for m in done), played
                ),
            )
        )
    return rows


def show_json(store: RunReader, run_id: int) -> WiltRunReport:
    run, eps, s, calls = run_summary(store, run_id)
    return WiltRunReport(
        **run_header(run),
        protocol=protocol_name(run.config),
        complexity=_complexity(eps),
        table=WiltTable(
            accuracy=s.accuracy,
            approx_correct=s.approx,
            avg_guesses=s.avg_guesses,
            repeats=s.repeats,
            invalid_tests=s.invalid_tests,
            format_errors=s.format_errors,
            truncated=s.truncated,
            errored=s.errored,
            input_tokens=calls["input_tokens"],
            output_tokens=calls["output_tokens"],
            reduction=s.reduction,
            uninformative_share=s.uninformative_share,
        ),
        summary=s,
        calls=CallTotals(**calls),
        rules=rule_rows(eps),
        episodes=[
            WiltEpisodeRow(
                index=e.index,
                rule=e.item_key,
                trial=trial_of(e),
                text=e.item.get("rule"),
                status=e.status,
                correct=(e.metrics or {}).get("correct"),
                approximately_correct=(e.metrics or {}).get("approximately_correct"),
                attempts=(e.metrics or {}).get("attempts"),
                repeats=(e.metrics or {}).get("repeats"),
                guess=(e.metrics or {}).get("guess"),
                end_reason=(e.metrics or {}).get("end_reason"),
                error=e.error,
            )
            for e in eps
        ],
    )


def wilt_scores(store: RunReader, run_id: int) -> list[Score]:
    """The paper's Table 1 columns of one run, in its order: Accuracy, Approx. Correct (rates over every
    episode, trials pooled, with Wilson intervals), Avg. Guesses (a mean over finished episodes, with its t
    interval), Repeats and Invalid tests (counts)."""
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
        *complexity_scores(_complexity(eps)),
    ]


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


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def rate_cell(rate: Rate) -> str:
    """A rate in a table: ``k/n`` over its 95% Wilson interval (two lines, so the table fits 80 columns)."""
    if not rate.n:
        return "-"
    low, high = rate.interval
    return f"{rate.k}/{rate.n}\n[{low:.2f}, {high:.2f}]"


def _who(run: RunRow) -> str:
    who = player_name(run)
    return f"{who} (baseline, run {run.id})" if run.config.get("baseline_for") is not None else str(who)


TABLE_LEGEND = (
    "Accuracy: correct final guesses, Approx. Correct: approximately correct (not equivalent, Jaccard >= "
    f"{APPROX_JACCARD_THRESHOLD} on the probes), of the episodes played, k/n [95% Wilson interval]; Avg. Guesses: "
    "mean attempts used before the guess; Repeats: tests asked again; Invalid tests: tests with bad values"
)


def show_table(store: RunReader, run_ids: int | list[int]) -> RenderableType:
    """The paper's Table 1 columns, one row per run (a model run, then its solver baseline); trials pooled."""
    ids = [run_ids] if isinstance(run_ids, int) else run_ids
    first = store.get_run(ids[0])
    # a Text title: the status in brackets is not read as markup
    table = Table(title=Text(f"Run {first.id}: {run_label(first)}  [{first.status}]"))
    table.add_column("Player", overflow="fold")
    # the paper's headers, wrapped within the width of the numbers under them
    for col in ("Accuracy", "Approx.\nCorrect", "Avg.\nGuesses", "Repeats", "Invalid\ntests"):
        table.add_column(col, justify="right")
    reduction = Table(title="Hypothesis-space reduction (paper 4.1): share of the space ruled out")
    reduction.add_column("Player", overflow="fold")
    for col in ("after 1 test", "5", "10", "20", "30", "Tests ruling out nothing new"):
        reduction.add_column(col, justify="right")
    notes: list[Text] = [Text(TABLE_LEGEND)]
    space: str | None = None
    for run_id in ids:
        run, _, s, calls = run_summary(store, run_id)
        who = _who(run)
        curve = [f"{s.reduction[k]:.3f}" for k in sorted(s.reduction)] if s.reduction else ["-"] * 5
        share = "-" if s.uninformative_share is None else f"{s.uninformative_share:.0%}"
        reduction.add_row(who, *curve, share)
        table.add_row(
            who,
            rate_cell(s.accuracy),
            rate_cell(s.approx),
            _fmt(s.avg_guesses),
            str(s.repeats),
            str(s.invalid_tests),
        )
        if run_id == ids[0]:
            notes += _notes(run, s, calls, store.list_episodes(run_id))
            space = s.hypothesis_space
    if not any(run_summary(store, r)[2].reduction for r in ids):
        # no run has a curve (the one-variable game, or runs that made no test): no table of dashes
        return Group(table, *notes)
    notes.insert(
        2,
        Text(
            "reduction: mean share of the hypothesis space"
            + (f" ({space})" if space else "")
            + " ruled out after that many tests (an episode that stopped earlier keeps its last value)"
        ),
    )
    return Group(table, reduction, *notes)


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


def _notes(run: RunRow, s: WiltSummary, calls: dict[str, int], eps: Sequence[EpisodeRow] = ()) -> list[Text]:
    seed = run.config.get("probe_seed", 0)
    trials = int(run.config.get("trials") or 1)
    judged = "" if run.config.get("protocol") == "single" else f"; guesses judged on probe set seed {seed}"
    lines = [Text(f"protocol: {protocol_name(run.config)}{judged}")]
    if eps:
        lines.append(Text(_complexity_note(_complexity(eps))))
    if trials > 1:
        lines.append(
            Text(f"{trials} trials per rule: the rates pool every trial played (per rule: k of its trials)")
        )
    lines.append(
        Text(
            f"Format errors: {s.format_errors} unreadable replies; Truncated: {s.truncated} replies cut off at "
            f"the token limit (each cost an attempt, as a format error does); Errored: {s.errored} episode(s)"
        )
    )
    if calls["calls"] or calls["cached_calls"]:
        lines.append(Text(calls_note(calls)))
    if s.pending:
        lines.append(
            Text(f"{s.pending} episode(s) not finished: `wason eval --resume {run.id}` finishes them")
        )
    if s.no_guess:
        lines.append(Text(f"{s.no_guess} episode(s) ended without a final guess"))
    return lines


def rules_table(store: RunReader, run_id: int) -> Table:
    """A row per rule of a run with trials: correct (and approximately correct) guesses of its trials."""
    table = Table(title="Per rule: correct of the trials played (k/T)")
    table.add_column("rule")
    table.add_column("text", overflow="fold")
    table.add_column("correct", justify="right")
    table.add_column("approx.", justify="right")
    for row in rule_rows(store.list_episodes(run_id)):
        table.add_row(
            row.rule,
            row.text or "",
            f"{row.correct.k}/{row.correct.n}",
            f"{row.approximately_correct.k}/{row.approximately_correct.n}",
        )
    return table


def episodes_table(store: RunReader, run_id: int) -> Table:
    eps = store.list_episodes(run_id)
    trials = any(trial_of(e) > 1 for e in eps)
    table = Table(title="Episodes")
    for col in ("#", "rule", *(("trial",) if trials else ()), "status", "result", "tests", "rep."):
        table.add_column(col, overflow="fold")
    table.add_column("guess / error", overflow="fold")
    for e in eps:
        m = e.metrics or {}
        if e.status == "completed":
            result = (
                "correct" if m.get("correct") else "approx." if m.get("approximately_correct") else "wrong"
            )
            detail = m.get("guess") or f"(no guess: {m.get('end_reason')})"
        else:
            result, detail = "-", (e.error or "").splitlines()[0] if e.error else ""
        table.add_row(
            str(e.index),
            f"{rule_key(e)}: {e.item.get('rule', '')}",
            *((str(trial_of(e)),) if trials else ()),
            e.status,
            result,
            str(m.get("attempts", "-")),
            str(m.get("repeats", "-")),
            Text(str(detail)[:200]),
        )
    table.caption = "tests: attempts used before the guess; rep.: tests asked again"
    return table


def transcript(data: dict[str, Any], run: RunRow, *, full: bool = False) -> RenderableType:
    """One episode's transcript from its JSON record; the published prompt folded unless ``full``."""
    run_id, index = data["run"], data["index"]
    trial = (data.get("item") or {}).get("trial")
    parts: list[RenderableType] = [
        Text(
            f"Run {run_id}, episode {index}: rule {data['rule']}  {data['rule_text']}"
            + (f"  (trial {trial})" if trial else ""),
            style="bold",
        ),
        Text(
            "[system] "
            + fold_text(
                load_instruction(str(run.config.get("protocol") or "published")),
                full=full,
                hint=f"the whole prompt: wason show {run_id} --episode {index} --full",
            ),
            style="dim",
        ),
    ]
    for t in data["turns"]:
        who = "model" if run.player == "llm" else run.player
        reply = t["reply"] if t["reply"] is not None else _describe(t["action"])
        parts.append(Text(f"\n[{who}, turn {t['index'] + 1}]", style="bold cyan"))
        parts.append(Text(reply))
        parts.append(Text(f"[harness] {t['feedback']}", style="green"))
    m = data["metrics"] or {}
    if data["status"] == "completed":
        v = m.get("verdict") or {}
        verdict = (
            "correct"
            if m.get("correct")
            else "approximately correct"
            if m.get("approximately_correct")
            else "wrong"
        )
        parts.append(
            Text(f"\nresult: {verdict}; guess: {m.get('guess')}; end: {m.get('end_reason')}", style="bold")
        )
        if v.get("rejection"):
            parts.append(Text(f"guess rejected by the sandbox: {v['rejection']}"))
        elif v:
            parts.append(
                Text(
                    f"agreement {v.get('agreement', 0):.4f} on {v.get('n_probes')} probes; jaccard {v.get('jaccard')}"
                )
            )
        certainty = (m.get(PLAYER_METRICS) or {}).get("certainty")
        if certainty is not None:
            parts.append(
                Text(f"certainty {certainty:.4f}: the guess's share of the solver's surviving weight")
            )
    else:
        parts.append(Text(f"\nstatus: {data['status']} {data['error'] or ''}", style="bold red"))
    return Group(*parts)


def _describe(action: dict[str, Any]) -> str:
    kind = action.get("type")
    if kind == "ProposeTest":
        return "test (" + ", ".join(action.get("values", [])) + ")"
    if kind == "FinalGuess":
        return f"guess {action.get('expression')}"
    return f"{kind}: {action.get('reason', '')}"
