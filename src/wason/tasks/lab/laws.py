"""The law language: what a lab domain's hidden relations are written in, and what a player writes its theory in.

A theory is a sequence of laws, one per line::

    on splorficate(a): a.zibblosity = a.zibblosity * 2 if a.quizzleplistic
    on wuzzle(a, b): b.flurb = b.flurb + a.zibblosity
    on wuzzle(a, b): b.glowing = b.flurb > 12

``on OP(a)`` names a one-object operation, ``on OP(a, b)`` one done by ``a`` (the actor) on ``b`` (the target).
A law sets one property of one of its objects to the value of an expression, optionally only ``if`` a condition
holds. Expressions: numbers, ``true``/``false``, ``a.prop``/``b.prop``, ``+ - * /``, unary ``-``, comparisons
``< <= > >= == !=``, ``and``, ``or``, ``not``, parentheses.

Semantics (the same for the hidden domain and for a player's theory): when an operation is applied, its laws
run in the order written, each reading the state the previous ones left. A law does nothing when one of its
objects lacks a property it names (a law about zibblosity says nothing about an object that has none), when its
condition is false, or when its value is not a finite number (a division by zero). A number property takes
numbers, a boolean property ``true``/``false``; a law of the wrong kind is refused when the theory is read.

This module holds the syntax tree and its evaluation; :mod:`wason.tasks.lab.theory` reads and writes the text.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Value = bool | float
"""A property's value: a boolean, or a number (held as a float)."""

ROLES = ("a", "b")
"""The names of a law's objects in its text: ``a`` (the one object, or the actor) and ``b`` (the target)."""


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Bool:
    value: bool


@dataclass(frozen=True)
class Ref:
    """A property of one of the law's objects: ``arg`` 0 is ``a``, 1 is ``b``."""

    arg: int
    prop: str


@dataclass(frozen=True)
class _Binary:
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class _Unary:
    operand: Expr


class Arith(_Binary):
    """``+ - * /``."""


class Compare(_Binary):
    """``< <= > >= == !=``."""


class Logic(_Binary):
    """``and``, ``or``."""


class Neg(_Unary):
    """Unary ``-``."""


class Not(_Unary):
    """``not``."""


Expr = Num | Bool | Ref | Arith | Neg | Compare | Not | Logic


@dataclass(frozen=True)
class Law:
    """``on op(a[, b]): target = value [if condition]``; ``arity`` is 1 or 2."""

    op: str
    arity: int
    target: Ref
    value: Expr
    condition: Expr | None = None


Theory = tuple[Law, ...]


class Thing:
    """One object of a world: its name, its type and its property values (mutable: operations change them)."""

    __slots__ = ("name", "type", "values")

    def __init__(self, name: str, type_: str, values: Mapping[str, Value]) -> None:
        self.name = name
        self.type = type_
        self.values: dict[str, Value] = dict(values)

    def copy(self) -> Thing:
        return Thing(self.name, self.type, self.values)

    def __repr__(self) -> str:
        return f"Thing({self.name!r}, {self.type!r}, {self.values!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Thing)
            and (self.name, self.type) == (other.name, other.type)
            and same_values(self.values, other.values)
        )

    __hash__ = None  # type: ignore[assignment]


_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
_BINARY: dict[str, type[Arith | Compare | Logic]] = {
    **dict.fromkeys(_ARITH, Arith),
    **dict.fromkeys((*_ORDER, "==", "!="), Compare),
    **dict.fromkeys(("and", "or"), Logic),
}


class _Skip(Exception):
    """The law does nothing (a property its objects lack, a value that is not finite)."""


def refs(expr: Expr | None) -> list[Ref]:
    """Every property reference in an expression."""
    if expr is None or isinstance(expr, Num | Bool):
        return []
    if isinstance(expr, Ref):
        return [expr]
    if isinstance(expr, Neg | Not):
        return refs(expr.operand)
    return refs(expr.left) + refs(expr.right)


def evaluate(expr: Expr, things: Sequence[Thing]) -> Value:
    """The value of ``expr`` with ``things`` bound to ``a`` and ``b`` (:class:`_Skip` when it has none)."""
    if isinstance(expr, Num | Bool):
        return expr.value
    if isinstance(expr, Ref):
        if expr.arg >= len(things) or expr.prop not in things[expr.arg].values:
            raise _Skip
        return things[expr.arg].values[expr.prop]
    if isinstance(expr, Neg):
        return -_number(evaluate(expr.operand, things))
    if isinstance(expr, Not):
        return not _boolean(evaluate(expr.operand, things))
    if isinstance(expr, Logic):
        left = _boolean(evaluate(expr.left, things))
        right = _boolean(evaluate(expr.right, things))
        return (left and right) if expr.op == "and" else (left or right)
    if isinstance(expr, Compare):
        lv, rv = evaluate(expr.left, things), evaluate(expr.right, things)
        if expr.op in ("==", "!="):
            if isinstance(lv, bool) != isinstance(rv, bool):
                raise _Skip
            equal = lv == rv if isinstance(lv, bool) else math.isclose(lv, rv, rel_tol=1e-9, abs_tol=1e-12)
            return equal if expr.op == "==" else not equal
        return bool(_ORDER[expr.op](_number(lv), _number(rv)))
    x, y = _number(evaluate(expr.left, things)), _number(evaluate(expr.right, things))
    if expr.op == "/" and y == 0:
        raise _Skip
    out: float = _ARITH[expr.op](x, y)
    if not math.isfinite(out):
        raise _Skip
    return out


def _number(value: Value) -> float:
    if isinstance(value, bool) or not math.isfinite(value):
        raise _Skip
    return value


def _boolean(value: Value) -> bool:
    if not isinstance(value, bool):
        raise _Skip
    return value


def apply(theory: Sequence[Law], op: str, things: Sequence[Thing]) -> list[tuple[str, str, Value, Value]]:
    """Apply operation ``op`` to ``things`` (changed in place) under ``theory``'s laws, in order: every property
    that changed, once, as ``(object name, property, before, after)``, in the order of the objects' properties."""
    before = [dict(t.values) for t in things]
    for law in theory:
        if law.op != op or law.arity != len(things):
            continue
        try:
            if law.condition is not None and not _boolean(evaluate(law.condition, things)):
                continue
            target = things[law.target.arg]
            if law.target.prop not in target.values:
                continue
            value = evaluate(law.value, things)
            old = target.values[law.target.prop]
            if isinstance(old, bool) != isinstance(value, bool):
                continue
            target.values[law.target.prop] = value if isinstance(value, bool) else clean(value)
        except _Skip:
            continue
    return [
        (thing.name, prop, old, thing.values[prop])
        for thing, old_values in zip(things, before, strict=True)
        for prop, old in old_values.items()
        if not same_value(old, thing.values[prop])
    ]


def clean(value: float) -> float:
    """A float with the noise of binary arithmetic rounded away (12 significant digits)."""
    return 0.0 if value == 0 else float(f"{value:.12g}")


def same_value(x: Value, y: Value, rel: float = 1e-9) -> bool:
    """Equal values: booleans exactly, numbers to a relative ``rel``."""
    if isinstance(x, bool) or isinstance(y, bool):
        return isinstance(x, bool) and isinstance(y, bool) and x == y
    return math.isclose(x, y, rel_tol=rel, abs_tol=1e-12)


def changes(before: Sequence[Thing], after: Sequence[Thing]) -> dict[str, dict[str, Value]]:
    """What an operation changed, as a prediction names it: ``{object: {property: new value}}``."""
    out: dict[str, dict[str, Value]] = {}
    for old, new in zip(before, after, strict=True):
        moved = {p: v for p, v in new.values.items() if not same_value(v, old.values[p])}
        if moved:
            out[new.name] = moved
    return out


def same_values(x: Mapping[str, Value], y: Mapping[str, Value]) -> bool:
    return x.keys() == y.keys() and all(same_value(x[k], y[k]) for k in x)


def format_value(value: Value) -> str:
    """How a value is written to a player: ``true``/``false``, a whole number without ``.0``, else up to 6
    significant digits."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"


# -- writing laws as text and as JSON ---------------------------------------------------------------------------
_PRECEDENCE = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "neg": 7, "atom": 8}


def format_expr(expr: Expr) -> str:
    """The text of an expression, with the parentheses its structure needs and no more."""
    return _fmt(expr)[0]


def _fmt(expr: Expr) -> tuple[str, int]:
    if isinstance(expr, Num):
        return format_value(expr.value), _PRECEDENCE["atom"] if expr.value >= 0 else _PRECEDENCE["neg"]
    if isinstance(expr, Bool):
        return format_value(expr.value), _PRECEDENCE["atom"]
    if isinstance(expr, Ref):
        return f"{ROLES[expr.arg]}.{expr.prop}", _PRECEDENCE["atom"]
    if isinstance(expr, Neg):
        inner, p = _fmt(expr.operand)
        return "-" + (inner if p > _PRECEDENCE["neg"] else f"({inner})"), _PRECEDENCE["neg"]
    if isinstance(expr, Not):
        inner, p = _fmt(expr.operand)
        return "not " + (inner if p >= _PRECEDENCE["not"] else f"({inner})"), _PRECEDENCE["not"]
    level = _PRECEDENCE["cmp"] if isinstance(expr, Compare) else _PRECEDENCE[expr.op]
    left, lp = _fmt(expr.left)
    right, rp = _fmt(expr.right)
    if lp < level or (isinstance(expr, Compare) and lp == level):
        left = f"({left})"
    if rp <= level:
        right = f"({right})"
    return f"{left} {expr.op} {right}", level


def format_law(law: Law) -> str:
    """``on op(a[, b]): a.prop = value [if condition]``."""
    head = f"on {law.op}({', '.join(ROLES[: law.arity])}): {ROLES[law.target.arg]}.{law.target.prop} = "
    text = head + format_expr(law.value)
    if law.condition is not None:
        text += " if " + format_expr(law.condition)
    return text


def format_theory(theory: Sequence[Law]) -> str:
    return "\n".join(format_law(law) for law in theory)


def expr_to_json(expr: Expr) -> object:
    """An expression as JSON: numbers and booleans as themselves, ``["ref", arg, prop]``, ``[op, ...operands]``."""
    if isinstance(expr, Num | Bool):
        return expr.value
    if isinstance(expr, Ref):
        return ["ref", expr.arg, expr.prop]
    if isinstance(expr, Neg | Not):
        return ["neg" if isinstance(expr, Neg) else "not", expr_to_json(expr.operand)]
    return [expr.op, expr_to_json(expr.left), expr_to_json(expr.right)]


def expr_from_json(data: object) -> Expr:
    if isinstance(data, bool):
        return Bool(data)
    if isinstance(data, int | float):
        return Num(float(data))
    if not isinstance(data, list) or not data:
        raise ValueError(f"not an expression: {data!r:.60}")
    head, *rest = data
    if head == "ref" and len(rest) == 2 and rest[0] in (0, 1) and isinstance(rest[1], str):
        return Ref(int(rest[0]), rest[1])
    if head in ("neg", "not") and len(rest) == 1:
        return (Neg if head == "neg" else Not)(expr_from_json(rest[0]))
    if len(rest) == 2 and isinstance(head, str) and head in _BINARY:
        return _BINARY[head](head, expr_from_json(rest[0]), expr_from_json(rest[1]))
    raise ValueError(f"not an expression: {data!r:.60}")


def law_to_json(law: Law) -> dict[str, object]:
    return {
        "op": law.op,
        "arity": law.arity,
        "target": [law.target.arg, law.target.prop],
        "value": expr_to_json(law.value),
        "if": None if law.condition is None else expr_to_json(law.condition),
    }


def law_from_json(data: Mapping[str, object]) -> Law:
    target = data["target"]
    if not isinstance(target, list) or len(target) != 2:
        raise ValueError("target: [arg, prop]")
    cond = data.get("if")
    return Law(
        op=str(data["op"]),
        arity=int(data["arity"]),  # type: ignore[call-overload]
        target=Ref(int(target[0]), str(target[1])),
        value=expr_from_json(data["value"]),
        condition=None if cond is None else expr_from_json(cond),
    )


def number_right(predicted: float, truth: float, tolerance: float) -> bool:
    """A predicted number is right within ``tolerance`` of relative error (of at least 1 in size, so values
    near zero are judged on an absolute scale)."""
    return abs(predicted - truth) <= tolerance * max(1.0, abs(truth)) + 1e-9


def outcome_right(guess: Sequence[Thing], truth: Sequence[Thing], tolerance: float) -> bool:
    """Whether an experiment's outcome is predicted right: every property of every object, booleans exactly,
    numbers within ``tolerance`` (:func:`number_right`)."""
    return all(
        g.values[p] == v
        if isinstance(v, bool)
        else not isinstance(g.values[p], bool) and number_right(float(g.values[p]), v, tolerance)
        for g, t in zip(guess, truth, strict=True)
        for p, v in t.values.items()
    )
