"""Random integer lists for the list rules: the one set of proposal families every list draw is made from.

A *proposal* takes a seeded ``random.Random`` and a length and returns a list of that length. The list family
draws random lists in several places, each from its own mixture of these proposals with its own parameters:

* the positive examples of a rule (:data:`wason.tasks.lists.examples.PROPOSALS`, rejection sampling);
* the judge's probe and quiz lists (:data:`wason.tasks.lists.judge.FAMILIES`);
* the reference solver's random candidate tests (``wason.tasks.lists.solver``);
* the random parts of the grammar's extension probe and the generated split's broad sample
  (:func:`wason.tasks.lists.hypotheses.extension_probe`, :func:`wason.tasks.lists.generate.broad_sample`).

A family with parameters is a factory (``uniform(0, 12)`` is a proposal); a family that only ever has one
setting is a proposal itself (:func:`affine_recurrence`). Where callers want different distributions of one
idea (an arithmetic progression with other start and step ranges), they pass different parameters to one
factory; the parameters are part of each caller's table, so the differences stay visible there.

Every proposal makes its random calls in a fixed order, and the lists a caller records (examples, probes,
quizzes, solver tests) depend on that order: changing how a proposal draws changes the lists of every caller
that uses it, so it needs a version bump in each of them (examples ``VERSION``, judge ``PROBES_VERSION``,
solver ``VERSION``, hypotheses ``SPACE_VERSION`` and generate ``VERSION``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

Proposal = Callable[[random.Random, int], list[int]]
"""``proposal(rng, n)``: a list of ``n`` integers drawn with ``rng``."""

Range = tuple[int, int]
"""Inclusive bounds ``(lo, hi)``, as :meth:`random.Random.randint` takes them."""


# ------------------------------------------------------------------------------------------ uniform values


def uniform(lo: int, hi: int) -> Proposal:
    """Items drawn independently and uniformly from ``lo..hi``."""
    return lambda rng, n: [rng.randint(lo, hi) for _ in range(n)]


def uniform_one_of(ranges: Sequence[Range]) -> Proposal:
    """One of ``ranges`` chosen for the whole list, then items uniform in it."""

    def proposal(rng: random.Random, n: int) -> list[int]:
        lo, hi = rng.choice(ranges)
        return [rng.randint(lo, hi) for _ in range(n)]

    return proposal


def uniform_mixed(ranges: Sequence[Range]) -> Proposal:
    """Every item from its own range, chosen among ``ranges``."""
    return lambda rng, n: [rng.randint(*rng.choice(ranges)) for _ in range(n)]


def constant(lo: int, hi: int) -> Proposal:
    """One value from ``lo..hi``, repeated."""
    return lambda rng, n: [rng.randint(lo, hi)] * n


def repeats(lo: int, hi: int) -> Proposal:
    """One to three values from ``lo..hi`` reused, so duplicates (including of the first item) are common."""

    def proposal(rng: random.Random, n: int) -> list[int]:
        pool = [rng.randint(lo, hi) for _ in range(rng.randint(1, 3))]
        return [rng.choice(pool) for _ in range(n)]

    return proposal


# ------------------------------------------------------------------------------------------ order


def increasing(lo: int, hi: int) -> Proposal:
    """Strictly increasing: ``n`` distinct values of ``lo..hi``, sorted (``n`` at most ``hi - lo + 1``)."""
    return lambda rng, n: sorted(rng.sample(range(lo, hi + 1), n))


def non_decreasing(lo: int, hi: int) -> Proposal:
    """Uniform items from ``lo..hi``, sorted ascending."""
    return lambda rng, n: sorted(rng.randint(lo, hi) for _ in range(n))


def sorted_either_way(lo: int, hi: int, *, descending: float) -> Proposal:
    """Uniform items from ``lo..hi``, sorted descending with probability ``descending``, else ascending."""

    def proposal(rng: random.Random, n: int) -> list[int]:
        xs = sorted(rng.randint(lo, hi) for _ in range(n))
        return xs[::-1] if rng.random() < descending else xs

    return proposal


def decreasing(lo: int, hi: int) -> Proposal:
    """Uniform items from ``lo..hi`` sorted descending; half the time repeats are dropped (strictly decreasing,
    and then possibly shorter than ``n``)."""

    def proposal(rng: random.Random, n: int) -> list[int]:
        xs = sorted(rng.randint(lo, hi) for _ in range(n))[::-1]
        return xs if rng.random() < 0.5 else sorted(set(xs), reverse=True)

    return proposal


def zigzag(*, start: Range, step: Range) -> Proposal:
    """Alternately up and down (the first direction drawn) by steps from ``step``, from a start in ``start``."""

    def proposal(rng: random.Random, n: int) -> list[int]:
        x, up, out = rng.randint(*start), rng.random() < 0.5, []
        for _ in range(n):
            out.append(x)
            x += rng.randint(*step) if up else -rng.randint(*step)
            up = not up
        return out

    return proposal


# ------------------------------------------------------------------------------------------ progressions


def arithmetic(*, start: Range, step: Range) -> Proposal:
    """An arithmetic progression with its start and step drawn from the two ranges."""

    def proposal(rng: random.Random, n: int) -> list[int]:
        first, difference = rng.randint(*start), rng.randint(*step)
        return [first + i * difference for i in range(n)]

    return proposal


def geometric(*, starts: Sequence[int], ratios: Sequence[int]) -> Proposal:
    """A geometric progression with its start chosen among ``starts`` and its ratio among ``ratios``."""

    def proposal(rng: random.Random, n: int) -> list[int]:
        first, ratio = rng.choice(starts), rng.choice(ratios)
        return [first * ratio**i for i in range(n)]

    return proposal


def fibonacci_like(lo: int, hi: int) -> Proposal:
    """Two items from ``lo..hi``, then each item the sum of the two before it."""

    def proposal(rng: random.Random, n: int) -> list[int]:
        xs = [rng.randint(lo, hi), rng.randint(lo, hi)]
        while len(xs) < n:
            xs.append(xs[-1] + xs[-2])
        return xs[:n]

    return proposal


def affine_recurrence(rng: random.Random, n: int) -> list[int]:
    """``x, a*x + c, a*(a*x + c) + c, ...`` with ``a`` in -2, -1, 2, 3, ``c`` in -3..3 and ``x`` in -5..9."""
    a, c, x = rng.choice((-1, 2, 3, -2)), rng.randint(-3, 3), rng.randint(-5, 9)
    out = []
    for _ in range(n):
        out.append(x)
        x = a * x + c
    return out


def halving(rng: random.Random, n: int) -> list[int]:
    """A Collatz-like chain from 1..40: halve an even item, else ``3x + 1``, ``5x + 1`` or ``x + 13``."""
    x, out = rng.randint(1, 40), []
    for _ in range(n):
        out.append(x)
        x = x // 2 if x % 2 == 0 else rng.choice((3 * x + 1, 5 * x + 1, x + 13))
    return out


def sum_to_target(rng: random.Random, n: int) -> list[int]:
    """``n - 1`` items from -3..9 and a last item that brings the sum to a target in 0..20."""
    if n == 0:
        return []
    xs = [rng.randint(-3, 9) for _ in range(n - 1)]
    return [*xs, rng.randint(0, 20) - sum(xs)]


# ------------------------------------------------------------------------------------------ members of sets


def members(sequences: Sequence[Sequence[int]]) -> Proposal:
    """Items of one of ``sequences`` (chosen per list), sorted half the time."""

    def proposal(rng: random.Random, n: int) -> list[int]:
        terms = rng.choice(sequences)
        xs = [rng.choice(terms) for _ in range(n)]
        return sorted(xs) if rng.random() < 0.5 else xs

    return proposal


def members_or_their_set(terms: Sequence[int], *, as_set: float) -> Proposal:
    """Items of ``terms``; with probability ``as_set`` the distinct ones, sorted (then possibly fewer)."""

    def proposal(rng: random.Random, n: int) -> list[int]:
        xs = [rng.choice(terms) for _ in range(n)]
        return sorted(set(xs)) if rng.random() < as_set else xs

    return proposal


def members_mixed(terms: Sequence[int], lo: int, hi: int) -> Proposal:
    """Each item, with even odds, one of ``terms`` or uniform from ``lo..hi``."""
    return lambda rng, n: [rng.choice(terms) if rng.random() < 0.5 else rng.randint(lo, hi) for _ in range(n)]


def multiples_of_one(bases: Sequence[int], *, factors: Range) -> Proposal:
    """Multiples of one base (chosen among ``bases`` per list) by factors from ``factors``."""

    def proposal(rng: random.Random, n: int) -> list[int]:
        base = rng.choice(bases)
        return [base * rng.randint(*factors) for _ in range(n)]

    return proposal


def multiples_of_some(bases: Sequence[int], *, factors: Range) -> Proposal:
    """Multiples of one or two of ``bases`` (chosen per list, then per item) by factors from ``factors``."""

    def proposal(rng: random.Random, n: int) -> list[int]:
        chosen = rng.sample(bases, rng.randint(1, 2))
        return [rng.choice(chosen) * rng.randint(*factors) for _ in range(n)]

    return proposal


def digit_pattern(rng: random.Random, n: int) -> list[int]:
    """One- and two-digit numbers written with two to four chosen digits only."""
    digits = rng.sample("0123456789", rng.randint(2, 4))
    out = []
    for _ in range(n):
        text = "".join(rng.choice(digits) for _ in range(rng.randint(1, 2)))
        out.append(int(text))
    return out
