"""List-rules (Numberwang) reports: success per rule for every judge that ran, with intervals across trials."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, SerializerFunctionWrapHandler, model_serializer

from wason.core import columns as col
from wason.core.family import RunReader
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
    series_names,
)
from wason.core.reporting import rule_text, said_text
from wason.core.results import (
    Cell,
    Column,
    Message,
    Moves,
    Results,
    Table,
    Transcript,
    end_reason_text,
    run_notes,
    turn_messages,
    yes_no,
)
from wason.core.tally import MeanScore, Tally, group_by
from wason.tasks.lists.game import PRIMARY_ORDER
from wason.tasks.lists.protocol import render_initial_prompt

SOLVER_LEGEND = (
    "the list scientist of docs/solver.md (List rules), a strong reference and not a ceiling: it states 10 "
    "of the 10 pilot rules and 55 of the 59 published candidates, and 3 of 12 rules written by others that it "
    "had never seen (measured once)."
)


class ListsNumbers(BaseModel):
    """The numbers of a set of episodes (a rule's trials, or a whole run); errored ones count as failures."""

    episodes: int
    errored: int
    unfinished: int
    primary_judge: str | None
    success: Rate | None
    judges: dict[str, Rate]
    quiz_accuracy: float | None
    final_hypotheses: int
    rounds: int | float | None
    rounds_to_solution: int | float | None
    lists_tested: int | float | None
    repeats: int | float | None
    format_errors: int
    truncated: int = 0
    non_integer_lists: int
    llm_labels: int
    label_disagreements: int


class ListsRuleRow(ListsNumbers):
    """One rule's trials."""

    rule: str
    text: str

    @model_serializer(mode="wrap")
    def _rule_first(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        return {"rule": data.pop("rule"), "text": data.pop("text"), **data}


class ListsEpisodeRow(BaseModel):
    """One episode: its rule and trial, each judge's verdict, what the player said, how it ended."""

    index: int
    rule: str
    trial: int | None
    seed: int | None
    status: str
    success: bool | None
    judges: dict[str, bool | None] | None
    final_hypothesis: str | None
    predicate: str | None
    quiz_accuracy: float | None
    rounds: int | None
    lists_tested: int | None
    repeats: int | None
    end_reason: str | None
    error: str | None


class ListsRunReport(RunReport):
    """``wason show RUN --json`` for a list-rules run."""

    protocol: str
    summary: ListsNumbers
    calls: CallTotals
    rules: list[ListsRuleRow]
    episodes: list[ListsEpisodeRow]
    baselines: list[ListsRunReport] | None = None


JUDGE_NAMES = {"predicate": "predicate (code)", "quiz": "quiz (all right)", "llm": "LLM judge (2 of 3)"}


def lists_protocol(config: dict[str, Any]) -> str:
    """Which protocol a run used, stated in every report."""
    parts = ["Numberwang pilot prompt and feedback"]
    if config.get("echo"):
        parts.append("tested lists echoed")
    parts.append(f"up to {config.get('max_rounds', 19)} rounds of {config.get('tests_per_round', 5)} lists")
    labeller = config.get("labeller", "code")
    parts.append("labels by code" if labeller == "code" else "labels by an LLM (pilot's analysis prompt)")
    if config.get("system_as_user"):
        parts.append("first message as user")
    return "; ".join(parts)


def summarize_episodes(
    eps: Sequence[EpisodeRow], judges: Sequence[str], primary: str | None
) -> dict[str, Any]:
    """The numbers of a set of episodes; the rates are over the episodes played (errored ones as failures)."""
    t = Tally(eps)
    metrics = t.metrics
    per_judge = t.judges(judges)
    solved = t.where(lambda m: primary and (m.get("judges") or {}).get(primary))
    return {
        "episodes": len(eps),
        "errored": t.errored,
        "unfinished": t.unfinished,
        "primary_judge": primary,
        "success": per_judge.get(primary) if primary else None,
        "judges": per_judge,
        # (the model orders the fields)
        **{k: t.mean(k) for k in ("quiz_accuracy", "rounds", "lists_tested", "repeats")},
        **{k: t.total(k) for k in ("format_errors", "truncated", "non_integer_lists", "llm_labels")},
        "final_hypotheses": sum(m.get("final_hypothesis") is not None for m in metrics),
        "rounds_to_solution": t.mean("rounds_to_solution", solved),
        "label_disagreements": sum(len(m.get("label_disagreements") or []) for m in metrics),
    }


def _run_judges(config: dict[str, Any]) -> tuple[list[str], str | None]:
    judges = list(config.get("judges") or [])
    return judges, next((j for j in PRIMARY_ORDER if j in judges), None)


def run_json(store: RunReader, run_id: int) -> ListsRunReport:
    """A run's summary, its rows per rule and its episodes."""
    run = store.get_run(run_id)
    eps = store.list_episodes(run_id)
    judges, primary = _run_judges(run.config)
    rules = [
        {"rule": key, "text": group[0].item["rule"]["text"], **summarize_episodes(group, judges, primary)}
        for key, group in group_by(eps, lambda e: str(e.item["rule"]["key"])).items()
    ]
    return ListsRunReport.model_validate(
        {
            **run_header(run),
            "protocol": lists_protocol(run.config),
            "summary": summarize_episodes(eps, judges, primary),
            "calls": store.call_totals(run_id),
            "rules": rules,
            "episodes": [
                episode_line(
                    e,
                    (
                        "judges",
                        "final_hypothesis",
                        "predicate",
                        "quiz_accuracy",
                        "rounds",
                        "lists_tested",
                        "repeats",
                        "end_reason",
                    ),
                    rule=e.item["rule"]["key"],
                    trial=e.item.get("trial"),
                    seed=e.item.get("seed"),
                )
                for e in eps
            ],
        }
    )


SHORT_JUDGES = {"predicate": "Pred.", "quiz": "Quiz", "llm": "LLM"}

JUDGE_LEGENDS = {
    "predicate": "the stated Python predicate is the rule (code, on probe lists)",
    "quiz": "every held-out list labelled right",
    "llm": "the pilot's LLM judge (2 of 3 votes)",
}

LEGEND = "* the primary judge, which decides success; errored episodes counted as failures"


def _judge_columns(judges: Sequence[str], primary: str | None) -> list[Column]:
    return [col.rate(j, SHORT_JUDGES[j] + (" *" if j == primary else ""), JUDGE_LEGENDS[j]) for j in judges]


SUMMARY = (
    col.mean("quiz_accuracy", "Q.acc", "quiz accuracy", digits=2),
    col.mean("rounds", "Rnds", "rounds", digits=1, higher_is_better=False),
    col.mean(
        "to_solve", "ToSolve", "rounds to solve, over solved episodes", digits=1, higher_is_better=False
    ),
    col.mean("lists", "Lists", "lists tested", digits=1, higher_is_better=False),
    col.mean("repeats", "Rep.", "repeats", digits=1, higher_is_better=False),
    col.count("format_errors", "Fmt", "format errors (unreadable replies)", higher_is_better=False),
    col.count(
        "truncated",
        "Trunc.",
        "replies cut off at the token limit (each cost a round)",
        higher_is_better=False,
    ),
    col.count("errored", "Err.", "errored episodes", higher_is_better=False),
)
"""The summary's columns after the player and the judges."""

_SUMMARY_FIELDS = {"to_solve": "rounds_to_solution", "lists": "lists_tested"}
"""The :class:`ListsNumbers` field of a summary column whose key is not the field's name."""


def results(store: RunReader, run_ids: Sequence[int]) -> Results:
    """A row per rule of the first run (its judges' successes across trials), then a row per run."""
    reports = [run_json(store, r) for r in run_ids]
    runs = [store.get_run(r) for r in run_ids]
    first = reports[0]
    judges, primary = _run_judges(first.config)
    trials = int(first.config.get("trials") or 1)
    per_rule_columns = [
        col.text("rule", "Rule"),
        *_judge_columns(judges, primary),
        col.mean("quiz_accuracy", "Q.acc", "mean share of quiz lists labelled right", digits=2),
        col.mean("rounds", "Rnds", "mean rounds of tests", digits=1, higher_is_better=False),
    ]
    per_rule = Table(
        name="rules",
        title=f"Per rule, {trials} trial(s) per rule",
        columns=per_rule_columns,
        rows=[
            {
                "rule": f"{row.rule}: {row.text}",
                **{j: row.judges.get(j) for j in judges},
                "quiz_accuracy": row.quiz_accuracy,
                "rounds": row.rounds,
            }
            for row in first.rules
        ],
        legend=LEGEND,
    )
    all_judges = [j for j in ("predicate", "quiz", "llm") if any(j in r.summary.judges for r in reports)]
    summary_columns = [col.text("label", "Player"), *_judge_columns(all_judges, primary), *SUMMARY]
    rows: list[dict[str, Cell]] = []
    for name, report in zip(series_names(runs), reports, strict=True):
        s = report.summary
        rows.append(
            {
                "label": name,
                "run": report.run,
                **{j: s.judges.get(j) for j in all_judges},
                **{c.key: getattr(s, _SUMMARY_FIELDS.get(c.key, c.key)) for c in SUMMARY},
            }
        )
    summary = Table(
        name="summary",
        title="Summary (all episodes of each run)",
        columns=summary_columns,
        rows=rows,
        legend="rounds, lists and repeats are means per episode; " + LEGEND,
    )
    s = first.summary
    notes = []
    if s.non_integer_lists:
        notes.append(f"{s.non_integer_lists} non-integer lists tested (labelled No)")
    if s.llm_labels:
        notes.append(
            f"LLM labeller: {s.label_disagreements} of {s.llm_labels} labels disagreed with the code "
            "(the player saw the LLM's)"
        )
    return Results(
        title=results_title(runs[0]),
        protocol=first.protocol,
        tables=[per_rule, summary],
        notes=notes + run_notes(store, run_ids[0]),
    )


def scores(store: RunReader, run_id: int) -> list[Score]:
    """A run's columns in its report's order: each judge's success rate, then the means."""
    t = Tally(store.list_episodes(run_id))
    judges, primary = _run_judges(store.get_run(run_id).config)
    solved = t.where(lambda m: primary and (m.get("judges") or {}).get(primary))
    rates = [
        Score.rate(
            JUDGE_NAMES[j],
            SHORT_JUDGES[j].rstrip("."),
            t.judge(j).k,
            t.played,
            SCORE_LEGENDS[j] + (" (decides success)" if j == primary else ""),
        )
        for j in ("predicate", "quiz", "llm")
        if j in judges
    ]
    to_solve = Score.mean_of(
        "Rounds to solve",
        "ToSolve",
        t.values("rounds_to_solution", solved),
        "rounds of tests in the episodes solved [95% t]",
        higher_is_better=False,
    )
    return [*rates, SCORED[0].of(t), SCORED[1].of(t), to_solve, *(m.of(t) for m in SCORED[2:])]


SCORE_LEGENDS = {
    "predicate": "the stated predicate is the rule (code, on probe lists)",
    "quiz": "every held-out quiz list labelled right",
    "llm": "the pilot's LLM judge accepts the final hypothesis (2 of 3 votes)",
}
SCORED = (
    MeanScore(
        "Quiz accuracy",
        "QuizAcc",
        "quiz_accuracy",
        "share of quiz lists labelled right [95% t]",
        higher_is_better=True,
    ),
    MeanScore("Rounds", "Rounds", "rounds", "rounds of tests per episode [95% t]"),
    MeanScore("Lists tested", "Lists", "lists_tested", "lists tested per episode [95% t]"),
    MeanScore("Repeats", "Repeats", "repeats", "lists tested again per episode [95% t]"),
)
"""The comparison's means over every finished episode (rounds to solve is over the solved ones)."""


def messages(data: Mapping[str, Any], run: RunRow, system: str | None = None) -> Transcript:
    """One episode as a conversation: the first message (whole: the renderer folds it; its example lists stay in
    view as a note), each reply and what the harness said, the judges' verdicts and how it ended."""
    item = data.get("item") or {}
    rule = item.get("rule") or {}
    examples = item.get("examples") or []
    messages = [Message(role="system", name="user", text=render_initial_prompt(examples).strip("\n"))]

    def note(name: str, text: str) -> None:
        messages.append(Message(role="note", name=name, text=text))

    note("prompt", "example lists: " + ", ".join(str(list(e)) for e in examples))
    messages += turn_messages(data, run, MOVES, game="harness")
    m = data.get("metrics") or {}
    if data["status"] == "completed":
        verdicts = {
            JUDGE_NAMES.get(name, name) + (" (primary)" if name == m.get("primary_judge") else ""): (
                "right" if ok else "wrong"
            )
            for name, ok in (m.get("judges") or {}).items()
        }
        verdict = m.get("predicate_verdict") or {}
        if verdict.get("rejection"):
            note("judge", f"predicate {m.get('predicate')!r} rejected: {verdict['rejection']}")
        elif verdict:
            observed = verdict.get("n_observations")  # absent from verdicts stored before version 2
            lines = [
                f"predicate {m.get('predicate')}: agreement {verdict.get('agreement', 0):.4f} "
                f"on {verdict.get('probes')} probes"
                + (f" ({observed} of them labelled in the episode)" if observed else "")
            ]
            if verdict.get("decided_by_observation"):
                lines.append("  it contradicts a label the player was shown")
            lines += [
                f"  e.g. {ce['list']}: the rule says {yes_no(ce['rule'])}, the predicate says {yes_no(ce['guess'])}"
                for ce in (verdict.get("counterexamples") or [])[:3]
            ]
            note("judge", "\n".join(lines))
        if m.get("quiz_accuracy") is not None:
            verdicts["quiz accuracy"] = f"{m['quiz_accuracy']:.2f}"
        for d in m.get("label_disagreements") or []:
            note(
                "labeller",
                f"LLM label disagreed in round {d['round']}: {d['list']} code {d['code']}, LLM {d['llm']}",
            )
        verdicts["end"] = f"{end_reason_text(m)}; rounds {m.get('rounds')}; lists {m.get('lists_tested')}"
        messages.append(
            Message(
                role="outcome",
                name="final hypothesis",
                text=str(m.get("final_hypothesis")),
                annotations=verdicts,
            )
        )
    else:
        messages.append(
            Message(
                role="outcome", name="status", text=f"{data['status']} {data.get('error') or ''}".rstrip()
            )
        )
    return Transcript(
        title=f"Run {data['run']}, episode {data['index']}: rule {rule.get('key')}  {rule.get('text')}",
        messages=messages,
        success=data.get("success"),
    )


MOVES: Moves = {
    "TestRound": lambda a: "tests " + "; ".join(str(c) for c in a.get("cases", [])),
    "FinalHypothesis": "final hypothesis: {text}",
    "PredicateAnswer": "predicate: {source}",
    "QuizAnswer": lambda a: (
        "quiz: " + ", ".join("?" if v is None else ("Yes" if v else "No") for v in a.get("labels", []))
    ),
}
"""How a transcript says a move that wrote no text."""


def inspect_sample(item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """An Inspect sample's target (the rule's text) and answer (the final hypothesis and its predicate)."""
    return rule_text(item), said_text(metrics, "final_hypothesis", "predicate")
