"""The relation grammar: every law a generated domain may hold, slot by slot.

A *slot* is one property of one object of one operation: "what does splorficate do to a zorple's zibblosity",
"what does wuzzle do to the target's flurb when a blick wuzzles a zorple". The generator draws a domain's laws
from these candidates, and the solver's hypothesis space is the same candidates (the grammar is public: the
protocol and ``docs/lab.md`` describe it), so it is an ideal scientist over exactly what can be hidden.

Kinds of law (``KINDS``), with ``p`` the slot's property of object ``x`` (``a`` or ``b``) and ``y`` the other
object of a two-object operation:

* ``add``: ``x.p = x.p + c``, ``c`` in ``ADD_CONSTANTS`` (a linear update);
* ``scale``: ``x.p = x.p * c``, ``c`` in ``SCALE_CONSTANTS`` (a multiplicative update);
* ``interact``: ``x.p = x.p + x.q`` or ``x.p - x.q`` (``q`` another number of the same object), or ``+/- y.q``
  (a property of the other object: an effect of one object on the other);
* ``set``: ``x.p = true`` or ``false``; ``toggle``: ``x.p = not x.p``;
* ``threshold``: ``x.p = x.q > t`` or ``x.q < t`` (``t`` a whole number): a threshold that flips a boolean.

Any law may be ``conditional``: ``if x.b``, ``if not x.b``, ``if y.b``, ``if not y.b`` for a boolean ``b`` other
than its own target. Within one operation a number law reads the state before the operation, a threshold
reads the numbers after the number laws (laws are ordered so), and a condition never reads a property that the
operation changes; under these constraints every slot can be learned on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wason.tasks.lab.laws import Arith, Bool, Compare, Expr, Law, Not, Num, Ref

__all__ = [
    "ADD_CONSTANTS",
    "BOOLEAN_KINDS",
    "KINDS",
    "NUMBER_KINDS",
    "SCALE_CONSTANTS",
    "Slot",
    "kind_of",
    "slot_laws",
]

ADD_CONSTANTS = (-5.0, -4.0, -3.0, -2.0, -1.0, 1.0, 2.0, 3.0, 4.0, 5.0)
SCALE_CONSTANTS = (-1.0, 0.5, 2.0, 3.0)
NUMBER_KINDS = ("add", "scale", "interact")
BOOLEAN_KINDS = ("set", "toggle", "threshold")
KINDS = NUMBER_KINDS + BOOLEAN_KINDS


@dataclass(frozen=True)
class Slot:
    """Property ``prop`` of object ``arg`` (0 ``a``, 1 ``b``) of an operation applied to objects of given types,
    with the properties of that object (``own_*``) and of the other one (``other_*``, empty for one object)."""

    op: str
    arity: int
    arg: int
    prop: str
    is_bool: bool
    own_numbers: tuple[str, ...] = ()
    own_booleans: tuple[str, ...] = ()
    other_numbers: tuple[str, ...] = ()
    other_booleans: tuple[str, ...] = ()


def _effects(slot: Slot, kinds: Sequence[str], thresholds: Sequence[int], cross: bool) -> list[Law]:
    me = Ref(slot.arg, slot.prop)
    values: list[Expr] = []
    if not slot.is_bool:
        if "add" in kinds:
            values += [Arith("+", me, Num(c)) if c > 0 else Arith("-", me, Num(-c)) for c in ADD_CONSTANTS]
        if "scale" in kinds:
            values += [Arith("*", me, Num(c)) for c in SCALE_CONSTANTS]
        if "interact" in kinds:
            sources = [Ref(slot.arg, q) for q in slot.own_numbers if q != slot.prop]
            if cross and slot.arity == 2:
                sources += [Ref(1 - slot.arg, q) for q in slot.other_numbers]
            values += [Arith(op, me, q) for q in sources for op in ("+", "-")]
    else:
        if "set" in kinds:
            values += [Bool(True), Bool(False)]
        if "toggle" in kinds:
            values.append(Not(me))
        if "threshold" in kinds:
            values += [
                Compare(op, Ref(slot.arg, name), Num(float(t)))
                for name in slot.own_numbers
                for t in thresholds
                for op in (">", "<")
            ]
    return [Law(slot.op, slot.arity, me, v) for v in values]


def conditions(slot: Slot, cross: bool) -> list[Expr]:
    """The conditions a law of ``slot`` may have: its object's other booleans, and the other object's."""
    refs = [Ref(slot.arg, b) for b in slot.own_booleans if b != slot.prop]
    if cross and slot.arity == 2:
        refs += [Ref(1 - slot.arg, b) for b in slot.other_booleans]
    return [c for r in refs for c in (r, Not(r))]


def slot_laws(
    slot: Slot,
    kinds: Sequence[str] = KINDS,
    thresholds: Sequence[int] = range(1, 13),
    conditional: bool = True,
    cross: bool = True,
) -> list[Law]:
    """Every law the grammar allows in ``slot`` (not "no law": the caller adds it), unconditional ones first;
    ``cross``: whether a two-object law may read or be conditioned on the other object."""
    effects = _effects(slot, kinds, thresholds, cross)
    out = list(effects)
    if conditional:
        for cond in conditions(slot, cross):
            out += [Law(e.op, e.arity, e.target, e.value, cond) for e in effects]
    return out


def kind_of(law: Law) -> str:
    """The grammar kind of a law of this grammar (``add``, ``scale``, ``interact``, ``set``, ``toggle``,
    ``threshold``), or ``other`` for one outside it."""
    v = law.value
    if isinstance(v, Bool):
        return "set"
    if isinstance(v, Not):
        return "toggle"
    if isinstance(v, Compare):
        return "threshold"
    if isinstance(v, Arith) and v.left == law.target:
        if isinstance(v.right, Num):
            return "scale" if v.op == "*" else "add"
        if isinstance(v.right, Ref):
            return "interact"
    return "other"
