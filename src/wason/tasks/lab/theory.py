"""Reading a theory written in the law language (:mod:`wason.tasks.lab.laws`), checking it against a domain,
and comparing it with the hidden laws.

The reader (:mod:`wason.tasks.lab.reading`) is bounded by ``MAX_TEXT``, ``MAX_LAWS``, ``MAX_TOKENS``,
``MAX_DEPTH`` and ``MAX_NUMBER``; every refusal is a :class:`TheoryError` of one line naming the line and what.

Grammar (``or`` binds loosest)::

    law     := "on" NAME "(" PARAM ["," PARAM] ")" ":" PARAM "." NAME "=" expr ["if" expr]
    expr    := and ("or" and)*
    and     := not ("and" not)*
    not     := "not" not | compare
    compare := sum [("<" | "<=" | ">" | ">=" | "==" | "!=") sum]
    sum     := product (("+" | "-") product)*
    product := unary (("*" | "/") unary)*
    unary   := "-" unary | atom
    atom    := NUMBER | "true" | "false" | PARAM "." NAME | "(" expr ")"

The parameters may have any two distinct names; they stand for the operation's objects by position (the printer
writes ``a`` and ``b``). Laws are one a line or separated by ``;``; blank lines, ``#`` comments, a leading ``-``
or ``*`` bullet and ````` fences are ignored.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wason.tasks.lab.laws import Bool, Compare, Expr, Law, Logic, Neg, Not, Num, Ref, format_law, same_values
from wason.tasks.lab.reading import MAX_DEPTH as MAX_DEPTH
from wason.tasks.lab.reading import MAX_LAWS as MAX_LAWS
from wason.tasks.lab.reading import MAX_TEXT, law_pieces, quoted, read_law
from wason.tasks.lab.reading import TheoryError as TheoryError
from wason.tasks.lab.reading import law_count as law_count
from wason.tasks.lab.reading import parse_theory as parse_theory
from wason.tasks.lab.world import Domain, Trial, fresh_thing, trials


# -- checking against a domain ------------------------------------------------------------------------------
def _infer(expr: Expr, kinds: dict[str, str], arity: int, problems: list[str]) -> str | None:
    """The kind of ``expr`` ("boolean", "number", or None when unknown), noting each mistake in ``problems``."""
    if isinstance(expr, Num):
        return "number"
    if isinstance(expr, Bool):
        return "boolean"
    if isinstance(expr, Ref):
        if not 0 <= expr.arg < arity:
            problems.append(f"refers to object {expr.arg + 1} of a {arity}-object operation")
            return None
        if expr.prop not in kinds:
            problems.append(f"unknown property {quoted(expr.prop)}")
            return None
        return kinds[expr.prop]
    if isinstance(expr, Neg):
        if _infer(expr.operand, kinds, arity, problems) == "boolean":
            problems.append("'-' applied to a boolean")
        return "number"
    if isinstance(expr, Not):
        if _infer(expr.operand, kinds, arity, problems) == "number":
            problems.append("'not' applied to a number")
        return "boolean"
    left = _infer(expr.left, kinds, arity, problems)
    right = _infer(expr.right, kinds, arity, problems)
    if isinstance(expr, Logic):
        if "number" in (left, right):
            problems.append(f"'{expr.op}' applied to a number")
        return "boolean"
    if isinstance(expr, Compare):
        if expr.op in ("==", "!="):
            if left is not None and right is not None and left != right:
                problems.append(f"'{expr.op}' compares a boolean with a number")
        elif "boolean" in (left, right):
            problems.append(f"'{expr.op}' applied to a boolean (only numbers are ordered)")
        return "boolean"
    if "boolean" in (left, right):
        problems.append(f"'{expr.op}' applied to a boolean")
    return "number"


@dataclass(frozen=True)
class Signature:
    """What a player is shown of a domain's shape at the start, enough to check a theory's names and kinds: each
    property's kind (``boolean`` or ``number``), each operation's number of objects (None: not checked)."""

    kinds: Mapping[str, str]
    arities: Mapping[str, int] | None

    @classmethod
    def of(cls, domain: Domain) -> Signature:
        kinds = {p: "boolean" if p in t.booleans else "number" for t in domain.types for p in t.properties}
        return cls(kinds, {o.name: o.arity for o in domain.operations})


def _law_problems(law: Law, signature: Signature) -> list[str]:
    """Every way ``law`` does not fit ``signature``, once each (empty: it fits)."""
    kinds, arities = dict(signature.kinds), signature.arities
    problems: list[str] = []
    if arities is not None and law.op not in arities:
        problems.append(
            f"unknown operation {quoted(law.op)} (the operations are {', '.join(sorted(arities))})"
        )
    elif arities is not None and arities[law.op] != law.arity:
        problems.append(
            f"{law.op} acts on {arities[law.op]} object{'s' if arities[law.op] > 1 else ''}, not {law.arity}"
        )
    target = _infer(law.target, kinds, law.arity, problems)
    value = _infer(law.value, kinds, law.arity, problems)
    if target is not None and value is not None and target != value:
        problems.append(f"sets the {target} property {quoted(law.target.prop)} to a {value}")
    condition = None if law.condition is None else _infer(law.condition, kinds, law.arity, problems)
    if condition == "number":
        problems.append("its condition is a number, not true or false")
    return list(dict.fromkeys(problems))


def check_theory(theory: Sequence[Law], domain: Domain) -> list[str]:
    """Every problem of ``theory`` against ``domain``, one line each, naming the law (empty: it fits)."""
    signature = Signature.of(domain)
    out: list[str] = []
    for k, law in enumerate(theory, start=1):
        text = format_law(law)
        where = f"law {k} ({text[:80]}{'...' if len(text) > 80 else ''})"
        out += [f"{where}: {p}" for p in _law_problems(law, signature)]
    return out


def line_problems(text: str, signature: Signature, *, first_line: int = 1) -> list[str]:
    """Every law of a theory's text that cannot be read or does not fit ``signature``, each on its own: one
    line per law at fault naming its line (numbered from ``first_line``) and why, the first problem of each.
    Empty when every law reads and fits: :func:`read_theory` then reads the text (with the domain of that
    signature) without an error, so a person can be asked again for a bad line alone and keep the others."""
    if len(text) > MAX_TEXT:
        return [f"theory: {len(text)} characters, more than the {MAX_TEXT} allowed"]
    pieces = law_pieces(text)
    if len(pieces) > MAX_LAWS:
        return [f"theory: {len(pieces)} laws, more than the {MAX_LAWS} allowed"]
    out: list[str] = []
    for number, piece in pieces:
        line = number + first_line - 1
        try:
            law = read_law(line, piece)
        except TheoryError as exc:
            out.append(str(exc))
            continue
        problems = _law_problems(law, signature)
        if problems:
            out.append(f"line {line}: {_first(problems)}")
    return out


def _first(problems: Sequence[str]) -> str:
    return problems[0] + (f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else "")


def read_theory(text: str, domain: Domain) -> tuple[Law, ...]:
    """A theory's text read and checked against ``domain`` (a :class:`TheoryError`: the first way it does not)."""
    theory = parse_theory(text)
    problems = check_theory(theory, domain)
    if problems:
        raise TheoryError(_first(problems))
    return theory


# -- comparing with the hidden laws -------------------------------------------------------------------------
@dataclass(frozen=True)
class Equivalence:
    """How a theory compares with the truth on probes: ``agree`` of ``total``, and the first probe where they
    differ as JSON (the trial and both outcomes), else None."""

    equivalent: bool
    agree: int
    total: int
    counterexample: dict[str, Any] | None


def _same_outcome(x: Sequence[Any], y: Sequence[Any]) -> bool:
    return len(x) == len(y) and all(same_values(a.values, b.values) for a, b in zip(x, y, strict=True))


def equivalence(
    theory: Sequence[Law], truth: Sequence[Law], domain: Domain, probes: Sequence[Trial]
) -> Equivalence:
    """Whether ``theory`` does what ``truth`` does on every probe (each object's properties after it)."""
    del domain  # the probes carry everything; kept in the signature for callers that pass it
    agree = 0
    counterexample: dict[str, Any] | None = None
    for probe in probes:
        mine, real = probe.outcome(theory), probe.outcome(truth)
        if _same_outcome(mine, real):
            agree += 1
        elif counterexample is None:
            counterexample = {
                "trial": probe.to_json(),
                "theory": [{"name": t.name, "values": dict(t.values)} for t in mine],
                "truth": [{"name": t.name, "values": dict(t.values)} for t in real],
            }
    return Equivalence(agree == len(probes), agree, len(probes), counterexample)


PER_COMBINATION = 4
"""Probes at least for every operation and assignment of types (more when its objects' booleans need them)."""


def probe_set(domain: Domain, n: int = 400) -> list[Trial]:
    """The probe experiments of the exact equivalence check: ``n`` wide trials, plus for every operation and
    every assignment of types to its objects at least ``PER_COMBINATION`` probes, covering every assignment of
    their booleans (up to 16)."""
    out = trials(domain, n, seed=f"probes|{domain.seed}", wide=True, prefix="probe")
    rng = random.Random(f"probes|combinations|{domain.seed}")
    counter = 0
    for op in domain.operations:
        for types in itertools.product(domain.types, repeat=op.arity):
            flags = [(k, b) for k, t in enumerate(types) for b in t.booleans]
            count = max(PER_COMBINATION, min(2 ** len(flags), 16))
            for m in range(count):
                things = []
                for t in types:
                    counter += 1
                    things.append(fresh_thing(domain, t.name, f"probe-{t.name}-x{counter}", rng, wide=True))
                if 2 ** len(flags) <= count:  # every assignment of the booleans; else random ones
                    for bit, (k, b) in enumerate(flags):
                        things[k].values[b] = bool((m >> bit) & 1)
                out.append(Trial(op.name, tuple(things)))
    return out


def theory_accuracy(theory: Sequence[Law], truth: Sequence[Law], trials: Sequence[Trial]) -> float:
    """The fraction of ``trials`` whose outcome under ``theory`` is the outcome under ``truth`` (every property
    of every object); 0.0 for no trials."""
    if not trials:
        return 0.0
    right = sum(_same_outcome(t.outcome(theory), t.outcome(truth)) for t in trials)
    return right / len(trials)
