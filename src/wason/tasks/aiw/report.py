"""AIW results: per (variation, prompt type) correct rates with their spreads, averages, robustness R, answer
distributions -- the paper's tables, from the stored episodes."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict
from typing import Any

from pydantic import BaseModel
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from wason.core.family import RunReader
from wason.core.records import CallTotals, Rate, RunReport, Score, calls_note, fold_text, run_header
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
    """One prompt type over the run's variations: its trials pooled (a rate with its Wilson interval), the mean
    correct rate over variations and the robustness score R."""

    variations: int
    correct: Rate
    mean_rate: float
    robustness: float
    normalized_entropy: float


class AiwRunReport(RunReport):
    """``wason show RUN --json`` for an AIW run: the correct response rate over every finished trial (with its
    Wilson interval), a cell per (variation, prompt type), a summary per prompt type."""

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
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_type[row["prompt_type"]].append(row)
    averages = {}
    for prompt_type, typed in by_type.items():
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


def _rate_cell(k: int, n: int, low: float, high: float) -> str:
    # two lines, so the tables fit 80 columns
    return f"{k}/{n}\n[{low:.2f}, {high:.2f}]" if n else "-"


def aiw_table(store: RunReader, run_id: int) -> RenderableType:
    """A table of cells per prompt type (correct rate with its Wilson interval, spread, answers), a summary
    per prompt type (pooled rate, mean over variations, robustness R) and notes; within 80 columns."""
    data = aiw_json(store, run_id).model_dump()
    params = data["config"].get("params", {})
    tables: list[RenderableType] = []
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in data["cells"]:
        by_type[r["prompt_type"]].append(r)
    for prompt_type, cells in by_type.items():
        table = Table(title=Text(f"Run {run_id}: AIW by {data['model']}, prompt type {prompt_type}"))
        table.add_column("Variation", overflow="fold")
        table.add_column("Right", justify="right", overflow="fold")
        table.add_column("Correct", justify="right")
        table.add_column("Beta sd", justify="right")
        table.add_column("Unp.", justify="right")
        table.add_column("Top answers (count)", overflow="fold")
        for r in cells:
            top = sorted(r["distribution"].items(), key=lambda kv: -kv[1])[:3]
            table.add_row(
                r["variation"],
                str(r["expected"]),
                _rate_cell(r["k"], r["n"], r["wilson_low"], r["wilson_high"]),
                f"{r['beta_sd']:.3f}",
                str(r["unparseable"]),
                ", ".join(f"{a}: {c}" for a, c in top if c)
                + (
                    f" (first answer right {r['initially_correct']}/{r['n']}, changed {r['revised']})"
                    if r["initially_correct"] is not None
                    else ""
                ),
            )
        tables.append(table)
    summary = Table(title="Per prompt type (paper 3.4.2): trials pooled, mean over variations, robustness R")
    summary.add_column("Prompt type", overflow="fold")
    for col in ("Vars", "Correct", "Mean", "R", "H norm"):
        summary.add_column(col, justify="right")
    for prompt_type, a in data["by_prompt_type"].items():
        c = a["correct"]
        summary.add_row(
            prompt_type,
            str(a["variations"]),
            _rate_cell(c["k"], c["n"], *c["interval"]),
            f"{a['mean_rate']:.3f}",
            f"{a['robustness']:.3f}",
            f"{a['normalized_entropy']:.3f}",
        )
    calls = data["calls"]
    truncated = sum(r["truncated"] for r in data["cells"])
    ambiguous = sum(r["ambiguous"] for r in data["cells"])
    notes = [
        Text(
            "Right: the right answer; Correct: correct trials, k/n [95% Wilson interval]; Beta sd: the spread "
            "of the rate (Beta posterior); Unp.: answers that could not be read (no marker, or nothing after "
            "it); Vars: variations; Mean: mean correct rate over variations; R: robustness; H norm: normalised "
            "entropy of the rates"
        ),
        Text(
            f"temperature {params.get('temperature')}, max_tokens {params.get('max_tokens')}; "
            f"errored {data['errored']}; truncated {truncated} (replies cut off at the token limit before an "
            f"answer, not counted in Unp.); ambiguous {ambiguous} (a range or a list of different numbers after "
            "the marker: never right, not counted in Unp.)"
        ),
        Text(calls_note(calls)),
    ]
    if data["pending"]:
        notes.append(Text(f"{data['pending']} trial(s) not finished: `wason eval --resume {run_id}`"))
    return Group(*tables, summary, *notes)


def aiw_scores(store: RunReader, run_id: int) -> list[Score]:
    """A run's columns: the correct response rate over every finished trial (Wilson interval), the mean of the
    (variation, prompt type) cells' rates, and the robustness R over those cells."""
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


def aiw_transcript(data: dict[str, Any], *, full: bool = False) -> RenderableType:
    """One trial: the prompt (a long one folded unless ``full``), the model's replies and how its answer was
    read."""
    eps_item = data.get("item") or {}
    parts: list[RenderableType] = [
        Text(f"Run {data['run']}, trial {data['index']}: {data['rule']}", style="bold")
    ]
    if eps_item.get("prompt"):
        hint = f"the whole prompt: wason show {data['run']} --episode {data['index']} --full"
        parts.append(Text(f"[user] {fold_text(eps_item['prompt'], full=full, hint=hint)}"))
    for t in data["turns"]:
        # a player that writes no text (a script, a session stepped with JSON) answered in the action itself
        reply = t["reply"] if t["reply"] is not None else t["action"].get("text")
        parts.append(Text(f"\n[model] {reply}"))
    m = data["metrics"] or {}
    verdict = "correct" if m.get("correct") else "wrong"
    parts.append(
        Text(
            f"\nanswer read: {m.get('answer')} ({m.get('status')}); right answer {m.get('expected')}: {verdict}",
            style="bold",
        )
    )
    if data["status"] != "completed":
        parts.append(Text(f"status: {data['status']} {data['error'] or ''}", style="bold red"))
    return Group(*parts)
