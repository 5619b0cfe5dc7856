"""Reading a theory written in the law language (:mod:`wason.tasks.lab.laws`), checking it against a domain,
and comparing it with the hidden laws.

The reader is a small tokenizer and recursive-descent parser of our own (never ``eval``), bounded so that hostile
text is cheap to refuse: at most ``MAX_TEXT`` characters, ``MAX_LAWS`` laws, ``MAX_TOKENS`` tokens a law,
``MAX_DEPTH`` levels of nesting, numbers finite with ``|x| <= MAX_NUMBER``. Every refusal is a
:class:`TheoryError` of one line naming the line and what is wrong.

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

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wason.tasks.lab.laws import (
    Arith,
    Bool,
    Compare,
    Expr,
    Law,
    Logic,
    Neg,
    Not,
    Num,
    Ref,
    format_law,
    same_values,
)
from wason.tasks.lab.world import Domain, Trial, fresh_thing, trials

MAX_TEXT = 20_000
MAX_LAWS = 60
MAX_TOKENS = 400
MAX_DEPTH = 30
MAX_NUMBER = 1e12
MAX_NAME = 64

KEYWORDS = frozenset({"on", "if", "and", "or", "not", "true", "false"})
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_NAME_CHARS = _LETTERS | _DIGITS | {"_"}
_SYMBOLS = ("<=", ">=", "==", "!=", "<", ">", "=", "+", "-", "*", "/", "(", ")", ",", ":", ".")
_COMPARE_OPS = ("<", "<=", ">", ">=", "==", "!=")


class TheoryError(ValueError):
    """A theory that cannot be read, or that does not fit its domain: one line saying where and what."""


# -- tokens -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Token:
    kind: str  # "name", "number", "keyword", "symbol", "end"
    text: str
    value: float = 0.0


def _show(text: str) -> str:
    """A piece of the player's text for an error message: quoted, escaped, short."""
    return repr(text[:30] + ("..." if len(text) > 30 else ""))


def _tokens(text: str, line: int) -> list[_Token]:
    out: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "#":
            break
        if len(out) >= MAX_TOKENS:
            raise TheoryError(f"line {line}: a law of more than {MAX_TOKENS} tokens")
        if c in _LETTERS:
            j = i + 1
            while j < n and text[j] in _NAME_CHARS:
                j += 1
            word = text[i:j]
            if len(word) > MAX_NAME:
                raise TheoryError(f"line {line}: a name longer than {MAX_NAME} characters: {_show(word)}")
            lower = word.lower()
            out.append(_Token("keyword", lower) if lower in KEYWORDS else _Token("name", word))
            i = j
            continue
        if c in _DIGITS or (c == "." and i + 1 < n and text[i + 1] in _DIGITS):
            j = i
            while j < n and text[j] in _DIGITS:
                j += 1
            if j < n and text[j] == ".":
                j += 1
                while j < n and text[j] in _DIGITS:
                    j += 1
            if j < n and text[j] in "eE":
                k = j + 1
                if k < n and text[k] in "+-":
                    k += 1
                if k < n and text[k] in _DIGITS:
                    while k < n and text[k] in _DIGITS:
                        k += 1
                    j = k
            literal = text[i:j]
            if j < n and (text[j] in _NAME_CHARS or text[j] == "."):
                raise TheoryError(f"line {line}: a malformed number {_show(text[i : j + 1])}")
            if len(literal) > 40:
                raise TheoryError(f"line {line}: a number of more than 40 characters")
            value = float(literal)  # ASCII digits only: float() cannot fail or run long here
            if not math.isfinite(value) or abs(value) > MAX_NUMBER:
                raise TheoryError(f"line {line}: the number {_show(literal)} is out of range (at most 1e12)")
            out.append(_Token("number", literal, value))
            i = j
            continue
        for symbol in _SYMBOLS:
            if text.startswith(symbol, i):
                out.append(_Token("symbol", symbol))
                i += len(symbol)
                break
        else:
            raise TheoryError(f"line {line}: unexpected character {_show(c)}")
    out.append(_Token("end", ""))
    return out


# -- parsing ------------------------------------------------------------------------------------------------
class _Parser:
    def __init__(self, tokens: list[_Token], line: int) -> None:
        self.tokens = tokens
        self.pos = 0
        self.line = line
        self.params: tuple[str, ...] = ()

    def fail(self, what: str) -> TheoryError:
        return TheoryError(f"line {self.line}: {what}")

    @property
    def peek(self) -> _Token:
        return self.tokens[self.pos]

    def at(self, text: str) -> bool:
        tok = self.tokens[self.pos]
        return tok.kind in ("symbol", "keyword") and tok.text == text

    def take(self) -> _Token:
        tok = self.tokens[self.pos]
        if tok.kind != "end":
            self.pos += 1
        return tok

    def expect(self, text: str, where: str) -> None:
        if not self.at(text):
            raise self.fail(f"expected '{text}' {where}, found {self.describe(self.peek)}")
        self.take()

    @staticmethod
    def describe(tok: _Token) -> str:
        return "the end of the law" if tok.kind == "end" else _show(tok.text)

    def name(self, what: str) -> str:
        tok = self.peek
        if tok.kind != "name":
            if tok.kind == "keyword":
                raise self.fail(f"expected {what}, found the keyword {_show(tok.text)}")
            raise self.fail(f"expected {what}, found {self.describe(tok)}")
        self.take()
        return tok.text

    # law := "on" NAME "(" PARAM ["," PARAM] ")" ":" TARGET "=" expr ["if" expr]
    def law(self) -> Law:
        if not self.at("on"):
            raise self.fail(
                f"a law starts with 'on OPERATION(a):' or 'on OPERATION(a, b):', found {self.describe(self.peek)}"
            )
        self.take()
        op = self.name("an operation's name after 'on'")
        self.expect("(", "after the operation's name")
        params = [self.name("a parameter name")]
        while self.at(","):
            self.take()
            params.append(self.name("a parameter name"))
        if len(params) > 2:
            raise self.fail(f"an operation takes one or two objects, not {len(params)}")
        if len(params) == 2 and params[0] == params[1]:
            raise self.fail(f"the two parameters must differ (both are {_show(params[0])})")
        self.params = tuple(params)
        self.expect(")", "after the parameters")
        self.expect(":", "after 'on ...(...)'")
        target = self.ref()
        if self.at("=="):
            raise self.fail("a law sets a property with '=', not '=='")
        self.expect("=", "after the property the law sets")
        value = self.expr(0)
        condition = None
        if self.at("if"):
            self.take()
            condition = self.expr(0)
        tok = self.peek
        if tok.kind != "end":
            if tok.text == "=":
                raise self.fail("unexpected '=' (compare with '==')")
            raise self.fail(f"unexpected {self.describe(tok)} after the law")
        return Law(op, len(params), target, value, condition)

    def ref(self) -> Ref:
        tok = self.peek
        if tok.kind != "name":
            raise self.fail(f"expected a property such as {self.params[0]}.name, found {self.describe(tok)}")
        self.take()
        if tok.text not in self.params:
            if self.at("."):
                raise self.fail(
                    f"unknown parameter {_show(tok.text)} (the law's objects are {', '.join(self.params)})"
                )
            raise self.fail(f"unknown name {_show(tok.text)} (write a property as {self.params[0]}.name)")
        self.expect(".", f"after {_show(tok.text)}")
        prop = self.name("a property name after '.'")
        return Ref(self.params.index(tok.text), prop)

    def deeper(self, depth: int) -> int:
        if depth >= MAX_DEPTH:
            raise self.fail(f"the expression is nested more than {MAX_DEPTH} levels deep")
        return depth + 1

    def expr(self, depth: int) -> Expr:
        depth = self.deeper(depth)
        left = self.conjunction(depth)
        while self.at("or"):
            self.take()
            left = Logic("or", left, self.conjunction(depth))
        return left

    def conjunction(self, depth: int) -> Expr:
        left = self.negation(depth)
        while self.at("and"):
            self.take()
            left = Logic("and", left, self.negation(depth))
        return left

    def negation(self, depth: int) -> Expr:
        if self.at("not"):
            self.take()
            return Not(self.negation(self.deeper(depth)))
        return self.comparison(depth)

    def comparison(self, depth: int) -> Expr:
        left = self.sum(depth)
        tok = self.peek
        if tok.kind == "symbol" and tok.text in _COMPARE_OPS:
            self.take()
            right = self.sum(depth)
            nxt = self.peek
            if nxt.kind == "symbol" and nxt.text in _COMPARE_OPS:
                raise self.fail("comparisons do not chain (write 'x < y and y < z')")
            return Compare(tok.text, left, right)  # type: ignore[arg-type]
        return left

    def sum(self, depth: int) -> Expr:
        left = self.product(depth)
        while self.at("+") or self.at("-"):
            op = self.take().text
            left = Arith(op, left, self.product(depth))  # type: ignore[arg-type]
        return left

    def product(self, depth: int) -> Expr:
        left = self.unary(depth)
        while self.at("*") or self.at("/"):
            op = self.take().text
            left = Arith(op, left, self.unary(depth))  # type: ignore[arg-type]
        return left

    def unary(self, depth: int) -> Expr:
        if self.at("-"):
            self.take()
            if self.peek.kind == "number":
                return Num(-self.take().value)
            return Neg(self.unary(self.deeper(depth)))
        return self.atom(depth)

    def atom(self, depth: int) -> Expr:
        tok = self.peek
        if tok.kind == "number":
            self.take()
            return Num(tok.value)
        if tok.kind == "keyword" and tok.text in ("true", "false"):
            self.take()
            return Bool(tok.text == "true")
        if self.at("("):
            self.take()
            inner = self.expr(depth)
            self.expect(")", "to close '('")
            return inner
        if tok.kind == "name":
            return self.ref()
        if self.at("="):
            raise self.fail("unexpected '=' (compare with '==')")
        raise self.fail(f"expected a value, found {self.describe(tok)}")


def _depth(expr: Expr) -> int:
    if isinstance(expr, Num | Bool | Ref):
        return 1
    if isinstance(expr, Neg | Not):
        return 1 + _depth(expr.operand)
    return 1 + max(_depth(expr.left), _depth(expr.right))


def _pieces(text: str) -> list[tuple[int, str]]:
    """Each law's text with its line number: fences, comments, blank lines and bullets dropped."""
    out: list[tuple[int, str]] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("```"):
            continue
        for part in line.split(";"):
            part = part.strip()
            if part[:2] in ("- ", "* "):
                part = part[2:].strip()
            if part and not part.startswith("#"):
                out.append((number, part))
    return out


def parse_theory(text: str) -> tuple[Law, ...]:
    """The laws of a theory's text, in order.

    Raises:
        TheoryError: text that is not a theory (one line: where and what is wrong).
    """
    if not isinstance(text, str):
        raise TheoryError("theory: not text")
    if len(text) > MAX_TEXT:
        raise TheoryError(f"theory: {len(text)} characters, more than the {MAX_TEXT} allowed")
    pieces = _pieces(text)
    if not pieces:
        raise TheoryError("theory: no laws (write one law a line, such as 'on OP(a): a.prop = a.prop + 1')")
    if len(pieces) > MAX_LAWS:
        raise TheoryError(f"theory: {len(pieces)} laws, more than the {MAX_LAWS} allowed")
    return tuple(_law(number, piece) for number, piece in pieces)


def _law(number: int, piece: str) -> Law:
    """One law's text (from line ``number``) read.

    Raises:
        TheoryError: it is not a law (one line: where and what is wrong).
    """
    parser = _Parser(_tokens(piece, number), number)
    law = parser.law()
    for part in (law.value, law.condition):
        if part is not None and _depth(part) > MAX_DEPTH:
            raise parser.fail(f"the expression is nested more than {MAX_DEPTH} levels deep")
    return law


def law_count(text: str) -> int:
    """How many laws ``text`` holds, as :func:`parse_theory` counts them (blank lines, comments and fences left
    out; laws separated by ``;`` counted apart)."""
    return len(_pieces(text))


# -- checking against a domain ------------------------------------------------------------------------------
def _kinds(domain: Domain) -> dict[str, str]:
    out: dict[str, str] = {}
    for t in domain.types:
        out.update({p: "boolean" for p in t.booleans})
        out.update({p: "number" for p in t.numbers})
    return out


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
            problems.append(f"unknown property {_show(expr.prop)}")
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
    """What a player is shown of a domain's shape at the start: the kind of each property (``boolean`` or
    ``number``) and the number of objects of each operation. Enough to check a theory's names and kinds, nothing
    of its laws.

    Attributes:
        kinds: each property's kind.
        arities: each operation's number of objects; None when not known (operations are then not checked).
    """

    kinds: Mapping[str, str]
    arities: Mapping[str, int] | None

    @classmethod
    def of(cls, domain: Domain) -> Signature:
        """A domain's signature."""
        return cls(_kinds(domain), {o.name: o.arity for o in domain.operations})


def _law_problems(law: Law, signature: Signature) -> list[str]:
    """Every way ``law`` does not fit ``signature``, once each (empty: it fits)."""
    kinds, arities = dict(signature.kinds), signature.arities
    problems: list[str] = []
    if arities is not None and law.op not in arities:
        problems.append(
            f"unknown operation {_show(law.op)} (the operations are {', '.join(sorted(arities))})"
        )
    elif arities is not None and arities[law.op] != law.arity:
        problems.append(
            f"{law.op} acts on {arities[law.op]} object{'s' if arities[law.op] > 1 else ''}, not {law.arity}"
        )
    target = _infer(law.target, kinds, law.arity, problems)
    value = _infer(law.value, kinds, law.arity, problems)
    if target is not None and value is not None and target != value:
        problems.append(f"sets the {target} property {_show(law.target.prop)} to a {value}")
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
    pieces = _pieces(text)
    if len(pieces) > MAX_LAWS:
        return [f"theory: {len(pieces)} laws, more than the {MAX_LAWS} allowed"]
    out: list[str] = []
    for number, piece in pieces:
        line = number + first_line - 1
        try:
            law = _law(line, piece)
        except TheoryError as exc:
            out.append(str(exc))
            continue
        problems = _law_problems(law, signature)
        if problems:
            more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
            out.append(f"line {line}: {problems[0]}{more}")
    return out


def read_theory(text: str, domain: Domain) -> tuple[Law, ...]:
    """A theory's text read and checked against ``domain``.

    Raises:
        TheoryError: text that is not a theory, or the first way it does not fit the domain.
    """
    theory = parse_theory(text)
    problems = check_theory(theory, domain)
    if problems:
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        raise TheoryError(problems[0] + more)
    return theory


# -- comparing with the hidden laws -------------------------------------------------------------------------
@dataclass(frozen=True)
class Equivalence:
    """How a theory compares with the truth on probe experiments.

    Attributes:
        equivalent: they agree on every probe; agree, total: probes they agree on, of all.
        counterexample: the first probe where they differ, as JSON (the trial and both outcomes), else None.
    """

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
        assignments = (
            [(t,) for t in domain.types]
            if op.arity == 1
            else [(x, y) for x in domain.types for y in domain.types]
        )
        for types in assignments:
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
