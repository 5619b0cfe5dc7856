"""Static Picnic reports: win rates with Wilson intervals per level (and turn limit), turns, examples seen, the
code's and the LLM judge's verdicts side by side, and the paper's Table 2 layout (one row per run, one column
per level)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from wason.core.family import RunReader
from wason.core.records import (
    CallTotals,
    EpisodeRow,
    Rate,
    RunReport,
    Score,
    calls_note,
    fold_text,
    run_header,
)
from wason.core.views import legend as _legend
from wason.core.views import narrow_table as _table
from wason.core.views import wrap_name
from wason.metrics.rates import mean_present


def summarize(eps: Sequence[EpisodeRow]) -> dict[str, Any]:
    """The numbers of a set of games. Errored games count as losses in ``n`` (and are counted apart); games not
    played yet are in no rate."""
    done = [e for e in eps if e.status == "completed"]
    n = sum(e.status in ("completed", "errored") for e in eps)
    ms = [e.metrics or {} for e in done]
    won = [m for m in ms if m.get("status") == "won"]
    llm = [m for m in ms if (m.get("judges") or {}).get("llm") is not None]
    agree = sum(bool(m["judges"]["llm"]) == bool(m["judges"].get("code")) for m in llm)
    return {
        "games": len(eps),
        "errored": sum(e.status == "errored" for e in eps),
        "unfinished": sum(e.status not in ("completed", "errored") for e in eps),
        "wins": Rate.of(len(won), n),
        "code_judge": Rate.of(sum(bool((m.get("judges") or {}).get("code")) for m in ms), n),
        "llm_judge": Rate.of(sum(bool(m["judges"]["llm"]) for m in llm), len(llm)) if llm else None,
        "judges_agree": Rate.of(agree, len(llm)) if llm else None,
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
        "truncated": sum(int(m.get("truncated") or 0) for m in ms),
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


def _share(x: float) -> str:
    """0.25 as ``.25``, 1 as ``1``: the short form intervals take in narrow tables."""
    text = f"{x:.2f}"
    return {"0.00": "0", "1.00": "1"}.get(text, text.lstrip("0"))


def _cell(rate: dict[str, Any] | None) -> str:
    """``k/n [low,high]``: a rate with its 95% Wilson interval, narrow enough for an 80-column table."""
    if not rate or not rate["n"]:
        return "-"
    low, high = rate["interval"]
    return f"{rate['k']}/{rate['n']} [{_share(low)},{_share(high)}]"


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _who(data: dict[str, Any]) -> str:
    who = str(data["model"]) if data["player"] == "llm" and data["model"] else str(data["player"])
    return who + (" (baseline)" if data["config"].get("baseline_for") else "")


def picnic_tables(store: RunReader, run_ids: Sequence[int]) -> list[RenderableType]:
    """The first run's games per (level, turn limit): how they ended, then what they took; then the Table 2
    layout: a row per run (the model's, then its solver baseline), the win rate per level with its 95% Wilson
    interval. Each fits 80 columns, its abbreviations in a legend under it."""
    runs = [picnic_json(store, r).model_dump() for r in run_ids]
    first = runs[0]
    cells = first["cells"]
    llm_ran = any(c["llm_judge"] for c in cells)
    # the code's verdict decides, so its column repeats "won" unless the LLM judge decided a game
    code_differs = any(c["code_judge"]["k"] != c["wins"]["k"] for c in cells)
    ended = _table(f"Run {first['run']}: {_who(first)} on Static Picnic ({first['protocol']})")
    heads = ["level", "turns≤", "won [95% CI]"]
    heads += ["code"] if code_differs else []
    heads += ["LLM said", "agree"] if llm_ran else []
    for col in heads:
        ended.add_column(col, justify="left" if col == "level" else "right", no_wrap=True)
    took = _table("What the games took (means over finished games)")
    for col in ("level", "turns≤", "turns", "won in", "pos.", "neg.", "seconds", "gave up", "limit"):
        took.add_column(col, justify="left" if col == "level" else "right", no_wrap=True)
    for c in cells:
        limit = "-" if c["max_turns"] is None else str(c["max_turns"])
        ended.add_row(
            c["level"],
            limit,
            _cell(c["wins"]),
            *([_cell(c["code_judge"])] if code_differs else []),
            *([_cell(c["llm_judge"]), _cell(c["judges_agree"])] if llm_ran else []),
        )
        took.add_row(
            c["level"],
            limit,
            _num(c["turns"]),
            _num(c["turns_won"]),
            _num(c["positives_seen"]),
            _num(c["negatives_seen"]),
            _num(c["seconds"]),
            str(c["gave_up"]),
            str(c["turn_limit"]),
        )
    ended_legend = (
        "turns≤: the turn limit. won: games won, k/n [95% Wilson interval] (errored games count as losses). "
        + ("code: the code judge said right. " if code_differs else "")
        + (
            "LLM said: the published LLM judge said right, of the games it judged; agree: it agreed with the "
            "code. "
            if llm_ran
            else ""
        )
    )
    took_legend = (
        "turns: turns played; won in: turns of the games won; pos., neg.: positive and negative examples seen; "
        "seconds: per game; gave up, limit: games given up, and that ran out of turns."
    )
    levels = sorted({lv for data in runs for lv in data["levels"]})
    table2 = _table("Win rate per level (the paper's Table 2 layout): k/n [95% Wilson interval]")
    table2.add_column("run", justify="right")
    table2.add_column("player", overflow="fold")
    for lv in levels:
        table2.add_column(f"SP {lv}", justify="right", no_wrap=True)
    if len(levels) > 1:
        table2.add_column("all", justify="right", no_wrap=True)
    for data in runs:
        table2.add_row(
            str(data["run"]),
            wrap_name(_who(data)),
            *(_cell(data["levels"].get(lv, {}).get("wins")) for lv in levels),
            *([_cell(data["summary"]["wins"])] if len(levels) > 1 else []),
        )
    notes = (
        [Text(calls_note(first["calls"]))]
        if first["calls"]["calls"] or first["calls"]["cached_calls"]
        else []
    )
    s = first["summary"]
    if s["errored"] or s["unfinished"]:
        notes.append(
            Text(f"{s['errored']} games errored (counted as losses), {s['unfinished']} not finished")
        )
    if s["unreadable_guesses"] or s["llm_decided"]:
        notes.append(
            Text(
                f"{s['unreadable_guesses']} guesses named no known category and had no LLM verdict (wrong); "
                f"{s['llm_decided']} games had a guess decided by the LLM judge (flagged)"
            )
        )
    if s["format_errors"] or s["truncated"]:
        notes.append(
            Text(
                f"{s['format_errors']} replies could not be read (format errors); {s['truncated']} more were cut "
                "off at the token limit (--max-tokens; counted apart). Each cost a turn."
            )
        )
    return [ended, _legend(ended_legend), took, _legend(took_legend), table2, *notes]


def _mean(name: str, short: str, values: Sequence[float | int | None], legend: str) -> Score:
    return Score.mean_of(name, short, values, legend, higher_is_better=False)


def picnic_scores(store: RunReader, run_id: int) -> list[Score]:
    """The run's columns of a comparison table, in the paper's Table 2 order: the win rate, then what the games
    took (turns, examples seen) and, where the LLM judge ran beside the code, how often they agreed."""
    eps = store.list_episodes(run_id)
    ms = [e.metrics or {} for e in eps if e.status == "completed"]
    s = summarize(eps)
    agree: Rate = s["judges_agree"] or Rate.of(0, 0)
    return [
        Score.rate("Win rate", "Win", s["wins"].k, s["wins"].n, "games won (errored games count as losses)"),
        _mean("Turns", "Turns", [m.get("turns") for m in ms], "turns played, mean over games [95% t]"),
        _mean(
            "Examples seen",
            "Examples",
            [m.get("examples_seen") for m in ms],
            "positive and negative examples seen, mean over games [95% t]",
        ),
        Score.rate(
            "LLM judge agreement",
            "Agree",
            agree.k,
            agree.n,
            "the published LLM judge agreed with the code's verdict (reported apart; the code decides)",
        ),
    ]


def picnic_transcript(
    data: dict[str, Any], player: str, system: str | None = None, *, full: bool = False
) -> RenderableType:
    """One game: the system prompt the player read (folded unless ``full``), the first examples, each move with
    what the host answered, and both judges' verdicts."""
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
    if system:
        hint = f"the whole prompt: wason show {data['run']} --episode {data['index']} --full"
        parts.append(Text(f"[system]\n{fold_text(system, full=full, hint=hint)}", style="dim"))
    initial = m.get("initial") or {}
    if initial:
        parts.append(Text(f"[host] can bring: {', '.join(initial.get('positives') or [])}", style="green"))
        parts.append(Text(f"[host] cannot bring: {', '.join(initial.get('negatives') or [])}", style="green"))
    who = "model" if player == "llm" else player
    hint = f"the whole prompt: wason show {data['run']} --episode {data['index']} --full"
    previous: str | None = None
    for t in data["turns"]:
        parts.append(Text(f"\n[{who}, move {t['index'] + 1}]", style="bold cyan"))
        parts.append(Text(t["reply"] if t["reply"] is not None else _describe(t["action"])))
        if t.get("feedback"):
            said = fold_repeated(t["feedback"], previous, full=full, hint=hint)
            parts.append(Text(f"[host] {said}", style="green"))
            previous = t["feedback"]
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


def fold_repeated(text: str, previous: str | None, *, full: bool, hint: str) -> str:
    """``text`` with the lines it ends with that the previous message ended with too (the instructions the host
    repeats every turn) folded to one line, unless ``full``."""
    if full or previous is None:
        return text
    lines, before = text.splitlines(), previous.splitlines()
    same = 0
    while same < min(len(lines), len(before)) and lines[-1 - same] == before[-1 - same]:
        same += 1
    if same < 3:  # a line or two in common is not a repeated text
        return text
    folded = fold_text("\n".join(lines[-same:]), lines=0, hint=f"as in the previous turn; {hint}")
    return "\n".join([*lines[:-same], folded])


def _describe(action: dict[str, Any]) -> str:
    kind = action.get("type")
    if kind == "More":
        return f"more {action.get('n')}"
    if kind == "Guess":
        return f"guess: {action.get('text')}"
    if kind == "GiveUp":
        return "give up"
    return f"{kind}: {action.get('reason', '')}"
