"""The reference solver's hypothesis space: the list grammar of :mod:`.hypotheses` plus a typed grammar of
compound item properties, recurrences and digit relations, enumerated by size and de-duplicated by meaning.

The base grammar (``build_space``) is also the source of the generated split, so it stays as it is; the solver
plays over :func:`solver_space`, which adds, built compositionally from small typed parts:

* **Compound item properties.** Atoms (multiples, primes, squares, cubes, signs, shifted squares and cubes, the
  parity of the binary digits, ...) joined as ``P or Q``, ``P or Q but not both``, ``P but not R``, ``(P or Q)
  but not R`` and "neither digit d nor e unless digit f", and digit sets ("written only with the digits 0, 1, 2,
  3, 5, 8"), all under "every item"; the new atoms also on their own under every quantifier of
  :mod:`.hypotheses` ("no item", "the first item", ...). De-duplicated by their truth table on the integers
  -300..1300 (and some larger ones), against each other and against the properties of :mod:`.hypotheses`.
* **Terms**: integer expressions of the items before the current one (``p`` the previous, ``q`` the one before
  it, ``r`` three back): ``k * p + c``, ``p * p + c``, ``p // k``, powers ``ceil(b ** p)``, digit functions (digit
  sum, first and last digit, first non-zero digit of ``p / k``), conditionals (``p // 2 if p is even else
  k * p + c``), and ``i * q + j * p + c`` and ``|i * q + j * p + c|``, ``|p - r|``-like sums over three back.
  One-item terms are de-duplicated by their values on -60..200.
* **Links**: ``x == term``, "x is a multiple of p", "x divides p", "x is the difference of p and q in either
  order", "x is outside / between p and q", relations between digit functions of ``x`` and ``p``.
* **Recurrence rules**: "every item from position s on satisfies the link" for the least ``s`` the link allows
  and one more ("the first two items can be anything"), and the disjunction of two simple links (a link needing
  two items before is false at the second item when the rule starts at the second).
* **Aggregates and counts** the base grammar lacks: a sum or a product equal to a small number, one item the
  product of the others, every running total prime (or square, positive, ...), a constant ratio, exactly / at
  least / at most ``n`` items with a property or equal to a number, "the number v does not appear".

Complexities extend the base grammar's (prior ``2 ** -complexity``): each part costs its size, each connective a
fixed cost, so the natural spelling of an idea is the simplest. Every hypothesis has ``text``, a ``lambda xs:
...`` ``source`` in the list guess language and a fast ``predicate``; the tests compare the last two."""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from wason.tasks.lists.hypotheses import (
    _QUANTIFIERS,
    ADD_STEPS,
    AFFINE,
    CONTAINS,
    MUL_FACTORS,
    SUM_TARGETS,
    Hypothesis,
    _element_properties,
    _plural,
    _prop,
    _Property,
    _python,
    _rule,
    build_space,
)
from wason.tasks.lists.rules import Predicate
from wason.tasks.lists.rules import _digits as _digits
from wason.tasks.lists.rules import _first_nonzero_over as _first_nonzero_over

SOLVER_SPACE_VERSION = "wason-list-solver-space-1"
"""Bump whenever the added grammar, a statement or a complexity changes."""

FAMILY = "extended"
"""``Hypothesis.family`` of every hypothesis this module adds (the rule's kind is in its key)."""

OR_COST = 2
"""``P or Q`` inside an item property, or between two links, costs its parts plus this."""

BUT_NOT_COST = 2
"""``P but not R`` costs its parts plus this."""

FREE_START_COST = 1
"""A recurrence that leaves one more item at the start free ("the first two can be anything") costs this more."""

IntFn = Callable[[int], bool]
Term1 = Callable[[int], int | None]
LinkFn = Callable[[Sequence[int], int], bool]

# ---------------------------------------------------------------------------------------------- numbers


def _is_cube(n: int) -> bool:
    m = abs(n)
    root = round(m ** (1 / 3))
    return any((root + d) ** 3 == m for d in (-1, 0, 1) if root + d >= 0)


def _ceil_power(num: int, den: int) -> Term1:
    def term(p: int) -> int | None:
        if p <= 0:
            return 1 if p == 0 or num > den else None
        if p * math.log2(num / den) > 4000:
            return None  # beyond any item a game uses (and the language's integer limit)
        return int(-(-(num**p) // den**p))

    return term


# ---------------------------------------------------------------------------------------------- item properties


def _negated(verb: str) -> str:
    """The verb phrase negated: "is even" -> "is not even", "contains the digit 1" -> "does not contain the digit 1"."""
    if verb.startswith("is "):
        return "is not " + verb[3:]
    first, _, rest = verb.partition(" ")
    base = {"has": "have", "ends": "end", "contains": "contain", "leaves": "leave", "reads": "read"}[first]
    return f"does not {base} {rest}"


def _new_atoms() -> list[_Property]:
    """Item properties the base grammar does not have."""
    cubes = [
        ("cube", "is a perfect cube (0, 1, 8, 27, ... or their negatives)", "{x}", 2, 0),
        ("cubep1", "is one more than a perfect cube (1, 2, 9, 28, ...; 0 = -1 + 1 too)", "{x} - 1", 3, -1),
        ("cubem1", "is one less than a perfect cube (-1, 0, 7, 26, ...)", "{x} + 1", 3, 1),
    ]
    out = [
        _prop(key, verb, _exact_cube(y), cost, lambda x, d=d: _is_cube(x + d))  # type: ignore[misc]
        for key, verb, y, cost, d in cubes
    ]
    sqp1 = "{x} >= 1 and math.isqrt({x} - 1) ** 2 == {x} - 1"
    out.append(_prop("sqp1", "is one more than a perfect square (1, 2, 5, 10, 17, ...)", sqp1, 3))
    out.append(_prop("primep1", "is one more than a prime number", "is_prime({x} - 1)", 3))
    for parity, r in (("even", 0), ("odd", 1)):
        verb = f"has an {parity} number of 1s in binary (of its absolute value)"
        out.append(_prop(f"bin:{parity}", verb, f"bin(abs({{x}})).count('1') % 2 == {r}", 3))
    out.append(_prop("pow2", "is a power of 2 (1, 2, 4, 8, ...)", "{x} > 0 and bin({x}).count('1') == 1", 3))
    return out


def _exact_cube(y: str) -> str:
    # The cube root of a float may be off by one; check the neighbours of the rounded root exactly.
    return f"any(r ** 3 == abs({y}) for r in range(round(abs({y}) ** (1 / 3)) - 1, round(abs({y}) ** (1 / 3)) + 2))"


# Atoms that join into compound properties ("a multiple of 3 or 5, but not of 15").
_DIGIT_ATOMS = tuple(f"digit:{d}" for d in range(10))
_COMPOUND_ATOMS: tuple[str, ...] = ("even", "odd", "pos", "neg", "zero", "prime", "square", "cube", "fib")
_COMPOUND_ATOMS += (*(f"mul:{k}" for k in range(3, 11)), *_DIGIT_ATOMS)

_DOMAIN = np.array(
    [*range(-300, 1301), 1331, 1728, 2048, 2197, 4096, 4181, 6765, 10000, 10001, 12321, 65536, 99999, 100000],
    dtype=np.int64,
)


def _table(fn: IntFn) -> npt.NDArray[np.bool_]:
    return np.array([bool(fn(int(v))) for v in _DOMAIN], dtype=np.bool_)


class _Compound(_Property):
    """A property joined from others: only "every item" takes it."""


def _or(p: _Property, q: _Property) -> _Compound:
    fp, fq, cost = p.fn, q.fn, p.cost + q.cost + OR_COST
    verb, cond = f"{p.verb} or {q.verb}", f"({p.cond} or {q.cond})"
    return _Compound(f"({p.key}|{q.key})", verb, cond, lambda x: fp(x) or fq(x), cost)


def _xor(p: _Property, q: _Property) -> _Compound:
    fp, fq, cost = p.fn, q.fn, p.cost + q.cost + OR_COST + BUT_NOT_COST
    verb, cond = f"{p.verb} or {q.verb}, but not both", f"({p.cond}) != ({q.cond})"
    return _Compound(f"({p.key}^{q.key})", verb, cond, lambda x: fp(x) != fq(x), cost)


def _but_not(p: _Property, r: _Property) -> _Compound:
    fp, fr, cost = p.fn, r.fn, p.cost + r.cost + BUT_NOT_COST
    verb, cond = f"{p.verb}, but {_negated(r.verb)}", f"({p.cond}) and not ({r.cond})"
    return _Compound(f"({p.key}-{r.key})", verb, cond, lambda x: fp(x) and not fr(x), cost)


def _digit_set(allowed: Sequence[int]) -> _Compound:
    digits = "".join(map(str, allowed))
    chosen = frozenset(digits)
    names = ", ".join(digits)
    return _Compound(
        f"digits:{digits}",
        f"is written only with the digits {names} (a minus sign is ignored)",
        f"all(d in '{digits}' for d in str(abs({{x}})))",
        lambda x: set(_digits(x)) <= chosen,
        3 + min(len(allowed), 10 - len(allowed)),
    )


def _compound_properties() -> list[tuple[_Property, npt.NDArray[np.bool_]]]:
    """New atoms and compound properties, simplest first, distinct in meaning from each other and from the base
    grammar's properties (compared on their truth tables over ``_DOMAIN``, computed from their parts' tables)."""
    base = {p.key: p for p in _element_properties()}
    atoms = _new_atoms()
    pool = {**base, **{a.key: a for a in atoms}}
    tables = {k: _table(pool[k].fn) for k in (*_COMPOUND_ATOMS, *(a.key for a in atoms))}
    parts = [pool[k] for k in _COMPOUND_ATOMS]
    numeric = [p for p in parts if p.key not in _DIGIT_ATOMS]
    candidates: list[tuple[_Property, npt.NDArray[np.bool_]]] = [(a, tables[a.key]) for a in atoms]
    for p, q in itertools.combinations(parts, 2):
        candidates.append((_or(p, q), tables[p.key] | tables[q.key]))
    for p, q in itertools.combinations(numeric, 2):
        candidates.append((_xor(p, q), tables[p.key] ^ tables[q.key]))
    for p in parts:
        for r in numeric:
            if p is not r:
                candidates.append((_but_not(p, r), tables[p.key] & ~tables[r.key]))
    for p, q in itertools.combinations(numeric, 2):
        for r in numeric:
            if r is not p and r is not q and r.key.startswith(("mul:", "zero")):
                either = tables[p.key] | tables[q.key]
                candidates.append((_but_not(_or(p, q), r), either & ~tables[r.key]))
    for d in _DIGIT_ATOMS:
        for e, f in itertools.combinations(_DIGIT_ATOMS, 2):
            if d not in (e, f):
                # "contains neither a 2 nor a 7, unless it contains a 1"
                table = tables[d] | ~(tables[e] | tables[f])
                candidates.append((_unless(pool[d], pool[e], pool[f]), table))
    has = np.stack([tables[d] for d in _DIGIT_ATOMS], axis=1)
    for n in (1, 2, 6, 7, 8, 9):
        for allowed in itertools.combinations(range(10), n):
            banned = [d for d in range(10) if d not in allowed]
            candidates.append((_digit_set(allowed), has[:, banned].sum(axis=1) == 0))
    seen = {_table(p.fn).tobytes() for p in base.values()}
    seen.add(np.zeros(len(_DOMAIN), dtype=np.bool_).tobytes())
    seen.add(np.ones(len(_DOMAIN), dtype=np.bool_).tobytes())
    kept: list[tuple[_Property, npt.NDArray[np.bool_]]] = []
    for c, table in sorted(candidates, key=lambda item: item[0].cost):  # stable: generation order breaks ties
        t = table.tobytes()
        if t not in seen:
            seen.add(t)
            kept.append((c, table))
    return kept


_LOW, _HIGH = -300, 1300  # _DOMAIN holds every integer in this range


def _all_by_table(table: npt.NDArray[np.bool_], fn: IntFn) -> Predicate:
    """ "Every item has the property", from the property's table where the items are in range (fast)."""
    accepted = frozenset(_DOMAIN[table].tolist())

    def predicate(xs: Sequence[int]) -> bool:
        if not xs:
            return True
        if min(xs) >= _LOW and max(xs) <= _HIGH:
            return accepted.issuperset(xs)
        return all(map(fn, xs))

    return predicate


def _unless(keep: _Property, bad1: _Property, bad2: _Property) -> _Compound:
    fk, f1, f2 = keep.fn, bad1.fn, bad2.fn
    d1, d2, dk = bad1.key[-1], bad2.key[-1], keep.key[-1]
    key, cond = f"({keep.key}|-{bad1.key}-{bad2.key})", f"({keep.cond} or not ({bad1.cond} or {bad2.cond}))"
    verb = f"contains neither the digit {d1} nor the digit {d2}, unless it contains the digit {dk}"
    cost = keep.cost + bad1.cost + bad2.cost + OR_COST + BUT_NOT_COST
    return _Compound(key, verb, cond, lambda x: fk(x) or not (f1(x) or f2(x)), cost)


def _element() -> Iterator[Hypothesis]:
    for c, table in _compound_properties():
        for q in _QUANTIFIERS:
            if q.key != "all" if isinstance(c, _Compound) else c.cost > q.max_property_cost:
                continue
            text, source = q.text(c.verb, _plural_compound(c.verb)), f"lambda xs: {q.source(c.cond)}"
            predicate = _all_by_table(table, c.fn) if q.key == "all" else q.make(c.fn)
            yield Hypothesis(f"{q.key}:{c.key}", FAMILY, text, source, predicate, q.cost + c.cost)


def _plural_compound(verb: str) -> str:
    # Only "every" takes compounds, and it uses the singular; plural forms are for the base quantifiers.
    try:
        return _plural(verb)
    except KeyError:
        return verb


# ---------------------------------------------------------------------------------------------- terms and links

_AT = {"x": "xs[i]", "p": "xs[i - 1]", "q": "xs[i - 2]", "r": "xs[i - 3]"}
"""What ``{x}``, ``{p}``, ``{q}`` and ``{r}`` of a link or term are at position ``i`` of ``xs``."""
_BACK = {"p": "the previous item", "q": "the item two places before", "r": "the item three places before"}


@dataclass(frozen=True)
class _Term:
    """An integer expression of the items before the current one."""

    key: str  # part of the hypothesis key
    text: str  # a noun phrase, "twice the previous item plus 1"
    src: str  # a source template over ``{p}``, ``{q}``, ``{r}``
    guard: str  # a source template that must hold for the term to be defined ("" when always)
    fn: Callable[
        [Sequence[int], int], int | None
    ]  # its value for position ``i`` of ``xs``, or None if undefined
    order: int  # how many items before it reads (1-3)
    cost: int  # its share of the complexity


@dataclass(frozen=True)
class _Link:
    """A relation between an item ``x`` and the items before it (key, order and cost as for :class:`_Term`)."""

    key: str
    text: str  # a verb phrase for the item, "is twice the previous item plus 1"
    cond: str  # a source template over ``{x}``, ``{p}``, ``{q}``, ``{r}``
    fn: LinkFn  # the relation over ``(xs, i)``, for position ``i >= order``
    order: int
    cost: int
    term: _Term | None = None  # for ``x == term``, the term


_UNARY: dict[Callable[[Sequence[int], int], int | None], Term1] = {}
"""The function of the previous item behind each one-item term (for the fast form of its recurrence)."""


def _one(g: Term1) -> Callable[[Sequence[int], int], int | None]:
    def term(xs: Sequence[int], i: int) -> int | None:
        return g(xs[i - 1])

    _UNARY[term] = g
    return term


def _signed(c: int, plus: str = "+", minus: str = "-") -> str:
    return "" if c == 0 else (f" {plus} {c}" if c > 0 else f" {minus} {-c}")


def _signed_text(c: int) -> str:
    return _signed(c, "plus", "minus")


def _times_text(k: int, what: str) -> str:
    return {1: what, -1: f"the negative of {what}", 2: f"twice {what}"}.get(k, f"{k} times {what}")


def _times_src(k: int, name: str) -> str:
    return {1: name, -1: f"-{name}"}.get(k, f"{k} * {name}")


def _term1(key: str, text: str, src: str, cost: int, fn: Term1 | None = None, guard: str = "") -> _Term:
    """A term of the previous item; its function is ``src`` compiled unless ``fn`` is given."""
    return _Term(key, text, src, guard, _one(fn or _python("p", src.format(p="p"))), 1, cost)


def _linear1(k: int, c: int) -> _Term:
    text = _times_text(k, "the previous item") + _signed_text(c)
    cost = 1 + (k != 1) + (c != 0) + (abs(c) > 3) + (abs(k) > 3)
    return _term1(f"lin:{k}:{c}", text, _times_src(k, "{p}") + _signed(c), cost, lambda p: k * p + c)


_DIGIT_TERMS = {
    "dsum": ("the sum of the digits of", "digit sum", "sum(int(d) for d in str(abs({y})))"),
    "first": ("the first digit of", "first digit", "int(str(abs({y}))[0])"),
    "last": ("the last digit of", "last digit", "abs({y}) % 10"),
    "ndigits": ("the number of digits of", "number of digits", "len(str(abs({y})))"),
}
"""Digit functions of an item: "the ... of" for a term, the noun for a relation, the source over ``{y}``."""


def _order1_terms() -> list[_Term]:
    """One-item terms, simplest first, before de-duplication."""
    out = [_linear1(1, c) for c in range(-20, 21)]
    out += [_linear1(k, c) for k in (2, 3, -1, -2, 4, 5, -3, 10) for c in range(-10, 11)]
    for c in range(-10, 11):
        text = "the square of the previous item" + _signed_text(c)
        out.append(_term1(f"sq:{c}", text, "{p} * {p}" + _signed(c), 2 + (c != 0) + (abs(c) > 3)))
    for k in (2, 3, 10):
        out.append(_term1(f"div:{k}", f"the previous item divided by {k}, rounded down", f"{{p}} // {k}", 3))
    for num, den, name in ((2, 1, "2"), (3, 1, "3"), (3, 2, "1.5"), (6, 5, "1.2"), (11, 10, "1.1")):
        src = f"{num} ** {{p}}" if den == 1 else f"-(-({num} ** {{p}}) // {den} ** {{p}})"
        rounded = "" if den == 1 else ", rounded up"
        text = f"{name} to the power of the previous item{rounded} (1 when the previous item is 0 or less)"
        src = f"(1 if {{p}} <= 0 else {src})"
        out.append(_term1(f"pow:{num}/{den}", text, src, 4, _ceil_power(num, den)))
    for key, (text, _, src) in _DIGIT_TERMS.items():
        out.append(_term1(f"{key}:p", f"{text} the previous item", src.format(y="{p}"), 3))
        for k in (2, 3):
            out.append(
                _term1(f"{key}:{k}p", f"{text} {k} times the previous item", src.format(y=f"{k} * {{p}}"), 4)
            )
    for k in range(2, 21):
        text = f"the first non-zero digit of the previous item divided by {k} (nothing may follow a 0)"
        src, fnz = f"int(str(abs({{p}}) * 10 ** 20 // {k})[0])", lambda p, k=k: _first_nonzero_over(p, k)
        out.append(_term1(f"fnz:{k}", text, src, 5, fnz, "{p} != 0"))
    for k in range(1, 6):
        for c in range(-3, 4):
            odd = _linear1(k, c)
            text = f"half the previous item if that is even, otherwise {odd.text}"
            src = f"({{p}} // 2 if {{p}} % 2 == 0 else {odd.src})"
            out.append(_term1(f"half|{odd.key}", text, src, 3 + odd.cost))
    return out


_TERM_DOMAIN = range(-60, 201)


def _term_table(t: _Term) -> tuple[int | None, ...]:
    xs = [0, 0]
    out: list[int | None] = []
    for v in _TERM_DOMAIN:
        xs[0] = v
        out.append(t.fn(xs, 1))
    return tuple(out)


def _base_term_tables() -> set[tuple[int | None, ...]]:
    """Tables of the one-item recurrences the base grammar has ("each item after the first is ...")."""
    taken = [_linear1(1, c) for c in ADD_STEPS] + [_linear1(k, 0) for k in MUL_FACTORS]
    taken += [_linear1(k, c) for k, c in AFFINE]
    taken.append(_term1("sq", "", "{p} * {p}", 0))
    return {_term_table(t) for t in taken}


def _combination(
    coefs: Sequence[tuple[int, str]], c: int, times: Callable[[int, str], str], words: str
) -> str:
    """``i * q + j * p + c`` in ``words`` ("+ -" for source, "plus minus" for text), zero terms left out."""
    plus, minus = words.split()
    parts: list[str] = []
    for k, name in ((k, name) for k, name in coefs if k):
        parts.append(f"{plus if k > 0 else minus} {times(abs(k), name)}" if parts else times(k, name))
    return " ".join(parts) + _signed(c, plus, minus)


def _linear_text(coefs: Sequence[tuple[int, str]], c: int) -> str:
    used = [k for k, _ in coefs if k]
    if used in ([1, 1], [1, 1, 1]) and all(k for k, _ in coefs):
        return f"the sum of the {'two' if len(used) == 2 else 'three'} items before it" + _signed_text(c)
    return _combination([(k, _BACK[name.strip("{}")]) for k, name in coefs], c, _times_text, "plus minus")


def _linear_term(key: str, coefs: Sequence[tuple[int, str]], c: int, absolute: bool, cost: int) -> _Term:
    """``i * q + j * p + c`` (or with ``r``, or its absolute value), its function compiled from its source."""
    src, text = _combination(coefs, c, _times_src, "+ -"), _linear_text(coefs, c)
    if absolute:
        src, text = f"abs({src})", f"the absolute value of ({text})"
    fn = _python("xs, i", src.format(**_AT))
    return _Term(f"{'abs' if absolute else 'lin'}{key}", text, src, "", fn, len(coefs), cost)


def _order2_terms() -> list[_Term]:
    out: list[_Term] = []
    for absolute, i, j in itertools.product((False, True), (1, -1, 2, -2), (1, -1, 0, 2, -2)):
        if absolute and i < 0:
            continue  # |-a| = |a|: the first coefficient is positive
        for c in range(-10, 11) if abs(i) == 1 and abs(j) == 1 else range(-3, 4):
            cost = 2 + (abs(i) > 1) + (j != 0) + (abs(j) > 1) + (c != 0) + (abs(c) > 3) + absolute
            out.append(_linear_term(f"2:{i}:{j}:{c}", ((i, "{q}"), (j, "{p}")), c, absolute, cost))
    product = _python("xs, i", "xs[i - 2] * xs[i - 1]")
    out.append(_Term("prod2", "the product of the two items before it", "{q} * {p}", "", product, 2, 3))
    return out


def _order3_terms() -> list[_Term]:
    out: list[_Term] = []
    for absolute, k, i, j in itertools.product((False, True), (1, -1), (1, -1, 0), (1, -1, 0)):
        if not (absolute and k < 0):
            coefs, cost = ((k, "{r}"), (i, "{q}"), (j, "{p}")), 3 + (i != 0) + (j != 0) + absolute
            out.append(_linear_term(f"3:{k}:{i}:{j}", coefs, 0, absolute, cost))
    return out


def _eq_link(t: _Term) -> _Link:
    fn = t.fn

    def holds(xs: Sequence[int], i: int) -> bool:
        return xs[i] == fn(xs, i)

    cond = f"{{x}} == {_paren(t.src)}"
    if t.guard:
        cond = f"({t.guard} and {cond})"
    return _Link(f"={t.key}", f"is {t.text}", cond, holds, t.order, t.cost, t)


def _paren(src: str) -> str:
    simple = src.replace("_", "").replace("{", "").replace("}", "").isalnum()
    return src if simple or (src.startswith("(") and src.endswith(")")) else f"({src})"


def _link(key: str, text: str, cond: str, order: int, cost: int) -> _Link:
    """A link whose function is its condition compiled, at position ``i`` of ``xs``."""
    return _Link(key, text, cond, _python("xs, i", cond.format(**_AT)), order, cost)


_MULTOF = _link(
    "multof",
    "is a multiple of the previous item (after a 0, only 0)",
    "({x} == 0 if {p} == 0 else {x} % {p} == 0)",
    1,
    2,
)
_DIVOF = _link(
    "divof",
    "divides the previous item exactly (a 0 only after a 0)",
    "({p} == 0 if {x} == 0 else {p} % {x} == 0)",
    1,
    2,
)
_DIFF = _link(
    "diff",
    "is the difference of the two items before it, in either order",
    "{x} in ({p} - {q}, {q} - {p})",
    2,
    3,
)


def _relation_links() -> list[_Link]:
    out = [
        _DIFF,
        _link(
            "outside",
            "is greater than both or less than both of the two items before it",
            "({x} > max({p}, {q}) or {x} < min({p}, {q}))",
            2,
            4,
        ),
        _link(
            "within",
            "lies between the two items before it (equal to one of them counts)",
            "min({p}, {q}) <= {x} <= max({p}, {q})",
            2,
            4,
        ),
    ]
    for ka, kb in itertools.product(("first", "last", "dsum", "ndigits"), repeat=2):
        if (ka in ("first", "last")) != (kb in ("first", "last")) and "ndigits" not in (ka, kb):
            continue  # a digit is compared with a digit, a digit sum with a digit sum (or a count)
        (_, ta, sa), (_, tb, sb) = _DIGIT_TERMS[ka], _DIGIT_TERMS[kb]
        text = f"has a {ta} equal to the {tb} of the previous item (minus signs are ignored)"
        out.append(
            _link(f"{ka}={kb}", text, f"{sa.format(y='{x}')} == {sb.format(y='{p}')}", 1, 4 + (ka != kb))
        )
    return out


def _simple_links() -> list[_Link]:
    """Links that join in disjunctions ("either the previous item or the sum of the two before")."""
    out = [_eq_link(_linear1(1, 0))]
    out += [_MULTOF, _DIVOF]
    out += [_eq_link(_linear1(k, 0)) for k in (2, 3, -1)]
    for i, j in ((1, 0), (1, 1), (-1, 1), (1, -1)):
        out.append(_eq_link(_linear_term(f"2:{i}:{j}:0", ((i, "{q}"), (j, "{p}")), 0, False, 2)))
    out.append(_DIFF)
    out += [_eq_link(_linear1(1, c)) for c in range(-20, 21) if c != 0]
    return out


# ---------------------------------------------------------------------------------------------- recurrence rules

_ORDINALS = ("", "first", "second", "third", "fourth")
_VARS = ("r", "q", "p", "x")


def _zip_source(cond: str, order: int, start: int) -> str:
    names = _VARS[3 - order :]
    slices = [f"xs[{start - order + k}:]" if start - order + k else "xs" for k in range(order + 1)]
    body = cond.format(x="x", p="p", q="q", r="r")
    return f"all({body} for {', '.join(names)} in zip({', '.join(slices)}))"


def _recurrence(links: Sequence[_Link], start: int) -> Hypothesis:
    """Every item from position ``start`` on satisfies one of ``links`` (a link needing more items before than
    the position has is false there)."""
    order = max(link.order for link in links)
    fn = links[0].fn
    if len(links) > 1:
        (f1, o1), (f2, o2) = ((link.fn, link.order) for link in links)

        def either(xs: Sequence[int], i: int) -> bool:
            return (i >= o1 and f1(xs, i)) or (i >= o2 and f2(xs, i))

        fn = either

    def predicate(xs: Sequence[int]) -> bool:
        n = len(xs)
        return n <= start or all(map(fn, itertools.repeat(xs, n - start), range(start, n)))

    term = links[0].term
    unary = _UNARY.get(term.fn) if term is not None and len(links) == 1 else None
    if unary is not None:
        g = unary

        def follows(x: int, p: int) -> bool:
            return x == g(p)

        def predicate(xs: Sequence[int]) -> bool:  # the same, faster
            return all(map(follows, xs[start:], xs[start - 1 :]))

    if len(links) == 1 or start >= order:
        conds = links[0].cond if len(links) == 1 else " or ".join(_paren(link.cond) for link in links)
        source = _zip_source(conds, order, start)
    else:
        parts = []
        for link in links:
            cond = _paren(link.cond.format(**_AT))
            parts.append(cond if link.order <= start else f"(i > {link.order - 1} and {cond})")
        source = f"all({' or '.join(parts)} for i in range({start}, len(xs)))"
    text = f"Each item after the {_ORDINALS[start]} {' or '.join(link.text for link in links)}."
    cost = 1 + sum(link.cost for link in links) + OR_COST * (len(links) - 1)
    least = min(link.order for link in links)
    cost += FREE_START_COST * (start - least) if start > order else 0
    key = f"rec:{'|'.join(link.key for link in links)}@{start}"
    return Hypothesis(key, FAMILY, text, f"lambda xs: {source}", predicate, cost)


def _recurrences() -> Iterator[Hypothesis]:
    taken = _base_term_tables()
    seen: set[tuple[int | None, ...]] = set()
    for t in sorted(_order1_terms(), key=lambda t: t.cost):
        table = _term_table(t)
        if table in seen:
            continue
        seen.add(table)
        link = _eq_link(t)
        if table not in taken:
            yield _recurrence([link], 1)
        yield _recurrence([link], 2)
    for t in [*_order2_terms(), *_order3_terms()]:
        link = _eq_link(t)
        if link.key != "=lin2:1:1:0":  # each item the sum of the two before: in the base grammar
            yield _recurrence([link], t.order)
        yield _recurrence([link], t.order + 1)
    for link in [_MULTOF, _DIVOF]:
        yield _recurrence([link], 2)
    for link in _relation_links():
        yield _recurrence([link], link.order)
        yield _recurrence([link], link.order + 1)
    simple = _simple_links()
    cells = {link.key: _cells(link) for link in simple}
    for a, b in itertools.combinations(simple, 2):
        if _within(cells[a.key], b) or _within(cells[b.key], a):
            continue  # one link implies the other: the disjunction is the broader link
        additive = [link.key.startswith("=lin:1:") and link.key != "=lin:1:0" for link in (a, b)]
        if all(additive) and not all(abs(int(link.key.rsplit(":", 1)[1])) <= 5 for link in (a, b)):
            continue  # two different steps: small ones only
        order = max(a.order, b.order)
        starts = {order, order + 1, min(a.order, b.order)}
        for start in sorted(starts):
            yield _recurrence([a, b], start)


_GRID = range(-6, 15)


def _cells(link: _Link) -> list[list[int]]:
    """Lists ``[q, p, x]`` (q and p on a small grid) whose last item satisfies ``link``."""
    out: list[list[int]] = []
    for q in _GRID:
        for p in _GRID:
            if link.term is not None:
                x = link.term.fn([q, p, 0], 2)
                if x is not None:
                    out.append([q, p, x])
            else:
                out += [[q, p, x] for x in range(-40, 81) if link.fn([q, p, x], 2)]
    return out


def _within(cells: Sequence[list[int]], link: _Link) -> bool:
    """Whether ``link`` holds on every one of ``cells`` (so the relation the cells come from implies it)."""
    return all(link.fn(cell, 2) for cell in cells)


# ---------------------------------------------------------------------------------------------- aggregates


def _prefix_all(fn: IntFn) -> Predicate:
    def predicate(xs: Sequence[int]) -> bool:
        total = 0
        for x in xs:
            total += x
            if not fn(total):
                return False
        return True

    return predicate


_COUNTED: tuple[str, ...] = ("even", "odd", "pos", "neg", "zero", "prime", "nonneg", "nonpos", "nonzero")
_COUNTED += ("square", *(f"mul:{k}" for k in (3, 4, 5, 10)))
_VALUES = tuple(v for v in range(-5, 21) if v != 0)  # "is 0" is a property of the base grammar


def _counter(fn: IntFn) -> Callable[[Sequence[int]], int]:
    """How many items have the property (a set lookup per item when the items are in range)."""
    accepted = frozenset(_DOMAIN[_table(fn)].tolist())
    inside = accepted.__contains__

    def count(xs: Sequence[int]) -> int:
        if xs and min(xs) >= _LOW and max(xs) <= _HIGH:
            return sum(map(inside, xs))
        return sum(map(fn, xs))

    return count


_COMPARE = {"==": operator.eq, ">=": operator.ge, "<=": operator.le}


def _count_cmp(count: Callable[[Sequence[int]], int], op: str, n: int) -> Predicate:
    compare = _COMPARE[op]
    return lambda xs: bool(compare(count(xs), n))


def _counts() -> Iterator[Hypothesis]:
    """How many items have a property, or equal a number: exactly, at least or at most ``n``."""
    base = {p.key: p for p in _element_properties()}
    props = [base[k] for k in _COUNTED]
    props += [_prop(f"is:{v}", f"is {v}", f"{{x}} == {v}", 2) for v in _VALUES]
    for p in props:
        counter = _counter(p.fn)
        count = f"len([x for x in xs if {p.cond.format(x='x')}])"
        plural = f"items {_plural(p.verb)}" if not p.key.startswith("is:") else f"items are {p.key[3:]}"
        for n in (2, 3):
            kinds = [("eq", "==", n, f"Exactly {n} {plural}."), ("ge", ">=", n, f"At least {n} {plural}.")]
            at_most = f"At most {n - 1} {plural}." if n > 2 else f"At most one item {p.verb}."
            if not p.key.startswith("is:"):  # "at most two items are 13" holds of nearly every list
                kinds.append(("le", "<=", n - 1, at_most))
            for kind, op, m, text in kinds:
                source = f"lambda xs: {count} {op} {m}"
                yield Hypothesis(
                    f"count:{kind}:{m}:{p.key}", FAMILY, text, source, _count_cmp(counter, op, m), 3 + p.cost
                )
    for v in _VALUES:
        text = f"The number {v} does not appear in the list."
        yield _rule(f"none:is:{v}", FAMILY, 3, text, f"not any(x == {v} for x in xs)")
        if v not in CONTAINS:
            text = f"The number {v} appears in the list."
            yield _rule(f"any:is:{v}", FAMILY, 3, text, f"any(x == {v} for x in xs)")


def _aggregates() -> Iterator[Hypothesis]:
    yield from _counts()
    for c in range(-10, 101):
        if c not in SUM_TARGETS:
            yield _rule(
                f"agg:sum:eq:{c}", FAMILY, 4 + (c % 5 != 0), f"The items add up to {c}.", f"sum(xs) == {c}"
            )
    for c in range(-10, 101):
        text = f"The product of the items is {c} (an empty list's product is 1)."
        yield _rule(f"agg:prod:eq:{c}", FAMILY, 4 + (c % 5 != 0), text, f"math.prod(xs) == {c}")
    yield _rule(
        "agg:prodothers",
        FAMILY,
        4,
        "Some item equals the product of all the other items (the product of none is 1).",
        "any(math.prod(xs[:i]) * math.prod(xs[i + 1:]) == x for i, x in enumerate(xs))",
    )
    yield _rule(
        "seq:ratio",
        FAMILY,
        3,
        "The ratio of each item to the one before is the same all along (after a leading 0, only 0s).",
        "len(xs) < 2 or (all(x == 0 for x in xs) if xs[0] == 0 else "
        "all(b * xs[0] == a * xs[1] for a, b in zip(xs, xs[1:])))",
    )
    base = {p.key: p for p in _element_properties()}
    for key in ("prime", "square", "pos", "neg", "nonneg", "even", "odd", "nonzero"):
        prop = base[key]
        text = f"Every running total (the first item, the first two added, and so on) {prop.verb}."
        source = f"lambda xs: all({prop.cond.format(x='sum(xs[:i + 1])')} for i in range(len(xs)))"
        yield Hypothesis(f"prefix:all:{key}", FAMILY, text, source, _prefix_all(prop.fn), 4 + prop.cost)


# ---------------------------------------------------------------------------------------------- the space


def added_grammar() -> tuple[Hypothesis, ...]:
    """The compound item properties, recurrences and aggregates this module adds to the base grammar, in
    generation order (keys are unique)."""
    out = [*_element(), *_recurrences(), *_aggregates()]
    keys = {h.key for h in out}
    if len(keys) != len(out):
        raise RuntimeError("duplicate keys in the solver's added grammar")  # pragma: no cover
    return tuple(out)


@cache
def solver_space() -> tuple[Hypothesis, ...]:
    """The solver's hypothesis space: :func:`~.hypotheses.build_space` and :func:`added_grammar`, sorted by
    complexity (ties: the base grammar first, then generation order). Built once per process, on first use."""
    base = build_space()
    added = added_grammar()
    order = sorted(range(len(base) + len(added)), key=lambda i: ((base + added)[i].complexity, i))
    everything = base + added
    return tuple(everything[i] for i in order)
