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
from wason.core.records import CallTotals, RunReport, calls_note, run_header
from wason.metrics import answer_distribution, near_miss_mass, robustness, summarize_rate
from wason.metrics.rates import NearMissMass


def _natural(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


class AiwCell(BaseModel):
    """One (variation, prompt type) cell: its trials' correct rate with Beta and Wilson intervals, how the
    answers spread, and what the self-verification follow-ups changed."""

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
    distribution: dict[str, int]
    near_miss: NearMissMass | None
    initially_correct: int | None
    revised: int | None


class AiwPromptTypeSummary(BaseModel):
    """One prompt type over the run's variations: the mean correct rate and the robustness score R."""

    variations: int
    mean_rate: float
    robustness: float
    normalized_entropy: float


class AiwRunReport(RunReport):
    """``wason show RUN --json`` for an AIW run."""

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
                "unparseable": sum(t["status"] != "ok" for t in trials),
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
            "mean_rate": score.mean_rate,
            "robustness": score.score,
            "normalized_entropy": score.normalized_entropy,
        }
    calls = store.call_totals(run_id)
    return AiwRunReport.model_validate(
        {
            **run_header(run),
            "cells": rows,
            "by_prompt_type": averages,
            "errored": errored,
            "pending": pending,
            "calls": calls,
        }
    )


def aiw_table(store: RunReader, run_id: int) -> RenderableType:
    data = aiw_json(store, run_id).model_dump()
    params = data["config"].get("params", {})
    title = f"Run {run_id}: AIW by {data['model']}  [{data['status']}]"
    table = Table(title=title)
    cols = (
        "Variation",
        "Prompt type",
        "Right",
        "Correct",
        "Rate",
        "Beta sd",
        "Wilson 95%",
        "Unparseable",
        "Top answers",
    )
    for col in cols:
        table.add_column(
            col, justify="left" if col in {"Variation", "Prompt type", "Top answers"} else "right"
        )
    for r in data["cells"]:
        top = sorted(r["distribution"].items(), key=lambda kv: -kv[1])[:3]
        table.add_row(
            r["variation"],
            r["prompt_type"],
            str(r["expected"]),
            f"{r['k']}/{r['n']}",
            f"{r['p']:.2f}",
            f"{r['beta_sd']:.3f}",
            f"{r['wilson_low']:.2f}-{r['wilson_high']:.2f}",
            str(r["unparseable"]),
            ", ".join(f"{a}: {c}" for a, c in top if c)
            + (
                f"  (first answer right {r['initially_correct']}/{r['n']}, changed {r['revised']})"
                if r["initially_correct"] is not None
                else ""
            ),
        )
    summary = Table(title="Per prompt type: mean correct rate over variations and robustness R (paper 3.4.2)")
    for col in ("Prompt type", "Variations", "Mean rate", "R", "Normalised entropy"):
        summary.add_column(col, justify="left" if col == "Prompt type" else "right")
    for prompt_type, a in data["by_prompt_type"].items():
        summary.add_row(
            prompt_type,
            str(a["variations"]),
            f"{a['mean_rate']:.3f}",
            f"{a['robustness']:.3f}",
            f"{a['normalized_entropy']:.3f}",
        )
    calls = data["calls"]
    notes = [
        Text(
            f"temperature {params.get('temperature')}, max_tokens {params.get('max_tokens')}; "
            f"errored {data['errored']}"
        ),
        Text(calls_note(calls)),
    ]
    if data["pending"]:
        notes.append(Text(f"{data['pending']} trial(s) not finished: `wason eval --resume {run_id}`"))
    return Group(table, summary, *notes)


def aiw_transcript(data: dict[str, Any]) -> RenderableType:
    """One trial: the prompt, the model's replies and how its answer was read."""
    eps_item = data.get("item") or {}
    parts: list[RenderableType] = [
        Text(f"Run {data['run']}, trial {data['index']}: {data['rule']}", style="bold")
    ]
    if eps_item.get("prompt"):
        parts.append(Text(f"[user] {eps_item['prompt']}"))
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
