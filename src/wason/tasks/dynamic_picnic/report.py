"""Dynamic Picnic reports: win rates per level with Wilson intervals (rules the validation rejected counted
apart, never as losses), turns, examples seen, the judges side by side; one episode's transcript."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from wason.core.family import RunReader
from wason.core.records import CallTotals, RunReport, calls_note, run_header
from wason.metrics import summarize_rate


class PicnicRunReport(RunReport):
    """``wason show RUN --json`` for a Dynamic Picnic run."""

    levels: list[dict[str, Any]]
    rejected: list[dict[str, Any]]
    errored: int
    pending: int
    calls: CallTotals
    baselines: list[PicnicRunReport] | None = None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def picnic_json(store: RunReader, run_id: int) -> PicnicRunReport:
    run = store.get_run(run_id)
    played: dict[str, list[dict[str, Any]]] = defaultdict(list)
    rejected: list[dict[str, Any]] = []
    errored = pending = 0
    for e in store.list_episodes(run_id):
        if e.status == "completed" and e.metrics is not None:
            m = e.metrics
            if m.get("rejected"):
                rejected.append(
                    {"rule": m.get("rule_key"), "level": m.get("level"), "reason": m.get("rejection")}
                )
            else:
                seconds = e.seconds  # from the episode's start to its end
                played[str(m.get("level"))].append({**m, "seconds": seconds})
        elif e.status == "errored":
            errored += 1
        else:
            pending += 1
    rows = []
    everything = [m for ms in played.values() for m in ms]
    for level, ms in [*sorted(played.items()), ("all", everything)]:
        if not ms:
            continue
        won = sum(bool(m["won"]) for m in ms)
        rate = summarize_rate(won, len(ms))
        llm = [m for m in ms if m.get("llm_verdict") is not None]
        code = [m for m in ms if m.get("code_check") is not None]
        rows.append(
            {
                "level": level,
                "won": rate.k,
                "n": rate.n,
                "p": rate.p,
                "wilson_low": rate.wilson_low,
                "wilson_high": rate.wilson_high,
                "turns": _mean([float(m["turns"]) for m in ms]),
                "positives_seen": _mean([float(m["positives_seen"]) for m in ms]),
                "negatives_seen": _mean([float(m["negatives_seen"]) for m in ms]),
                "questions": _mean([float(m["questions"]) for m in ms]),
                # from each episode's start to its end
                "seconds": _mean([float(m["seconds"]) for m in ms if m["seconds"] is not None]),
                "gave_up": sum(m["end_reason"] == "gave_up" for m in ms),
                "out_of_turns": sum(m["end_reason"] == "turns" for m in ms),
                "llm_judge_yes": sum(bool(m["llm_verdict"]) for m in llm),
                "llm_judged": len(llm),
                "code_check_yes": sum(bool(m["code_check"]) for m in code),
                "code_checked": len(code),
            }
        )
    return PicnicRunReport.model_validate(
        {
            **run_header(run),
            "levels": rows,
            "rejected": rejected,
            "errored": errored,
            "pending": pending,
            "calls": store.call_totals(run_id),
        }
    )


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def picnic_tables(store: RunReader, run_ids: list[int]) -> list[RenderableType]:
    out: list[RenderableType] = []
    for run_id in run_ids:
        report = picnic_json(store, run_id)
        table = Table(title=f"Dynamic Picnic, run {run_id} ({report.player}, {report.model or '-'})")
        for column in (
            "level",
            "games",
            "win %",
            "95% CI",
            "turns",
            "pos seen",
            "neg seen",
            "asked",
            "seconds",
            "LLM judge",
            "code",
        ):
            table.add_column(column)
        for row in report.levels:
            table.add_row(
                row["level"],
                str(row["n"]),
                _pct(row["p"]),
                f"{_pct(row['wilson_low'])}-{_pct(row['wilson_high'])}",
                _num(row["turns"]),
                _num(row["positives_seen"]),
                _num(row["negatives_seen"]),
                _num(row["questions"]),
                _num(row["seconds"]),
                f"{row['llm_judge_yes']}/{row['llm_judged']}",
                f"{row['code_check_yes']}/{row['code_checked']}",
            )
        out.append(table)
        notes = [f"rules rejected by validation (not counted): {len(report.rejected)}"]
        reasons: dict[str, int] = defaultdict(int)
        for r in report.rejected:
            reasons[str(r["reason"])] += 1
        notes += [f"  {n} x {reason}" for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1])[:5]]
        if report.errored or report.pending:
            notes.append(f"errored {report.errored}, not played {report.pending}")
        notes.append(calls_note(report.calls.model_dump()))
        out.append(Text("\n".join(notes)))
    return out


def picnic_transcript(data: dict[str, Any]) -> RenderableType:
    """One episode: the conversation as the player saw it, then the result and the judges."""
    item = data.get("item") or {}
    rule = item.get("rule") or {}
    m = data.get("metrics") or {}
    text = rule.get("text") or m.get("rule_text")
    kind = m.get("kind") or rule.get("kind")
    parts: list[RenderableType] = [
        Text(f"Run {data['run']}, episode {data['index']}: {text} ({kind})", style="bold")
    ]
    history: list[Any] = []
    for turn in data.get("turns") or []:
        history = (turn.get("observation") or {}).get("history") or history
    for speaker, said in history:
        parts.append(Text(f"{speaker}: {said}"))
    if m:
        parts.append(
            Text(
                f"\nend: {m.get('end_reason')}; turns {m.get('turns')}; LLM judge {m.get('llm_verdict')}; "
                f"code check {m.get('code_check')} (decided by {m.get('decided_by')})",
                style="bold",
            )
        )
        if m.get("rejection"):
            parts.append(Text(f"rejected: {m['rejection']}", style="bold red"))
    if data.get("status") not in (None, "completed"):
        parts.append(Text(f"status: {data['status']} {data.get('error') or ''}", style="bold red"))
    return Group(*parts)
