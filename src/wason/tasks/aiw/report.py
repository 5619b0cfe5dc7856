"""AIW results, as data the shared renderers draw: per (variation, prompt type) correct rates with their spreads,
averages, robustness R, answer distributions -- the paper's tables, from the stored episodes."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from pydantic import BaseModel

from wason.core import columns as col
from wason.core.family import RunReader
from wason.core.labels import results_title
from wason.core.records import CallTotals, Rate, RunReport, RunRow, Score, calls_note, run_header
from wason.core.results import Cell, Message, Results, Table, Transcript, episode_outcome
from wason.core.tally import group_by
from wason.metrics import answer_distribution, near_miss_mass, robustness, summarize_rate
from wason.metrics.rates import NearMissMass


def _natural(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


class AiwCell(BaseModel):
    """One (variation, prompt type) cell: its trials' correct rate with Beta and Wilson intervals, how the
    answers spread, and what the self-verification follow-ups changed.

    ``unparseable`` counts trials whose answer could not be read, ``ambiguous`` those that gave several different
    numbers (a range, a list: never right), ``truncated`` those whose reply was cut off at the token limit before
    an answer (each apart from the others); the distribution's ``unparseable`` bucket holds them all (no single
    answer was read)."""

    variation: str
    prompt_type: str
    expected: int | float | str
    k: int
    n: int
    p: float
    beta_alpha: float
    beta_beta: float
    beta_sd: float
    beta_low: float
    beta_high: float
    wilson_low: float
    wilson_high: float
    confidence: float
    unparseable: int
    ambiguous: int = 0
    truncated: int = 0
    distribution: dict[str, int]
    near_miss: NearMissMass | None
    initially_correct: int | None
    revised: int | None


class AiwPromptTypeSummary(BaseModel):
    """One prompt type over the run's variations: trials pooled, mean rate over variations, robustness R."""

    variations: int
    correct: Rate
    mean_rate: float
    robustness: float
    normalized_entropy: float


class AiwRunReport(RunReport):
    """``wason show RUN --json`` for an AIW run."""

    correct: Rate
    cells: list[AiwCell]
    by_prompt_type: dict[str, AiwPromptTypeSummary]
    errored: int
    pending: int
    calls: CallTotals


def aiw_json(store: RunReader, run_id: int) -> AiwRunReport:
    """Everything `wason show` reports for an AIW run, as plain data."""
    run = store.get_run(run_id)
    cells: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    errored = pending = 0
    for e in store.list_episodes(run_id):
        if e.status == "completed" and e.metrics is not None:
            cells[(e.item["variation"], e.item["prompt_type"])].append(
                {**e.metrics, "expected": e.item["expected"]}
            )
        elif e.status == "errored":
            errored += 1
        else:
            pending += 1
    rows = []
    for (variation, prompt_type), trials in cells.items():
        k = sum(bool(t["correct"]) for t in trials)
        rate = summarize_rate(k, len(trials))
        answers = [_natural(t["answer"]) if t["status"] == "ok" else None for t in trials]
        distribution = answer_distribution(answers)
        expected = _natural(str(trials[0]["expected"]))
        rows.append(
            {
                "variation": variation,
                "prompt_type": prompt_type,
                "expected": trials[0]["expected"],
                **asdict(rate),
                "unparseable": sum(t["status"] not in ("ok", "truncated", "ambiguous") for t in trials),
                "ambiguous": sum(t["status"] == "ambiguous" for t in trials),
                "truncated": sum(t["status"] == "truncated" for t in trials),
                "distribution": {
                    ("unparseable" if a is None else str(a)): c for a, c in distribution.items()
                },
                "near_miss": near_miss_mass(distribution, expected) if expected is not None else None,
                # multi-turn self-verification: right at first, and answers changed by the follow-ups
                "initially_correct": sum(bool(t.get("initial_correct")) for t in trials)
                if "initial_correct" in trials[0]
                else None,
                "revised": sum(bool(t.get("revised")) for t in trials) if "revised" in trials[0] else None,
            }
        )
    averages = {}
    for prompt_type, typed in group_by(rows, lambda r: r["prompt_type"]).items():
        score = robustness([r["p"] for r in typed])
        averages[prompt_type] = {
            "variations": len(typed),
            "correct": Rate.of(sum(r["k"] for r in typed), sum(r["n"] for r in typed)),
            "mean_rate": score.mean_rate,
            "robustness": score.score,
            "normalized_entropy": score.normalized_entropy,
        }
    calls = store.call_totals(run_id)
    return AiwRunReport.model_validate(
        {
            **run_header(run),
            "correct": Rate.of(sum(r["k"] for r in rows), sum(r["n"] for r in rows)),
            "cells": rows,
            "by_prompt_type": averages,
            "errored": errored,
            "pending": pending,
            "calls": calls,
        }
    )


def report_json(store: RunReader, run_ids: Sequence[int]) -> AiwRunReport:
    """The run's JSON report (an AIW run has no baselines)."""
    return aiw_json(store, run_ids[0])


TOP_LEGEND = (
    "the three most given, with their counts ('no answer': none read, whether unreadable, ambiguous or "
    "cut off)"
)


def results(store: RunReader, run_ids: Sequence[int]) -> Results:
    """A table of cells per prompt type, a summary per prompt type (paper 3.4.2) and notes."""
    run_id = run_ids[0]
    data = aiw_json(store, run_id).model_dump()
    params = data["config"].get("params", {})
    columns = [
        col.text("variation", "Variation"),
        col.text("right", "Right", "the right answer"),
        col.rate("correct", "Correct", "correct trials"),
        col.mean("sd", "Beta sd", "the spread of the rate (Beta posterior)", digits=3),
        col.count("unp", "Unp.", "answers that could not be read (no marker, or nothing after it)"),
        col.text("top", "Top answers", TOP_LEGEND),
    ]
    tables = []
    for prompt_type, cells in group_by(data["cells"], lambda r: r["prompt_type"]).items():
        rows: list[dict[str, Cell]] = []
        for r in cells:
            top = sorted(r["distribution"].items(), key=lambda kv: -kv[1])[:3]
            said = ", ".join(f"{'no answer' if a == 'unparseable' else a}: {c}" for a, c in top if c)
            if r["initially_correct"] is not None:
                said += f" (first answer right {r['initially_correct']}/{r['n']}, changed {r['revised']})"
            rows.append(
                {
                    "variation": r["variation"],
                    "right": str(r["expected"]),
                    "correct": Rate.of(r["k"], r["n"]),
                    "sd": r["beta_sd"],
                    "unp": r["unparseable"],
                    "top": said,
                }
            )
        tables.append(
            Table(name=_key(prompt_type), title=f"Prompt type {prompt_type}", columns=columns, rows=rows)
        )
    tables.append(
        Table(
            name="per-prompt-type",
            title="Per prompt type (paper 3.4.2): trials pooled, mean over variations, robustness R",
            columns=[
                col.text("type", "Prompt type"),
                col.count("vars", "Vars", "variations"),
                col.rate("correct", "Correct", "correct trials, pooled"),
                col.mean("mean", "Mean", "mean correct rate over variations", digits=3),
                col.mean("r", "R", "robustness", digits=3),
                col.mean("h", "H norm", "normalised entropy of the rates", digits=3),
            ],
            rows=[
                {
                    "type": prompt_type,
                    "vars": a["variations"],
                    "correct": Rate.model_validate(a["correct"]),
                    "mean": a["mean_rate"],
                    "r": a["robustness"],
                    "h": a["normalized_entropy"],
                }
                for prompt_type, a in data["by_prompt_type"].items()
            ],
        )
    )
    truncated = sum(r["truncated"] for r in data["cells"])
    ambiguous = sum(r["ambiguous"] for r in data["cells"])
    notes = [
        f"temperature {params.get('temperature')}, max_tokens {params.get('max_tokens')}; errored {data['errored']}; "
        f"truncated {truncated} (replies cut off at the token limit before an answer, not counted in Unp.); "
        f"ambiguous {ambiguous} (a range or a list of different numbers after the marker: never right, not counted "
        "in Unp.)",
        calls_note(data["calls"]),
    ]
    if data["pending"]:
        notes.append(f"{data['pending']} trial(s) not finished: `wason eval --resume {run_id}`")
    return Results(title=results_title(store.get_run(run_id)), tables=tables, notes=notes)


def _key(text: str) -> str:
    """A table key from a prompt type's name."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text)[:64] or "cells"


def scores(store: RunReader, run_id: int) -> list[Score]:
    """A run's columns: the pooled correct rate, the mean of the cells' rates and the robustness R over them."""
    data = aiw_json(store, run_id)
    rates = [c.p for c in data.cells]
    score = robustness(rates) if rates else None
    return [
        Score.rate(
            "Correct response rate",
            "Correct",
            data.correct.k,
            data.correct.n,
            "finished trials answered right, every cell pooled",
        ),
        Score.mean(
            "Mean rate over variations",
            "Mean var",
            score.mean_rate if score else None,
            n=len(rates),
            legend="mean of the (variation, prompt type) cells' correct rates",
        ),
        Score.mean(
            "Robustness R",
            "R",
            score.score if score else None,
            n=len(rates),
            legend="the paper's robustness score over the cells' rates (3.4.2)",
        ),
    ]


def messages(data: Mapping[str, Any], run: RunRow, system: str | None = None) -> Transcript:
    """One trial: the prompt, the model's replies and how its answer was read."""
    item = data.get("item") or {}
    out: list[Message] = []
    if item.get("prompt"):
        out.append(Message(role="system", name="user", text=str(item["prompt"])))
    for t in data["turns"]:
        # a player that writes no text (a script, a session stepped with JSON) answered in the action itself
        reply = t["reply"] if t["reply"] is not None else t["action"].get("text")
        out.append(Message(role="player", name="model", text=str(reply), turn=t["index"]))
    m = data.get("metrics") or {}
    if data["status"] != "completed":
        out.append(episode_outcome(data))
    else:
        verdict = "correct" if m.get("correct") else "wrong"
        said = (
            f"answer read: {m.get('answer')} ({m.get('status')}); right answer {m.get('expected')}: {verdict}"
        )
        out.append(Message(role="outcome", name="ended", text=said))
    title = f"Run {data['run']}, trial {data['index']}: {data['rule']}"
    return Transcript(title=title, messages=out, success=data.get("success"))


def inspect_sample(item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """An Inspect sample's target and answer (else what the reply said, where no answer could be read)."""
    m = metrics or {}
    answer = m.get("answer") if m.get("answer") is not None else m.get("answer_text")
    expected = item.get("expected", m.get("expected"))
    return "" if expected is None else str(expected), None if answer in (None, "") else str(answer)
