"""Dynamic Picnic reports: win rates per level with Wilson intervals (rules the validation rejected counted
apart, never as losses), turns, examples seen, the judges side by side; one episode's transcript."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from wason.core.family import RunReader
from wason.core.records import CallTotals, Rate, RunReport, Score, calls_note, fold_text, run_header
from wason.core.views import legend as _legend
from wason.core.views import narrow_table as _table


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


def picnic_json(store: RunReader, run_id: int) -> PicnicRunReport:
    run = store.get_run(run_id)
    everything, rejected, errored, pending = _played(store, run_id)
    played: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for m in everything:
        played[str(m.get("level"))].append(m)
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


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def picnic_tables(store: RunReader, run_ids: list[int]) -> list[RenderableType]:
    """Per run: how its games ended per level (win rate and the judges, with 95% Wilson intervals), then what
    they took; each fits 80 columns, its abbreviations in a legend under it."""
    out: list[RenderableType] = []
    for run_id in run_ids:
        report = picnic_json(store, run_id)
        who = report.model if report.player == "llm" and report.model else report.player
        if report.config.get("baseline_for"):
            who += " (baseline)"
        ended = _table(f"Dynamic Picnic, run {run_id}: {who}")
        for column in ("level", "games", "won [95% CI]", "LLM judge", "code check", "gave up", "no turns"):
            ended.add_column(column, justify="left" if column == "level" else "right", no_wrap=True)
        took = _table(f"Run {run_id}: what the games took (means over games)")
        for column in ("level", "turns", "pos.", "neg.", "asked", "seconds", "format", "cut"):
            took.add_column(column, justify="left" if column == "level" else "right", no_wrap=True)
        for row in report.levels:
            ended.add_row(
                row["level"],
                str(row["games"]),
                _cell(Rate.model_validate(row["wins"])),
                _cell(Rate.model_validate(row["llm_judge"]) if row["llm_judge"] else None),
                _cell(Rate.model_validate(row["code_check"]) if row["code_check"] else None),
                str(row["gave_up"]),
                str(row["out_of_turns"]),
            )
            took.add_row(
                row["level"],
                _num(row["turns"]),
                _num(row["positives_seen"]),
                _num(row["negatives_seen"]),
                _num(row["questions"]),
                _num(row["seconds"]),
                str(row["format_errors"]),
                str(row["truncated"]),
            )
        out += [
            ended,
            _legend(
                "won: games won, k/n [95% Wilson interval]; LLM judge, code check: the last guess accepted, of "
                "the games each judged; no turns: games that ran out of turns."
            ),
            took,
            _legend(
                "pos., neg.: examples seen that can and cannot be brought; asked: questions asked; format: "
                "replies the game master could not read; cut: replies cut off at the token limit (--max-tokens; "
                "each costs what a format error costs)."
            ),
        ]
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


def _mean_score(name: str, short: str, values: Sequence[float], legend: str) -> Score:
    return Score.mean_of(name, short, values, legend, higher_is_better=False)


def picnic_scores(store: RunReader, run_id: int) -> list[Score]:
    """The run's columns of a comparison table, in the paper's Table 2 order: the win rate over the games
    played (rejected rules left out, errored games counted as losses), then what they took, and how often the
    LLM judge and the code check agreed where both judged (reported apart)."""
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
        _mean_score(
            "Turns", "Turns", [float(m["turns"]) for m in played], "turns played, mean over games [95% t]"
        ),
        _mean_score(
            "Questions asked",
            "Asked",
            [float(m["questions"]) for m in played],
            "'Can I bring X?' questions, mean over games [95% t]",
        ),
        _mean_score(
            "Examples seen",
            "Examples",
            [float(m["positives_seen"]) + float(m["negatives_seen"]) for m in played],
            "examples seen, mean over games [95% t]",
        ),
        Score.rate(
            "Judges agree",
            "Agree",
            agree,
            len(both),
            "the LLM judge and the code check agreed on the last guess, of the games both judged",
        ),
    ]


def picnic_transcript(data: dict[str, Any], *, full: bool = False) -> RenderableType:
    """One episode: the published prompt the player read each turn (its first, folded unless ``full``), the
    conversation as the player saw it, then the result and the judges."""
    item = data.get("item") or {}
    rule = item.get("rule") or {}
    m = data.get("metrics") or {}
    text = rule.get("text") or m.get("rule_text")
    kind = m.get("kind") or rule.get("kind")
    parts: list[RenderableType] = [
        Text(f"Run {data['run']}, episode {data['index']}: {text} ({kind})", style="bold")
    ]
    turns = data.get("turns") or []
    if turns and turns[0].get("feedback"):
        hint = f"the whole prompt: wason show {data['run']} --episode {data['index']} --full"
        parts.append(
            Text("[the published prompt, sent every turn with the conversation so far]", style="dim")
        )
        parts.append(Text(fold_text(str(turns[0]["feedback"]), full=full, hint=hint), style="dim"))
    history: list[Any] = []
    for turn in turns:
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
