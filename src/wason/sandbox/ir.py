"""The intermediate representation a guess compiles to: a small DAG of pure nodes.

The compiler interns nodes (identical sub-expressions become one object, also across programs), so the
evaluator can memoise by identity and a comprehension's unrolled copies share their common parts. ``size``
is the size of the *expanded* tree (shared parts counted every time they appear), which the node limit bounds.
"""

from __future__ import annotations

from dataclasses import dataclass

# Node kinds. Kept as plain strings so the evaluator can dispatch with a dict.
CONST = "const"
VAR = "var"
UNARY = "unary"  # op: neg, pos, not, invert
BINARY = "binary"  # op: add, sub, mul, div, floordiv, mod, pow, and, or, xor, lshift, rshift
COMPARE = "compare"  # ops: lt, le, gt, ge, eq, ne, in, notin (chained, short-circuit)
SEQ = "seq"  # a literal tuple/list, only as the right operand of `in`
BOOLOP = "boolop"  # op: and, or (n-ary, returns operand values)
IFEXP = "ifexp"  # args: (test, body, orelse)
CALL = "call"  # op: function name (abs, int, float, round, bool, sqrt, floor, ...)
REDUCE = "reduce"  # op: all, any, sum, min, max over items; see Item
ISTYPE = "istype"  # op: int, float, number (isinstance)

# Calls whose value has to come from CPython's own C library to be bit-for-bit identical to Python; they are
# evaluated point by point and so are counted against a separate, smaller budget.
SLOW_CALLS = frozenset({"log", "log2", "log10", "logb", "exp", "sin", "cos", "tan", "round2", "fpow"})


@dataclass(frozen=True, slots=True, eq=False)
class Item:
    """One element of a reduction (all/any/sum/min/max).

    Attributes:
        conds: comprehension ``if`` filters, evaluated in order, each only when the previous ones held.
        body: the element value, evaluated only when every filter held.
    """

    conds: tuple[Node, ...]
    body: Node


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class Node:
    """One IR node. Compared and hashed by identity; the compiler interns structurally equal nodes.

    Interning is global (weakly held), so a rule and a guess that share a sub-expression share the node, and
    one evaluation of both computes it once.

    Attributes:
        kind: one of the kind constants of this module.
        op: the operator or function name (empty when the kind needs none).
        args: operand nodes.
        ops: comparison operators of a COMPARE node (one fewer than ``args``).
        items: elements of a REDUCE node.
        pre: for REDUCE, the nodes Python evaluates unconditionally before reducing (the literal iterable
            of a comprehension, or the elements of a literal list/tuple); their errors always count.
        lazy: for REDUCE, True when Python stops early (a generator given to all/any).
        value: a CONST's value.
        is_int: a CONST's type (True for int and bool).
        index: a VAR's position (0, 1, 2).
        size: node count of the expanded tree rooted here.
        depth: depth of the tree rooted here (a leaf has depth 1).
        boolean: statically known to be 0 or 1 and int-typed at every point (comparisons, not, all, ...).
        free: bit mask of the variables the value depends on (bit 0 for x, 1 for y, 2 for z).
    """

    kind: str
    op: str = ""
    args: tuple[Node, ...] = ()
    ops: tuple[str, ...] = ()
    items: tuple[Item, ...] = ()
    pre: tuple[Node, ...] = ()
    lazy: bool = False
    value: float = 0.0
    is_int: bool = False
    index: int = 0
    size: int = 1
    depth: int = 1
    boolean: bool = False
    free: int = 0

    def children(self) -> tuple[Node, ...]:
        """All direct sub-nodes, in evaluation order."""
        out = list(self.args) + list(self.pre)
        for item in self.items:
            out.extend(item.conds)
            out.append(item.body)
        return tuple(out)
