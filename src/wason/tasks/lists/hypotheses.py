"""A hypothesis space of list rules: a grammar of element properties, sequential relations, aggregates, length
and a few combinations, de-duplicated by extension, each with a plain-English statement.

Every hypothesis carries three faces of one rule: ``text`` for a person, ``source`` (a ``lambda xs: ...`` in the
restricted Python subset the sandbox interprets) for a model or a judge, and ``predicate`` (plain Python, fast) for
code. Tests evaluate every ``source`` and compare it with its ``predicate`` on the whole extension probe.

The space serves both as the source of the generated split (:mod:`wason.tasks.lists.generate`) and as the
hypothesis space of the reference solver, whose prior is ``2 ** -complexity``. ``docs/lists-generated.md``
describes the families, parameters, probe and de-duplication.

Conventions are those of :mod:`wason.tasks.lists.rules`: inputs are sequences of Python ints; rules over every
item, pair or triple hold vacuously on lists too short to have one; rules that need an item (the first, the last,
the largest) fail on the empty list; primes are integers >= 2; digit rules read the digits of the absolute value.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from wason.tasks.lists.draw import Proposal, uniform_mixed, uniform_one_of
from wason.tasks.lists.rules import Predicate, is_prime

SPACE_VERSION = "wason-list-hypotheses-1"
"""Bump whenever the grammar, a statement, a complexity or the extension probe changes."""

FAMILIES = ("element", "sequential", "aggregate", "length", "combination")

PROBE_SEED = "wason.lists.probe/1"
"""Seed of the extension probe's random parts (a string, hashed deterministically by ``random.Random``)."""

CONJUNCTION_COST = 1
"""Complexity of ``A and B`` is ``complexity(A) + complexity(B) + CONJUNCTION_COST``."""

DISJUNCTION_COST = 2
"""Complexity of ``A or B`` is ``complexity(A) + complexity(B) + DISJUNCTION_COST``."""

IntPredicate = Callable[[int], bool]


@dataclass(frozen=True)
class Hypothesis:
    """One candidate list rule."""

    key: str  # stable id, e.g. ``all:even``, ``seq:add:3``, ``len:eq:3``, ``and(all:pos,seq:inc)``
    family: str  # ``element``, ``sequential``, ``aggregate``, ``length`` or ``combination``
    text: str  # the rule as a plain-English statement
    source: str  # the same rule as ``lambda xs: ...`` in the sandbox's restricted Python subset
    predicate: Predicate  # the same rule as fast plain Python over a sequence of ints
    complexity: int  # description length; the solver's prior weight is ``2 ** -complexity``

    @property
    def expr(self) -> str:
        """The body of :attr:`source`: the boolean expression over ``xs``."""
        return self.source.removeprefix("lambda xs: ")

    def __call__(self, xs: Sequence[int]) -> bool:
        return self.predicate(xs)


def _hyp(key: str, family: str, text: str, expr: str, predicate: Predicate, complexity: int) -> Hypothesis:
    return Hypothesis(key, family, text, f"lambda xs: {expr}", predicate, complexity)


_NAMES: dict[str, object] = {"math": math, "is_prime": is_prime}


def _python(params: str, expr: str) -> Callable[..., bool]:
    """``lambda params: expr`` compiled by Python, for this grammar's own text (never a model's or a user's):
    a rule is written once, so its ``source`` and its fast ``predicate`` cannot say different things."""
    fn: Callable[..., bool] = eval(f"lambda {params}: {expr}", _NAMES)  # trusted text, built in this module
    return fn


def _signed(c: int) -> str:
    """``+ 3`` or ``- 3``, for writing ``a + c`` in source."""
    return f"+ {c}" if c >= 0 else f"- {-c}"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


# ---------------------------------------------------------------------------------------------- element


@dataclass(frozen=True)
class _Property:
    """A property of one integer."""

    key: str  # part of the hypothesis key
    verb: str  # a singular verb phrase, "is even"; :func:`_plural` makes "are even"
    cond: str  # a source template with ``{x}`` for the item
    fn: IntPredicate
    cost: int  # its share of the complexity


def _prop(key: str, verb: str, cond: str, cost: int, fn: IntPredicate | None = None) -> _Property:
    """A property whose function is its condition compiled, unless a faster equivalent ``fn`` is given."""
    return _Property(key, verb, cond, fn or _python("x", cond.format(x="x")), cost)


def _has_digit(d: int) -> IntPredicate:
    digit = str(d)
    return lambda x: digit in str(abs(x))


_PLURAL_VERBS = {
    "is": "are",
    "has": "have",
    "ends": "end",
    "contains": "contain",
    "leaves": "leave",
    "reads": "read",
}


def _plural(verb: str) -> str:
    """The verb phrase for a plural subject: "is even" -> "are even", "is a multiple of 3" -> "are multiples
    of 3" (the head noun of "is a ..." is the word before " of", " (" or the end)."""
    for article in ("is a ", "is an "):
        if verb.startswith(article):
            noun = verb[len(article) :]
            ends = [i for i in (noun.find(" of "), noun.find(" (")) if i >= 0]
            head = min(ends) if ends else len(noun)
            return f"are {noun[:head]}s{noun[head:]}"
    first, _, rest = verb.partition(" ")
    return f"{_PLURAL_VERBS[first]} {rest}"


# Bounds and intervals a person would pick: small numbers, tens, and the digit ranges.
GREATER_THAN = (-10, -5, 1, 2, 3, 5, 9, 10, 20, 50, 100)
LESS_THAN = (-5, 2, 3, 5, 10, 20, 50, 100)
RANGES = ((1, 6), (0, 9), (1, 9), (0, 10), (1, 10), (1, 20), (10, 20), (10, 99), (1, 100), (-5, 5), (-10, 10))
MULTIPLES = (3, 4, 5, 6, 7, 8, 9, 10)
RESIDUE_MODULI = (3, 4, 5, 6)

_FIBONACCI = (
    "{x} >= 0 and (math.isqrt(5 * {x} * {x} + 4) ** 2 == 5 * {x} * {x} + 4"
    " or math.isqrt(5 * {x} * {x} - 4) ** 2 == 5 * {x} * {x} - 4)"
)
_DIGIT_SUM = "sum(int(d) for d in str(abs({x})))"


def _named_properties() -> list[_Property]:
    """The properties with a name of their own: parity, sign, kinds of number, digits."""
    rows = (
        ("even", "is even", "{x} % 2 == 0", 1),
        ("odd", "is odd", "{x} % 2 == 1", 1),
        ("pos", "is positive", "{x} > 0", 1),
        ("neg", "is negative", "{x} < 0", 1),
        ("zero", "is 0", "{x} == 0", 1),
        ("prime", "is a prime number", "is_prime({x})", 1),
        ("nonneg", "is 0 or more", "{x} >= 0", 2),
        ("nonpos", "is 0 or less", "{x} <= 0", 2),
        ("nonzero", "is not 0", "{x} != 0", 2),
        (
            "square",
            "is a perfect square (0, 1, 4, 9, 16, ...)",
            "{x} >= 0 and math.isqrt({x}) ** 2 == {x}",
            2,
        ),
        ("fib", "is a Fibonacci number (0, 1, 2, 3, 5, 8, 13, ...)", _FIBONACCI, 3),
        (
            "tri",
            "is a triangular number (0, 1, 3, 6, 10, 15, ...)",
            "{x} >= 0 and math.isqrt(8 * {x} + 1) ** 2 == 8 * {x} + 1",
            3,
        ),
        (
            "sqm1",
            "is one less than a perfect square (-1, 0, 3, 8, 15, ...)",
            "{x} >= -1 and math.isqrt({x} + 1) ** 2 == {x} + 1",
            3,
        ),
        (
            "pal",
            "reads the same backwards as forwards (like 7, 44 or 121; a minus sign is ignored)",
            "str(abs({x})) == str(abs({x}))[::-1]",
            3,
        ),
        ("digit1", "is a single digit (from -9 to 9)", "-9 <= {x} <= 9", 2),
        ("digit2", "has exactly two digits (a minus sign is not a digit)", "10 <= abs({x}) <= 99", 3),
        ("dsum:even", "has digits that add up to an even number", f"{_DIGIT_SUM} % 2 == 0", 3),
        ("dsum:odd", "has digits that add up to an odd number", f"{_DIGIT_SUM} % 2 == 1", 3),
    )
    return [_prop(*row) for row in rows]


def _parametrised_properties() -> list[_Property]:
    """The properties of a parameter: multiples, remainders, bounds, ranges, last and contained digits."""
    props = [_prop(f"mul:{k}", f"is a multiple of {k}", f"{{x}} % {k} == 0", 2) for k in MULTIPLES]
    props += [
        _prop(f"mod:{k}:{r}", f"leaves remainder {r} when divided by {k}", f"{{x}} % {k} == {r}", 3)
        for k in RESIDUE_MODULI
        for r in range(1, k)
    ]
    props += [_prop(f"gt:{c}", f"is greater than {c}", f"{{x}} > {c}", 2) for c in GREATER_THAN]
    props += [_prop(f"lt:{c}", f"is less than {c}", f"{{x}} < {c}", 2) for c in LESS_THAN]
    props += [
        _prop(f"range:{lo}:{hi}", f"is between {lo} and {hi} (inclusive)", f"{lo} <= {{x}} <= {hi}", 3)
        for lo, hi in RANGES
    ]
    props += [
        _prop(f"ends:{d}", f"ends in the digit {d}", f"abs({{x}}) % 10 == {d}", 3) for d in range(1, 10)
    ]
    props += [
        _prop(
            f"digit:{d}",
            f"contains the digit {d}",
            f"any(int(d) == {d} for d in str(abs({{x}})))",
            3,
            _has_digit(d),
        )
        for d in range(10)
    ]
    return props


def _element_properties() -> list[_Property]:
    return [*_named_properties(), *_parametrised_properties()]


_MAKERS: dict[str, Callable[[IntPredicate], Predicate]] = {
    "all": lambda fn: lambda xs: all(map(fn, xs)),
    "any": lambda fn: lambda xs: any(map(fn, xs)),
    "none": lambda fn: lambda xs: not any(map(fn, xs)),
    "first": lambda fn: lambda xs: len(xs) > 0 and fn(xs[0]),
    "last": lambda fn: lambda xs: len(xs) > 0 and fn(xs[-1]),
    "second": lambda fn: lambda xs: len(xs) > 1 and fn(xs[1]),
    "one": lambda fn: lambda xs: sum(map(fn, xs)) == 1,
    "most": lambda fn: lambda xs: 2 * sum(map(fn, xs)) > len(xs),
    "oddcount": lambda fn: lambda xs: sum(map(fn, xs)) % 2 == 1,
    "evencount": lambda fn: lambda xs: sum(map(fn, xs)) % 2 == 0,
}
"""Each quantifier's predicate from its property's (faster than compiling the quantified source)."""


@dataclass(frozen=True)
class _Quantifier:
    """How many or which items must have a property."""

    key: str  # part of the hypothesis key
    cost: int  # its share of the complexity
    max_property_cost: int  # only properties at most this costly get this quantifier
    statement: str  # with ``{v}`` for the singular verb phrase and ``{vp}`` for the plural
    template: str  # the expression over ``xs``, with ``{c}`` for the property's condition on ``subject``
    subject: str = "x"  # the item (or the loop variable ``x``) the condition is about

    def text(self, verb: str, plural: str) -> str:
        return self.statement.format(v=verb, vp=plural)

    def source(self, cond: str) -> str:
        return self.template.format(c=cond.format(x=self.subject))

    def make(self, fn: IntPredicate) -> Predicate:
        return _MAKERS[self.key](fn)


_COUNT = "len([x for x in xs if {c}])"
_QUANTIFIERS = (
    _Quantifier("all", 1, 3, "Every item {v}.", "all({c} for x in xs)"),
    _Quantifier("any", 1, 3, "At least one item {v}.", "any({c} for x in xs)"),
    _Quantifier("none", 2, 3, "No item {v}.", "not any({c} for x in xs)"),
    _Quantifier("first", 2, 3, "The first item {v}.", "len(xs) > 0 and ({c})", "xs[0]"),
    _Quantifier("last", 2, 3, "The last item {v}.", "len(xs) > 0 and ({c})", "xs[-1]"),
    _Quantifier("second", 3, 1, "The second item {v}.", "len(xs) > 1 and ({c})", "xs[1]"),
    _Quantifier("one", 2, 3, "Exactly one item {v}.", f"{_COUNT} == 1"),
    _Quantifier("most", 2, 3, "More than half of the items {vp}.", f"2 * {_COUNT} > len(xs)"),
    _Quantifier("oddcount", 3, 2, "An odd number of the items {vp}.", f"{_COUNT} % 2 == 1"),
    _Quantifier(
        "evencount",
        3,
        2,
        "An even number of the items {vp} (none at all counts as even).",
        f"{_COUNT} % 2 == 0",
    ),
)


def _element() -> Iterator[Hypothesis]:
    props = _element_properties()
    # Quantifier-major order: ties of complexity keep the "every"/"at least one" spelling of a class.
    for q in _QUANTIFIERS:
        for p in props:
            if p.cost > q.max_property_cost:
                continue
            yield _hyp(
                f"{q.key}:{p.key}",
                "element",
                q.text(p.verb, _plural(p.verb)),
                q.source(p.cond),
                q.make(p.fn),
                q.cost + p.cost,
            )


# ---------------------------------------------------------------------------------------------- sequential

_PAIRS = "for a, b in zip(xs, xs[1:])"
_TRIPLES = "for a, b, c in zip(xs, xs[1:], xs[2:])"

ADD_STEPS = tuple(c for c in range(-10, 11) if c != 0)
MUL_FACTORS = (2, 3, 4, 5, 10, -1, -2, -3)
AFFINE = tuple((k, c) for k in (2, 3, -1, -2) for c in (1, -1, 2, -2, 3, -3))
CLOSE_STEPS = (1, 2, 3, 5, 10)
FAR_STEPS = (2, 3, 5, 10)
EXACT_STEPS = (1, 2, 3, 5, 10)


def _rule(key: str, family: str, cost: int, text: str, expr: str) -> Hypothesis:
    """A rule whose predicate is its expression compiled."""
    return _hyp(key, family, text, expr, _python("xs", expr), cost)


def _pair_rule(key: str, cost: int, text: str, cond: str, triples: bool = False) -> Hypothesis:
    """Every pair of neighbours ``a, b`` (with ``triples``, every three ``a, b, c``) satisfies ``cond``."""
    fn = _python("a, b, c" if triples else "a, b", cond)

    def predicate(xs: Sequence[int]) -> bool:
        return all(map(fn, xs, xs[1:], xs[2:]) if triples else map(fn, xs, xs[1:]))

    return _hyp(
        f"seq:{key}", "sequential", text, f"all({cond} {_TRIPLES if triples else _PAIRS})", predicate, cost
    )


_triple_rule = functools.partial(_pair_rule, triples=True)


def _times_text(k: int) -> str:
    if k == 2:
        return "twice the previous item"
    if k == -1:
        return "the negative of the previous item"
    return f"{k} times the previous item"


_AFTER = "Each item after the first"


def _order_rules() -> Iterator[Hypothesis]:
    """How neighbours compare: up, down, never equal, evenly spaced."""
    yield _pair_rule("inc", 2, f"{_AFTER} is greater than the one before it.", "a < b")
    yield _pair_rule("dec", 2, f"{_AFTER} is less than the one before it.", "a > b")
    yield _pair_rule("nondec", 2, f"{_AFTER} is at least as large as the one before it.", "a <= b")
    yield _pair_rule("noninc", 2, f"{_AFTER} is at most as large as the one before it.", "a >= b")
    yield _pair_rule("differ", 2, "No two neighbouring items are equal.", "a != b")
    yield _triple_rule(
        "arith", 2, "The differences between neighbouring items are all the same.", "c - b == b - a"
    )


def _follow_rules() -> Iterator[Hypothesis]:
    """Each item made from the one before it: plus, times, an affine map, the square, a multiple, a divisor."""
    for c in ADD_STEPS:
        how = f"plus {c}" if c > 0 else f"minus {-c}"
        yield _pair_rule(
            f"add:{c}", 2 + (abs(c) > 1), f"{_AFTER} is the previous item {how}.", f"b == a {_signed(c)}"
        )
    for k in MUL_FACTORS:
        cond = "b == -a" if k == -1 else f"b == {k} * a"
        yield _pair_rule(f"mul:{k}", 3, f"{_AFTER} is {_times_text(k)}.", cond)
    for k, c in AFFINE:
        if k == -1:
            text = (
                f"{c} minus the previous item" if c > 0 else f"the negative of the previous item, minus {-c}"
            )
            cond = f"b == {c} - a" if c > 0 else f"b == -a - {-c}"
        else:
            how = f"plus {c}" if c > 0 else f"minus {-c}"
            text = f"{_times_text(k)} {how}"
            cond = f"b == {k} * a {_signed(c)}"
        yield _pair_rule(f"aff:{k}:{c}", 5, f"{_AFTER} is {text}.", cond)
    yield _pair_rule("square", 3, f"{_AFTER} is the square of the previous item.", "b == a * a")
    yield _pair_rule("double+", 3, f"{_AFTER} is more than twice the previous item.", "b > 2 * a")
    yield _pair_rule(
        "multof",
        3,
        f"{_AFTER} is a multiple of the previous item (after a 0, only 0 may follow).",
        "(b == 0 if a == 0 else b % a == 0)",
    )
    yield _pair_rule(
        "divof",
        3,
        f"{_AFTER} divides the previous item exactly (a 0 may only follow a 0).",
        "(a == 0 if b == 0 else a % b == 0)",
    )


def _difference_rules() -> Iterator[Hypothesis]:
    """How far apart neighbours are, and whether their parities differ."""
    for c in CLOSE_STEPS:
        yield _pair_rule(f"close:{c}", 3, f"Neighbouring items differ by at most {c}.", f"abs(b - a) <= {c}")
    for c in FAR_STEPS:
        yield _pair_rule(f"far:{c}", 3, f"Neighbouring items differ by at least {c}.", f"abs(b - a) >= {c}")
    for c in EXACT_STEPS:
        text = f"{_AFTER} is exactly {c} more or {c} less than the previous item."
        yield _pair_rule(f"step:{c}", 3, text, f"abs(b - a) == {c}")
    yield _pair_rule(
        "altpar",
        3,
        "Neighbouring items have different parity (one is even, the other odd).",
        "(a + b) % 2 == 1",
    )
    yield _pair_rule(
        "samepar", 3, "Neighbouring items have the same parity (both even or both odd).", "(a + b) % 2 == 0"
    )


def _pattern_rules() -> Iterator[Hypothesis]:
    """Rules over more than a pair, or over digits and positions: zigzag, growing steps, Fibonacci, ..."""
    yield _rule(
        "seq:zigzag",
        "sequential",
        3,
        "The items go alternately up and down (so no two neighbouring items are equal).",
        f"all(a != b {_PAIRS}) and all((b - a) * (c - b) < 0 {_TRIPLES})",
    )
    yield _rule(
        "seq:diffs:distinct",
        "sequential",
        3,
        "The differences between neighbouring items are all different.",
        f"len(set(b - a {_PAIRS})) == len(xs[1:])",
    )
    yield _triple_rule(
        "convex",
        3,
        "The differences between neighbouring items keep growing (each step is bigger than the last).",
        "c - b > b - a",
    )
    yield _triple_rule(
        "concave",
        3,
        "The differences between neighbouring items keep shrinking (each step is smaller than the last).",
        "c - b < b - a",
    )
    yield _triple_rule(
        "fib", 3, "Each item after the second is the sum of the two items before it.", "c == a + b"
    )
    yield _triple_rule(
        "between",
        5,
        "Each item after the second lies strictly between the two items before it.",
        "min(a, b) < c < max(a, b)",
    )
    yield _pair_rule(
        "primediff",
        4,
        "Neighbouring items differ by a prime number (2, 3, 5, 7, ...).",
        "is_prime(abs(b - a))",
    )
    yield _pair_rule(
        "primesum", 4, "Each pair of neighbouring items adds up to a prime number.", "is_prime(a + b)"
    )
    yield _pair_rule(
        "sharedigit",
        5,
        f"{_AFTER} shares at least one digit with the item before it (minus signs are ignored).",
        "any(d == e for d in str(abs(a)) for e in str(abs(b)))",
    )
    yield _pair_rule(
        "nosharedigit",
        5,
        "No item shares a digit with the item before it (minus signs are ignored).",
        "not any(d == e for d in str(abs(a)) for e in str(abs(b)))",
    )
    yield _rule(
        "seq:posmul",
        "sequential",
        4,
        "Each item is a multiple of its position in the list (the first of 1, the second of 2, and so on).",
        "all(x % (i + 1) == 0 for i, x in enumerate(xs))",
    )
    yield _rule(
        "seq:sumprev",
        "sequential",
        4,
        f"{_AFTER} is the sum of all the items before it.",
        "all(xs[i] == sum(xs[:i]) for i in range(1, len(xs)))",
    )


def _sequential() -> Iterator[Hypothesis]:
    yield from _order_rules()
    yield from _follow_rules()
    yield from _difference_rules()
    yield from _pattern_rules()


# ---------------------------------------------------------------------------------------------- aggregate

SUM_TARGETS = (0, 1, 5, 10, 12, 15, 20, 24, 30, 50, 100)
SUM_MULTIPLES = (3, 4, 5, 10)
SUM_RESIDUE_MODULI = (3, 4, 5)
SUM_BOUNDS = (0, 10, 20, 50, 100)
CONTAINS = (1, 2, 3, 5, 7, 10, 13, 42, 100, -1)
SPREADS = (1, 2, 3, 5, 10, 20)
DISTINCT_COUNTS = (2, 3)
MAX_VALUES = (1, 5, 10, 100)
MIN_VALUES = (0, 1)
SAME_RESIDUE_MODULI = (3, 4, 5)


def _agg(key: str, cost: int, text: str, expr: str) -> Hypothesis:
    return _rule(f"agg:{key}", "aggregate", cost, text, expr)


def _repeat_and_sum_parity_aggregates() -> Iterator[Hypothesis]:
    """The cheapest ideas (complexity 2): repeats, all equal, the sum's parity, equal ends, a number present."""
    yield _agg("norep", 2, "No number appears more than once.", "len(set(xs)) == len(xs)")
    yield _agg("repeat", 2, "Some number appears more than once.", "len(set(xs)) < len(xs)")
    yield _agg("same", 2, "All the items are equal.", "len(set(xs)) <= 1")
    yield _agg("sum:even", 2, "The sum of the items is even (an empty list sums to 0).", "sum(xs) % 2 == 0")
    yield _agg("sum:odd", 2, "The sum of the items is odd.", "sum(xs) % 2 == 1")
    yield _agg(
        "firstlast:eq",
        2,
        "The first and last items are equal (a one-item list counts).",
        "len(xs) > 0 and xs[0] == xs[-1]",
    )
    for v in CONTAINS:
        text = f"The number {v} appears in the list."
        yield _agg(f"has:{v}", 2 if 0 <= v <= 10 else 3, text, f"any(x == {v} for x in xs)")


def _sum_aggregates() -> Iterator[Hypothesis]:
    """The sum: a target, a multiple, a bound, a prime."""
    for c in SUM_TARGETS:
        text = "The items add up to 0 (an empty list sums to 0)." if c == 0 else f"The items add up to {c}."
        yield _agg(f"sum:eq:{c}", 2 if c == 0 else 3, text, f"sum(xs) == {c}")
    for k in SUM_MULTIPLES:
        yield _agg(f"sum:mul:{k}", 3, f"The sum of the items is a multiple of {k}.", f"sum(xs) % {k} == 0")
    for c in SUM_BOUNDS:
        yield _agg(f"sum:gt:{c}", 3, f"The items add up to more than {c}.", f"sum(xs) > {c}")
        yield _agg(f"sum:lt:{c}", 3, f"The items add up to less than {c}.", f"sum(xs) < {c}")
    yield _agg("sum:prime", 3, "The sum of the items is a prime number.", "is_prime(sum(xs))")


def _end_aggregates() -> Iterator[Hypothesis]:
    """The first and last items: their order, an extreme at either end."""
    yield _agg(
        "firstlast:lt", 3, "The first item is less than the last item.", "len(xs) > 0 and xs[0] < xs[-1]"
    )
    yield _agg(
        "firstlast:gt", 3, "The first item is greater than the last item.", "len(xs) > 0 and xs[0] > xs[-1]"
    )
    for pos, index in (("first", 0), ("last", -1)):
        for kind in ("max", "min"):
            word = "largest" if kind == "max" else "smallest"
            yield _agg(
                f"{pos}:{kind}",
                3,
                f"The {pos} item is the {word} in the list (others may equal it).",
                f"len(xs) > 0 and xs[{index}] == {kind}(xs)",
            )


def _value_aggregates() -> Iterator[Hypothesis]:
    """The values as a set: their spread, how many differ, the largest and smallest, shared remainders and digits."""
    for c in SPREADS:
        text = f"No two items differ by more than {c}."
        yield _agg(f"spread:{c}", 3, text, f"len(xs) == 0 or max(xs) - min(xs) <= {c}")
    for n in DISTINCT_COUNTS:
        yield _agg(
            f"distinct:eq:{n}",
            3,
            f"Exactly {n} different numbers appear in the list.",
            f"len(set(xs)) == {n}",
        )
        yield _agg(
            f"distinct:le:{n}",
            3,
            f"At most {n} different numbers appear in the list.",
            f"len(set(xs)) <= {n}",
        )
    for c in MAX_VALUES:
        yield _agg(f"max:{c}", 3, f"The largest item is {c}.", f"len(xs) > 0 and max(xs) == {c}")
    for c in MIN_VALUES:
        yield _agg(f"min:{c}", 3, f"The smallest item is {c}.", f"len(xs) > 0 and min(xs) == {c}")
    yield _agg(
        "first:repeat",
        3,
        "The first item appears again later in the list.",
        "len(xs) > 0 and any(x == xs[0] for x in xs[1:])",
    )
    for k in SAME_RESIDUE_MODULI:
        text = f"All the items leave the same remainder when divided by {k}."
        yield _agg(f"samemod:{k}", 3, text, f"len(set(x % {k} for x in xs)) <= 1")
    yield _agg(
        "samelast",
        3,
        "All the items end in the same digit (minus signs are ignored).",
        "len(set(abs(x) % 10 for x in xs)) <= 1",
    )
    yield _agg("max:even", 3, "The largest item is even.", "len(xs) > 0 and max(xs) % 2 == 0")


def _product_and_mean_aggregates() -> Iterator[Hypothesis]:
    """The product's sign, a whole mean, a palindrome."""
    yield _agg(
        "prod:pos",
        3,
        "The product of the items is positive (an empty list's product is 1).",
        "all(x != 0 for x in xs) and len([x for x in xs if x < 0]) % 2 == 0",
    )
    yield _agg(
        "prod:neg",
        3,
        "The product of the items is negative.",
        "all(x != 0 for x in xs) and len([x for x in xs if x < 0]) % 2 == 1",
    )
    yield _agg(
        "mean:int",
        3,
        "The average of the items is a whole number (an empty list has no average).",
        "len(xs) > 0 and sum(xs) % len(xs) == 0",
    )
    yield _agg(
        "palindrome",
        3,
        "The list reads the same backwards as forwards.",
        "all(xs[i] == xs[-1 - i] for i in range(len(xs)))",
    )


def _costly_aggregates() -> Iterator[Hypothesis]:
    """The costlier ideas (complexity 4, 5): a sum's remainder or square, the length as an item, digits, more evens."""
    for k in SUM_RESIDUE_MODULI:
        for r in range(1, k):
            text = f"The sum of the items leaves remainder {r} when divided by {k}."
            yield _agg(f"sum:mod:{k}:{r}", 4, text, f"sum(xs) % {k} == {r}")
    yield _agg(
        "sum:square",
        4,
        "The sum of the items is a perfect square (0, 1, 4, 9, ...).",
        "sum(xs) >= 0 and math.isqrt(sum(xs)) ** 2 == sum(xs)",
    )
    yield _agg(
        "sumothers",
        4,
        "Some item equals the sum of all the other items.",
        "any(2 * x == sum(xs) for x in xs)",
    )
    yield _agg(
        "first:len",
        4,
        "The first item equals the number of items in the list.",
        "len(xs) > 0 and xs[0] == len(xs)",
    )
    yield _agg(
        "has:len",
        4,
        "The number of items in the list is itself one of the items.",
        "any(x == len(xs) for x in xs)",
    )
    yield _agg(
        "digits:norep",
        5,
        "No digit appears twice anywhere in the list (minus signs are ignored).",
        "len([d for x in xs for d in str(abs(x))]) == len(set(d for x in xs for d in str(abs(x))))",
    )
    yield _agg(
        "digits:sum:10",
        5,
        "The digits of all the items add up to 10 (minus signs are ignored).",
        "sum(int(d) for x in xs for d in str(abs(x))) == 10",
    )
    yield _agg(
        "evens>odds",
        4,
        "There are more even items than odd ones.",
        "len([x for x in xs if x % 2 == 0]) > len([x for x in xs if x % 2 == 1])",
    )


def _aggregate() -> Iterator[Hypothesis]:
    # in this order: within a family, generation order breaks ties between rules of one extension
    yield from _repeat_and_sum_parity_aggregates()
    yield from _sum_aggregates()
    yield from _end_aggregates()
    yield from _value_aggregates()
    yield from _product_and_mean_aggregates()
    yield from _costly_aggregates()


# ---------------------------------------------------------------------------------------------- length

LENGTHS = tuple(range(0, 9))
LENGTH_BOUNDS = tuple(range(1, 8))
LENGTH_EXCLUDED = (1, 2, 3, 4, 5)


def _items(n: int) -> str:
    return "1 item" if n == 1 else f"{n} items"


def _len(key: str, cost: int, text: str, expr: str) -> Hypothesis:
    return _rule(f"len:{key}", "length", cost, text, expr)


def _length() -> Iterator[Hypothesis]:
    for n in LENGTHS:
        text = "The list is empty." if n == 0 else f"The list has exactly {_items(n)}."
        yield _len(f"eq:{n}", 2, text, f"len(xs) == {n}")
    for n in LENGTH_BOUNDS:
        yield _len(f"ge:{n}", 2, f"The list has at least {_items(n)}.", f"len(xs) >= {n}")
        yield _len(f"le:{n}", 2, f"The list has at most {_items(n)}.", f"len(xs) <= {n}")
    for n in LENGTH_EXCLUDED:
        yield _len(f"ne:{n}", 3, f"The list does not have exactly {_items(n)}.", f"len(xs) != {n}")
    yield _len("even", 2, "The list has an even number of items (an empty list counts).", "len(xs) % 2 == 0")
    yield _len("odd", 2, "The list has an odd number of items.", "len(xs) % 2 == 1")
    yield _len("prime", 2, "The number of items is a prime number (2, 3, 5, 7, ...).", "is_prime(len(xs))")
    yield _len(
        "mul:3", 3, "The number of items is a multiple of 3 (an empty list counts).", "len(xs) % 3 == 0"
    )


# ---------------------------------------------------------------------------------------------- combinations

# Simple, natural parts that combine into rules a person might set ("every item is even and the list has 3
# items"). Only pairs from different families are conjoined, which keeps the space in size.
COMBINABLE: dict[str, tuple[str, ...]] = {
    "element": (
        "all:even",
        "all:odd",
        "all:pos",
        "all:neg",
        "all:prime",
        "all:mul:3",
        "all:mul:5",
        "all:lt:10",
        "all:digit1",
        "all:nonneg",
        "all:square",
        "all:range:1:9",
        "all:mul:10",
        "any:even",
        "any:odd",
        "any:prime",
        "none:zero",
    ),
    "sequential": (
        "seq:inc",
        "seq:dec",
        "seq:nondec",
        "seq:noninc",
        "seq:differ",
        "seq:arith",
        "seq:altpar",
        "seq:zigzag",
        "seq:add:1",
        "seq:add:2",
        "seq:mul:2",
        "seq:samepar",
        "seq:close:3",
        "seq:far:3",
    ),
    "aggregate": (
        "agg:norep",
        "agg:repeat",
        "agg:sum:even",
        "agg:sum:odd",
        "agg:firstlast:eq",
        "agg:sum:lt:20",
        "agg:sum:gt:20",
        "agg:first:max",
        "agg:last:max",
        "agg:sum:eq:10",
        "agg:has:3",
    ),
    "length": (
        "len:eq:3",
        "len:eq:4",
        "len:eq:5",
        "len:ge:3",
        "len:ge:4",
        "len:le:4",
        "len:le:5",
        "len:even",
        "len:odd",
    ),
}

# Disjunctions a person would state as one idea ("all the same parity", "monotone").
DISJUNCTIONS = (
    ("all:even", "all:odd"),
    ("all:pos", "all:neg"),
    ("seq:inc", "seq:dec"),
    ("seq:nondec", "seq:noninc"),
    ("all:prime", "all:square"),
    ("all:mul:3", "all:mul:5"),
    ("len:eq:3", "len:eq:5"),
)


def _combine(op: str, a: Hypothesis, b: Hypothesis) -> Hypothesis:
    """``A and B`` or ``A or B``: the parts' statements joined into one sentence."""
    pa, pb = a.predicate, b.predicate
    both = op == "and"
    return _hyp(
        f"{op}({a.key},{b.key})",
        "combination",
        f"{a.text[:-1]}, and {_lower_first(b.text)}"
        if both
        else f"Either {_lower_first(a.text[:-1])}, or {_lower_first(b.text)}",
        f"({a.expr}) {op} ({b.expr})",
        (lambda xs: pa(xs) and pb(xs)) if both else (lambda xs: pa(xs) or pb(xs)),
        a.complexity + b.complexity + (CONJUNCTION_COST if both else DISJUNCTION_COST),
    )


def _combination_parts(prims: dict[str, Hypothesis]) -> list[tuple[str, Hypothesis, Hypothesis]]:
    """``("and" | "or", a, b)`` for every combination in the grammar, in generation order."""
    out: list[tuple[str, Hypothesis, Hypothesis]] = []
    families = list(COMBINABLE)
    for i, fa in enumerate(families):
        for fb in families[i + 1 :]:
            for ka in COMBINABLE[fa]:
                for kb in COMBINABLE[fb]:
                    out.append(("and", prims[ka], prims[kb]))
    out.extend(("or", prims[ka], prims[kb]) for ka, kb in DISJUNCTIONS)
    return out


# ---------------------------------------------------------------------------------------------- the probe


def _affine_run(x0: int, k: int, c: int, n: int) -> tuple[int, ...]:
    xs = [x0]
    while len(xs) < n:
        xs.append(k * xs[-1] + c)
    return tuple(xs)


def _recurrence(start: Sequence[int], step: Callable[[list[int]], int], n: int) -> tuple[int, ...]:
    xs = list(start)
    while len(xs) < n:
        xs.append(step(xs))
    return tuple(xs[:n])


_RANGES = ((-20, 60), (0, 12), (1, 30), (-5, 5), (-1000, 1000), (0, 100), (-12, 12))


@cache
def extension_probe() -> tuple[tuple[int, ...], ...]:
    """The 2,525 fixed lists (the same in every process) every hypothesis is evaluated on to compare extensions.

    Its four parts, in order (duplicates dropped; random parts from ``random.Random(PROBE_SEED)``), are listed in
    ``docs/lists-generated.md``: each is there so that rules a person would tell apart get different extensions.
    The probe only approximates meaning: a test checks every merge it makes on 6,000 other random and
    structured lists (45,000 were checked when it was written), and finds none wrong.
    """
    rng = random.Random(PROBE_SEED)
    one_range = uniform_one_of(_RANGES)
    out = _number_lists(rng, one_range)
    out += _sequential_positives(rng)
    out += _property_members(rng)
    out += _aggregate_positives(rng, one_range)
    return tuple(dict.fromkeys(out))  # duplicates dropped, first occurrence kept


def _number_lists(rng: random.Random, one_range: Proposal) -> list[tuple[int, ...]]:
    """The empty list, single numbers, every pair over -3..8, random lists from one range or mixed ranges."""
    out: list[tuple[int, ...]] = [()]
    out += [(v,) for v in range(-25, 131)]
    notable = (144, 169, 196, 200, 210, 225, 233, 256, 377, 400, 500, 610, 999, 1000, 1001, 1024, 4181, 12321)
    out += [(v,) for v in (*notable, -30, -44, -50, -99, -100, -121, -1000)]
    out += [(a, b) for a in range(-3, 9) for b in range(-3, 9)]

    mixed = uniform_mixed(_RANGES)
    out += [tuple(one_range(rng, rng.randint(2, 9))) for _ in range(500)]
    out += [tuple(mixed(rng, rng.randint(2, 9))) for _ in range(300)]
    return out


def _sequential_positives(rng: random.Random) -> list[tuple[int, ...]]:
    """Positive instances of every parametrised sequential rule, with random starts."""
    out: list[tuple[int, ...]] = []
    # Every step of the grammar at every length 2-8 (so "plus 1" is told apart from "plus 1 and at most 4 items").
    out += [_affine_run(rng.randint(-10, 30), 1, step, n) for step in range(-12, 13) for n in range(2, 9)]
    for k in (-3, -2, -1, 2, 3, 4, 5, 10):
        for c in range(-5, 6):
            for n in (3, 4, 5, 6) if c in (-3, 0, 1, 3) else (3, 5):
                out.append(_affine_run(rng.randint(-4, 7), k, c, n))
    for x0 in (-3, -2, 2, 3, 4, 5, 10):
        out.append(_recurrence([x0], lambda xs: xs[-1] * xs[-1], 3 + (abs(x0) <= 3)))
    for _ in range(30):
        xs = [rng.choice((-3, -2, -1, 1, 2, 3, 4, 5))]
        for _ in range(rng.randint(2, 5)):
            xs.append(xs[-1] * rng.choice((-2, -1, 1, 2, 3, 5, 0)))
        out.append(tuple(xs))
        out.append(tuple(reversed(xs)))
    for _ in range(15):
        a, b = rng.randint(-5, 10), rng.randint(-5, 10)
        out.append(_recurrence([a, b], lambda xs: xs[-1] + xs[-2], rng.randint(3, 7)))
        out.append(_recurrence([rng.randint(-5, 10)], sum, rng.randint(2, 6)))
    for _ in range(40):
        x, up, xs = rng.randint(-10, 30), rng.random() < 0.5, []
        for _ in range(rng.randint(3, 7)):
            xs.append(x)
            x += rng.randint(1, 9) * (1 if up else -1)
            up = not up
        out.append(tuple(xs))
    for _ in range(40):
        x, xs = rng.randint(-10, 30), []
        parity_flip = rng.random() < 0.5
        for _ in range(rng.randint(3, 7)):
            xs.append(x)
            x += rng.choice((1, 3, 5, -1, -3, 7)) if parity_flip else rng.choice((2, 4, -2, 6, 0, -4))
        out.append(tuple(xs))
    for c in (1, 2, 3, 4, 5, 6, 10, 11):
        for _ in range(4):
            x, xs = rng.randint(-10, 30), []
            for _ in range(rng.randint(3, 7)):
                xs.append(x)
                x += rng.choice((c, -c))
            out.append(tuple(xs))
    for _ in range(20):
        x, d, xs = rng.randint(-10, 20), rng.randint(-6, 4), []
        for _ in range(rng.randint(3, 6)):
            xs.append(x)
            d += rng.randint(1, 4)
            x += d
        out.append(tuple(xs))
        out.append(tuple(-v for v in xs))
    for _ in range(20):
        a, b = rng.randint(-10, 40), rng.randint(-10, 40)
        xs = [a, b]
        for _ in range(rng.randint(1, 4)):
            lo, hi = min(xs[-2:]), max(xs[-2:])
            if hi - lo < 2:
                break
            xs.append(rng.randint(lo + 1, hi - 1))
        out.append(tuple(xs))
    for _ in range(20):
        x, xs = rng.randint(1, 5), []
        for _ in range(rng.randint(3, 5)):
            xs.append(x)
            x = x * 2 + rng.randint(1, 4)
        out.append(tuple(xs))
    return out


def _property_members(rng: random.Random) -> list[tuple[int, ...]]:
    """Members of common properties, sorted both ways and shuffled, and runs with a step inside each."""
    out: list[tuple[int, ...]] = []
    pools = {
        "even": list(range(-10, 41, 2)),
        "odd": list(range(-9, 40, 2)),
        "prime": [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47],
        "mul3": list(range(-9, 61, 3)),
        "mul5": list(range(-10, 101, 5)),
        "mul7": list(range(0, 99, 7)),
        "small": list(range(0, 10)),
        "negative": list(range(-30, 0)),
        "positive": list(range(1, 40)),
        "square": [0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100],
        "fib": [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89],
        "tens": list(range(10, 100)),
        "mul10": list(range(-50, 101, 10)),
        "digit": list(range(-9, 10)),
        "1..9": list(range(1, 10)),
        "nonneg": list(range(0, 30)),
    }
    spacing = {"even": 2, "odd": 2, "mul3": 3, "mul5": 5, "mul7": 7, "mul10": 10}
    for name, pool in pools.items():
        for _ in range(4):
            for order in ("up", "down", "any"):
                xs = rng.sample(pool, rng.randint(2, 7))
                if order != "any":
                    xs.sort(reverse=order == "down")
                out.append(tuple(xs))
            out.append(tuple(rng.choice(pool) for _ in range(rng.randint(3, 7))))
        # Runs with a constant step inside the property (even numbers going up by 2, ...).
        for _ in range(3):
            step = spacing.get(name, 1) * rng.choice((1, 2, -1, -2))
            out.append(_affine_run(rng.choice(pool), 1, step, rng.randint(3, 6)))
    return out


def _aggregate_positives(rng: random.Random, one_range: Proposal) -> list[tuple[int, ...]]:
    """Aggregate positives and near misses, then random lists of every length 0-9."""
    out: list[tuple[int, ...]] = []
    out += [(rng.randint(-10, 30),) * rng.randint(2, 6) for _ in range(20)]
    for _ in range(30):
        pool = [rng.randint(-5, 20) for _ in range(rng.randint(1, 3))]
        out.append(tuple(rng.choice(pool) for _ in range(rng.randint(3, 7))))
    for _ in range(20):
        half = [rng.randint(-5, 20) for _ in range(rng.randint(1, 3))]
        middle = [rng.randint(-5, 20)] if rng.random() < 0.5 else []
        out.append(tuple(half + middle + half[::-1]))
    for _ in range(20):
        ends, inner = rng.randint(-5, 30), [rng.randint(-10, 40) for _ in range(rng.randint(1, 4))]
        out.append((ends, *inner, ends))
    for _ in range(20):
        inner = [rng.randint(-10, 40) for _ in range(rng.randint(2, 5))]
        out.append((max(inner) + rng.randint(0, 3), *inner))
        out.append((*inner, min(inner) - rng.randint(0, 3)))
    for target in (*SUM_TARGETS, 2, 7, 11, 16, 25, 36, 49):
        for _ in range(4):
            n = rng.randint(2, 5)
            xs = [rng.randint(-5, max(1, target // 2 + 3)) for _ in range(n - 1)]
            out.append((*xs, target - sum(xs)))
        for step in (2, 5, 10):
            xs = [step * rng.randint(-3, 5) for _ in range(rng.randint(1, 4))]
            out.append((*xs, target - sum(xs)))
    # Arithmetic runs with each target sum (1, 2, 3, 4 adds up to 10).
    for target in SUM_TARGETS:
        for step in (-3, -2, -1, 1, 2, 3):
            for n in range(2, 7):
                first, rest = divmod(target - step * n * (n - 1) // 2, n)
                if rest == 0:
                    out.append(tuple(first + i * step for i in range(n)))
    for c in SPREADS:
        for _ in range(3):
            base = rng.randint(-10, 50)
            out.append(tuple(base + rng.randint(0, c) for _ in range(rng.randint(3, 6))))
    for _ in range(15):
        xs = [rng.randint(-5, 20) for _ in range(rng.randint(2, 4))]
        xs.insert(rng.randint(0, len(xs)), sum(xs))
        out.append(tuple(xs))
    out += [(n, *(rng.randint(-5, 20) for _ in range(n - 1))) for n in range(1, 8)]
    out += [tuple(i * rng.randint(-3, 6) for i in range(1, rng.randint(3, 7))) for _ in range(15)]
    return out + [tuple(one_range(rng, n)) if n else () for n in range(10) for _ in range(3)]


# ---------------------------------------------------------------------------------------------- the space


def grammar() -> tuple[Hypothesis, ...]:
    """Every hypothesis the grammar generates (extensions may be equal), in generation order.

    Order: element, sequential, aggregate, length, then combinations; within a family the most natural
    spelling of an idea comes first, so it is the one kept when two spellings have one extension and one
    complexity.
    """
    prims = [*_element(), *_sequential(), *_aggregate(), *_length()]
    by_key = {h.key: h for h in prims}
    if len(by_key) != len(prims):
        raise RuntimeError("duplicate hypothesis keys in the list grammar")  # pragma: no cover
    return (*prims, *(_combine(op, a, b) for op, a, b in _combination_parts(by_key)))


def _extension(predicate: Predicate, probe: Sequence[tuple[int, ...]]) -> int:
    # One byte (0 or 1) per probe list; as an int, & and | act byte-wise like the boolean operators.
    return int.from_bytes(bytes(map(predicate, probe)), "big")


@cache
def _extensions() -> tuple[tuple[Hypothesis, ...], dict[str, int]]:
    """The grammar and every hypothesis's extension on the probe (combinations from their parts' bits)."""
    probe, hyps = extension_probe(), grammar()
    ext = {h.key: _extension(h.predicate, probe) for h in hyps if h.family != "combination"}
    for op, a, b in _combination_parts({h.key: h for h in hyps}):
        ext[f"{op}({a.key},{b.key})"] = ext[a.key] & ext[b.key] if op == "and" else ext[a.key] | ext[b.key]
    return hyps, ext


def extension(h: Hypothesis) -> int:
    """The extension of a grammar hypothesis (by key; KeyError if not one) on :func:`extension_probe`.

    As an int with one byte per list: byte ``i`` (from the most significant end) is 1 if ``h`` accepts list ``i``.
    """
    return _extensions()[1][h.key]


@cache
def build_space() -> tuple[Hypothesis, ...]:
    """The hypothesis space: the grammar de-duplicated by extension on :func:`extension_probe` (cached).

    Hypotheses are taken simplest first (ties in generation order); one with the same extension as a hypothesis
    already taken is dropped, so each extension class keeps its simplest member. Hypotheses true on every probe
    list or on none are dropped too (no game can be made of them, and they are not rules a person would set).
    The grammar's 1,881 hypotheses (917 single ideas, 964 combinations) give 1,802; combinations are evaluated
    as the bitwise and/or of their parts' extensions. About 1 s in a fresh process, 0.6 s warm.
    """
    hyps, ext = _extensions()
    full = int.from_bytes(b"\x01" * len(extension_probe()), "big")
    seen: set[int] = {0, full}
    kept: list[Hypothesis] = []
    for h in sorted(hyps, key=lambda h: h.complexity):  # a stable sort: ties stay in generation order
        if ext[h.key] not in seen:
            seen.add(ext[h.key])
            kept.append(h)
    return tuple(kept)


def get_hypothesis(key: str) -> Hypothesis:
    """A hypothesis of the grammar by key, e.g. ``and(all:pos,seq:inc)``, whether or not de-duplication kept it.

    Raises ValueError if the grammar has no such key.
    """
    found = _by_key().get(key)
    if found is None:
        raise ValueError(f"the list grammar has no hypothesis {key!r}")
    return found


@cache
def _by_key() -> dict[str, Hypothesis]:
    return {h.key: h for h in _extensions()[0]}


def parts(h: Hypothesis) -> tuple[Hypothesis, ...]:
    """The two hypotheses a combination joins, in the order of the key, or ``(h,)`` for any other hypothesis."""
    if h.family != "combination":
        return (h,)
    inner = h.key[h.key.index("(") + 1 : -1]
    first, second = inner.split(",", 1)
    return get_hypothesis(first), get_hypothesis(second)
