"""Hypothesis-space reduction of a list-rules episode: the share of the solver's hypotheses its tests ruled out.

The space is the reference solver's (:func:`~wason.tasks.lists.solver_space.solver_space`: the list grammar and
its compound properties, recurrences and aggregates, de-duplicated by meaning, the same in every process and
versioned) cut to the hypotheses that accept the episode's examples: the game shows those to every player, so no
test earns them. After each round, every hypothesis that disagrees with the rule's label of a list tested so far
is ruled out; the curve is the share of the cut space ruled out after each round of tests (one value a round),
and its last value is the text environments' "information" reward (``wason.env.rewards``). It never falls, stays
at 0 for tests that repeat the examples or each other, and reaches nearly 1 once only the rule's own extension
class is left (exactly 1 when the rule is outside the space and every hypothesis is contradicted).

The labels are the rule's own, by code, also when an LLM labeller showed the player others: the curve measures
what the tests could rule out, not what a wrong label made the player believe. A list that is not a list of
integers rules out nothing (no predicate over ``xs`` reads it), nor does one longer than :data:`MAX_ITEMS` items
or with an item beyond :data:`MAX_ABS` in size: the space's predicates were written for lists like the examples
and the solver's (at most 10 items), and some cost far more on a hostile list (one item the product of all the
others is quadratic in the length). Leaving such a list out can only lower the curve, never raise it. A
predicate that raises on a list rejects it, as in the solver. Each distinct list is evaluated once, and only on
the hypotheses still in play, so an episode costs tens of milliseconds once the space is built (once a process,
a few seconds; the solver builds the same one).
"""

from __future__ import annotations

from collections.abc import Sequence

from wason.tasks.lists.rules import as_int_list, holds
from wason.tasks.lists.solver_space import SOLVER_SPACE_VERSION, solver_space

__all__ = ["MAX_ABS", "MAX_ITEMS", "SPACE", "VERSION", "reduction_curve"]

VERSION = 1
"""Bump whenever the same episode could give another curve (the cut, the labels, the bounds)."""

MAX_ITEMS = 50
"""Lists longer than this rule out nothing (the solver tests at most 10 items, the examples about as many)."""

MAX_ABS = 10**18
"""Lists with an item beyond this in size rule out nothing."""


SPACE = f"{SOLVER_SPACE_VERSION}/reduction-{VERSION}"
"""What a stored curve was measured on: the solver space's version and this module's (the ``hypothesis_space``
metric)."""


def _measurable(xs: tuple[int, ...]) -> bool:
    return len(xs) <= MAX_ITEMS and all(-MAX_ABS <= x <= MAX_ABS for x in xs)


def reduction_curve(
    examples: Sequence[Sequence[int]], rounds: Sequence[Sequence[tuple[object, bool]]]
) -> list[float]:
    """The share of the solver's hypotheses that accept ``examples`` (the positives the game showed: they cut
    the space, they rule nothing out) ruled out after each round of ``rounds`` (each round's tests as the list
    as the player wrote it and the rule's label): from 0 to 1, never falling; all 0 if none accepts them."""
    if not rounds:
        return []  # no test: no need of the space
    space = solver_space()  # built once per process, on first use
    seen = {tuple(int(x) for x in example) for example in examples}
    alive = [h for h in range(len(space)) if all(holds(space[h].predicate, xs) for xs in seen)]
    base = len(alive)
    out: list[float] = []
    for tests in rounds:
        for case, label in tests:
            xs = as_int_list(case)
            if xs is None or xs in seen or not _measurable(xs):
                continue
            seen.add(xs)
            alive = [h for h in alive if holds(space[h].predicate, xs) == label]
        out.append((base - len(alive)) / base if base else 0.0)
    return out
