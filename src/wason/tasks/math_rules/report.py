"""Math-sequence reports: wins with 95% Wilson intervals, each judge beside the code's verdict, turns and
sequences seen, per run (a model's run, then its solver baseline)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from wason.core.family import RunReader
from wason.core.records import CallTotals, EpisodeRow, RunReport, run_header
from wason.metrics.rates import mean_present, rate_record

JUDGE_NAMES = {"expression": "expression (code)", "quiz": "quiz (all right)", "llm": "LLM judge (2 of 3)"}


class Rate(BaseModel):
    """k successes of n, with the 95% Wilson interval."""

    k: int
    n: int
    rate: float | None
    wilson_low: float
    wilson_high: float


class MathNumbers(BaseModel):
    """The numbers of a set of episodes."""

    episodes: int
    errored: int
    unfinished: int
    wins: Rate
    judges: dict[str, Rate]
    turns: float | None
    turns_to_solution: float | None
    sequences_seen: float | None
    quiz_accuracy: float | None
    format_errors: int
    guesses: int
    guesses_without_expression: int
    llm_disagreements: int
    seconds: float | None


class MathEpisodeRow(BaseModel):
    """One episode."""

    index: int
    level: str | None
    rule: str | None
    status: str
    success: bool | None
    judges: dict[str, bool | None] | None
    final_guess: str | None
    final_expression: str | None
    turns: int | None
    end_reason: str | None
    error: str | None


class MathRunReport(RunReport):
    """``wason show RUN --json`` for a math-sequence run."""

    protocol: str
    summary: MathNumbers
    calls: CallTotals
    episodes: list[MathEpisodeRow]
    baselines: list[MathRunReport] | None = None


def math_protocol(config: dict[str, Any]) -> str:
    """Which protocol a run used, stated in every report."""
    parts = ["published player prompt (More / My Guess is:)"]
    if config.get("ask_lambda"):
        parts.append("asked for lambda v, i: ...")
    level = config.get("level", "L1")
    turns = config.get("max_turns") or {"L1": 10, "L2": 15, "L3": 20}.get(level)
    parts.append(f"level {level}, up to {turns} turns")
    if not config.get("refill", True):
        parts.append("sequences only on More")
    if config.get("system_as_user"):
        parts.append("first message as user")
    return "; ".join(parts)


def _seconds(store: RunReader, episode: EpisodeRow) -> float | None:
    """A game's time, from its episode's start to its end (None while it runs)."""
    return episode.seconds


def summarize(
    eps: Sequence[EpisodeRow], judges: Sequence[str], seconds: Sequence[float | None] = ()
) -> dict[str, Any]:
    """The numbers of a set of episodes; errored episodes count as losses in ``n`` (and apart)."""
    done = [e for e in eps if e.status == "completed"]
    metrics = [e.metrics or {} for e in done]
    n = len(eps)
    won = [m for e, m in zip(done, metrics, strict=True) if e.success]
    guesses = [g for m in metrics for g in (m.get("guesses") or [])]
    return {
        "episodes": n,
        "errored": sum(e.status == "errored" for e in eps),
        "unfinished": sum(e.status not in ("completed", "errored") for e in eps),
        "wins": rate_record(sum(bool(e.success) for e in done), n),
        "judges": {
            j: rate_record(sum(bool((m.get("judges") or {}).get(j)) for m in metrics), n) for j in judges
        },
        "turns": mean_present([m.get("turns") for m in metrics]),
        "turns_to_solution": mean_present([m.get("turns") for m in won]),
        "sequences_seen": mean_present([m.get("sequences_seen") for m in metrics]),
        "quiz_accuracy": mean_present([m.get("quiz_accuracy") for m in metrics]),
        "format_errors": sum(int(m.get("format_errors") or 0) for m in metrics),
        "guesses": len(guesses),
        "guesses_without_expression": sum(len(m.get("guesses_without_expression") or []) for m in metrics),
        "llm_disagreements": sum(int(m.get("llm_disagreements") or 0) for m in metrics),
        "seconds": mean_present(list(seconds)),
    }


def math_json(store: RunReader, run_id: int) -> MathRunReport:
    """A run's summary and its episodes."""
    run = store.get_run(run_id)
    eps = store.list_episodes(run_id)
    judges = list(run.config.get("judges") or [])
    return MathRunReport.model_validate(
        {
            **run_header(run),
            "protocol": math_protocol(run.config),
            "summary": summarize(eps, judges, [_seconds(store, e) for e in eps if e.status == "completed"]),
            "calls": store.call_totals(run_id),
            "episodes": [
                {
                    "index": e.index,
                    "level": (e.item or {}).get("level"),
                    "rule": ((e.item or {}).get("rule") or {}).get("text"),
                    "status": e.status,
                    "success": e.success,
                    "judges": (e.metrics or {}).get("judges"),
                    "final_guess": (e.metrics or {}).get("final_guess"),
                    "final_expression": (e.metrics or {}).get("final_expression"),
                    "turns": (e.metrics or {}).get("turns"),
                    "end_reason": (e.metrics or {}).get("end_reason"),
                    "error": e.error,
                }
                for e in eps
            ],
        }
    )


def _cell(rate: dict[str, Any] | None) -> str:
    if not rate or not rate["n"]:
        return "-"
    return f"{rate['k']}/{rate['n']} [{rate['wilson_low']:.2f}, {rate['wilson_high']:.2f}]"


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _who(data: dict[str, Any]) -> str:
    who = str(data["model"]) if data["player"] == "llm" and data["model"] else str(data["player"])
    return who + (" (baseline)" if data["config"].get("baseline_for") else "")


def math_tables(store: RunReader, run_ids: Sequence[int]) -> list[RenderableType]:
    """One row per run: wins (decided by code) and each judge with 95% Wilson intervals, turns, sequences."""
    runs = [math_json(store, r).model_dump() for r in run_ids]
    first = runs[0]
    table = Table(
        title=f"Run {first['run']}: math sequences {first['config'].get('level')} ({first['protocol']}); "
        "k/n [95% Wilson interval]"
    )
    judges = Table(title="Judges of the last guess, beside the code's verdict (the expression decides)")
    for t in (table, judges):
        t.add_column("run", justify="right")
        t.add_column("player")
    table.add_column("wins", justify="right", no_wrap=True)
    for col in ("turns", "to solve", "sequences", "seconds", "errored"):
        table.add_column(col, justify="right")
    for name in ("expression", "quiz", "llm"):
        judges.add_column(JUDGE_NAMES[name], justify="right", no_wrap=True)
    judges.add_column("quiz acc.", justify="right")
    for data in runs:
        s = data["summary"]
        table.add_row(
            str(data["run"]),
            _who(data),
            _cell(s["wins"]),
            _num(s["turns"]),
            _num(s["turns_to_solution"]),
            _num(s["sequences_seen"]),
            _num(s["seconds"], 2),
            str(s["errored"]),
        )
        judges.add_row(
            str(data["run"]),
            _who(data),
            *(_cell(s["judges"].get(j)) for j in ("expression", "quiz", "llm")),
            _num(s["quiz_accuracy"], 2),
        )
    notes = []
    s = first["summary"]
    if s["format_errors"]:
        notes.append(f"{s['format_errors']} replies were neither More nor a guess (counted turns)")
    if s["guesses_without_expression"]:
        notes.append(
            f"{s['guesses_without_expression']} of {s['guesses']} guesses had no lambda v, i: ... expression"
        )
    if s["llm_disagreements"]:
        notes.append(f"the LLM judge disagreed with the code on {s['llm_disagreements']} guesses")
    return [table, judges, *(Text(n) for n in notes)]


def math_transcript(data: dict[str, Any], player: str) -> RenderableType:
    """One episode: the sequences, each reply and what the game answered, and the verdicts."""
    item = data.get("item") or {}
    rule = item.get("rule") or {}
    parts: list[RenderableType] = [
        Text(
            f"Run {data['run']}, episode {data['index']}: {item.get('level')} rule {rule.get('text')} "
            f"({rule.get('expression')})",
            style="bold",
        ),
        Text(f"[sequences] {item.get('examples')}", style="dim"),
    ]
    who = "model" if player == "llm" else player
    for t in data["turns"]:
        parts.append(Text(f"\n[{who}, turn {t['index'] + 1}]", style="bold cyan"))
        parts.append(Text(t["reply"] if t["reply"] is not None else _describe(t["action"])))
        if t["feedback"]:
            parts.append(Text(f"[game] {t['feedback']}", style="green"))
    m = data.get("metrics") or {}
    if data["status"] == "completed":
        parts.append(Text(f"\nend: {m.get('end_reason')}; turns {m.get('turns')}", style="bold"))
        for name, ok in (m.get("judges") or {}).items():
            parts.append(Text(f"{JUDGE_NAMES.get(name, name)}: {'right' if ok else 'wrong'}"))
        for g in m.get("guesses") or []:
            verdict = g.get("verdict") or {}
            line = f"guess {g.get('text')!r}: expression {g.get('expression')!r}"
            if verdict.get("rejection"):
                line += f" rejected ({verdict['rejection']})"
            elif verdict:
                line += (
                    f", agreement {verdict.get('agreement', 0):.3f} on {verdict.get('points')} transitions"
                )
            if g.get("llm"):
                line += f"; LLM judge {g['llm'].get('verdict')} (votes {g['llm'].get('votes')})"
            parts.append(Text(line))
    else:
        parts.append(Text(f"\nstatus: {data['status']} {data.get('error') or ''}", style="bold red"))
    return Group(*parts)


def _describe(action: dict[str, Any]) -> str:
    kind = action.get("type")
    if kind == "More":
        return f"More ({action.get('n') or 'per turn'})"
    if kind == "Guess":
        return f"My Guess is: {action.get('text')}"
    if kind == "ExpressionAnswer":
        return f"expression: {action.get('source')}"
    if kind == "QuizAnswer":
        return f"quiz: {action.get('values')}"
    if kind == "GiveUp":
        return "give up"
    return f"{kind}: {action.get('reason', '')}"
