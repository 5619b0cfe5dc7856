"""Hypothesis-space reduction (WILT paper, section 4.1), for every episode of any player.

After each test, every hypothesis of a fixed space that disagrees with an observed result is crossed off; the
curve is the fraction crossed off so far. A test that crosses off nothing new confirmed what earlier tests already
showed: the share of such tests is the confirmation-bias signal. The space is the solver's grammar space
(``listed_space.build_space``), seeded, de-duplicated by extension and versioned; its version is stored with every
curve. Unlike the reference (200 random lambdas, drawn anew each run, never de-duplicated), the same seed always
gives the same space.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SPACE_SEED = 0
CURVE_POINTS = (1, 5, 10, 20, 30)


def reduction_curve(
    history: Sequence[tuple[tuple[float, float, float], bool]], *, seed: int = SPACE_SEED
) -> tuple[list[float], str]:
    """Fraction of the hypothesis space eliminated after each test of ``history``, and the space's version."""
    from wason.tasks.wilt.listed_space import build_space  # built once per process, on first use

    space = build_space(seed)
    if not history:
        return [], space.version
    points = np.array([p for p, _ in history], dtype=np.float64)
    results = np.array([r for _, r in history], dtype=np.bool_)
    wrong = space.evaluate(points) != results[None, :]  # (H, T): hypothesis contradicted by test t
    eliminated_by = np.logical_or.accumulate(wrong, axis=1)
    fractions = eliminated_by.mean(axis=0)
    return [float(f) for f in fractions], space.version


def uninformative_tests(curve: Sequence[float]) -> int:
    """Tests after which no new hypothesis was eliminated."""
    previous = 0.0
    count = 0
    for value in curve:
        count += value <= previous
        previous = value
    return count


def curve_at(curve: Sequence[float], k: int) -> float:
    """The fraction eliminated after test ``k``; an episode that stopped earlier keeps its last value."""
    if not curve:
        return 0.0
    return float(curve[min(k, len(curve)) - 1])
