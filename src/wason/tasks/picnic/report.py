"""Static Picnic results, as data the shared renderers draw: win rates with Wilson intervals per level (and turn
limit), turns, examples seen, the code's and the LLM judge's verdicts side by side, and the paper's Table 2 layout
(one row per run, one column per level)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wason.core.family import RunReader
from wason.core.labels import results_title
from wason.core.records import (
    CallTotals,
    EpisodeRow,
    Rate,
    RunReport,
    RunRow,
    Score,
    calls_note,
    episode_line,
    run_header,
)
from wason.core.results import (
    Cell,
    Column,
    Message,
    Results,
    Table,
    Transcript,
    episode_outcome,
    named_runs,
    player_message,
    votes_text,
    yes_no,
)
from wason.metrics.rates import mean_present

SOLVER_LEGEND = (
    "version-space elimination over the categories (docs/picnic.md): it won 200 of 200 seeded games at "
    "each level at the default settings, and 86-92% with one move only (--max-turns 1)."
)
"""What the family's solver is and what it was measured to win: the legend of its row under every table that
shows one (:func:`wason.core.labels.solver_legend`)."""


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
        "moves_won": mean_present([m.get("moves") for m in won]),
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


def run_json(store: RunReader, run_id: int) -> PicnicRunReport:
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
                episode_line(
                    e,
                    (
                        "judges",
                        "decided_by",
                        "final_guess",
                        "end_reason",
                        "turns",
                        "positives_seen",
                        "negatives_seen",
                    ),
                    level=e.item["level"],
                    max_turns=e.item.get("max_turns"),
                    rule=e.item["rule"]["text"],
                )
                for e in eps
            ],
        }
    )


def results(store: RunReader, run_ids: Sequence[int]) -> Results:
    """The first run's games per (level, turn limit): how they ended, then what they took; then the paper's
    Table 2 layout: a row per run (the model's, then its solver baseline), the win rate per level."""
    named = named_runs(store, run_ids)
    runs = [run_json(store, run.id).model_dump() for _, run in named]
    first = runs[0]
    cells = first["cells"]
    llm_ran = any(c["llm_judge"] for c in cells)
    # the code's verdict decides, so its column repeats "won" unless the LLM judge decided a game
    code_differs = any(c["code_judge"]["k"] != c["wins"]["k"] for c in cells)
    level = Column(key="level", name="Level")
    # the turn limit bounds the moves; the stored ``turns`` count the start as turn 1 (published counting), so
    # the table shows moves beside it, never a mean of turns above its bound
    limit = Column(key="limit", name="Moves≤", kind="count", legend="the turn limit, in moves (--max-turns)")
    won = Column(key="won", name="Won", kind="rate", legend="games won (errored games count as losses)")
    ended_columns = [level, limit, won]
    if code_differs:
        ended_columns.append(Column(key="code", name="Code", kind="rate", legend="the code judge said right"))
    if llm_ran:
        ended_columns += [
            Column(
                key="llm",
                name="LLM said",
                kind="rate",
                legend="the published LLM judge said right, of the games it judged",
            ),
            Column(key="agree", name="Agree", kind="rate", legend="the LLM judge agreed with the code"),
        ]
    ended: list[dict[str, Cell]] = []
    took: list[dict[str, Cell]] = []
    for c in cells:
        key: dict[str, Cell] = {"level": c["level"], "limit": c["max_turns"]}
        ended.append(
            key
            | {
                "won": _rate(c["wins"]),
                "code": _rate(c["code_judge"]),
                "llm": _rate(c["llm_judge"]),
                "agree": _rate(c["judges_agree"]),
            }
        )
        took.append(
            key
            | {
                "moves": c["moves"],
                "won_in": c["moves_won"],
                "pos": c["positives_seen"],
                "neg": c["negatives_seen"],
                "seconds": c["seconds"],
                "gave_up": c["gave_up"],
                "limit_hit": c["turn_limit"],
            }
        )
    levels = sorted({lv for data in runs for lv in data["levels"]})
    per_level: list[dict[str, Cell]] = []
    for (name, run), data in zip(named, runs, strict=True):
        row: dict[str, Cell] = {"player": name, "run": run.id}
        row |= {lv: _rate((data["levels"].get(lv) or {}).get("wins")) for lv in levels}
        row["all"] = _rate(data["summary"]["wins"])
        per_level.append(row)
    table2_columns = [Column(key="player", name="Player")]
    table2_columns += [Column(key=lv, name=f"SP {lv}", kind="rate") for lv in levels]
    if len(levels) > 1:
        table2_columns.append(Column(key="all", name="All", kind="rate"))
    tables = [
        Table(name="ended", title="Static Picnic: how the games ended", columns=ended_columns, rows=ended),
        Table(
            name="took",
            title="What the games took (means over finished games)",
            columns=[
                level,
                limit,
                Column(
                    key="moves",
                    name="Moves",
                    kind="mean",
                    digits=1,
                    legend="moves made (the published turn count is one more: the start is turn 1)",
                ),
                Column(key="won_in", name="Won in", kind="mean", digits=1, legend="moves of the games won"),
                Column(key="pos", name="Pos.", kind="mean", digits=1, legend="positive examples seen"),
                Column(key="neg", name="Neg.", kind="mean", digits=1, legend="negative examples seen"),
                Column(key="seconds", name="Seconds", kind="mean", digits=1, legend="per game"),
                Column(key="gave_up", name="Gave up", kind="count", legend="games given up"),
                Column(key="limit_hit", name="Limit", kind="count", legend="games that ran out of turns"),
            ],
            rows=took,
        ),
        Table(
            name="table2",
            title="Win rate per level (the paper's Table 2 layout)",
            columns=table2_columns,
            rows=per_level,
        ),
    ]
    notes = []
    s = first["summary"]
    if s["errored"] or s["unfinished"]:
        notes.append(f"{s['errored']} games errored (counted as losses), {s['unfinished']} not finished")
    if s["unreadable_guesses"] or s["llm_decided"]:
        notes.append(
            f"{s['unreadable_guesses']} guesses named no known category and had no LLM verdict (wrong); "
            f"{s['llm_decided']} games had a guess decided by the LLM judge (flagged)"
        )
    if s["format_errors"] or s["truncated"]:
        notes.append(
            f"{s['format_errors']} replies could not be read (format errors); {s['truncated']} more were cut off "
            "at the token limit (--max-tokens; counted apart). Each cost a turn."
        )
    if first["calls"]["calls"] or first["calls"]["cached_calls"]:
        notes.append(calls_note(first["calls"]))
    return Results(title=results_title(named[0][1]), protocol=first["protocol"], tables=tables, notes=notes)


def _rate(rate: Any) -> Rate | None:
    return None if not rate else Rate.model_validate(rate)


def _mean(name: str, short: str, values: Sequence[float | int | None], legend: str) -> Score:
    return Score.mean_of(name, short, values, legend, higher_is_better=False)


def scores(store: RunReader, run_id: int) -> list[Score]:
    """The run's columns of a comparison table, in the paper's Table 2 order: the win rate, then what the games
    took (turns, examples seen) and, where the LLM judge ran beside the code, how often they agreed."""
    eps = store.list_episodes(run_id)
    ms = [e.metrics or {} for e in eps if e.status == "completed"]
    s = summarize(eps)
    agree: Rate = s["judges_agree"] or Rate.of(0, 0)
    return [
        Score.rate("Win rate", "Win", s["wins"].k, s["wins"].n, "games won (errored games count as losses)"),
        _mean(
            "Turns",
            "Turns",
            [m.get("turns") for m in ms],
            "turns as published (the start is turn 1, each move one more), mean over games [95% t]",
        ),
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


def messages(data: Mapping[str, Any], run: RunRow, system: str | None = None) -> Transcript:
    """One game: the system prompt the player read, the first examples, each move with what the host answered,
    and both judges' verdicts."""
    item = data.get("item") or {}
    rule = item.get("rule") or {}
    m = data.get("metrics") or {}
    title = (
        f"Run {data['run']}, episode {data['index']}: {item.get('level')} rule {rule.get('text')} "
        f"({rule.get('positives')} items), max turns {item.get('max_turns')}"
    )
    out: list[Message] = [Message(role="system", name="system", text=system)] if system else []
    initial = m.get("initial") or {}
    if initial:
        for what, key in (("can bring", "positives"), ("cannot bring", "negatives")):
            out.append(Message(role="game", name="host", text=f"{what}: {', '.join(initial.get(key) or [])}"))
    for t in data["turns"]:
        text = t["reply"] if t["reply"] is not None else _describe(t["action"])
        out.append(player_message(run, t["index"], text, "move"))
        if t.get("feedback"):
            out.append(Message(role="game", name="host", text=t["feedback"], turn=t["index"]))
    for i, h in enumerate(m.get("history") or [], 1):
        if h["action"].get("type") == "Guess":
            code = h.get("code") or {}
            llm = h.get("llm") or {}
            votes = f" (votes {votes_text(llm['votes'])})" if llm.get("votes") else ""
            said = (
                f"guess {i}: {h['action'].get('text')!r} -> categories {code.get('categories')}"
                f"{' (or)' if code.get('combine') == 'any' else ''}; code: {yes_no(code.get('equivalent'))}; "
                f"LLM judge: {yes_no(llm.get('verdict'))}{votes}; decided by {h.get('decided_by')}"
            )
            out.append(Message(role="note", name="judges", text=said))
    if data["status"] == "completed":
        said = (
            f"{m.get('status')} ({m.get('end_reason')}); turns {m.get('turns')}, {m.get('positives_seen')} "
            f"positives and {m.get('negatives_seen')} negatives seen"
        )
        out.append(Message(role="outcome", name="ended", text=said))
    else:
        out.append(episode_outcome(data))
    return Transcript(title=title, messages=out, success=data.get("success"))


def _describe(action: dict[str, Any]) -> str:
    kind = action.get("type")
    if kind == "More":
        return f"more {action.get('n')}"
    if kind == "Guess":
        return f"guess: {action.get('text')}"
    if kind == "GiveUp":
        return "give up"
    return f"{kind}: {action.get('reason', '')}"


def inspect_sample(item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """An episode as an Inspect sample (``wason export --format inspect``): its target, the hidden rule (its
    text), and its answer, the player's last guess (None when it made none)."""
    guess = (metrics or {}).get("final_guess")
    return str((item.get("rule") or {}).get("text") or ""), str(guess) if guess else None
