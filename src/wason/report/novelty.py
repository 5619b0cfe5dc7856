"""``wason show RUN... --novelty``: how novel each player's messages are (Table 3 and Figure 6 of the
rule-discovery paper's appendix on test novelty), for runs of any family.

A message is what the player sent in a turn: a model's reply as written; for a player that writes no text (the
solver), the message that makes its action under the family's protocol (:meth:`Family.action_message`), else its
action as JSON. Messages are embedded with all-MiniLM-L6-v2 (:mod:`wason.metrics.embedding`,
offline), and the vectors are kept in the store, so showing a run again computes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from wason.core import registry
from wason.core.family import Family, RunReader
from wason.core.records import Figure, Score, Series, series_names
from wason.metrics.embedding import MODEL_NAME, EmbeddingCache, SentenceEncoder, embed
from wason.metrics.novelty import by_position, novelty_scores

AVERAGE_LEGEND = "1 - cosine similarity of a message to the closest earlier message of its episode, mean"
MINIMUM_LEGEND = "the least novel message of each episode, mean over episodes"


class RunNovelty(BaseModel):
    """The novelty of one run's messages.

    Attributes:
        run: the run.
        label: how tables name it.
        episodes: finished episodes with at least two messages (the ones with a novelty).
        messages: messages embedded.
        average: average novelty (a mean over messages after the first of each episode, with its t interval).
        average_min: average minimum novelty (a mean over episodes).
        by_turn: the mean novelty of the 2nd, 3rd, ... message, and ``by_turn_n`` how many episodes reach it.
    """

    run: int
    label: str
    episodes: int
    messages: int
    average: Score
    average_min: Score
    by_turn: list[float]
    by_turn_n: list[int]


class NoveltyReport(BaseModel):
    """``wason show RUN... --novelty --json``."""

    model: str = MODEL_NAME
    computed: int
    runs: list[RunNovelty]


def message_text(family: Family[Any], turn: dict[str, Any]) -> str | None:
    """What the player sent in ``turn``: the reply; for a player that writes none, the message that makes its
    action under the family's protocol, else the action described or as JSON (None: no action)."""
    reply = turn.get("reply")
    if isinstance(reply, str) and reply.strip():
        return reply
    action = turn.get("action")
    if action is None:
        return None
    return (
        family.action_message(action) or family.describe_action(action) or json.dumps(action, sort_keys=True)
    )


def run_messages(store: RunReader, run_id: int) -> list[list[str]]:
    """The messages of each finished episode of a run, in turn order."""
    family = registry.get(store.get_run(run_id).task)
    out = []
    for episode in store.list_episodes(run_id):
        if episode.status != "completed":
            continue
        texts = [message_text(family, t) for t in store.list_turns(episode.id)]
        out.append([t for t in texts if t is not None])
    return out


def novelty_report(
    store: RunReader,
    run_ids: Sequence[int],
    cache: EmbeddingCache | None,
    encoder: SentenceEncoder | None = None,
) -> NoveltyReport:
    """The novelty of each run's messages (the runs as given, named as tables name them).

    Raises:
        EmbeddingUnavailable: a message needs embedding and the sentence model is not installed.
    """
    runs = [store.get_run(r) for r in run_ids]
    computed = 0
    out = []
    for run, label in zip(runs, series_names(runs), strict=True):
        per_episode: list[list[float]] = []
        n_messages = 0
        for messages in run_messages(store, run.id):
            vectors, fresh = embed(messages, cache, encoder)
            computed += fresh
            n_messages += len(messages)
            scores = novelty_scores(vectors)
            if scores:
                per_episode.append(scores)
        flat = [v for e in per_episode for v in e]
        curve = by_position(per_episode)
        out.append(
            RunNovelty(
                run=run.id,
                label=label,
                episodes=len(per_episode),
                messages=n_messages,
                average=Score.mean_of("Avg. Novelty", "Novelty", flat, AVERAGE_LEGEND),
                average_min=Score.mean_of(
                    "Avg. Min. Novelty", "MinNov", [min(e) for e in per_episode], MINIMUM_LEGEND
                ),
                by_turn=[mean for mean, _ in curve],
                by_turn_n=[n for _, n in curve],
            )
        )
    return NoveltyReport(computed=computed, runs=out)


def novelty_rows(report: NoveltyReport) -> tuple[list[str], list[list[str]]]:
    """The table of Table 3's columns: headers and one row per run."""
    headers = ["Model", "Avg. Novelty", "Avg. Min. Novelty", "Episodes", "Messages", "Run"]

    def cell(score: Score) -> str:
        if score.value is None:
            return "-"
        if score.interval is None:
            return f"{score.value:.2f}"
        low, high = score.interval
        return f"{score.value:.2f} [{low:.2f}, {high:.2f}]"

    rows = [
        [r.label, cell(r.average), cell(r.average_min), str(r.episodes), str(r.messages), str(r.run)]
        for r in report.runs
    ]
    return headers, rows


def novelty_figure(report: NoveltyReport) -> Figure:
    """Novelty by turn (the paper's Figure 6): the mean novelty of the k-th message, a line per run."""
    longest = max((len(r.by_turn) for r in report.runs), default=0)
    xs = [float(k + 2) for k in range(longest)]
    series = [
        Series(name=r.label, values=[*r.by_turn, *([None] * (longest - len(r.by_turn)))]) for r in report.runs
    ]
    return Figure(
        name="novelty-by-turn",
        title=f"Message novelty by turn ({MODEL_NAME})",
        kind="lines",
        x=xs,
        series=series,
        x_label="message (turn) number",
        y_label="novelty (1 - cosine to the closest earlier message)",
        caption="Mean over the episodes that reach each message; a message's novelty is 1 minus its greatest "
        "cosine similarity to an earlier message of its episode.",
    )
