"""Dynamic Picnic results, as data the shared renderers draw: win rates per level with Wilson intervals (rules
the validation rejected counted apart, never as losses), turns, examples seen, the judges side by side; one
episode's transcript."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any, Literal

from wason.core import columns as col
from wason.core.family import RunReader
from wason.core.guess_rule import cells
from wason.core.labels import results_title
from wason.core.records import CallTotals, Rate, RunReport, RunRow, Score, calls_note, run_header
from wason.core.reporting import fields_table
from wason.core.results import (
    Cell,
    Message,
    Results,
    Transcript,
    end_reason_text,
    episode_outcome,
    named_runs,
    yes_no,
)
from wason.core.tally import group_by


class PicnicRunReport(RunReport):
    """``wason show RUN --json`` for a Dynamic Picnic run: a row per level and one for ``all`` (``wins``, and
    the LLM judge's and the code check's yeses of the games they judged, as rates with 95% Wilson intervals;
    means of turns, examples seen, questions asked and seconds; ``format_errors`` and ``truncated`` replies cut
    off at the token limit, counted apart), the rules the validation rejected (never counted as losses)."""

    levels: list[dict[str, Any]]
    rejected: list[dict[str, Any]]
    errored: int
    pending: int
    calls: CallTotals
    baselines: list[PicnicRunReport] | None = None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _played(store: RunReader, run_id: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int, int]:
    """The metrics of the games played (with their seconds), the rules rejected, errored and pending games."""
    played: list[dict[str, Any]] = []
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
                played.append({**m, "seconds": e.seconds})  # from the episode's start to its end
        elif e.status == "errored":
            errored += 1
        else:
            pending += 1
    return played, rejected, errored, pending


def run_json(store: RunReader, run_id: int) -> PicnicRunReport:
    run = store.get_run(run_id)
    everything, rejected, errored, pending = _played(store, run_id)
    played = group_by(everything, lambda m: str(m.get("level")))
    rows = []
    for level, ms in [*sorted(played.items()), ("all", everything)]:
        if not ms:
            continue
        llm = [m for m in ms if m.get("llm_verdict") is not None]
        code = [m for m in ms if m.get("code_check") is not None]
        rows.append(
            {
                "level": level,
                "games": len(ms),
                "wins": Rate.of(sum(bool(m["won"]) for m in ms), len(ms)),
                "turns": _mean([float(m["turns"]) for m in ms]),
                "positives_seen": _mean([float(m["positives_seen"]) for m in ms]),
                "negatives_seen": _mean([float(m["negatives_seen"]) for m in ms]),
                "questions": _mean([float(m["questions"]) for m in ms]),
                # from each episode's start to its end
                "seconds": _mean([float(m["seconds"]) for m in ms if m["seconds"] is not None]),
                "gave_up": sum(m["end_reason"] == "gave_up" for m in ms),
                "out_of_turns": sum(m["end_reason"] == "turns" for m in ms),
                "llm_judge": Rate.of(sum(bool(m["llm_verdict"]) for m in llm), len(llm)) if llm else None,
                "code_check": Rate.of(sum(bool(m["code_check"]) for m in code), len(code)) if code else None,
                "format_errors": sum(int(m.get("format_errors") or 0) for m in ms),
                "truncated": sum(int(m.get("truncated") or 0) for m in ms),
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


KEYS = (col.PLAYER, col.LEVEL)
ENDED = (
    ("games", col.count("games", "Games")),
    ("wins", col.rate("won", "Won", "games won")),
    ("llm_judge", col.rate("llm", "LLM judge", "the last guess accepted, of the games it judged")),
    ("code_check", col.rate("code", "Code check", "the last guess accepted, of the games it judged")),
    ("gave_up", col.count("gave_up", "Gave up")),
    ("out_of_turns", col.count("no_turns", "No turns", "games that ran out of turns")),
)
TOOK = (
    ("turns", col.mean("turns", "Turns", digits=1)),
    ("positives_seen", col.mean("pos", "Pos.", "examples seen that can be brought", digits=1)),
    ("negatives_seen", col.mean("neg", "Neg.", "examples seen that cannot be brought", digits=1)),
    ("questions", col.mean("asked", "Asked", "questions asked", digits=1)),
    ("seconds", col.mean("seconds", "Seconds", digits=1)),
    ("format_errors", col.count("format", "Format", "replies the game master could not read")),
    ("truncated", col.CUT),
)
"""The columns of the two tables, after the player and the level, each beside the level row's key it shows."""


def results(store: RunReader, run_ids: list[int]) -> Results:
    """How the games ended per run and level, then what they took; the rules rejected in the notes."""
    named = named_runs(store, run_ids)
    ended: list[dict[str, Cell]] = []
    took: list[dict[str, Cell]] = []
    notes: list[str] = []
    for name, run in named:
        report = run_json(store, run.id)
        for row in report.levels:
            key: dict[str, Cell] = {"player": name, "run": run.id, "level": row["level"]}
            ended.append(key | cells(row, ENDED))
            took.append(key | cells(row, TOOK))
        who = f"run {run.id}: " if len(named) > 1 else ""
        notes.append(f"{who}rules rejected by validation (not counted): {len(report.rejected)}")
        reasons: dict[str, int] = defaultdict(int)
        for r in report.rejected:
            reasons[str(r["reason"])] += 1
        notes += [f"  {n} x {reason}" for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1])[:5]]
        if report.errored or report.pending:
            notes.append(f"{who}errored {report.errored}, not played {report.pending}")
        notes.append(calls_note(report.calls.model_dump()))
    tables = [
        fields_table("ended", "Dynamic Picnic: how the games ended", KEYS, ENDED, ended),
        fields_table("took", "What the games took (means over games)", KEYS, TOOK, took),
    ]
    return Results(title=results_title(named[0][1]), tables=tables, notes=notes)


def scores(store: RunReader, run_id: int) -> list[Score]:
    """The comparison's columns in the paper's Table 2 order; rejected rules are left out of every one."""
    played, _, errored, _ = _played(store, run_id)
    both = [m for m in played if m.get("llm_verdict") is not None and m.get("code_check") is not None]
    agree = sum(bool(m["llm_verdict"]) == bool(m["code_check"]) for m in both)
    return [
        Score.rate(
            "Win rate",
            "Win",
            sum(bool(m["won"]) for m in played),
            len(played) + errored,
            "games won (rules the validation rejected left out; errored games count as losses)",
        ),
        *(
            Score.mean_of(name, short, [value(m) for m in played], legend, higher_is_better=False)
            for name, short, value, legend in SCORED
        ),
        Score.rate(
            "Judges agree",
            "Agree",
            agree,
            len(both),
            "the LLM judge and the code check agreed on the last guess, of the games both judged",
        ),
    ]


SCORED: tuple[tuple[str, str, Callable[[Mapping[str, Any]], float], str], ...] = (
    ("Turns", "Turns", lambda m: float(m["turns"]), "turns played, mean over games [95% t]"),
    (
        "Questions asked",
        "Asked",
        lambda m: float(m["questions"]),
        "'Can I bring X?' questions, mean over games [95% t]",
    ),
    (
        "Examples seen",
        "Examples",
        lambda m: float(m["positives_seen"]) + float(m["negatives_seen"]),
        "examples seen, mean over games [95% t]",
    ),
)
"""The means of a comparison's columns: name, short name, the value of a game's metrics, legend."""


def messages(data: Mapping[str, Any], run: RunRow, system: str | None = None) -> Transcript:
    """One episode: the published prompt (its first), the conversation as the player saw it, the judges."""
    item = data.get("item") or {}
    rule = item.get("rule") or {}
    m = data.get("metrics") or {}
    text, kind = rule.get("text") or m.get("rule_text"), m.get("kind") or rule.get("kind")
    title = f"Run {data['run']}, episode {data['index']}: {text} ({kind})"
    out: list[Message] = []
    turns = data.get("turns") or []
    if turns and turns[0].get("feedback"):
        out.append(
            Message(
                role="system",
                name="the published prompt, sent every turn with the conversation so far",
                text=str(turns[0]["feedback"]),
            )
        )
    history: list[Any] = []
    for turn in turns:
        history = (turn.get("observation") or {}).get("history") or history
    for speaker, said in history:
        role: Literal["player", "game"] = (
            "game" if str(speaker).lower().startswith(("game", "host", "master")) else "player"
        )
        out.append(Message(role=role, name=str(speaker), text=str(said)))
    if m:
        said = (
            f"end: {end_reason_text(m)}; turns {m.get('turns')}; LLM judge {yes_no(m.get('llm_verdict'))}; "
            f"code check {yes_no(m.get('code_check'))} (decided by {yes_no(m.get('decided_by'))})"
        )
        out.append(Message(role="outcome", name="ended", text=said))
        if m.get("rejection"):
            out.append(Message(role="note", name="rejected", text=str(m["rejection"])))
    if data.get("status") not in (None, "completed"):
        out.append(episode_outcome(data))
    return Transcript(title=title, messages=out, success=data.get("success"))


def inspect_sample(item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """An Inspect sample's target (the rule's text) and answer (the last guess of the rule)."""
    m = metrics or {}
    guesses = [g for g in m.get("guess_log") or [] if isinstance(g, dict) and g.get("text")]
    rule = str((item.get("rule") or {}).get("text") or m.get("rule_text") or "")
    return rule, str(guesses[-1]["text"]) if guesses else None
