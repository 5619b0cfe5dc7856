"""Static Picnic reports: win rates with Wilson intervals per level (and turn limit), turns, examples seen, the
code's and the LLM judge's verdicts side by side, and the paper's Table 2 layout (one row per run, one column
per level)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from wason.core.family import RunReader
from wason.core.records import CallTotals, EpisodeRow, RunReport, calls_note, run_header
from wason.metrics.rates import mean_present, rate_record


def summarize(eps: Sequence[EpisodeRow]) -> dict[str, Any]:
    """The numbers of a set of games. Errored games count as losses in ``n`` (and are counted apart)."""
    done = [e for e in eps if e.status == "completed"]
    ms = [e.metrics or {} for e in done]
    won = [m for m in ms if m.get("status") == "won"]
    llm = [m for m in ms if (m.get("judges") or {}).get("llm") is not None]
    return {
        "games": len(eps),
        "errored": sum(e.status == "errored" for e in eps),
        "unfinished": sum(e.status not in ("completed", "errored") for e in eps),
        "wins": rate_record(len(won), len(eps)),
        "code_judge": rate_record(sum(bool((m.get("judges") or {}).get("code")) for m in ms), len(eps)),
        "llm_judge": rate_record(sum(bool(m["judges"]["llm"]) for m in llm), len(llm)) if llm else None,
        "llm_decided": sum(bool(m.get("llm_decided")) for m in ms),
        "unreadable_guesses": sum(int(m.get("unreadable_guesses") or 0) for m in ms),
        "gave_up": sum(m.get("end_reason") == "gave_up" for m in ms),
        "turn_limit": sum(m.get("end_reason") == "turn_limit" for m in ms),
        "turns": mean_present([m.get("turns") for m in ms]),
        "turns_won": mean_present([m.get("turns") for m in won]),
        "moves": mean_present([m.get("moves") for m in ms]),
        "positives_seen": mean_present([m.get("positives_seen") for m in ms]),
        "negatives_seen": mean_present([m.get("negatives_seen") for m in ms]),
        "positives_seen_won": mean_present([m.get("positives_seen") for m in won]),
        "negatives_seen_won": mean_present([m.get("negatives_seen") for m in won]),
        "format_errors": sum(int(m.get("format_errors") or 0) for m in ms),
        "seconds": mean_present([e.seconds for e in done]),
    }


class PicnicRunReport(RunReport):
    """``wason show RUN --json`` for a Static Picnic run: its summary, a row per level and per (level, turn
    limit), every game, and the runs made as its baselines."""

    protocol: str
    summary: dict[str, Any]
    levels: dict[str, dict[str, Any]]
    cells: list[dict[str, Any]]
    calls: CallTotals
    episodes: list[dict[str, Any]]
    baselines: list[PicnicRunReport] | None = None


def picnic_protocol(config: dict[str, Any]) -> str:
    """Which protocol and options a run used, stated in every report."""
    parts = [
        "published player prompts",
        f"{config.get('pool', 'distinct')} pool",
        f"{config.get('negatives', 'random')} negatives",
        f"{config.get('init_examples', 2)} first examples",
        "judged by code"
        + (" with the published LLM judge beside" if "llm" in config.get("judges", []) else ""),
    ]
    if not config.get("examples_each_turn", True):
        parts.append("no examples after a wrong guess")
    return "; ".join(parts)


def picnic_json(store: RunReader, run_id: int) -> PicnicRunReport:
    run = store.get_run(run_id)
    eps = store.list_episodes(run_id)
    levels: dict[str, list[EpisodeRow]] = {}
    cells: dict[tuple[str, Any], list[EpisodeRow]] = {}
    for e in eps:
        levels.setdefault(e.item["level"], []).append(e)
        cells.setdefault((e.item["level"], e.item.get("max_turns")), []).append(e)
    return PicnicRunReport.model_validate(
        {
            **run_header(run),
            "protocol": picnic_protocol(run.config),
            "summary": summarize(eps),
            "levels": {lv: summarize(group) for lv, group in sorted(levels.items())},
            "cells": [
                {"level": lv, "max_turns": mt, **summarize(group)}
                for (lv, mt), group in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0))
            ],
            "calls": store.call_totals(run_id),
            "episodes": [
                {
                    "index": e.index,
                    "level": e.item["level"],
                    "max_turns": e.item.get("max_turns"),
                    "rule": e.item["rule"]["text"],
                    "status": e.status,
                    "success": e.success,
                    "judges": (e.metrics or {}).get("judges"),
                    "decided_by": (e.metrics or {}).get("decided_by"),
                    "final_guess": (e.metrics or {}).get("final_guess"),
                    "end_reason": (e.metrics or {}).get("end_reason"),
                    "turns": (e.metrics or {}).get("turns"),
                    "positives_seen": (e.metrics or {}).get("positives_seen"),
                    "negatives_seen": (e.metrics or {}).get("negatives_seen"),
                    "error": e.error,
                }
                for e in eps
            ],
        }
    )


def _cell(rate: dict[str, Any] | None) -> str:
    if not rate or not rate["n"]:
        return "-"
    return f"{rate['k']}/{rate['n']} {100 * rate['rate']:.1f}% [{rate['wilson_low']:.2f}, {rate['wilson_high']:.2f}]"


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _who(data: dict[str, Any]) -> str:
    who = str(data["model"]) if data["player"] == "llm" and data["model"] else str(data["player"])
    return who + (" (baseline)" if data["config"].get("baseline_for") else "")


def picnic_tables(store: RunReader, run_ids: Sequence[int]) -> list[RenderableType]:
    """A table per (level, turn limit) of the first run, then the Table 2 layout: a row per run (the model's,
    then its solver baseline), the win rate per level with its 95% Wilson interval."""
    runs = [picnic_json(store, r).model_dump() for r in run_ids]
    first = runs[0]
    detail = Table(title=f"Run {first['run']}: {_who(first)} on Static Picnic ({first['protocol']})")
    for col in ("level", "max turns", "won [95% Wilson]", "code judge", "LLM judge", "turns", "turns (won)"):
        detail.add_column(col, justify="right", no_wrap=col.startswith(("won", "code", "LLM")))
    for col in ("pos. seen", "neg. seen", "seconds", "gave up", "LLM decided", "errored"):
        detail.add_column(col, justify="right")
    for c in first["cells"]:
        detail.add_row(
            c["level"],
            str(c["max_turns"]),
            _cell(c["wins"]),
            _cell(c["code_judge"]),
            _cell(c["llm_judge"]),
            _num(c["turns"]),
            _num(c["turns_won"]),
            _num(c["positives_seen"]),
            _num(c["negatives_seen"]),
            _num(c["seconds"]),
            str(c["gave_up"]),
            str(c["llm_decided"]),
            str(c["errored"]),
        )
    levels = sorted({lv for data in runs for lv in data["levels"]})
    table2 = Table(title="Win rate per level (the paper's Table 2 layout); k/n rate [95% Wilson interval]")
    table2.add_column("run", justify="right")
    table2.add_column("player", min_width=18)
    for lv in levels:
        table2.add_column(f"SP {lv}", justify="right", no_wrap=True)
    table2.add_column("all", justify="right", no_wrap=True)
    for data in runs:
        table2.add_row(
            str(data["run"]),
            _who(data),
            *(_cell(data["levels"].get(lv, {}).get("wins")) for lv in levels),
            _cell(data["summary"]["wins"]),
        )
    notes = (
        [Text(calls_note(first["calls"]))]
        if first["calls"]["calls"] or first["calls"]["cached_calls"]
        else []
    )
    s = first["summary"]
    if s["unreadable_guesses"] or s["llm_decided"]:
        notes.append(
            Text(
                f"{s['unreadable_guesses']} guesses named no known category and had no LLM verdict (wrong); "
                f"{s['llm_decided']} games had a guess decided by the LLM judge (flagged)"
            )
        )
    return [detail, table2, *notes]


def picnic_transcript(data: dict[str, Any], player: str) -> RenderableType:
    """One game: the first examples, each move with what the host answered, and both judges' verdicts."""
    item = data.get("item") or {}
    rule = item.get("rule") or {}
    m = data.get("metrics") or {}
    parts: list[RenderableType] = [
        Text(
            f"Run {data['run']}, episode {data['index']}: {item.get('level')} rule {rule.get('text')} "
            f"({rule.get('positives')} items), max turns {item.get('max_turns')}",
            style="bold",
        )
    ]
    initial = m.get("initial") or {}
    if initial:
        parts.append(Text(f"[host] can bring: {', '.join(initial.get('positives') or [])}", style="green"))
        parts.append(Text(f"[host] cannot bring: {', '.join(initial.get('negatives') or [])}", style="green"))
    who = "model" if player == "llm" else player
    for t in data["turns"]:
        parts.append(Text(f"\n[{who}, move {t['index'] + 1}]", style="bold cyan"))
        parts.append(Text(t["reply"] if t["reply"] is not None else _describe(t["action"])))
        if t.get("feedback"):
            parts.append(Text(f"[host] {t['feedback']}", style="green"))
    for i, h in enumerate(m.get("history") or [], 1):
        if h["action"].get("type") == "Guess":
            code = h.get("code") or {}
            llm = h.get("llm") or {}
            parts.append(
                Text(
                    f"guess {i}: {h['action'].get('text')!r} -> categories {code.get('categories')}"
                    f"{' (or)' if code.get('combine') == 'any' else ''}; code: {code.get('equivalent')}; "
                    f"LLM judge: {llm.get('verdict', '-')} {llm.get('votes', '')}; decided by {h.get('decided_by')}"
                )
            )
    if data["status"] == "completed":
        parts.append(
            Text(
                f"\n{m.get('status')} ({m.get('end_reason')}); turns {m.get('turns')}, "
                f"{m.get('positives_seen')} positives and {m.get('negatives_seen')} negatives seen",
                style="bold",
            )
        )
    else:
        parts.append(Text(f"\nstatus: {data['status']} {data.get('error') or ''}", style="bold red"))
    return Group(*parts)


def _describe(action: dict[str, Any]) -> str:
    kind = action.get("type")
    if kind == "More":
        return f"more {action.get('n')}"
    if kind == "Guess":
        return f"guess: {action.get('text')}"
    if kind == "GiveUp":
        return "give up"
    return f"{kind}: {action.get('reason', '')}"
