"""Code Functions Picnic results, as data the shared renderers draw: win rates with Wilson intervals per level and
per judge, turns, examples seen (positive and negative) and time, the model's run beside its solver baseline."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

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
    Results,
    Table,
    Transcript,
    calls_notes,
    episode_outcome,
    named_runs,
    turn_messages,
    yes_no,
)
from wason.core.tally import MeanScore, Tally, group_by, judged_scores
from wason.metrics.rates import mean_present

SOLVER_LEGEND = (
    "version-space elimination over the grammar (docs/code-functions.md), with the moves of the run's protocol: "
    "guessing every turn (as-run) it won 60 of 60 L1, 136 of 200 L2 and 84 of 200 L3 generated games and 73 of "
    "the 156 published functions; asking for more words (game-api) 60, 199, 197 and 78 (50%; many of them its grammar "
    "cannot say)."
)

JUDGE_NAMES = {"predicate": "Code *", "quiz": "Quiz", "llm": "LLM judge"}
JUDGE_LEGENDS = {
    "predicate": "the code's verdict (the predicate on every unseen word) decides won/lost",
    "quiz": "all held-out words labelled right",
    "llm": "the published judge, 2 of 3 votes (reported apart)",
}


class Numbers(BaseModel):
    """The numbers of a set of episodes; ``format_errors`` and ``truncated`` replies are counted apart."""

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


def numbers(eps: Sequence[EpisodeRow], judges: Sequence[str]) -> Numbers:
    """Win rate (errored episodes count as losses), each judge's rate, means of turns and examples."""
    t = Tally(eps)
    won = t.won
    return Numbers(
        episodes=len(eps),
        errored=t.errored,
        won=t.rate(len(won)),
        judges=t.judges(judges),
        turns=t.mean("turns"),
        turns_to_win=t.mean("turns", won),
        examples_seen=t.mean("examples_seen"),
        positives_seen=t.mean("positives_seen"),
        negatives_seen=t.mean("negatives_seen"),
        quiz_accuracy=t.mean("quiz_accuracy"),
        final_accuracy=t.mean("final_accuracy"),
        # from the episode's start to its end: the first model call counts too
        seconds=mean_present([e.seconds for e in t.done]),
        format_errors=t.total("format_errors"),
        truncated=t.total("truncated"),
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


def run_json(store: RunReader, run_id: int) -> CodeFunctionsReport:
    run = store.get_run(run_id)
    eps = store.list_episodes(run_id)
    judges = list(run.config.get("judges") or ["predicate"])
    by_level = group_by(eps, lambda e: str((e.item.get("rule") or {}).get("level")))
    return CodeFunctionsReport.model_validate(
        {
            **run_header(run),
            "protocol": protocol_text(run.config),
            "summary": numbers(eps, judges).model_dump(),
            "levels": {k: numbers(v, judges).model_dump() for k, v in sorted(by_level.items())},
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


KEYS = (col.PLAYER, col.LEVEL)
TOOK = (
    ("turns", col.mean("turns", "Turns", digits=1)),
    ("turns_to_win", col.mean("won_in", "Won in", "turns of the games won", digits=1)),
    ("positives_seen", col.mean("pos", "Pos.", "positive examples seen", digits=1)),
    ("negatives_seen", col.mean("neg", "Neg.", "negative examples seen", digits=1)),
    ("quiz_accuracy", col.mean("quiz", "Quiz", "quiz accuracy", digits=2)),
    ("final_accuracy", col.mean("acc", "Acc.", "the last predicate's accuracy on unseen words", digits=3)),
    ("seconds", col.mean("seconds", "Seconds", digits=1)),
    ("format_errors", col.count("format", "Format", "unreadable replies")),
    ("truncated", col.CUT),
)
"""The columns of what the games took, each beside the field of :class:`Numbers` it shows."""


def _writes_rules(store: RunReader, run_id: int) -> bool:
    return store.get_run(run_id).config.get("split") == "write-rules"


def results(store: RunReader, run_ids: Sequence[int]) -> Results:
    """The judges' verdicts per run and level, then what the games took; a game master's run, its rules."""
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
            key: dict[str, Cell] = {"player": name, "run": report.run, "level": level}
            verdicts.append(key | {j: s.judges.get(j) for j in shown})
            took.append(key | cells(s, TOOK))
    tables = [
        Table(
            name="verdicts",
            title="Code Functions Picnic: the judges' verdicts per level",
            columns=[*KEYS, *(col.rate(j, JUDGE_NAMES[j], JUDGE_LEGENDS[j]) for j in shown)],
            rows=verdicts,
        ),
        fields_table("took", "What the games took (means over finished games)", KEYS, TOOK, took),
    ]
    notes = []
    if "llm" not in (first.config.get("judges") or ["predicate"]):
        notes.append("the LLM judge was off for this run")
    if first.summary.errored:
        notes.append(f"{first.summary.errored} episodes errored (counted as losses)")
    notes += calls_notes(first.calls)
    return Results(title=results_title(named[0][1]), protocol=first.protocol, tables=tables, notes=notes)


def scores(store: RunReader, run_id: int) -> list[Score]:
    """The comparison's columns in the paper's Table 2 order (a game master's run: its rules accepted)."""
    if _writes_rules(store, run_id):
        eps = [e for e in store.list_episodes(run_id) if e.status in ("completed", "errored")]
        accepted = sum(bool((e.metrics or {}).get("accepted")) for e in eps)
        return [Score.rate("Accepted", "Accepted", accepted, len(eps), "rules written that were accepted")]
    t = Tally(store.list_episodes(run_id))
    return judged_scores(
        t,
        len(t.won),
        SCORED,
        "predicate",
        "the published LLM judge agreed with the code's verdict (reported apart; the code decides)",
    )


SCORED = (
    MeanScore("Turns", "Turns", "turns", "turns played, mean over games [95% t]"),
    MeanScore(
        "Examples seen",
        "Examples",
        "examples_seen",
        "positive and negative examples seen, mean over games [95% t]",
    ),
    MeanScore(
        "Predicate accuracy",
        "Acc",
        "final_accuracy",
        "the last predicate's accuracy on unseen words, mean over games [95% t]",
        higher_is_better=True,
    ),
)
"""The means of a comparison's columns, between the win rate and the judges' agreement."""


def messages(data: Mapping[str, Any], run: RunRow, system: str | None = None) -> Transcript:
    """One episode: the system prompt, each turn with the game's answer, the guesses and their verdicts."""
    item = data.get("item") or {}
    rule = item.get("rule") or {}
    if rule:
        head = f"Run {data['run']}, episode {data['index']}: rule {rule.get('key')}"
        title = f"{head}\n{rule.get('text')}  {rule.get('source')}"
    else:  # a game master writing a rule (write-rules): no hidden rule
        title = f"Run {data['run']}, episode {data['index']}: a rule written for level {item.get('level')}"
    out: list[Message] = [Message(role="system", name="system", text=system)] if system else []
    out += turn_messages(data, run, _describe)
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
    """An Inspect sample's target (the rule's text) and answer (the last guess and its predicate)."""
    return rule_text(item), said_text(metrics, "final_guess", "final_predicate")
