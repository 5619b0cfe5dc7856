"""Generated positive examples for the list rules (``--examples generated --seed S``).

The published examples were hand-written and one of them is wrong, so a run can instead draw its examples
from the rule itself. :func:`generate_examples` samples plausible integer lists from a seeded mixture of
rule-agnostic proposals (uniform lists, arithmetic and geometric progressions, repeats, sorted lists,
multiples, members of familiar sequences, Fibonacci-like sums, digit patterns, affine recurrences) and keeps
the ones the rule's predicate accepts. Rules too narrow for that get a constructive fallback that still knows
nothing about the rule except its predicate: complete a sampled prefix with a last item that makes the list
pass, or grow a list item by item from values derived from the items so far.

Every returned list is checked by the predicate, lists are distinct, and the same rule and seed always give
the same lists (the generator is a private ``random.Random`` seeded from the seed and the rule's key).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from wason.tasks.lists import draw
from wason.tasks.lists.rules import ListRule

GENERATOR = "wason.lists.examples"
VERSION = 2  # 2: lengths that yielded nothing are not retried for later examples

MIN_LENGTH = 3
MAX_LENGTH = 7
LOW, HIGH = -20, 60
# Derived values beyond this are not lists a person would offer as an example, and huge integers slow the
# predicates that compute (powers, prime counts).
MAX_MAGNITUDE = 10**6

SAMPLING_DRAWS = 1500
COMPLETION_TRIES = 200
GUIDED_TRIES = 40

SAMPLED, COMPLETED, GUIDED = "sampled", "completed", "guided"


@dataclass(frozen=True)
class ExampleProvenance:
    """Where a set of generated examples came from, so a run can record and reproduce them."""

    generator: str
    version: int  # bumped whenever the same seed could yield different lists
    seed: int  # the seed passed to :func:`generate_examples`
    rule_key: str  # the rule's ``split/id`` key (part of the generator's seed)
    methods: tuple[
        str, ...
    ]  # per example, ``sampled``, ``completed`` or ``guided`` (the last two: fallbacks)


def _sequence_terms(limit: int) -> dict[str, list[int]]:
    fib = [0, 1]
    while fib[-1] < limit:
        fib.append(fib[-1] + fib[-2])
    primes = [p for p in range(2, limit) if all(p % d for d in range(2, math.isqrt(p) + 1))]
    return {
        "primes": primes,
        "fibonacci": fib,
        "squares": [i * i for i in range(9)],
        "squares minus one": [i * i - 1 for i in range(9)],
        "cubes plus one": [i**3 + 1 for i in range(-3, 5)],
        "powers of two": [2**i for i in range(7)],
        "triangular": [i * (i + 1) // 2 for i in range(11)],
    }


_SEQUENCES = _sequence_terms(HIGH)

PROPOSALS: tuple[draw.Proposal, ...] = (
    draw.uniform(LOW, HIGH),
    draw.uniform(0, 12),
    draw.uniform(1, 30),
    draw.arithmetic(start=(-10, 30), step=(-6, 9)),
    draw.geometric(starts=(1, 2, 3, 5, -1, -2), ratios=(2, 3, -2, -1, 1)),
    draw.repeats(0, 30),
    draw.sorted_either_way(0, 40, descending=0.3),
    draw.multiples_of_some((2, 3, 4, 5, 6, 7, 10), factors=(0, 12)),
    draw.members([_SEQUENCES[name] for name in sorted(_SEQUENCES)]),
    draw.fibonacci_like(-3, 9),
    draw.digit_pattern,
    draw.zigzag(start=(0, 30), step=(1, 12)),
    draw.affine_recurrence,
)
"""The rule-agnostic proposals of the sampling step (see :mod:`wason.tasks.lists.draw`), chosen uniformly."""

_BASE_VALUES = tuple(range(LOW, HIGH + 1))


def _derived_values(items: Sequence[int]) -> list[int]:
    """Values a next item might plausibly take: the base range plus simple functions of the items so far,
    distinct and sorted (so that shuffling them is reproducible)."""
    values = set(_BASE_VALUES)
    offsets = range(-13, 14)
    if items:
        p = items[-1]
        values.update(a * p + c for a in range(-5, 6) for c in offsets)
        values.update(p * p + c for c in offsets)
        values.update((p // 2, p // 3, -p))
    if len(items) >= 2:
        p, p2 = items[-1], items[-2]
        for base in (p + p2, p - p2, p2 - p, p * p2):
            values.update(base + c for c in offsets)
    if len(items) >= 3:
        values.update((items[-1] - items[-3], items[-3] - items[-1]))
    if items:
        total, product = sum(items), math.prod(items)
        values.update(total + c for c in offsets)
        values.update((product, -product))
    values.update([-v for v in values])
    return sorted(v for v in values if abs(v) <= MAX_MAGNITUDE)


def _complete(rule: ListRule, rng: random.Random, n: int) -> list[int] | None:
    """A sampled prefix of ``n - 1`` items finished with a last item that makes the list pass, if any."""
    prefix = rng.choice(PROPOSALS)(rng, n - 1)
    candidates = _derived_values(prefix)
    rng.shuffle(candidates)
    for x in candidates:
        if rule.predicate([*prefix, x]):
            return [*prefix, x]
    return None


def _grow(rule: ListRule, rng: random.Random, n: int) -> list[int] | None:
    """A list grown item by item, preferring items that keep the list so far accepted.

    Many rules constrain each item by the ones before it, so an accepted prefix can usually be extended; when
    no candidate keeps the prefix accepted (say the rule needs a later item), a base value is taken instead
    and only the whole list must pass.
    """
    items: list[int] = []
    for _ in range(n):
        candidates = _derived_values(items)
        rng.shuffle(candidates)
        chosen = next((x for x in candidates if rule.predicate([*items, x])), None)
        items.append(rng.choice(_BASE_VALUES) if chosen is None else chosen)
    return items if rule.predicate(items) else None


def _draw(
    rule: ListRule, rng: random.Random, n: int, taken: set[tuple[int, ...]], *, varied: bool
) -> tuple[list[int], str] | None:
    """One new accepted list of length ``n``: sampling first, then the two fallbacks.

    With ``varied``, lists dominated by one value are refused: many sequential rules have a fixed point
    ([0, 0, 0] for the Collatz variant, [1, 1, 1] for 2p - 1) that passes but teaches nothing about the rule.
    """

    def fits(xs: list[int] | None) -> bool:
        if xs is None or tuple(xs) in taken:
            return False
        return not varied or max(xs.count(x) for x in xs) <= max(2, len(xs) // 2)

    for _ in range(SAMPLING_DRAWS):
        xs = rng.choice(PROPOSALS)(rng, n)
        if fits(xs) and rule.predicate(xs):
            return xs, SAMPLED
    for method, build, tries in ((COMPLETED, _complete, COMPLETION_TRIES), (GUIDED, _grow, GUIDED_TRIES)):
        for _ in range(tries):
            built = build(rule, rng, n)
            if built is not None and fits(built):
                return built, method
    return None


def generate_examples_with_provenance(
    rule: ListRule, *, seed: int, k: int = 3
) -> tuple[list[list[int]], ExampleProvenance]:
    """Draw ``k`` distinct lists the rule accepts (lengths 3 to 7, spread over different lengths where the rule
    allows), and record how they were made. ``seed`` is combined with the rule's key so rules do not share lists.
    ValueError if ``k`` is below 1, or no ``k`` distinct accepted lists were found for the rule."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    # A string seed is hashed deterministically (unlike hash() of a str), so runs agree across processes.
    rng = random.Random(f"{GENERATOR}/{VERSION}/{seed}/{rule.key}")
    lengths = list(range(MIN_LENGTH, MAX_LENGTH + 1))
    rng.shuffle(lengths)
    examples: list[list[int]] = []
    methods: list[str] = []
    taken: set[tuple[int, ...]] = set()
    # A (length, varied) attempt that found nothing is not tried again for later examples: the rule (e.g. "at
    # most 4 items") rules that length out, and each failed attempt costs the whole sampling budget.
    barren: set[tuple[int, bool]] = set()
    for i in range(k):
        # Each example first tries its own length so the set is not all one length; other lengths are a
        # last resort for rules that allow only some.
        preferred = lengths[i % len(lengths)]
        found = None
        used = {len(xs) for xs in examples}
        # Fallback lengths not used yet come first, so a rule that rules out some lengths still gets a spread.
        others = sorted((m for m in lengths if m != preferred), key=lambda m: m in used)
        order = [preferred, *others]
        attempts = [(n, varied) for varied in (True, False) for n in order if (n, varied) not in barren]
        for n, varied in attempts:
            found = _draw(rule, rng, n, taken, varied=varied)
            if found is not None:
                break
            barren.add((n, varied))
        if found is None:
            raise ValueError(f"no {k} distinct examples found for rule {rule.key}: {rule.text!r}")
        xs, method = found
        examples.append(xs)
        methods.append(method)
        taken.add(tuple(xs))
    provenance = ExampleProvenance(GENERATOR, VERSION, seed, rule.key, tuple(methods))
    return examples, provenance


def generate_examples(rule: ListRule, *, seed: int, k: int = 3) -> list[list[int]]:
    """The examples of :func:`generate_examples_with_provenance`, without their provenance."""
    return generate_examples_with_provenance(rule, seed=seed, k=k)[0]
