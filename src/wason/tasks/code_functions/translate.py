"""Python functions written by a model (the published ``history_L1.txt``, a game master's reply) translated into
the word language, as text only.

The code is parsed with :mod:`ast` and never run. A function translates when its body is a sequence of simple
assignments (``vowels = 'aeiou'``) and one ``return`` of an expression: the assigned names are substituted into
the returned expression, the parameter becomes ``w``, and the result must compile in the word language
(:func:`wason.sandbox.compile_word_rule`). Anything else (an ``if`` statement, a loop, a second ``return``,
a name the language does not know, ``import``...) is listed with the reason.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import itertools
import re
from dataclasses import dataclass

from wason.core.guess_rule import package_text
from wason.sandbox import GuessRejected, compile_word_rule
from wason.sandbox.pyast import parse
from wason.sandbox.words import MAX_WORD_NODES

MAX_FUNCTION_CHARS = 4000
# a top-level ``def``: at the start of a line, or glued to the previous ``generated_fn = name`` (nested ``def``s
# are indented)
_DEF = re.compile(r"(?:^|(?<=\w))def\s+[A-Za-z_]\w*\s*\(", re.MULTILINE)
_ASSIGN_FN = re.compile(r"generated_fn\s*=\s*[A-Za-z_]\w*")


@dataclass(frozen=True)
class Translation:
    """One function: its name and code as published, and its word-language predicate or why there is none."""

    index: int
    name: str
    code: str
    source: str | None
    reason: str | None

    def to_json(self) -> dict[str, object]:
        return dataclasses.asdict(self)


def split_functions(text: str) -> list[str]:
    """The function definitions of a history file or a reply, each up to (not including) its
    ``generated_fn = ...`` line. The published file glues some definitions to the previous assignment
    (``generated_fn = is_longer_than_fivedef is_unique...``); a ``def`` is found wherever it starts."""
    starts = [m.start() for m in _DEF.finditer(text)]
    out = []
    for start, end in itertools.pairwise([*starts, len(text)]):
        chunk = text[start:end]
        m = _ASSIGN_FN.search(chunk)
        out.append((chunk[: m.start()] if m else chunk).rstrip() + "\n")
    return out


def _name_of(code: str) -> str:
    m = re.match(r"def\s+([A-Za-z_]\w*)", code)
    return m.group(1) if m else "?"


class _Inline(ast.NodeTransformer):
    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return copy.deepcopy(self.values[node.id])
        return node


def translate_function(code: str, index: int = 0) -> Translation:
    """Translate one ``def`` into a ``lambda w: ...`` of the word language, or say why it cannot be."""
    name = _name_of(code)

    def refuse(reason: str) -> Translation:
        return Translation(index, name, code, None, reason)

    if len(code) > MAX_FUNCTION_CHARS:
        return refuse(f"the function is longer than {MAX_FUNCTION_CHARS} characters")
    try:
        tree = parse(code, mode="exec")
    except SyntaxError as exc:
        return refuse(f"not valid Python: {exc.msg}")
    except (RecursionError, MemoryError, ValueError) as exc:
        return refuse(f"could not be parsed: {type(exc).__name__}")
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(functions) != 1 or len(tree.body) != 1:
        return refuse("expected exactly one function definition")
    fn = functions[0]
    args = fn.args
    if args.vararg or args.kwarg or args.kwonlyargs or len(args.posonlyargs) + len(args.args) != 1:
        return refuse("the function must take exactly one argument (the word)")
    if fn.decorator_list:
        return refuse("decorators are not supported")
    param = [*args.posonlyargs, *args.args][0].arg
    values: dict[str, ast.expr] = {}
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # a docstring
    result: ast.expr | None = None
    for k, statement in enumerate(body):
        if isinstance(statement, ast.Assign):
            if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
                return refuse("only assignments to one plain name are supported")
            target = statement.targets[0].id
            if target == param:
                return refuse("the function reassigns its argument")
            value = _Inline(dict(values)).visit(copy.deepcopy(statement.value))
            if _too_big(value):  # inlining doubles at each step (b = a + a; c = b + b; ...): stop early
                return refuse(f"the expression grows past {MAX_WORD_NODES} nodes once its names are inlined")
            values[target] = value
        elif isinstance(statement, ast.Return):
            if k != len(body) - 1 or statement.value is None:
                return refuse("the function must end with its only return of a value")
            result = statement.value
        elif isinstance(statement, ast.Pass):
            continue
        elif isinstance(statement, ast.FunctionDef):
            return refuse(f"a nested function ({statement.name}) has no form in the word language")
        else:
            return refuse(f"a {type(statement).__name__} statement has no form in the word language")
    if result is None:
        return refuse("the function returns nothing")
    expression = _Inline(values).visit(copy.deepcopy(result))
    if _too_big(expression):
        return refuse(f"the expression grows past {MAX_WORD_NODES} nodes once its names are inlined")
    expression = _Rename(param).visit(expression)
    ast.fix_missing_locations(expression)
    source = f"lambda w: {ast.unparse(expression)}"
    try:
        compile_word_rule(source)
    except GuessRejected as exc:
        return refuse(f"outside the word language: {exc.reason}")
    return Translation(index, name, code, source, None)


def _too_big(node: ast.AST) -> bool:
    return any(count > 4 * MAX_WORD_NODES for count, _ in enumerate(ast.walk(node), 1))


class _Rename(ast.NodeTransformer):
    def __init__(self, param: str) -> None:
        self.param = param

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == self.param:
            return ast.copy_location(ast.Name(id="w", ctx=node.ctx), node)
        if node.id == "w":  # a name ``w`` of the function's own (a comprehension variable) would be captured
            return ast.copy_location(ast.Name(id="w_", ctx=node.ctx), node)
        return node


def translate_text(text: str) -> list[Translation]:
    """Every function of a history file or reply, translated (or not, with the reason), in order."""
    return [translate_function(code, i + 1) for i, code in enumerate(split_functions(text))]


def published_history() -> str:
    """The published ``history_L1.txt`` (170 accepted functions), byte for byte."""
    return package_text("wason.tasks.code_functions", "history_L1.txt")


def published_translations() -> list[Translation]:
    return translate_text(published_history())
