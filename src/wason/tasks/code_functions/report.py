"""Code Functions Picnic reports: win rates with Wilson intervals per level and per judge, turns, examples seen
(positive and negative) and time, the model's run beside its solver baseline."""

from __future__ import annotations

import json
from collections.abc import Sequence
from statistics import mean
from typing import Any

from pydantic import BaseModel
from rich.console import Group, RenderableType
from rich.text import Text

from wason.core.family import RunReader
from wason.core.records import CallTotals, EpisodeRow, Rate, RunReport, Score, fold_text, run_header
from wason.core.views import legend as _legend
from wason.core.views import narrow_table as _table
from wason.core.views import wrap_name

JUDGE_NAMES = {"predicate": "code *", "quiz": "quiz", "llm": "LLM judge"}


class Numbers(BaseModel):
    """The numbers of a set of episodes: rates (``won``, each judge's) as k of n with the 95% Wilson interval;
    ``format_errors`` unreadable replies and ``truncated`` replies cut off at the token limit, counted apart."""

    episodes: int
    errored: int
    won: Rate
    judges: dict[str, Rate]
    turns: float | None
    turns_to_win: float | None
    examples_seen: float | None
    positives_seen: float | None
    negatives_seen: float | None
    quiz_accuracy: float | None
    final_accuracy: float | None
    seconds: float | None
    format_errors: int
    truncated: int = 0


class EpisodeLine(BaseModel):
    index: int
    rule: str
    level: str | None
    status: str
    game_status: str | None
    turns: int | None
    examples_seen: int | None
    final_guess: str | None
    final_predicate: str | None
    final_accuracy: float | None
    judges: dict[str, bool | None] | None
    error: str | None


class CodeFunctionsReport(RunReport):
    """``wason show RUN --json`` for a Code Functions Picnic run."""

    protocol: str
    summary: Numbers
    levels: dict[str, Numbers]
    calls: CallTotals
    episodes: list[EpisodeLine]
    baselines: list[CodeFunctionsReport] | None = None


def _rate(k: int, n: int) -> Rate:
    return Rate.of(k, n)


def _mean(values: Sequence[float | int | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(mean(present)) if present else None


def numbers(eps: Sequence[EpisodeRow], judges: Sequence[str], seconds: dict[int, float]) -> Numbers:
    """Win rate (errored episodes count as losses), each judge's rate, means of turns and examples."""
    done = [e for e in eps if e.status == "completed"]
    metrics = [e.metrics or {} for e in done]
    n = sum(e.status in ("completed", "errored") for e in eps)  # games not played yet are in no rate
    won = [m for m in metrics if m.get("status") == "won"]
    return Numbers(
        episodes=len(eps),
        errored=sum(e.status == "errored" for e in eps),
        won=_rate(len(won), n),
        judges={j: _rate(sum(bool((m.get("judges") or {}).get(j)) for m in metrics), n) for j in judges},
        turns=_mean([m.get("turns") for m in metrics]),
        turns_to_win=_mean([m.get("turns") for m in won]),
        examples_seen=_mean([m.get("examples_seen") for m in metrics]),
        positives_seen=_mean([m.get("positives_seen") for m in metrics]),
        negatives_seen=_mean([m.get("negatives_seen") for m in metrics]),
        quiz_accuracy=_mean([m.get("quiz_accuracy") for m in metrics]),
        final_accuracy=_mean([m.get("final_accuracy") for m in metrics]),
        seconds=_mean([seconds.get(e.id) for e in done]),
        format_errors=sum(int(m.get("format_errors") or 0) for m in metrics),
        truncated=sum(int(m.get("truncated") or 0) for m in metrics),
    )


def protocol_text(config: dict[str, Any]) -> str:
    parts = [f"protocol {config.get('protocol', 'as-run')}", f"{config.get('examples', 'balanced')} examples"]
    parts.append(
        f"{config.get('init_examples', 2)} initial, {config.get('after_wrong', 1)} after a wrong guess"
    )
    limit = config.get("max_turns")
    parts.append("no turn limit" if not limit else f"at most {limit} turns")
    parts.append(f"{config.get('split', 'generated')} rules")
    return "; ".join(parts)


def _seconds(store: RunReader, eps: Sequence[EpisodeRow]) -> dict[int, float]:
    # from the episode's start to its end: the first model call counts too
    return {e.id: s for e in eps if (s := e.seconds) is not None}


def report_json(store: RunReader, run_id: int) -> CodeFunctionsReport:
    run = store.get_run(run_id)
    eps = store.list_episodes(run_id)
    judges = list(run.config.get("judges") or ["predicate"])
    seconds = _seconds(store, eps)
    by_level: dict[str, list[EpisodeRow]] = {}
    for e in eps:
        by_level.setdefault(str((e.item.get("rule") or {}).get("level")), []).append(e)
    return CodeFunctionsReport.model_validate(
        {
            **run_header(run),
            "protocol": protocol_text(run.config),
            "summary": numbers(eps, judges, seconds).model_dump(),
            "levels": {k: numbers(v, judges, seconds).model_dump() for k, v in sorted(by_level.items())},
            "calls": store.call_totals(run_id),
            "episodes": [
                {
                    "index": e.index,
                    "rule": (e.item.get("rule") or {}).get("key", "?"),
                    "level": (e.item.get("rule") or {}).get("level"),
                    "status": e.status,
                    "game_status": (e.metrics or {}).get("status"),
                    "turns": (e.metrics or {}).get("turns"),
                    "examples_seen": (e.metrics or {}).get("examples_seen"),
                    "final_guess": (e.metrics or {}).get("final_guess"),
                    "final_predicate": (e.metrics or {}).get("final_predicate"),
                    "final_accuracy": (e.metrics or {}).get("final_accuracy"),
                    "judges": (e.metrics or {}).get("judges"),
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


def _cell(rate: Rate | None) -> str:
    """``k/n [low,high]``: a rate with its 95% Wilson interval, narrow enough for an 80-column table."""
    if rate is None or not rate.n:
        return "-"
    low, high = rate.interval
    return f"{rate.k}/{rate.n} [{_share(low)},{_share(high)}]"


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _who(report: CodeFunctionsReport) -> str:
    who = str(report.model) if report.player == "llm" and report.model else report.player
    return who + (" (baseline)" if report.config.get("baseline_for") else "")


def tables(store: RunReader, run_ids: Sequence[int]) -> list[RenderableType]:
    """The judges' verdicts per run and level (k/n with 95% Wilson intervals), then what the games took; each
    fits 80 columns, its abbreviations in a legend under it."""
    reports = [report_json(store, r) for r in run_ids]
    first = reports[0]
    judges = list(first.config.get("judges") or ["predicate"])
    shown = [
        j for j in ("predicate", "quiz", "llm") if any(j in (r.config.get("judges") or []) for r in reports)
    ]
    verdicts = _table(f"Run {first.run}: Code Functions Picnic ({first.protocol})")
    took = _table("What the games took (means over finished games)")
    for t in (verdicts, took):
        t.add_column("run", justify="right")
    verdicts.add_column("player", overflow="fold")
    for t in (verdicts, took):
        t.add_column("level")
    for j in shown:
        verdicts.add_column(JUDGE_NAMES[j], justify="right", no_wrap=True)
    for col in ("turns", "won in", "pos.", "neg.", "quiz", "acc.", "seconds", "format", "cut"):
        took.add_column(col, justify="right", no_wrap=True)
    for report in reports:
        rows = [("all", report.summary)] + (list(report.levels.items()) if len(report.levels) > 1 else [])
        for level, s in rows:
            name = (
                level if level != "all" else (next(iter(report.levels)) if len(report.levels) == 1 else "all")
            )
            verdicts.add_row(
                str(report.run), wrap_name(_who(report)), name, *(_cell(s.judges.get(j)) for j in shown)
            )
            took.add_row(
                str(report.run),
                name,
                _num(s.turns),
                _num(s.turns_to_win),
                _num(s.positives_seen),
                _num(s.negatives_seen),
                _num(s.quiz_accuracy, 2),
                _num(s.final_accuracy, 3),
                _num(s.seconds),
                str(s.format_errors),
                str(s.truncated),
            )
    notes: list[RenderableType] = [
        _legend(
            "k/n [95% Wilson interval] of the games. code *: the code's verdict (the predicate on every unseen "
            "word) decides won/lost; quiz: all held-out words labelled right; LLM judge: the published judge, "
            "2 of 3 votes (reported apart)."
        ),
        took,
        _legend(
            "won in: turns of the games won; pos., neg.: positive and negative examples seen; quiz: quiz "
            "accuracy; acc.: the last predicate's accuracy on unseen words; format: unreadable replies; cut: "
            "replies cut off at the token limit (--max-tokens; each costs what a format error costs)."
        ),
    ]
    if "llm" not in judges:
        notes.append(Text("the LLM judge was off for this run"))
    if first.summary.errored:
        notes.append(Text(f"{first.summary.errored} episodes errored (counted as losses)"))
    return [verdicts, *notes]


def _mean_score(
    name: str, short: str, values: Sequence[float | int | None], legend: str, *, higher_is_better: bool
) -> Score:
    return Score.mean_of(name, short, values, legend, higher_is_better=higher_is_better)


def scores(store: RunReader, run_id: int) -> list[Score]:
    """The run's columns of a comparison table, in the paper's Table 2 order: the win rate (the code's
    verdict), what the games took, the last predicate's accuracy, and how often the LLM judge agreed with the
    code where it ran (reported apart)."""
    eps = store.list_episodes(run_id)
    ms = [e.metrics or {} for e in eps if e.status == "completed"]
    won = sum(m.get("status") == "won" for m in ms)
    both = [
        m["judges"]
        for m in ms
        if (m.get("judges") or {}).get("llm") is not None and m["judges"].get("predicate") is not None
    ]
    agree = sum(bool(j["llm"]) == bool(j["predicate"]) for j in both)
    return [
        Score.rate(
            "Win rate",
            "Win",
            won,
            sum(e.status in ("completed", "errored") for e in eps),
            "games won (errored games count as losses)",
        ),
        _mean_score(
            "Turns",
            "Turns",
            [m.get("turns") for m in ms],
            "turns played, mean over games [95% t]",
            higher_is_better=False,
        ),
        _mean_score(
            "Examples seen",
            "Examples",
            [m.get("examples_seen") for m in ms],
            "positive and negative examples seen, mean over games [95% t]",
            higher_is_better=False,
        ),
        _mean_score(
            "Predicate accuracy",
            "Acc",
            [m.get("final_accuracy") for m in ms],
            "the last predicate's accuracy on unseen words, mean over games [95% t]",
            higher_is_better=True,
        ),
        Score.rate(
            "LLM judge agreement",
            "Agree",
            agree,
            len(both),
            "the published LLM judge agreed with the code's verdict (reported apart; the code decides)",
        ),
    ]


def fold_repeated(text: str, previous: str | None, *, full: bool, hint: str) -> str:
    """``text`` with the lines it ends with that the previous message ended with too (the instructions the game
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


def transcript(
    data: dict[str, Any], player: str, system: str | None = None, *, full: bool = False
) -> RenderableType:
    """One episode: the system prompt the player read (folded unless ``full``), each turn with the game's answer
    (the instructions it repeats every turn folded too), then the guesses and their verdicts."""
    item = data.get("item") or {}
    rule = item.get("rule") or {}
    parts: list[RenderableType] = (
        [
            Text(f"Run {data['run']}, episode {data['index']}: rule {rule.get('key')}", style="bold"),
            Text(f"{rule.get('text')}  {rule.get('source')}"),
        ]
        if rule
        else [  # a game master writing a rule (write-rules): no hidden rule
            Text(
                f"Run {data['run']}, episode {data['index']}: a rule written for level {item.get('level')}",
                style="bold",
            )
        ]
    )
    hint = f"the whole prompt: wason show {data['run']} --episode {data['index']} --full"
    if system:
        parts.append(Text(f"[system]\n{fold_text(system, full=full, hint=hint)}", style="dim"))
    who = "model" if player == "llm" else player
    previous: str | None = None
    for t in data.get("turns") or []:
        parts.append(Text(f"\n[{who}, turn {t['index'] + 1}]", style="bold cyan"))
        parts.append(Text(t["reply"] if t.get("reply") is not None else _describe(t["action"])))
        if t.get("feedback"):
            said = fold_repeated(t["feedback"], previous, full=full, hint=hint)
            parts.append(Text(f"[game] {said}", style="green"))
            previous = t["feedback"]
    m = data.get("metrics") or {}
    if data.get("status") == "completed":
        parts.append(
            Text(f"\n{m.get('status')} ({m.get('end_reason')}); turns {m.get('turns')}", style="bold")
        )
        for g in m.get("history") or []:
            verdict = g.get("verdict") or {}
            line = f"guess at turn {g['turn']}: {g['text'][:200]!r} -> predicate {g.get('predicate')!r}"
            if verdict.get("rejection"):
                line += f" rejected: {verdict['rejection']}"
            elif verdict:
                line += (
                    f" accuracy {verdict.get('accuracy', 0):.4f} on {verdict.get('heldout')} held-out words"
                )
            if g.get("llm") is not None:
                line += f"; LLM judge {g['llm'].get('verdict')}"
            parts.append(Text(line))
        if m.get("quiz_accuracy") is not None:
            parts.append(Text(f"quiz accuracy: {m['quiz_accuracy']:.2f}"))
    else:
        parts.append(Text(f"\nstatus: {data.get('status')} {data.get('error') or ''}", style="bold red"))
    return Group(*parts)


def _describe(action: dict[str, Any]) -> str:
    kind = action.get("type")
    if kind == "More":
        return f"more {action.get('n')}"
    if kind == "Guess":
        return f"guess: {action.get('text')} {action.get('predicate') or ''}".strip()
    if kind == "PredicateAnswer":
        return f"predicate: {action.get('source')}"
    if kind == "QuizAnswer":
        return "quiz: " + ", ".join(
            "?" if v is None else ("yes" if v else "no") for v in action.get("labels", [])
        )
    return json.dumps(action)
