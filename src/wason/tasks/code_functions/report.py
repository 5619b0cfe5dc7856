"""Code Functions Picnic results, as data the shared renderers draw: win rates with Wilson intervals per level and
per judge, turns, examples seen (positive and negative) and time, the model's run beside its solver baseline."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from statistics import mean
from typing import Any

from pydantic import BaseModel

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
    yes_no,
)

SOLVER_LEGEND = (
    "version-space elimination over the grammar (docs/code-functions.md), with the moves of the run's protocol: "
    "guessing every turn (as-run) it won 60 of 60 L1, 136 of 200 L2 and 84 of 200 L3 generated games and 73 of "
    "the 156 published functions; asking for more words (api) 60, 199, 197 and 78 (50%; many of them its grammar "
    "cannot say)."
)
"""What the family's solver is and what it was measured to win: the legend of its row under every table that
shows one (:func:`wason.core.labels.solver_legend`)."""

JUDGE_NAMES = {"predicate": "Code *", "quiz": "Quiz", "llm": "LLM judge"}
JUDGE_LEGENDS = {
    "predicate": "the code's verdict (the predicate on every unseen word) decides won/lost",
    "quiz": "all held-out words labelled right",
    "llm": "the published judge, 2 of 3 votes (reported apart)",
}


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


def run_json(store: RunReader, run_id: int) -> CodeFunctionsReport:
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
                episode_line(
                    e,
                    (
                        "turns",
                        "examples_seen",
                        "final_guess",
                        "final_predicate",
                        "final_accuracy",
                        "judges",
                    ),
                    rule=(e.item.get("rule") or {}).get("key", "?"),
                    level=(e.item.get("rule") or {}).get("level"),
                    game_status=(e.metrics or {}).get("status"),
                )
                for e in eps
            ],
        }
    )


def _writes_rules(store: RunReader, run_id: int) -> bool:
    return store.get_run(run_id).config.get("split") == "write-rules"


def results(store: RunReader, run_ids: Sequence[int]) -> Results:
    """The judges' verdicts per run and level (k/n with 95% Wilson intervals), then what the games took; a game
    master's run (write-rules) shows the rules it wrote."""
    if _writes_rules(store, run_ids[0]):
        from wason.tasks.code_functions.writer import writer_results

        return writer_results(store, run_ids[0])
    named = named_runs(store, run_ids)
    reports = [run_json(store, run.id) for _, run in named]
    first = reports[0]
    shown = [
        j for j in ("predicate", "quiz", "llm") if any(j in (r.config.get("judges") or []) for r in reports)
    ]
    verdicts: list[dict[str, Cell]] = []
    took: list[dict[str, Cell]] = []
    for (name, _), report in zip(named, reports, strict=True):
        rows = [("all", report.summary)] + (list(report.levels.items()) if len(report.levels) > 1 else [])
        for level, s in rows:
            level = level if level != "all" or len(report.levels) != 1 else next(iter(report.levels))
            verdicts.append(
                {"player": name, "run": report.run, "level": level, **{j: s.judges.get(j) for j in shown}}
            )
            took.append(
                {
                    "player": name,
                    "run": report.run,
                    "level": level,
                    "turns": s.turns,
                    "won_in": s.turns_to_win,
                    "pos": s.positives_seen,
                    "neg": s.negatives_seen,
                    "quiz": s.quiz_accuracy,
                    "acc": s.final_accuracy,
                    "seconds": s.seconds,
                    "format": s.format_errors,
                    "cut": s.truncated,
                }
            )
    player_column, level_column = Column(key="player", name="Player"), Column(key="level", name="Level")
    tables = [
        Table(
            name="verdicts",
            title="Code Functions Picnic: the judges' verdicts per level",
            columns=[
                player_column,
                level_column,
                *(Column(key=j, name=JUDGE_NAMES[j], kind="rate", legend=JUDGE_LEGENDS[j]) for j in shown),
            ],
            rows=verdicts,
        ),
        Table(
            name="took",
            title="What the games took (means over finished games)",
            columns=[
                player_column,
                level_column,
                Column(key="turns", name="Turns", kind="mean", digits=1),
                Column(key="won_in", name="Won in", kind="mean", digits=1, legend="turns of the games won"),
                Column(key="pos", name="Pos.", kind="mean", digits=1, legend="positive examples seen"),
                Column(key="neg", name="Neg.", kind="mean", digits=1, legend="negative examples seen"),
                Column(key="quiz", name="Quiz", kind="mean", digits=2, legend="quiz accuracy"),
                Column(
                    key="acc",
                    name="Acc.",
                    kind="mean",
                    digits=3,
                    legend="the last predicate's accuracy on unseen words",
                ),
                Column(key="seconds", name="Seconds", kind="mean", digits=1),
                Column(key="format", name="Format", kind="count", legend="unreadable replies"),
                Column(
                    key="cut",
                    name="Cut",
                    kind="count",
                    legend="replies cut off at the token limit (--max-tokens; each costs what a format error costs)",
                ),
            ],
            rows=took,
        ),
    ]
    notes = []
    if "llm" not in (first.config.get("judges") or ["predicate"]):
        notes.append("the LLM judge was off for this run")
    if first.summary.errored:
        notes.append(f"{first.summary.errored} episodes errored (counted as losses)")
    if first.calls.calls or first.calls.cached_calls:
        notes.append(calls_note(first.calls.model_dump()))
    return Results(title=results_title(named[0][1]), protocol=first.protocol, tables=tables, notes=notes)


def scores(store: RunReader, run_id: int) -> list[Score]:
    """The run's columns of a comparison table, in the paper's Table 2 order: the win rate (the code's
    verdict), what the games took, the last predicate's accuracy, and how often the LLM judge agreed with the
    code where it ran (reported apart). A game master's run (write-rules): the share of its rules accepted."""
    if _writes_rules(store, run_id):
        eps = [e for e in store.list_episodes(run_id) if e.status in ("completed", "errored")]
        accepted = sum(bool((e.metrics or {}).get("accepted")) for e in eps)
        return [Score.rate("Accepted", "Accepted", accepted, len(eps), "rules written that were accepted")]
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
        Score.mean_of(
            "Turns",
            "Turns",
            [m.get("turns") for m in ms],
            "turns played, mean over games [95% t]",
            higher_is_better=False,
        ),
        Score.mean_of(
            "Examples seen",
            "Examples",
            [m.get("examples_seen") for m in ms],
            "positive and negative examples seen, mean over games [95% t]",
            higher_is_better=False,
        ),
        Score.mean_of(
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


def messages(data: Mapping[str, Any], run: RunRow, system: str | None = None) -> Transcript:
    """One episode: the system prompt the player read, each turn with the game's answer, then the guesses and
    their verdicts."""
    item = data.get("item") or {}
    rule = item.get("rule") or {}
    if rule:
        head = f"Run {data['run']}, episode {data['index']}: rule {rule.get('key')}"
        title = f"{head}\n{rule.get('text')}  {rule.get('source')}"
    else:  # a game master writing a rule (write-rules): no hidden rule
        title = f"Run {data['run']}, episode {data['index']}: a rule written for level {item.get('level')}"
    out: list[Message] = [Message(role="system", name="system", text=system)] if system else []
    for t in data.get("turns") or []:
        text = t["reply"] if t.get("reply") is not None else _describe(t["action"])
        out.append(player_message(run, t["index"], text))
        if t.get("feedback"):
            out.append(Message(role="game", name="game", text=t["feedback"], turn=t["index"]))
    m = data.get("metrics") or {}
    if data.get("status") != "completed":
        out.append(episode_outcome(data))
        return Transcript(title=title, messages=out, success=data.get("success"))
    for g in m.get("history") or []:
        verdict = g.get("verdict") or {}
        line = f"guess at turn {g['turn']}: {g['text'][:200]!r} -> predicate {g.get('predicate')!r}"
        if verdict.get("rejection"):
            line += f" rejected: {verdict['rejection']}"
        elif verdict:
            line += f" accuracy {verdict.get('accuracy', 0):.4f} on {verdict.get('heldout')} held-out words"
        if g.get("llm") is not None:
            line += f"; LLM judge {yes_no(g['llm'].get('verdict'))}"
        out.append(Message(role="note", name="judges", text=line))
    quiz = {"quiz accuracy": f"{m['quiz_accuracy']:.2f}"} if m.get("quiz_accuracy") is not None else {}
    out.append(
        Message(
            role="outcome",
            name="ended",
            text=f"{m.get('status')} ({m.get('end_reason')}); turns {m.get('turns')}",
            annotations=quiz,
        )
    )
    return Transcript(title=title, messages=out, success=data.get("success"))


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


def inspect_sample(item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """An episode as an Inspect sample (``wason export --format inspect``): its target, the hidden rule's text,
    and its answer, the player's last guess with the predicate it wrote (None when it made no guess)."""
    m = metrics or {}
    said = [str(m[k]) for k in ("final_guess", "final_predicate") if m.get(k)]
    return str((item.get("rule") or {}).get("text") or ""), "\n".join(said) or None
