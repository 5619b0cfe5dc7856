"""Message novelty (after Aidan-bench, as a rule-discovery paper's appendix reports it): how far each message of a
conversation is from the closest message before it.

A message's novelty is ``1 - max cos(e_i, e_j)`` over the earlier messages ``j < i`` of the same episode, on unit
sentence vectors; the first message has none. A run's *average novelty* is the mean over its messages that have
one, and its *average minimum novelty* the mean over episodes of their least novel message (Table 3); novelty by
turn is the mean at each message position over the episodes that reach it (Figure 6).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt


def novelty_scores(vectors: npt.NDArray[np.float32]) -> list[float]:
    """The novelty of each message after the first, in order (``len(vectors) - 1`` values), from unit vectors
    (one row per message)."""
    n = len(vectors)
    if n < 2:
        return []
    similarity = vectors @ vectors.T
    return [float(1.0 - np.clip(similarity[i, :i].max(), -1.0, 1.0)) for i in range(1, n)]


def by_position(episodes: Sequence[Sequence[float]]) -> list[tuple[float, int]]:
    """The mean novelty at each message position (the second message first) and how many episodes reach it."""
    longest = max((len(e) for e in episodes), default=0)
    out = []
    for k in range(longest):
        values = [e[k] for e in episodes if len(e) > k]
        out.append((sum(values) / len(values), len(values)))
    return out
