"""Spellings of a guess's linear equalities, comparisons and thresholds, which Python's floats can tell apart.

Over the reals ``y == x - 3``, ``x - y == 3`` and ``x == y + 3`` are one rule; in Python they are three, because
each rounds differently: ``y == x - 3`` holds at ``(-2.9, -5.9, 3.0)`` while ``x - y == 3`` does not. The judge
follows Python, so a scientist that has found the line still has to find how the rule writes it, and it can: a
test at a decimal point on the line where the spellings disagree tells them apart like any other test.

A linear comparison is the same: ``y < z - 5``, ``y - z < -5`` and ``z > y + 5`` are one rule over the reals and
three in Python, told apart at decimals on their boundary ``y - z == -5``.

A threshold is the same: on whole numbers ``z > 6``, ``z >= 7`` and ``z > 6.5`` are one rule, and
``max(x, y, z) - min(x, y, z) <= 4`` is ``... < 5``, but a test at a decimal between the two whole numbers tells
them apart, and the judge's probes have decimals. Thresholds fitted to the observations fall between the values
tested (``x * z > 21.5``); the rule's author wrote a whole number.

:func:`spellings` writes a guess every usual way over its linear equalities, comparisons and thresholds;
:func:`on_the_lines` and :func:`beside` make the decimal points where those ways can disagree.
"""

from __future__ import annotations

import ast
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from wason.sandbox.pyast import parse
from wason.tasks.wilt.built_space import _number_text

F = npt.NDArray[np.float64]

VARIABLES = ("x", "y", "z")
MAX_SPELLINGS = 64
"""At most this many combinations of spellings are considered for one guess."""


@dataclass(frozen=True)
class Linear:
    """A linear comparison ``sum(coefficients[v] * v) op constant`` of two or more variables with integer
    coefficients, found at ``start:end`` of the guess's text (``x - y == 3``, ``y < z - 5``)."""

    coefficients: tuple[int, int, int]
    op: str  # "==", "<", "<=", ">" or ">="
    constant: Fraction
    start: int
    end: int


def _linear(node: ast.expr) -> tuple[list[Fraction], Fraction] | None:
    """The coefficients of x, y and z and the constant of a linear expression, or None."""
    if isinstance(node, ast.Name) and node.id in VARIABLES:
        c = [Fraction(0)] * 3
        c[VARIABLES.index(node.id)] = Fraction(1)
        return c, Fraction(0)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return [Fraction(0)] * 3, Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _linear(node.operand)
        return None if inner is None else ([-v for v in inner[0]], -inner[1])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        left, right = _linear(node.left), _linear(node.right)
        if left is None or right is None:
            return None
        sign = 1 if isinstance(node.op, ast.Add) else -1
        return [a + sign * b for a, b in zip(left[0], right[0], strict=True)], left[1] + sign * right[1]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        left, right = _linear(node.left), _linear(node.right)
        if left is None or right is None:
            return None
        if not any(left[0]):
            return [left[1] * v for v in right[0]], left[1] * right[1]
        if not any(right[0]):
            return [right[1] * v for v in left[0]], right[1] * left[1]
    return None


def _comparisons(text: str) -> list[ast.Compare]:
    """The comparisons of one operator in a lambda's text, in walking order (a chained comparison is left
    alone, and so are the comparisons inside another, ``(x < 0) + (y < 0) + (z < 0) == 1``; none when the text
    does not parse)."""
    try:
        tree = parse(text, mode="eval")
    except SyntaxError:
        return []
    found: list[ast.Compare] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.Compare):
            if len(node.ops) == 1:
                found.append(node)
            continue
        todo += list(ast.iter_child_nodes(node))
    return found


def equalities(text: str) -> list[Linear]:
    """The linear equalities of two or more variables with integer coefficients in a lambda's text (a chained
    comparison is left alone)."""
    return _linears(text, ("==",))


def inequalities(text: str) -> list[Linear]:
    """The linear comparisons of two or more variables with integer coefficients and variables on both sides in a
    lambda's text (one against a constant is a threshold, see :func:`thresholds`; a chained comparison is left
    alone), in the order of the text."""
    return _linears(text, ("<", "<=", ">", ">="))


def _linears(text: str, ops: tuple[str, ...]) -> list[Linear]:
    found: list[Linear] = []
    for node in _comparisons(text):
        op = _OPS.get(type(node.ops[0]))
        if op not in ops or node.end_col_offset is None:
            continue
        if op != "==" and (_constant(node.left) is not None or _constant(node.comparators[0]) is not None):
            continue
        form = _integer_comparison(node)
        if form is not None:
            found.append(Linear(form[0], op, form[1], node.col_offset, node.end_col_offset))
    found.sort(key=lambda q: q.start)
    return found


def _integer_comparison(node: ast.Compare) -> tuple[tuple[int, int, int], Fraction] | None:
    """A comparison ``left op right`` of linear sides as ``sum(c[v] * v) op k``: the integer coefficients of
    ``left - right`` and the constant of ``right - left``; None unless two or more variables are left, each with
    a whole coefficient."""
    left, right = _linear(node.left), _linear(node.comparators[0])
    if left is None or right is None:
        return None
    return _whole([a - b for a, b in zip(left[0], right[0], strict=True)], right[1] - left[1])


def _whole(coefficients: list[Fraction], k: Fraction) -> tuple[tuple[int, int, int], Fraction] | None:
    """The coefficients as integers, with ``k``, when two or more are not 0 and every one is whole."""
    if sum(1 for c in coefficients if c) < 2 or any(c.denominator != 1 for c in coefficients):
        return None
    return (int(coefficients[0]), int(coefficients[1]), int(coefficients[2])), k


@dataclass(frozen=True)
class Threshold:
    """A comparison ``side op constant`` (written either way round) at ``start:end`` of the guess's text."""

    side: str  # the source text of the side that is not the constant
    op: str  # "<", "<=", ">" or ">=", with the constant on the right
    constant: float
    start: int
    end: int


_ORDER = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_OPS = {ast.Eq: "==", **_ORDER}


def _constant(node: ast.expr) -> float | None:
    """The value of a number written as a constant, with a leading minus sign or not."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant(node.operand)
        return None if inner is None else -inner
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def thresholds(text: str) -> list[Threshold]:
    """The comparisons of an expression with a constant in a lambda's text (a chained comparison is left
    alone), in the order of the text."""
    found: list[Threshold] = []
    for node in _comparisons(text):
        op = _ORDER.get(type(node.ops[0]))
        if op is None or node.end_col_offset is None:
            continue
        left, right = node.left, node.comparators[0]
        c, side = _constant(right), left
        if c is None:
            c, side, op = _constant(left), right, _MIRROR[op]
        if c is None or _constant(side) is not None or not math.isfinite(c):
            continue
        source = ast.get_source_segment(text, side)
        if source is None:
            continue
        found.append(Threshold(source, op, c, node.col_offset, node.end_col_offset))
    found.sort(key=lambda t: t.start)
    return found


def band_sides(found: list[Threshold]) -> set[str]:
    """The sides that two or more of the thresholds compare, each a band (``y >= 5 and y <= 15``)."""
    sides = [t.side for t in found]
    return {side for side in sides if sides.count(side) > 1}


BAND_REACH = 5
"""How far beyond the whole numbers beside a band's end its other ways reach (1 for a threshold alone)."""
OTHER_CUT = 0.2
"""The weight of a way of writing a threshold that differs from the guess's at a whole number (the guess's own
way, and those that differ from it only between whole numbers, weigh 1)."""


def _cut(op: str, c: float) -> int:
    """The whole number at which a threshold turns: the last one below it (``<``, ``<=``) or the first above."""
    if op == "<":
        return math.ceil(c) - 1
    if op == "<=":
        return math.floor(c)
    return math.floor(c) + 1 if op == ">" else math.ceil(c)


def _threshold_ways(t: Threshold, text: str, reach: int = 1) -> list[tuple[str, float]]:
    """Ways of writing a threshold of ``text`` with their weights, its own first: the same direction, strict or
    not, at its constant and at the whole numbers from the one below it less ``reach`` to the one above it plus
    ``reach``; those that say what the guess says at every whole number weigh most (``z > 6`` for ``z >= 7``)."""
    ops = ("<", "<=") if t.op in ("<", "<=") else (">", ">=")
    low, high = math.floor(t.constant), math.ceil(t.constant)
    constants = [t.constant] + [float(k) for k in range(low - reach, high + reach + 1)]
    side = t.side if _simple(t.side) else f"({t.side})"
    cut = _cut(t.op, t.constant)
    linear = _integer_form(t.side)
    ways = {text[t.start : t.end]: 1.0}
    for k in dict.fromkeys(constants):
        for op in ops:
            weight = 1.0 if _cut(op, k) == cut else OTHER_CUT
            ways.setdefault(f"{side} {op} {_number_text(k)}", weight)
            if linear is not None and weight == 1.0:
                # a side of two or more variables rearranged too (``x + y - z > 10`` is ``x + y > z + 10``),
                # where it says what the guess says at every whole number
                for way in _linear_ways(linear[0], op, Fraction(str(k)) - linear[1]):
                    ways.setdefault(way, weight)
    return sorted(ways.items(), key=lambda way: -way[1])  # stable: the guess's own first


def _integer_form(source: str) -> tuple[tuple[int, int, int], Fraction] | None:
    """The integer coefficients of x, y and z and the constant of a linear expression with terms of both signs
    (a difference: ``x - y`` is also written ``x > y + 3``; a sum, ``x + y > 10``, is written as it is), or
    None."""
    try:
        found = _linear(parse(source, mode="eval").body)
    except SyntaxError:
        return None
    if found is None or not min(found[0]) < 0 < max(found[0]):
        return None
    return _whole(found[0], found[1])


def _simple(source: str) -> bool:
    """Whether a side needs no brackets before a comparison (anything but a comparison, a boolean or a
    ``not``)."""
    try:
        node = parse(source, mode="eval").body
    except SyntaxError:
        return False
    negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    return not (
        negated or isinstance(node, ast.Compare | ast.BoolOp | ast.IfExp | ast.Lambda | ast.NamedExpr)
    )


def conjuncts(text: str) -> list[str]:
    """Each part of a lambda's top-level conjunction as a lambda of its own (none when it is no conjunction):
    a part that agrees with every answer alone is a simpler guess than the whole (``z ** 2 >= z and
    x + y - z == -1`` is the grammar's spelling of a line patched where Python's floats put the rule off it)."""
    try:
        body = parse(text, mode="eval").body
    except SyntaxError:
        return []
    if not (
        isinstance(body, ast.Lambda)
        and isinstance(body.body, ast.BoolOp)
        and isinstance(body.body.op, ast.And)
    ):
        return []
    head = text[: body.body.col_offset]
    parts = [ast.get_source_segment(text, value) for value in body.body.values]
    return [head + part for part in parts if part is not None]


def _number(v: Fraction) -> str:
    return _number_text(float(v))


def _sum(terms: list[tuple[int, str]], constant: Fraction = Fraction(0)) -> str:
    """``terms`` (coefficient, variable) and a constant written as a sum, the first term positive if any is."""
    terms = sorted(terms, key=lambda t: t[0] < 0)  # positive terms first, otherwise in order
    out = ""
    for c, v in terms:
        word = v if abs(c) == 1 else f"{abs(c)} * {v}"
        if not out:
            out = word if c > 0 else f"-{word}"
        else:
            out += f" + {word}" if c > 0 else f" - {word}"
    if constant:
        if not out:
            return _number(constant)
        out += f" + {_number(constant)}" if constant > 0 else f" - {_number(-constant)}"
    return out or "0"


def _linear_ways(coefficients: tuple[int, int, int], op: str, k: Fraction) -> list[str]:
    """Ways of writing ``sum(coefficients[v] * v) op k``, the most usual first: a variable of coefficient 1
    against the rest (the last variable first: ``z == x + y + 1``), the positive terms against the negative ones
    (``x + z == y + 2``, either way round), and all terms on the left (``x - y + z == 2``), also negated; a side
    moved to the other side of a comparison mirrors it (``x - y < -5`` is ``y > x + 5``)."""
    mirror = _MIRROR.get(op, op)
    terms = [(c, v) for c, v in zip(coefficients, VARIABLES, strict=True) if c]
    ways: list[str] = []
    for c, v in reversed(terms):
        if abs(c) != 1:
            continue
        rest = [(-c * d, w) for d, w in terms if w != v]
        ways.append(f"{v} {op if c > 0 else mirror} {_sum(rest, c * k)}")
    positive = [(c, v) for c, v in terms if c > 0]
    negative = [(-c, v) for c, v in terms if c < 0]
    if positive and negative:
        if k >= 0:
            a, b = _sum(positive), _sum(negative, k)
        else:
            a, b = _sum(positive, -k), _sum(negative)
        ways += [f"{a} {op} {b}", f"{b} {mirror} {a}"]
    ways.append(f"{_sum(terms)} {op} {_number(k)}")
    ways.append(f"{_sum([(-c, v) for c, v in terms])} {mirror} {_number(-k)}")
    return list(dict.fromkeys(ways))


def spellings(text: str) -> list[str]:
    """The guess written every usual way over its linear equalities and its thresholds (the guess's own
    spelling among them, each threshold's own way first; just the guess when it has neither)."""
    return [t for t, _ in weighted_spellings(text)]


def weighted_spellings(text: str) -> list[tuple[str, float]]:
    """:func:`spellings` with their weights (the product of their thresholds' ways' weights), the heaviest
    first."""
    # the thresholds' ways vary slowest, so that every combination of the equalities' ways is made first
    found = thresholds(text)
    bands = band_sides(found)
    # a band's ends (two thresholds on one side) reach farther: its tests were spent on both ends, and an end
    # is often still wide open (``y <= 36`` guessed after yes at 36 and no at 41, for ``y <= 40``)
    places: list[tuple[int, int, list[tuple[str, float]]]] = [
        (t.start, t.end, _threshold_ways(t, text, BAND_REACH if t.side in bands else 1)) for t in found
    ]
    places += [
        (e.start, e.end, [(w, 1.0) for w in _linear_ways(e.coefficients, "==", e.constant)])
        for e in equalities(text)
    ]
    # linear comparisons with variables on both sides (those against a constant are thresholds, above)
    for q in inequalities(text):
        ways = dict.fromkeys([text[q.start : q.end], *_linear_ways(q.coefficients, q.op, q.constant)], 1.0)
        places.append((q.start, q.end, list(ways.items())))
    if not places:
        return [(text, 1.0)]
    out: dict[str, float] = {}
    for choice in itertools.islice(itertools.product(*(ways for _, _, ways in places)), MAX_SPELLINGS):
        pieces, at, weight = [], 0, 1.0
        for (start, end, _), (way, w) in sorted(zip(places, choice, strict=True), key=lambda c: c[0][0]):
            pieces += [text[at:start], way]
            at = end
            weight *= w
        pieces.append(text[at:])
        out.setdefault("".join(pieces), weight)
    out.setdefault(text, 1.0)
    return sorted(out.items(), key=lambda item: -item[1])


def on_the_lines(text: str, n: int = 400, seed: int = 0) -> F:
    """Up to ``n`` typeable points with one decimal that satisfy every linear equality of the guess over the
    reals (empty when they cannot be solved, see :func:`_on`), then up to ``n / 4`` on each boundary of its
    linear comparisons (see :func:`_edges`)."""
    rng = np.random.default_rng(seed)
    on_lines = _on([(e.coefficients, e.constant) for e in equalities(text)], n, rng)
    if on_lines is None:
        return np.zeros((0, 3))
    edges = [points for edge in _edges(text) if (points := _on([edge], n // 4, rng)) is not None]
    return np.concatenate([on_lines, *edges], axis=0)


def _edges(text: str) -> list[tuple[tuple[int, int, int], Fraction]]:
    """The boundaries ``sum(c[v] * v) == k`` of the guess's linear comparisons (against a constant or not), at
    each whole number where one of its ways of writing says what the guess says (see :func:`_threshold_ways`)."""
    found = dict.fromkeys((q.coefficients, q.constant) for q in inequalities(text))
    for t in thresholds(text):
        linear = _integer_form(t.side)
        if linear is None:
            continue
        # the whole numbers either side of where it turns: ``> 10`` and ``>= 11``, ``< 5`` and ``<= 4``
        cut = _cut(t.op, t.constant)
        for k in (cut, cut + 1 if t.op in ("<", "<=") else cut - 1):
            found[(linear[0], k - linear[1])] = None
    return list(found)


def _on(lines: list[tuple[tuple[int, int, int], Fraction]], n: int, rng: np.random.Generator) -> F | None:
    """Up to ``n`` typeable points with one decimal on every ``sum(coefficients[v] * v) == k`` of ``lines`` over
    the reals (where the ways of writing it, or a comparison of that boundary, can disagree in Python): each
    solved in turn for a variable of coefficient 1 or -1 not yet set; None when one has no such variable."""
    solved: list[int] = []
    for coefficients, _ in lines:
        free = [i for i in range(3) if abs(coefficients[i]) == 1 and i not in solved]
        if not free:
            return None
        solved.append(free[-1])
    # decimals of magnitude below 10 first (the likeliest to round differently), then up to 50
    points = np.round(rng.uniform(-9.9, 9.9, (n, 3)), 1)
    points[n // 2 :] = np.round(rng.uniform(-49.9, 49.9, (n - n // 2, 3)), 1)
    for (coefficients, k), i in zip(lines, solved, strict=True):
        others = sum(coefficients[j] * points[:, j] for j in range(3) if j != i)
        points[:, i] = np.round((float(k) - others) * coefficients[i], 1)
    # keep the points whose solved coordinates are still typeable and that satisfy every line exactly
    tenths = np.round(points * 10).astype(np.int64)
    ok = (np.abs(points) < 100).all(axis=1)
    for coefficients, k in lines:
        lhs = sum(coefficients[j] * tenths[:, j] for j in range(3))
        ok &= lhs * k.denominator == 10 * k.numerator
    return np.ascontiguousarray(points[ok])


BESIDE_STEPS = (-2.5, -1.5, -0.9, -0.7, -0.5, -0.3, -0.1, 0.1, 0.3, 0.5, 0.7, 0.9, 1.5, 2.5)
"""How far :func:`beside` moves one coordinate of a tested point."""


def beside(tested: npt.ArrayLike) -> F:
    """Typeable points one coordinate of a tested point away (by :data:`BESIDE_STEPS`, or a whole step of one or
    two in two coordinates): where a threshold between the tested values can be crossed at a decimal."""
    done = np.asarray(tested, dtype=np.float64).reshape(-1, 3)
    steps = np.zeros((len(BESIDE_STEPS), 2))
    offsets = [np.insert(steps, axis, BESIDE_STEPS, axis=1) for axis in range(3)]
    whole = np.array([(a, b) for a in (-2, -1, 1, 2) for b in (-2, -1, 1, 2)], dtype=np.float64)
    offsets += [np.insert(whole, axis, 0.0, axis=1) for axis in (2, 1, 0)]  # (x, y), (x, z) and (y, z) moved
    points = np.round((done[:, None, :] + np.concatenate(offsets)[None]).reshape(-1, 3), 1)
    points = points[(np.abs(points) < 1000).all(axis=1)]
    points[points == 0] = 0.0  # no negative zero
    return np.ascontiguousarray(np.unique(points, axis=0))
