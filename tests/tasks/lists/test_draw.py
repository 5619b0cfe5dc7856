"""The list proposal families shared by the examples, the judge's probes and quizzes, and the solver."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import pairwise

import pytest

from wason.tasks.lists import draw
from wason.tasks.lists.examples import PROPOSALS
from wason.tasks.lists.judge import FAMILIES

IntList = Sequence[int]


def _lists(proposal: draw.Proposal, seed: str, count: int = 300) -> list[list[int]]:
    rng = random.Random(seed)
    return [proposal(rng, n) for n in (list(range(10)) * (count // 10 + 1))[:count]]


def _differences(xs: IntList) -> set[int]:
    return {b - a for a, b in pairwise(xs)}


USED = [
    *((f"examples-{k}", p) for k, p in enumerate(PROPOSALS)),
    *((f"judge-{name}", p) for name, p in FAMILIES),
]


@pytest.mark.parametrize(("name", "proposal"), USED, ids=[name for name, _ in USED])
def test_every_proposal_in_use_gives_int_lists_of_the_length_asked_and_repeats_under_its_seed(
    name: str, proposal: draw.Proposal
) -> None:
    rng = random.Random(name)
    for n in range(10):
        for _ in range(20):
            xs = proposal(rng, n)
            assert all(type(x) is int for x in xs), (name, xs)
            # the two set-like families drop repeats, so their lists may be shorter
            assert len(xs) == n or (name in ("judge-decreasing", "judge-primes") and len(xs) < n), (
                name,
                n,
                xs,
            )
    assert _lists(proposal, name) == _lists(proposal, name)
    assert _lists(proposal, name) != _lists(proposal, name + "/other")


# Each family's defining shape, checked on every list it draws; the parameters are arbitrary but the checks
# only use what the family promises.
SHAPES: list[tuple[str, draw.Proposal, Callable[[list[int]], bool]]] = [
    ("uniform", draw.uniform(-4, 9), lambda xs: all(-4 <= x <= 9 for x in xs)),
    (
        "uniform one of",
        draw.uniform_one_of([(0, 2), (50, 52)]),
        lambda xs: max(xs, default=0) - min(xs, default=0) <= 2,
    ),
    (
        "uniform mixed",
        draw.uniform_mixed([(0, 2), (50, 52)]),
        lambda xs: all(x <= 2 or 50 <= x <= 52 for x in xs),
    ),
    ("constant", draw.constant(-5, 5), lambda xs: len(set(xs)) <= 1),
    ("repeats", draw.repeats(0, 30), lambda xs: len(set(xs)) <= 3),
    ("increasing", draw.increasing(-3, 20), lambda xs: all(a < b for a, b in pairwise(xs))),
    ("non-decreasing", draw.non_decreasing(0, 5), lambda xs: xs == sorted(xs)),
    (
        "sorted either way",
        draw.sorted_either_way(0, 40, descending=0.5),
        lambda xs: xs in (sorted(xs), sorted(xs, reverse=True)),
    ),
    ("decreasing", draw.decreasing(-3, 9), lambda xs: xs == sorted(xs, reverse=True)),
    (
        "zigzag",
        draw.zigzag(start=(0, 9), step=(1, 5)),
        lambda xs: all((b - a) * (c - b) < 0 for a, b, c in zip(xs, xs[1:], xs[2:], strict=False)),
    ),
    ("arithmetic", draw.arithmetic(start=(-9, 9), step=(-3, 3)), lambda xs: len(_differences(xs)) <= 1),
    (
        "geometric",
        draw.geometric(starts=(1, -2, 3), ratios=(2, -1, 3)),
        lambda xs: all(b * xs[0] == a * xs[1] for a, b in pairwise(xs[1:])),
    ),
    (
        "fibonacci-like",
        draw.fibonacci_like(-3, 9),
        lambda xs: all(c == a + b for a, b, c in zip(xs, xs[1:], xs[2:], strict=False)),
    ),
    (
        "affine recurrence",
        draw.affine_recurrence,
        lambda xs: (
            len(xs) < 3
            or any(all(b == a * x + (xs[1] - a * xs[0]) for x, b in pairwise(xs)) for a in (-2, -1, 2, 3))
        ),
    ),
    (
        "halving",
        draw.halving,
        lambda xs: all(
            b in ((a // 2,) if a % 2 == 0 else (3 * a + 1, 5 * a + 1, a + 13)) for a, b in pairwise(xs)
        ),
    ),
    ("sum to target", draw.sum_to_target, lambda xs: not xs or 0 <= sum(xs) <= 20),
    (
        "members",
        draw.members([(1, 4, 9), (2, 3, 5)]),
        lambda xs: set(xs) <= {1, 4, 9} or set(xs) <= {2, 3, 5},
    ),
    (
        "members or their set",
        draw.members_or_their_set((2, 3, 5, 7), as_set=0.5),
        lambda xs: set(xs) <= {2, 3, 5, 7},
    ),
    (
        "members mixed",
        draw.members_mixed((100, 200), 0, 9),
        lambda xs: all(x in (100, 200) or 0 <= x <= 9 for x in xs),
    ),
    (
        "multiples of one",
        draw.multiples_of_one((7, 11), factors=(1, 5)),
        lambda xs: all(x % 7 == 0 for x in xs) or all(x % 11 == 0 for x in xs),
    ),
    (
        "multiples of some",
        draw.multiples_of_some((7, 11, 13), factors=(1, 5)),
        lambda xs: sum(any(x % b == 0 for x in xs) for b in (7, 11, 13)) <= 2,
    ),
    (
        "digit pattern",
        draw.digit_pattern,
        lambda xs: len(set("".join(map(str, xs)))) <= 4 and all(0 <= x < 100 for x in xs),
    ),
]


@pytest.mark.parametrize(("name", "proposal", "shape"), SHAPES, ids=[name for name, _, _ in SHAPES])
def test_each_family_draws_lists_of_its_shape(
    name: str, proposal: draw.Proposal, shape: Callable[[list[int]], bool]
) -> None:
    lists = _lists(proposal, name)
    assert all(shape(xs) for xs in lists), [xs for xs in lists if not shape(xs)][:3]
    assert len({tuple(xs) for xs in lists if len(xs) >= 3}) > 1  # and not one list over and over


def test_the_zigzag_and_sorted_families_go_both_ways() -> None:
    zigzags = _lists(draw.zigzag(start=(0, 9), step=(1, 5)), "zigzag")
    assert {xs[1] > xs[0] for xs in zigzags if len(xs) >= 2} == {True, False}
    either = _lists(draw.sorted_either_way(0, 40, descending=0.5), "sorted")
    assert {xs[0] < xs[-1] for xs in either if len(set(xs)) > 1} == {True, False}
