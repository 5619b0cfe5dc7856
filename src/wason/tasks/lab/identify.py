"""Identifiability, constructively: a design of experiments that tells a domain's laws apart from every other
theory of the grammar, found with the laws known (the generator's check, never a player's).

The experiments considered are the operations on the lab's objects as they start (each run after resetting its
objects, which costs no experiment). For each, the laws give the outcome, and every hypothesis of every slot the
experiment touches (:class:`wason.tasks.lab.learner.Learner`'s version space) either predicts that outcome or is
refuted by it. A domain is identifiable within a budget when those experiments together refute every hypothesis
but the true one in every slot, and a greedy cover picks at most the budget of them that still do. The cover's
length is recorded with the domain (``design``): a witness that the laws can be found, and a measure of how many
experiments it takes. Noise is left out: the design is for exact measurements.

This is sufficient, not necessary: a domain whose laws can only be told apart from states that operations reach
(not from the starting ones) is rejected though a player could identify it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import permutations

import numpy as np
import numpy.typing as npt

from wason.tasks.lab.laws import Law, apply
from wason.tasks.lab.learner import Learner
from wason.tasks.lab.world import Domain

Experiment = tuple[str, tuple[str, ...]]


def candidates(domain: Domain) -> list[Experiment]:
    """Every experiment on the lab's starting objects: each operation on each object, or ordered pair."""
    names = [name for name, _, _ in domain.objects]
    return [(op.name, objects) for op in domain.operations for objects in permutations(names, op.arity)]


def identifying_design(domain: Domain, budget: int | None = None) -> list[Experiment] | None:
    """A shortest-found list of experiments on the starting objects that leaves only the true law in every
    slot, or None when no such list exists (or none within ``budget``)."""
    learner = Learner(domain)
    slots = list(learner.slots.values())
    offsets = np.cumsum([0] + [len(s.laws) for s in slots])
    total = int(offsets[-1])
    position = {s.key: k for k, s in enumerate(slots)}
    wrong = np.ones(total, dtype=bool)
    for k, slot in enumerate(slots):
        law = _truth(domain.laws, slot.key)
        try:
            index = slot.laws.index(law)
        except ValueError:
            return None  # a law outside the learner's space can never be singled out
        wrong[offsets[k] + index] = False
    start = {t.name: t for t in domain.things()}
    experiments = candidates(domain)
    rows = np.zeros((len(experiments), total), dtype=bool)
    for e, (op, names) in enumerate(experiments):
        things = [start[n].copy() for n in names]
        before = [dict(t.values) for t in things]
        apply(domain.laws, op, things)
        after = [dict(t.values) for t in things]
        for slot in learner.slots_for(op, [t.type for t in things]):
            arg, prop = slot.key[1], slot.key[2]
            vals, avail, post = slot.vectors(before, after)
            everyone = np.arange(len(slot.laws))
            pred = slot.predict(everyone, float(before[arg][prop]), vals, avail, post)
            k = position[slot.key]
            rows[e, offsets[k] : offsets[k + 1]] = ~_close(pred, float(after[arg][prop]))
    if (rows.any(axis=0) < wrong).any():
        return None  # some wrong hypothesis agrees with the laws on every starting experiment
    uncovered = wrong.copy()
    weights = rows.astype(np.float32)
    chosen: list[Experiment] = []
    limit = budget if budget is not None else len(experiments)
    while uncovered.any():
        if len(chosen) >= limit:
            return None
        gains = weights @ uncovered.astype(np.float32)
        best = int(np.argmax(gains))
        chosen.append(experiments[best])
        uncovered &= ~rows[best]
    return chosen


def _close(pred: npt.NDArray[np.float64], y: float) -> npt.NDArray[np.bool_]:
    """``np.isclose(pred, y, rtol=1e-9, atol=1e-12)`` for one value ``y``, without its cost on small arrays
    (a fifth of generating a domain went to it)."""
    close: npt.NDArray[np.bool_]
    if not math.isfinite(y):
        close = pred == y
    else:
        with np.errstate(invalid="ignore"):
            close = np.abs(pred - y) <= 1e-12 + 1e-9 * abs(y)
    return close


def _truth(laws: Sequence[Law], key: tuple[str, int, str]) -> Law | None:
    return next((law for law in laws if (law.op, law.target.arg, law.target.prop) == key), None)
