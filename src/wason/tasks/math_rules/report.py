"""Math-sequence results, as data the shared renderers draw: wins with 95% Wilson intervals, each judge beside
the code's verdict, turns and sequences seen, per run (a model's run, then its solver baseline)."""

from __future__ import annotations

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
from wason.core.reporting import said_text
from wason.core.results import (
    Mean,
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
from wason.core.tally import WIN_LEGEND, MeanScore, Tally, judged_scores
from wason.metrics.rates import mean_present

SOLVER_LEGEND = (
    "version-space elimination over a grammar wider than any level's (docs/math.md): it won 1000 of 1000 "
    "seeded games at each level; fifteen terms pin a rule of that grammar almost always."
)

JUDGE_NAMES = {"expression": "expression (code)", "quiz": "quiz (all right)", "llm": "LLM judge (2 of 3)"}
JUDGE_SHORT = {"expression": "Code", "quiz": "Quiz", "llm": "LLM judge"}
JUDGE_LEGENDS = {
    "expression": "the guess's expression agrees with the rule (decides)",
    "quiz": "every quiz answer right",
    "llm": "the published judge, 2 of 3 votes (reported apart)",
}


class MathNumbers(BaseModel):
    """The numbers of a set of episodes; ``format_errors`` and ``truncated`` replies are counted apart."""

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
    truncated: int = 0
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


def summarize(
    eps: Sequence[EpisodeRow], judges: Sequence[str], seconds: Sequence[float | None] = ()
) -> dict[str, Any]:
    """The numbers of a set of episodes; errored episodes count as losses in ``n`` (and apart)."""
    t = Tally(eps)
    won = t.succeeded
    return {
        "episodes": len(eps),
        "errored": t.errored,
        "unfinished": t.unfinished,
        "wins": t.rate(len(won)),
        "judges": t.judges(judges),
        "turns": t.mean("turns"),
        "turns_to_solution": t.mean("turns", won),
        "sequences_seen": t.mean("sequences_seen"),
        "quiz_accuracy": t.mean("quiz_accuracy"),
        "format_errors": t.total("format_errors"),
        "truncated": t.total("truncated"),
        "guesses": sum(len(m.get("guesses") or []) for m in t.metrics),
        "guesses_without_expression": sum(len(m.get("guesses_without_expression") or []) for m in t.metrics),
        "llm_disagreements": t.total("llm_disagreements"),
        "seconds": mean_present(list(seconds)),
    }


def run_json(store: RunReader, run_id: int) -> MathRunReport:
    """A run's summary and its episodes."""
    run = store.get_run(run_id)
    eps = store.list_episodes(run_id)
    judges = list(run.config.get("judges") or [])
    return MathRunReport.model_validate(
        {
            **run_header(run),
            "protocol": math_protocol(run.config),
            "summary": summarize(eps, judges, [e.seconds for e in eps if e.status == "completed"]),
            "calls": store.call_totals(run_id),
            "episodes": [
                episode_line(
                    e,
                    (
                        "judges",
                        "final_guess",
                        "final_expression",
                        "turns",
                        "end_reason",
                    ),
                    level=(e.item or {}).get("level"),
                    rule=((e.item or {}).get("rule") or {}).get("text"),
                )
                for e in eps
            ],
        }
    )


GAMES = (
    ("wins", col.rate("wins", "Wins", WIN_LEGEND)),
    ("turns", col.mean("turns", "Turns", "turns played", digits=1)),
    ("turns_to_solution", col.mean("to_solve", "To solve", "turns of the games won", digits=1)),
    ("sequences_seen", col.mean("seqs", "Seqs", "sequences seen", digits=1)),
    ("seconds", col.mean("seconds", "Seconds", "per game", digits=2)),
)
"""The columns of the games table, after the player, each beside the field of :class:`MathNumbers` it shows."""


def results(store: RunReader, run_ids: Sequence[int]) -> Results:
    """A row per run: wins (decided by code) and what they took; each judge beside the code; what went wrong."""
    named = named_runs(store, run_ids)
    runs = [run_json(store, run.id) for _, run in named]
    first = runs[0]
    games = Table(
        name="games",
        title=f"Math sequences {first.config.get('level')}: games won and what they took",
        columns=[col.PLAYER, *(c for _, c in GAMES)],
        rows=[
            {"player": name, "run": data.run, **cells(data.summary, GAMES, means=True)}
            for (name, _), data in zip(named, runs, strict=True)
        ],
        legend="Means over finished games.",
    )
    judges = Table(
        name="judges",
        title="Judges of the last guess, beside the code's verdict (the expression decides)",
        columns=[
            col.PLAYER,
            *(col.rate(j, JUDGE_SHORT[j], JUDGE_LEGENDS[j]) for j in ("expression", "quiz", "llm")),
            col.mean("quiz_acc", "Quiz acc.", "the share of quiz answers right", digits=2),
        ],
        rows=[
            {
                "player": name,
                "run": data.run,
                **{j: data.summary.judges.get(j) for j in ("expression", "quiz", "llm")},
                "quiz_acc": Mean(value=data.summary.quiz_accuracy),
            }
            for (name, _), data in zip(named, runs, strict=True)
        ],
    )
    notes = []
    for data in runs:
        s = data.summary
        if s.errored or s.format_errors or s.truncated:
            notes.append(
                f"run {data.run}: {s.errored} games errored; {s.format_errors} replies were neither More nor a "
                f"guess (format errors), {s.truncated} were cut off at the token limit (--max-tokens; counted "
                "apart); each cost a turn"
            )
    s = first.summary
    if s.guesses_without_expression:
        notes.append(
            f"{s.guesses_without_expression} of {s.guesses} guesses had no lambda v, i: ... expression"
        )
    if s.llm_disagreements:
        notes.append(f"the LLM judge disagreed with the code on {s.llm_disagreements} guesses")
    notes += calls_notes(first.calls)
    return Results(
        title=results_title(named[0][1]), protocol=first.protocol, tables=[games, judges], notes=notes
    )


def scores(store: RunReader, run_id: int) -> list[Score]:
    """The comparison's columns in the paper's Table 2 order."""
    t = Tally(store.list_episodes(run_id))
    return judged_scores(
        t,
        len(t.succeeded),
        (
            MeanScore("Turns", "Turns", "turns", "turns played, mean over games [95% t]"),
            MeanScore("Sequences seen", "Seqs", "sequences_seen", "sequences seen, mean over games [95% t]"),
        ),
        "expression",
        "the published LLM judge agreed with the code's verdict on the last guess (reported apart)",
    )


def messages(data: Mapping[str, Any], run: RunRow, system: str | None = None) -> Transcript:
    """One episode: the system prompt, the sequences, each reply and the game's answer, the verdicts."""
    item = data.get("item") or {}
    rule = item.get("rule") or {}
    messages: list[Message] = []
    if system:
        messages.append(Message(role="system", name="system", text=system))
    messages.append(Message(role="game", name="sequences", text=str(item.get("examples"))))
    messages += turn_messages(data, run, MOVES)
    m = data.get("metrics") or {}
    if data["status"] == "completed":
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
                line += f"; LLM judge {yes_no(g['llm'].get('verdict'))} (votes {votes_text(g['llm'].get('votes'))})"
            messages.append(Message(role="note", name="judges", text=line))
        verdicts = {
            JUDGE_NAMES.get(name, name): "right" if ok else "wrong"
            for name, ok in (m.get("judges") or {}).items()
        }
        messages.append(
            Message(
                role="outcome",
                name="ended",
                text=f"end: {m.get('end_reason')}; turns {m.get('turns')}",
                annotations=verdicts,
            )
        )
    else:
        messages.append(episode_outcome(data))
    title = (
        f"Run {data['run']}, episode {data['index']}: {item.get('level')} rule {rule.get('text')} "
        f"({rule.get('expression')})"
    )
    return Transcript(title=title, messages=messages, success=data.get("success"))


MOVES: Moves = {
    "More": lambda a: f"More ({a.get('n') or 'per turn'})",
    "Guess": "My Guess is: {text}",
    "ExpressionAnswer": "expression: {source}",
    "QuizAnswer": "quiz: {values}",
    "GiveUp": "give up",
}
"""How a transcript says a move that wrote no text."""


def inspect_sample(item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """An Inspect sample's target (the rule's text and expression) and answer (the last guess, its expression)."""
    hidden = said_text(item.get("rule"), "text", "expression") or ""
    return hidden, said_text(metrics, "final_guess", "final_expression")
