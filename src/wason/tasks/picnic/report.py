"""Static Picnic results, as data the shared renderers draw: win rates with Wilson intervals per level (and turn
limit), turns, examples seen, the code's and the LLM judge's verdicts side by side, and the paper's Table 2 layout
(one row per run, one column per level)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wason.core import columns as col
from wason.core.family import RunReader
from wason.core.guess_rule import cells
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
)
from wason.core.reporting import fields_table, rule_text, said_text
from wason.core.results import (
    Cell,
    Message,
    Moves,
    Results,
    Table,
    Transcript,
    calls_notes,
    episode_outcome,
    named_runs,
    turn_messages,
    votes_text,
    yes_no,
)
from wason.core.tally import WIN_LEGEND, MeanScore, Tally, group_by, judged_scores
from wason.metrics.rates import mean_present

SOLVER_LEGEND = (
    "version-space elimination over the categories (docs/picnic.md): it won 200 of 200 seeded games at "
    "each level at the default settings, and 86-92% with one move only (--max-turns 1)."
)


def summarize(eps: Sequence[EpisodeRow]) -> dict[str, Any]:
    """The numbers of a set of games. Errored games count as losses in ``n`` (and are counted apart); games not
    played yet are in no rate."""
    t = Tally(eps)
    ms, won = t.metrics, t.won
    llm = t.where(lambda m: (m.get("judges") or {}).get("llm") is not None)
    return {
        "games": len(eps),
        "errored": t.errored,
        "unfinished": t.unfinished,
        "wins": t.rate(len(won)),
        "code_judge": t.judge("code"),
        "llm_judge": Rate.of(sum(bool(m["judges"]["llm"]) for m in llm), len(llm)) if llm else None,
        "judges_agree": t.agreement("code") if llm else None,
        "llm_decided": sum(bool(m.get("llm_decided")) for m in ms),
        "unreadable_guesses": t.total("unreadable_guesses"),
        "gave_up": sum(m.get("end_reason") == "gave_up" for m in ms),
        "turn_limit": sum(m.get("end_reason") == "turn_limit" for m in ms),
        "turns": t.mean("turns"),
        "turns_won": t.mean("turns", won),
        "moves": t.mean("moves"),
        "moves_won": t.mean("moves", won),
        "positives_seen": t.mean("positives_seen"),
        "negatives_seen": t.mean("negatives_seen"),
        "positives_seen_won": t.mean("positives_seen", won),
        "negatives_seen_won": t.mean("negatives_seen", won),
        "format_errors": t.total("format_errors"),
        "truncated": t.total("truncated"),
        "seconds": mean_present([e.seconds for e in t.done]),
    }


class PicnicRunReport(RunReport):
    """``wason show RUN --json`` for a Static Picnic run."""

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
    levels = group_by(eps, lambda e: e.item["level"])
    cells = group_by(eps, lambda e: (e.item["level"], e.item.get("max_turns")))
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
    """The first run's games per (level, turn limit), then the paper's Table 2 layout: a row per run."""
    named = named_runs(store, run_ids)
    runs = [run_json(store, run.id).model_dump() for _, run in named]
    first = runs[0]
    games = first["cells"]
    shown = {"won"}
    # the code's verdict decides, so its column repeats "won" unless the LLM judge decided a game
    if any(c["code_judge"]["k"] != c["wins"]["k"] for c in games):
        shown.add("code")
    if any(c["llm_judge"] for c in games):
        shown |= {"llm", "agree"}
    ended_columns = [col.LEVEL, LIMIT, *(c for _, c in ENDED if c.key in shown)]
    ended: list[dict[str, Cell]] = []
    took: list[dict[str, Cell]] = []
    for c in games:
        key: dict[str, Cell] = {"level": c["level"], "limit": c["max_turns"]}
        ended.append(key | cells(c, ENDED))
        took.append(key | cells(c, TOOK))
    levels = sorted({lv for data in runs for lv in data["levels"]})
    per_level: list[dict[str, Cell]] = []
    for (name, run), data in zip(named, runs, strict=True):
        row: dict[str, Cell] = {"player": name, "run": run.id}
        row |= {lv: _rate((data["levels"].get(lv) or {}).get("wins")) for lv in levels}
        row["all"] = _rate(data["summary"]["wins"])
        per_level.append(row)
    table2_columns = [col.PLAYER, *(col.rate(lv, f"SP {lv}") for lv in levels)]
    if len(levels) > 1:
        table2_columns.append(col.rate("all", "All"))
    tables = [
        Table(name="ended", title="Static Picnic: how the games ended", columns=ended_columns, rows=ended),
        fields_table(
            "took", "What the games took (means over finished games)", (col.LEVEL, LIMIT), TOOK, took
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
    notes += calls_notes(first["calls"])
    return Results(title=results_title(named[0][1]), protocol=first["protocol"], tables=tables, notes=notes)


# the turn limit bounds the moves; the stored ``turns`` count the start as turn 1 (published counting), so the
# tables show moves beside it, never a mean of turns above its bound
LIMIT = col.count("limit", "Moves≤", "the turn limit, in moves (--max-turns)")
ENDED = (
    ("wins", col.rate("won", "Won", WIN_LEGEND)),
    ("code_judge", col.rate("code", "Code", "the code judge said right")),
    ("llm_judge", col.rate("llm", "LLM said", "the published LLM judge said right, of the games it judged")),
    ("judges_agree", col.rate("agree", "Agree", "the LLM judge agreed with the code")),
)
TOOK = (
    (
        "moves",
        col.mean(
            "moves",
            "Moves",
            "moves made (the published turn count is one more: the start is turn 1)",
            digits=1,
        ),
    ),
    ("moves_won", col.mean("won_in", "Won in", "moves of the games won", digits=1)),
    ("positives_seen", col.mean("pos", "Pos.", "positive examples seen", digits=1)),
    ("negatives_seen", col.mean("neg", "Neg.", "negative examples seen", digits=1)),
    ("seconds", col.mean("seconds", "Seconds", "per game", digits=1)),
    ("gave_up", col.count("gave_up", "Gave up", "games given up")),
    ("turn_limit", col.count("limit_hit", "Limit", "games that ran out of turns")),
)
"""The columns after the level and its turn limit, each beside the number of a (level, turn limit) it shows."""


AGREE_LEGEND = "the published LLM judge agreed with the code's verdict (reported apart; the code decides)"


def _rate(rate: Any) -> Rate | None:
    return None if not rate else Rate.model_validate(rate)


def scores(store: RunReader, run_id: int) -> list[Score]:
    """The comparison's columns in the paper's Table 2 order."""
    t = Tally(store.list_episodes(run_id))
    return judged_scores(t, len(t.won), SCORED, "code", AGREE_LEGEND)


SCORED = (
    MeanScore(
        "Turns",
        "Turns",
        "turns",
        "turns as published (the start is turn 1, each move one more), mean over games [95% t]",
    ),
    MeanScore(
        "Examples seen",
        "Examples",
        "examples_seen",
        "positive and negative examples seen, mean over games [95% t]",
    ),
)


def messages(data: Mapping[str, Any], run: RunRow, system: str | None = None) -> Transcript:
    """One game: the system prompt, the first examples, each move and the host's answer, both judges."""
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
    out += turn_messages(data, run, MOVES, game="host", step="move")
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


MOVES: Moves = {"More": "more {n}", "Guess": "guess: {text}", "GiveUp": "give up"}
"""How a transcript says a move that wrote no text."""


def inspect_sample(item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """An Inspect sample's target (the rule's text) and answer (the last guess)."""
    return rule_text(item), said_text(metrics, "final_guess")
