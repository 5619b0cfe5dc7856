"""WILT reports: the paper's Table 1 columns, the hypothesis-space reduction, episodes and transcripts."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from wason.core.family import RunReader
from wason.core.records import CallTotals, EpisodeRow, RunReport, RunRow, calls_note, run_header, run_label
from wason.tasks.wilt.protocol import load_instruction
from wason.tasks.wilt.scoring import WiltSummary, summarize


def run_summary(
    store: RunReader, run_id: int
) -> tuple[RunRow, list[EpisodeRow], WiltSummary, dict[str, int]]:
    run = store.get_run(run_id)
    eps = store.list_episodes(run_id)
    return run, eps, summarize([(e.status, e.metrics) for e in eps]), store.call_totals(run_id)


class WiltTable(BaseModel):
    """The paper's Table 1 columns for one run, with what it did not count."""

    accuracy: str
    approx_correct: str
    avg_guesses: float | None
    repeats: int
    invalid_tests: int
    format_errors: int
    errored: int
    input_tokens: int
    output_tokens: int
    reduction: dict[int, float] | None
    uninformative_share: float | None


class WiltEpisodeRow(BaseModel):
    """One episode of a run: its rule, how it ended, the guess."""

    index: int
    rule: str
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
    """``wason show RUN --json`` for a WILT run: the table, the summary, the calls, every episode, and the
    runs made as its baselines."""

    protocol: str
    table: WiltTable
    summary: WiltSummary
    calls: CallTotals
    episodes: list[WiltEpisodeRow]
    baselines: list[WiltRunReport] | None = None


def show_json(store: RunReader, run_id: int) -> WiltRunReport:
    run, eps, s, calls = run_summary(store, run_id)
    return WiltRunReport(
        **run_header(run),
        protocol=protocol_name(run.config),
        table=WiltTable(
            accuracy=s.accuracy,
            approx_correct=s.approx,
            avg_guesses=s.avg_guesses,
            repeats=s.repeats,
            invalid_tests=s.invalid_tests,
            format_errors=s.format_errors,
            errored=s.errored,
            input_tokens=calls["input_tokens"],
            output_tokens=calls["output_tokens"],
            reduction=s.reduction,
            uninformative_share=s.uninformative_share,
        ),
        summary=s,
        calls=CallTotals(**calls),
        episodes=[
            WiltEpisodeRow(
                index=e.index,
                rule=e.item_key,
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


def protocol_name(config: dict[str, Any]) -> str:
    """Which protocol a run used, stated in every report."""
    parts = ["WILT as published (paper A.1.2 prompt"]
    parts.append(", instructions as first user message" if config.get("system_as_user") else "")
    parts.append(f", {config.get('max_tests', 30)} tests then one guess")
    limit = config.get("format_error_limit", 2)
    parts.append(f", ends after {limit} consecutive unreadable replies)" if limit else ")")
    return "".join(parts)


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def show_table(store: RunReader, run_ids: int | list[int]) -> RenderableType:
    """The paper's Table 1 columns, one row per run (a model run, then its solver baseline)."""
    ids = [run_ids] if isinstance(run_ids, int) else run_ids
    first = store.get_run(ids[0])
    table = Table(title=f"Run {first.id}: {run_label(first)}  [{first.status}]")
    cols = [
        "Player",
        "Accuracy",
        "Approx. Correct",
        "Avg. Guesses",
        "Repeats",
        "Invalid tests",
        "Format errors",
        "Errored",
        "Tokens in/out",
    ]
    for col in cols:
        table.add_column(col, justify="left" if col == "Player" else "right")
    reduction = Table(title="Hypothesis-space reduction (paper 4.1): share of the space ruled out")
    for col in ("Player", "after 1 test", "5", "10", "20", "30", "Tests ruling out nothing new"):
        reduction.add_column(col, justify="left" if col == "Player" else "right")
    notes: list[Text] = []
    space: str | None = None
    for run_id in ids:
        run, _, s, calls = run_summary(store, run_id)
        who = run.model if run.player == "llm" and run.model else run.player
        if run.config.get("baseline_for") is not None:
            who = f"{who} (baseline, run {run.id})"
        curve = [f"{s.reduction[k]:.3f}" for k in sorted(s.reduction)] if s.reduction else ["-"] * 5
        share = "-" if s.uninformative_share is None else f"{s.uninformative_share:.0%}"
        reduction.add_row(str(who), *curve, share)
        table.add_row(
            str(who),
            s.accuracy,
            s.approx,
            _fmt(s.avg_guesses),
            str(s.repeats),
            str(s.invalid_tests),
            str(s.format_errors),
            str(s.errored),
            f"{calls['input_tokens']}/{calls['output_tokens']}" if run.player == "llm" else "-",
        )
        if run_id == ids[0]:
            notes += _notes(run, s, calls)
            space = s.hypothesis_space
    notes.insert(
        1,
        Text(
            "reduction: mean share of the hypothesis space"
            + (f" ({space})" if space else "")
            + " ruled out after that many tests (an episode that stopped earlier keeps its last value)"
        ),
    )
    return Group(table, reduction, *notes)


def _notes(run: RunRow, s: WiltSummary, calls: dict[str, int]) -> list[Text]:
    seed = run.config.get("probe_seed", 0)
    lines = [Text(f"protocol: {protocol_name(run.config)}; guesses judged on probe set seed {seed}")]
    if calls["calls"] or calls["cached_calls"]:
        lines.append(Text(calls_note(calls)))
    if s.pending:
        lines.append(
            Text(f"{s.pending} episode(s) not finished: `wason eval --resume {run.id}` finishes them")
        )
    if s.no_guess:
        lines.append(Text(f"{s.no_guess} episode(s) ended without a final guess"))
    return lines


def episodes_table(store: RunReader, run_id: int) -> Table:
    table = Table(title="Episodes")
    for col in ("#", "rule", "status", "result", "attempts", "repeats", "guess / error"):
        table.add_column(col)
    for e in store.list_episodes(run_id):
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
            f"{e.item_key}: {e.item.get('rule', '')}",
            e.status,
            result,
            str(m.get("attempts", "-")),
            str(m.get("repeats", "-")),
            Text(str(detail)[:80]),
        )
    return table


def transcript(data: dict[str, Any], run: RunRow) -> RenderableType:
    """One episode's transcript from its JSON record."""
    run_id, index = data["run"], data["index"]
    parts: list[RenderableType] = [
        Text(f"Run {run_id}, episode {index}: rule {data['rule']}  {data['rule_text']}", style="bold"),
        Text(f"[system] {load_instruction()[:160]}... (the published WILT prompt)", style="dim"),
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
