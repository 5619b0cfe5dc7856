"""Reading a theory written in the law language (:mod:`wason.tasks.lab.laws`) into laws: a small tokenizer and
recursive-descent parser of our own (never ``eval``), bounded so that hostile text is cheap to refuse (the
grammar: :mod:`wason.tasks.lab.theory`). It knows no domain, so the world reads its stored laws with it."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wason.tasks.lab.laws import Arith, Bool, Compare, Expr, Law, Logic, Neg, Not, Num, Ref

MAX_TEXT = 20_000
MAX_LAWS = 60
MAX_TOKENS = 400
MAX_DEPTH = 30
MAX_NUMBER = 1e12
MAX_NAME = 64

KEYWORDS = frozenset({"on", "if", "and", "or", "not", "true", "false"})
_TOKEN = re.compile(
    r"(?P<name>[A-Za-z][A-Za-z0-9_]*)|(?P<number>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<symbol><=|>=|==|!=|[<>=+\-*/(),:.])"
)
_GLUED = re.compile(r"[A-Za-z0-9_.]")
"""What may not follow a number."""
_COMPARE_OPS = ("<", "<=", ">", ">=", "==", "!=")


class TheoryError(ValueError):
    """A theory that cannot be read, or that does not fit its domain: one line saying where and what."""


# -- tokens -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Token:
    kind: str  # "name", "number", "keyword", "symbol", "end"
    text: str
    value: float = 0.0


def quoted(text: str) -> str:
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
        match = _TOKEN.match(text, i)
        if match is None:
            raise TheoryError(f"line {line}: unexpected character {quoted(c)}")
        word, i = match.group(), match.end()
        if match.lastgroup == "symbol":
            out.append(_Token("symbol", word))
        elif match.lastgroup == "name":
            if len(word) > MAX_NAME:
                raise TheoryError(f"line {line}: a name longer than {MAX_NAME} characters: {quoted(word)}")
            lower = word.lower()
            out.append(_Token("keyword", lower) if lower in KEYWORDS else _Token("name", word))
        else:
            if _GLUED.match(text, i):
                raise TheoryError(f"line {line}: a malformed number {quoted(text[match.start() : i + 1])}")
            if len(word) > 40:
                raise TheoryError(f"line {line}: a number of more than 40 characters")
            value = float(word)  # ASCII digits only: float() cannot fail or run long here
            if not math.isfinite(value) or abs(value) > MAX_NUMBER:
                raise TheoryError(f"line {line}: the number {quoted(word)} is out of range (at most 1e12)")
            out.append(_Token("number", word, value))
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
        return "the end of the law" if tok.kind == "end" else quoted(tok.text)

    def name(self, what: str) -> str:
        tok = self.peek
        if tok.kind != "name":
            if tok.kind == "keyword":
                raise self.fail(f"expected {what}, found the keyword {quoted(tok.text)}")
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
            raise self.fail(f"the two parameters must differ (both are {quoted(params[0])})")
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
                    f"unknown parameter {quoted(tok.text)} (the law's objects are {', '.join(self.params)})"
                )
            raise self.fail(f"unknown name {quoted(tok.text)} (write a property as {self.params[0]}.name)")
        self.expect(".", f"after {quoted(tok.text)}")
        prop = self.name("a property name after '.'")
        return Ref(self.params.index(tok.text), prop)

    def deeper(self, depth: int) -> int:
        if depth >= MAX_DEPTH:
            raise self.fail(f"the expression is nested more than {MAX_DEPTH} levels deep")
        return depth + 1

    def chain(self, ops: tuple[str, ...], kind: Any, operand: Callable[[int], Expr], depth: int) -> Expr:
        """Operands joined by the left-associative operators ``ops`` into ``kind`` nodes."""
        left = operand(depth)
        while any(self.at(op) for op in ops):
            left = kind(self.take().text, left, operand(depth))
        return left

    def expr(self, depth: int) -> Expr:
        return self.chain(("or",), Logic, self.conjunction, self.deeper(depth))

    def conjunction(self, depth: int) -> Expr:
        return self.chain(("and",), Logic, self.negation, depth)

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
            return Compare(tok.text, left, right)
        return left

    def sum(self, depth: int) -> Expr:
        return self.chain(("+", "-"), Arith, self.product, depth)

    def product(self, depth: int) -> Expr:
        return self.chain(("*", "/"), Arith, self.unary, depth)

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


def law_pieces(text: str) -> list[tuple[int, str]]:
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
    """The laws of a theory's text, in order."""
    if not isinstance(text, str):
        raise TheoryError("theory: not text")
    if len(text) > MAX_TEXT:
        raise TheoryError(f"theory: {len(text)} characters, more than the {MAX_TEXT} allowed")
    pieces = law_pieces(text)
    if not pieces:
        raise TheoryError("theory: no laws (write one law a line, such as 'on OP(a): a.prop = a.prop + 1')")
    if len(pieces) > MAX_LAWS:
        raise TheoryError(f"theory: {len(pieces)} laws, more than the {MAX_LAWS} allowed")
    return tuple(read_law(number, piece) for number, piece in pieces)


def read_law(number: int, piece: str) -> Law:
    """One law's text (from line ``number``) read."""
    parser = _Parser(_tokens(piece, number), number)
    law = parser.law()
    for part in (law.value, law.condition):
        if part is not None and _depth(part) > MAX_DEPTH:
            raise parser.fail(f"the expression is nested more than {MAX_DEPTH} levels deep")
    return law


def law_count(text: str) -> int:
    """How many laws ``text`` holds, as :func:`parse_theory` counts them (blank lines, comments and fences left
    out; laws separated by ``;`` counted apart)."""
    return len(law_pieces(text))
