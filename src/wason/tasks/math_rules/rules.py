"""Sequence rules ``next = f(current, index)`` from a small seeded grammar, and the sequences they generate.

A rule is one operation with a constant (L1, L2) or one operation for even indices and another for odd ones (L3).
The operations are ``add c`` (``c < 0`` reads "subtracts"), ``mul c`` and ``floordiv c`` (Python's ``//``, rounding
towards minus infinity). Every value is a Python int, so a rule keeps the level's promise of integers by
construction. ``index`` is the position of the current value: 0 for a sequence's first term, so term ``k + 1``
is ``f(term k, k)``, as the reference's ``generate_next(current_value, index)`` was called.

Levels (see ``docs/math.md``):

* L1: one operation, ``add c`` for c in -10..-1, 1..10, ``mul c`` for c in 2..5, ``floordiv c`` for c in 2..3;
  starts 0..10 (the reference's randint(0, 10)).
* L2: the same with negative values: ``add c`` for c in -10..-1, 1..10, ``mul c`` for c in -4..-2, 2..4,
  ``floordiv c`` for c in -3..-2, 2..3; starts -10..0 (the reference's randint(-10, 0)).
* L3: two different L1 operations, one for even indices and one for odd; starts 0..10.

A sequence is 15 terms (the reference's length). It is *degenerate*, and never shown, when it is constant (all
zero included), leaves the bound ``|term| <= BOUND``, has a term that is not an int, or has settled: its last
``SETTLED_TAIL`` terms are equal (more than half the sequence says nothing). A rule whose sequences are mostly
degenerate (fewer than ``MIN_GOOD_STARTS`` of its level's starts give a good sequence) is rejected when it is
drawn, and the draw goes on; integer division alone always settles (at 0 or -1), so it is only ever played in L3,
next to an operation that grows.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Level = Literal["L1", "L2", "L3"]
LEVELS: tuple[Level, ...] = ("L1", "L2", "L3")
Kind = Literal["add", "mul", "floordiv"]

GENERATOR = "math_rules.grammar"
GENERATOR_VERSION = 1

LENGTH = 15
"""Terms per sequence (the reference's ``sequence_length``)."""
BOUND = 10**12
"""Largest |term| of a shown sequence: far below 2**53, so every term and every next value is exact in the
sandbox's float64 evaluation."""
SETTLED_TAIL = 8
"""A sequence whose last 8 of 15 terms are equal has settled (degenerate)."""
MIN_GOOD_STARTS = 8
"""A rule is kept only when at least 8 of its level's 11 starts give a non-degenerate sequence."""
MAX_DRAWS = 1000
"""Rule draws before the generator gives up (never reached: most draws are kept)."""

START_RANGES: dict[str, tuple[int, int]] = {"L1": (0, 10), "L2": (-10, 0), "L3": (0, 10)}
"""Inclusive start ranges per level (the reference: randint(0, 10) for L1 and L3, randint(-10, 0) for L2)."""

_NONZERO_10 = tuple(c for c in range(-10, 11) if c != 0)
OPERATIONS: dict[str, dict[str, tuple[int, ...]]] = {
    "L1": {"add": _NONZERO_10, "mul": (2, 3, 4, 5), "floordiv": (2, 3)},
    "L2": {"add": _NONZERO_10, "mul": (-4, -3, -2, 2, 3, 4), "floordiv": (-3, -2, 2, 3)},
    "L3": {"add": _NONZERO_10, "mul": (2, 3, 4), "floordiv": (2, 3)},
}
"""The constants of each operation per level (the grammar)."""


@dataclass(frozen=True)
class Op:
    """One operation with its constant."""

    kind: Kind
    c: int

    def __post_init__(self) -> None:
        if self.kind not in ("add", "mul", "floordiv"):
            raise ValueError(f"kind must be add, mul or floordiv, not {self.kind!r}")
        if self.kind == "floordiv" and self.c == 0:
            raise ValueError("c: integer division by zero")

    def apply(self, v: int) -> int:
        if self.kind == "add":
            return v + self.c
        if self.kind == "mul":
            return v * self.c
        return v // self.c

    def text(self) -> str:
        """Words, as in the reference's rule texts ("adds 5 to the current value")."""
        if self.kind == "add":
            if self.c < 0:
                return f"subtracts {-self.c} from the current value"
            return f"adds {self.c} to the current value"
        if self.kind == "mul":
            return f"multiplies the current value by {self.c}"
        return f"divides the current value by {self.c}, rounding down"

    def python(self, v: str = "v") -> str:
        """The operation as a Python expression of ``v``."""
        if self.kind == "add":
            return f"{v} - {-self.c}" if self.c < 0 else f"{v} + {self.c}"
        c = self.c if self.c >= 0 else f"({self.c})"
        return f"{v} * {c}" if self.kind == "mul" else f"{v} // {c}"

    def as_json(self) -> list[Any]:
        return [self.kind, self.c]


@dataclass(frozen=True)
class MathRule:
    """A rule: ``even`` applies at even indices, ``odd`` at odd ones (the same operation for L1 and L2)."""

    even: Op
    odd: Op

    @property
    def alternating(self) -> bool:
        return self.even != self.odd

    def next(self, v: int, i: int) -> int:
        return (self.even if i % 2 == 0 else self.odd).apply(v)

    def text(self) -> str:
        if not self.alternating:
            return f"The sequence {self.even.text()} at each step."
        return (
            f"For an even index the sequence {self.even.text()}; for an odd index it {self.odd.text()} "
            "(the index of the first term is 0)."
        )

    def expression(self) -> str:
        """The rule in the guess language: ``lambda v, i: ...``."""
        if not self.alternating:
            return f"lambda v, i: {self.even.python()}"
        return f"lambda v, i: ({self.even.python()}) if i % 2 == 0 else ({self.odd.python()})"

    def code(self) -> str:
        """The rule as the reference's ``generate_next`` function (text for the judge; never executed)."""
        head = "def generate_next(current_value, index):\n"
        if not self.alternating:
            return head + f"    return {self.even.python('current_value')}"
        return (
            head
            + "    if index % 2 == 0:\n"
            + f"        return {self.even.python('current_value')}\n"
            + "    else:\n"
            + f"        return {self.odd.python('current_value')}"
        )

    def as_json(self) -> dict[str, Any]:
        return {"even": self.even.as_json(), "odd": self.odd.as_json()}

    @classmethod
    def from_json(cls, data: Any) -> MathRule:
        try:
            even, odd = data["even"], data["odd"]
            return cls(Op(even[0], int(even[1])), Op(odd[0], int(odd[1])))
        except (KeyError, IndexError, TypeError) as exc:
            raise ValueError(f"rule: not a math rule ({exc})") from None


def sequence(rule: MathRule, start: int, length: int = LENGTH) -> list[int]:
    """``length`` terms from ``start``; stops right after the first term beyond ``BOUND`` (so big ints stay
    small: one step past the bound at most)."""
    terms = [start]
    while len(terms) < length and abs(terms[-1]) <= BOUND:
        terms.append(rule.next(terms[-1], len(terms) - 1))
    return terms


def degeneracy(terms: Sequence[object], length: int = LENGTH) -> str | None:
    """Why a sequence may not be shown (``constant``, ``all zero``, ``overflow``, ``non-integer``,
    ``settled``), or None for a good one."""
    if any(not isinstance(t, int) or isinstance(t, bool) for t in terms):
        return "non-integer"
    ints = [int(t) for t in terms]  # type: ignore[call-overload]
    if len(ints) < length or any(abs(t) > BOUND for t in ints):
        return "overflow"
    if all(t == 0 for t in ints):
        return "all zero"
    if len(set(ints)) == 1:
        return "constant"
    if len(set(ints[-SETTLED_TAIL:])) == 1:
        return "settled"
    return None


def starts(level: str) -> range:
    low, high = START_RANGES[level]
    return range(low, high + 1)


def good_starts(rule: MathRule, level: str) -> list[int]:
    """The level's starts whose sequence is not degenerate."""
    return [s for s in starts(level) if degeneracy(sequence(rule, s)) is None]


def rule_rejection(rule: MathRule, level: str) -> str | None:
    """Why a drawn rule is rejected (mostly degenerate sequences), or None."""
    good = len(good_starts(rule, level))
    if good < MIN_GOOD_STARTS:
        n = len(starts(level))
        return f"only {good} of {n} starts give a usable sequence (at least {MIN_GOOD_STARTS} needed)"
    return None


def _draw_op(rng: random.Random, level: str) -> Op:
    ops = OPERATIONS[level]
    kind = rng.choice(sorted(ops))
    return Op(kind, rng.choice(ops[kind]))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Drawn:
    """A drawn rule with its provenance: the rules rejected on the way, with the reason."""

    rule: MathRule
    rejected: tuple[tuple[str, str], ...]


def draw_rule(level: str, seed: int | str) -> Drawn:
    """A rule of ``level`` drawn with its own ``random.Random(seed)``; same seed, same rule."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    rng = random.Random(f"{GENERATOR}|{GENERATOR_VERSION}|{level}|{seed}")
    rejected: list[tuple[str, str]] = []
    for _ in range(MAX_DRAWS):
        even = _draw_op(rng, level)
        odd = _draw_op(rng, level) if level == "L3" else even
        if level == "L3" and odd == even:
            rejected.append((MathRule(even, odd).text(), "the same operation on even and odd indices"))
            continue
        rule = MathRule(even, odd)
        reason = rule_rejection(rule, level)
        if reason is None:
            return Drawn(rule, tuple(rejected))
        rejected.append((rule.text(), reason))
    raise ValueError(f"no usable {level} rule in {MAX_DRAWS} draws")  # pragma: no cover - never reached


def draw_sequences(rule: MathRule, level: str, rng: random.Random, n: int) -> list[list[int]]:
    """``n`` good sequences from starts drawn uniformly among the level's good starts."""
    good = good_starts(rule, level)
    if not good:
        raise ValueError("the rule has no usable sequence")  # pragma: no cover - rejected when drawn
    return [sequence(rule, rng.choice(good)) for _ in range(n)]


def transitions(rule: MathRule, level: str) -> list[tuple[int, int, int]]:
    """Every ``(value, index, next)`` of the rule reachable from the level's starts, within the bound: the rule's
    extension on the game's domain (two rules with the same transitions generate the same sequence from every
    start a game can show, and a guess that agrees on all of them is the rule)."""
    out: dict[tuple[int, int], int] = {}
    for s in starts(level):
        terms = sequence(rule, s)
        for k in range(len(terms) - 1):
            if abs(terms[k]) <= BOUND and abs(terms[k + 1]) <= BOUND:
                out[(terms[k], k)] = terms[k + 1]
    return [(v, i, w) for (v, i), w in sorted(out.items())]


def quiz_starts(rule: MathRule, level: str) -> list[int]:
    """Starts beyond the level's range on its far side (L1, L3: 11..30; L2: -30..-11) with a good sequence:
    fresh starts for the continuation quiz, never shown as examples."""
    low, high = START_RANGES[level]
    fresh = range(-30, low) if level == "L2" else range(high + 1, 31)
    return [s for s in fresh if degeneracy(sequence(rule, s)) is None]
