"""Spellings of a guess's linear equalities, which Python's floats can tell apart.

Over the reals ``y == x - 3``, ``x - y == 3`` and ``x == y + 3`` are one rule; in Python they are three, because
each rounds differently: ``y == x - 3`` holds at ``(-2.9, -5.9, 3.0)`` while ``x - y == 3`` does not. The judge
follows Python, so a scientist that has found the line still has to find how the rule writes it, and it can: a
test at a decimal point on the line where the spellings disagree tells them apart like any other test.

:func:`spellings` lists the usual ways of writing each linear equality of a guess (a variable against the rest,
the two sides with positive terms, all terms on the left) and every combination of them over the guess's
equalities, the most usual first. :func:`on_the_lines` makes typeable decimal points that satisfy all of the
guess's equalities over the reals, where the spellings can disagree.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from wason.tasks.wilt.built import _number_text

F = npt.NDArray[np.float64]

VARIABLES = ("x", "y", "z")
MAX_SPELLINGS = 64
"""At most this many combinations of spellings are considered for one guess."""


@dataclass(frozen=True)
class Equality:
    """A linear equality ``sum(coefficients[v] * v) == constant`` found at ``start:end`` of the guess's text."""

    coefficients: tuple[int, int, int]
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


def equalities(text: str) -> list[Equality]:
    """The linear equalities of two or more variables with integer coefficients in a lambda's text (a chained
    comparison is left alone)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return []
    found: list[Equality] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
            continue
        left, right = _linear(node.left), _linear(node.comparators[0])
        if left is None or right is None or node.end_col_offset is None:
            continue
        coefficients = [a - b for a, b in zip(left[0], right[0], strict=True)]
        if sum(1 for c in coefficients if c) < 2 or any(c.denominator != 1 for c in coefficients):
            continue
        found.append(
            Equality(
                coefficients=(int(coefficients[0]), int(coefficients[1]), int(coefficients[2])),
                constant=right[1] - left[1],
                start=node.col_offset,
                end=node.end_col_offset,
            )
        )
    found.sort(key=lambda e: e.start)
    return found


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


def _ways(e: Equality) -> list[str]:
    """Ways of writing one equality, the most usual first: a variable of coefficient 1 against the rest (the
    last variable first: ``z == x + y + 1``), the positive terms against the negative ones (``x + z == y + 2``,
    either way round), and all terms on the left (``x - y + z == 2``), also negated."""
    terms = [(c, v) for c, v in zip(e.coefficients, VARIABLES, strict=True) if c]
    k = e.constant
    ways: list[str] = []
    for c, v in reversed(terms):
        if abs(c) != 1:
            continue
        rest = [(-c * d, w) for d, w in terms if w != v]
        ways.append(f"{v} == {_sum(rest, c * k)}")
    positive = [(c, v) for c, v in terms if c > 0]
    negative = [(-c, v) for c, v in terms if c < 0]
    if positive and negative:
        if k >= 0:
            a, b = _sum(positive), _sum(negative, k)
        else:
            a, b = _sum(positive, -k), _sum(negative)
        ways += [f"{a} == {b}", f"{b} == {a}"]
    ways.append(f"{_sum(terms)} == {_number(k)}")
    ways.append(f"{_sum([(-c, v) for c, v in terms])} == {_number(-k)}")
    return list(dict.fromkeys(ways))


def spellings(text: str) -> list[str]:
    """The guess written every usual way over its linear equalities (the most usual first, the guess's own
    spelling among them; just the guess when it has none)."""
    found = equalities(text)
    if not found:
        return [text]
    options = [_ways(e) for e in found]
    out: list[str] = []
    for choice in itertools.islice(itertools.product(*options), MAX_SPELLINGS):
        pieces, at = [], 0
        for e, way in zip(found, choice, strict=True):
            pieces += [text[at : e.start], way]
            at = e.end
        pieces.append(text[at:])
        out.append("".join(pieces))
    if text not in out:
        out.append(text)
    return out


def on_the_lines(text: str, n: int = 400, seed: int = 0) -> F:
    """Up to ``n`` typeable points with one decimal that satisfy every linear equality of the guess over the
    reals (each equality solved in turn for a variable of coefficient 1 not yet set; empty when it cannot be)."""
    found = equalities(text)
    rng = np.random.default_rng(seed)
    # decimals of magnitude below 10 first (the likeliest to round differently), then up to 50
    points = np.round(rng.uniform(-9.9, 9.9, (n, 3)), 1)
    points[n // 2 :] = np.round(rng.uniform(-49.9, 49.9, (n - n // 2, 3)), 1)
    solved: set[int] = set()
    for e in found:
        free = [i for i in range(3) if abs(e.coefficients[i]) == 1 and i not in solved]
        if not free:
            return np.zeros((0, 3))
        i = free[-1]
        others = sum(e.coefficients[j] * points[:, j] for j in range(3) if j != i)
        points[:, i] = np.round((float(e.constant) - others) * e.coefficients[i], 1)
        solved.add(i)
    # keep the points whose solved coordinates are still typeable and that satisfy every equality exactly
    tenths = np.round(points * 10).astype(np.int64)
    ok = (np.abs(points) < 100).all(axis=1)
    for e in found:
        lhs = sum(e.coefficients[j] * tenths[:, j] for j in range(3))
        ok &= lhs * e.constant.denominator == 10 * e.constant.numerator
    return np.ascontiguousarray(points[ok])
