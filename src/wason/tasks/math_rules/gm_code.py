"""Game-master-written rules (the reference's rule writer), read without running them.

The reference asked a model for a rule in words ended by ``$$`` and a Python function
``generate_next(current_value, index)`` ended by ``&&`` (``rule_generator_system_assembled.txt``), and exec'd the
function. Here the function is only parsed with :mod:`ast`: a function of two parameters whose body is made of
assignments to local names, ``if``/``elif``/``else`` and ``return`` is rewritten into one expression
``lambda current_value, index: ...`` (local names substituted, branches become conditional expressions); anything
else (imports, loops, calls outside the guess language, a body that never returns, as in the reference's own
few-shot functions) is rejected with the reason. The expression then goes through the sandbox like a player's
guess, and is identified with a rule of the grammar by code: the operation of each parity that agrees with it at
every value from -60 to 60 and every index of that parity, checked again on the level's whole extension. A
function that is no rule of the grammar, breaks the level's shape (one operation for L1 and L2, two for L3) or
gives mostly degenerate sequences is rejected, with the reason. Nothing here calls a model.
"""

from __future__ import annotations

import ast
import copy
import itertools
import re

import numpy as np

from wason.sandbox import GuessRejected
from wason.sandbox.pyast import parse
from wason.tasks.math_rules.expression import compile_expression, judge_expression
from wason.tasks.math_rules.rules import MathRule, Op, rule_rejection
from wason.tasks.math_rules.solver import solver_ops

MAX_CODE_CHARS = 5000
_MAX_EXPRESSION_CHARS = 1500
_PROBE_VALUES = range(-60, 61)
_INDICES = range(15)


def parse_rule_writer_reply(reply: str) -> tuple[str, str]:
    """The rule's words and its code from a rule writer's reply, as the reference cut them (base.py
    ``string2func``): the words between "Mathematical rule:" and ``$$``, the code from the first ``def`` to ``&&``
    without code fences (``ValueError`` when the reply has no function)."""
    if not isinstance(reply, str):
        raise ValueError("reply: a rule writer's reply must be text")
    text = reply[: MAX_CODE_CHARS * 4]
    start, end = text.find("Mathematical rule:"), text.find("$$")
    words = text[start:end].replace("Mathematical rule:", "").strip() if start != -1 and end != -1 else ""
    code_start = text.find("def")
    if code_start == -1:
        raise ValueError("reply: no function definition (def generate_next...)")
    code_end = text.find("&&", code_start)
    code = text[code_start : code_end if code_end != -1 else len(text)]
    return words, code.replace("```python", "").replace("```", "").strip()


def translate_generate_next(code: str) -> str:
    """``generate_next`` rewritten as ``lambda current_value, index: ...`` (checked by the sandbox), or
    ``GuessRejected`` saying why it cannot be."""
    if not isinstance(code, str):
        raise GuessRejected("the code must be text")
    if len(code) > MAX_CODE_CHARS:
        raise GuessRejected(f"the code is {len(code)} characters long; the limit is {MAX_CODE_CHARS}")
    try:
        tree = parse(code, mode="exec")
    except SyntaxError as exc:
        raise GuessRejected(f"not valid Python: {' '.join(str(exc.msg).split())}") from None
    except (RecursionError, MemoryError, ValueError, OverflowError) as exc:
        raise GuessRejected(f"the code could not be parsed: {type(exc).__name__}") from None
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    others = [n for n in tree.body if not isinstance(n, ast.FunctionDef) and not _is_docstring(n)]
    if others:
        raise GuessRejected(f"only a function definition is allowed, not {type(others[0]).__name__}")
    if len(functions) != 1:
        raise GuessRejected(f"expected one function, found {len(functions)}")
    fn = functions[0]
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.kw_defaults or fn.decorator_list:
        raise GuessRejected("the function must take two plain parameters (current_value, index)")
    params = [p.arg for p in [*a.posonlyargs, *a.args]]
    if len(params) != 2:
        raise GuessRejected(f"the function must take two parameters, not {len(params)}")
    try:
        body = _Translator(set(params)).block(fn.body, {})
        if body is None:
            raise GuessRejected("the function never returns a value (it would return None)")
        text = ast.unparse(body[0])
    except RecursionError:
        raise GuessRejected("the function is nested too deeply") from None
    if len(text) > _MAX_EXPRESSION_CHARS:
        raise GuessRejected(_TOO_LARGE)
    expression = f"lambda {params[0]}, {params[1]}: {text}"
    compile_expression(expression)  # the guess language's whitelist and limits
    return expression


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


_TOO_LARGE = "the function is too large once written as one expression"
_MAX_NODES = 2000  # the largest expression a function may become (local names substituted)
_MAX_STEPS = 2000  # statements visited; each if visits the statements after it once per branch
# a name assigned on one branch of an if only: an error (0 // 0) where the other branch is taken
_UNBOUND = (ast.BinOp(ast.Constant(0), ast.FloorDiv(), ast.Constant(0)), 3)


class _Translator:
    """Rewrites a function body into one expression, within a size and a step budget."""

    def __init__(self, params: set[str]) -> None:
        self.params = params
        self.steps = 0

    def size(self, node: ast.expr, env: dict[str, tuple[ast.expr, int]]) -> int:
        total = 0
        for sub in ast.walk(node):
            total += env[sub.id][1] if isinstance(sub, ast.Name) and sub.id in env else 1
        return total

    def substitute(self, node: ast.expr, env: dict[str, tuple[ast.expr, int]]) -> tuple[ast.expr, int]:
        size = self.size(node, env)
        if size > _MAX_NODES:
            raise GuessRejected(_TOO_LARGE)

        class Swap(ast.NodeTransformer):
            # other names stay as they are: the sandbox refuses those outside the guess language
            def visit_Name(self, name: ast.Name) -> ast.expr:
                if name.id in env:
                    return copy.deepcopy(env[name.id][0])
                return name

        out = Swap().visit(copy.deepcopy(node))
        if not isinstance(out, ast.expr):  # pragma: no cover - a visitor of an expression returns one
            raise GuessRejected("the function could not be rewritten")
        return out, size

    def block(
        self, stmts: list[ast.stmt], env: dict[str, tuple[ast.expr, int]]
    ) -> tuple[ast.expr, int] | None:
        """The value a block returns (None when it falls through), with ``env`` updated by its assignments."""
        for k, stmt in enumerate(stmts):
            self.steps += 1
            if self.steps > _MAX_STEPS:
                raise GuessRejected("the function has too many branches")
            if _is_docstring(stmt) or isinstance(stmt, ast.Pass):
                continue
            if isinstance(stmt, ast.Return):
                if stmt.value is None:
                    raise GuessRejected("a bare return gives None")
                return self.substitute(stmt.value, env)
            if isinstance(stmt, ast.Assign):
                if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                    raise GuessRejected("only assignments to one local name are allowed")
                name = stmt.targets[0].id
                if name in self.params:
                    raise GuessRejected(f"the parameter '{name}' may not be reassigned")
                env[name] = self.substitute(stmt.value, env)
                continue
            if isinstance(stmt, ast.AugAssign):
                if not isinstance(stmt.target, ast.Name) or stmt.target.id in self.params:
                    raise GuessRejected("only local names may be updated")
                current = ast.Name(id=stmt.target.id, ctx=ast.Load())
                env[stmt.target.id] = self.substitute(ast.BinOp(current, stmt.op, stmt.value), env)
                continue
            if isinstance(stmt, ast.If):
                test, test_size = self.substitute(stmt.test, env)
                left_env, right_env = dict(env), dict(env)
                left = self.block(stmt.body, left_env)
                right = self.block(stmt.orelse, right_env)
                if left is None and right is None:
                    # both branches fall through: their assignments become conditional values, and a name
                    # assigned on one branch only is an error (Python's UnboundLocalError) on the other
                    for name in set(left_env) | set(right_env):
                        a, b = left_env.get(name, _UNBOUND), right_env.get(name, _UNBOUND)
                        if a is not b:
                            size = 1 + test_size + a[1] + b[1]
                            if size > _MAX_NODES:
                                raise GuessRejected(_TOO_LARGE)
                            env[name] = (ast.IfExp(test=test, body=a[0], orelse=b[0]), size)
                    continue
                rest = stmts[k + 1 :]
                if left is None:
                    left = self.block(rest, left_env)
                if right is None:
                    right = self.block(rest, right_env)
                if left is None or right is None:
                    raise GuessRejected("one branch of an if returns nothing (None)")
                size = 1 + test_size + left[1] + right[1]
                if size > _MAX_NODES:
                    raise GuessRejected(_TOO_LARGE)
                return ast.IfExp(test=test, body=left[0], orelse=right[0]), size
            raise GuessRejected(
                f"{type(stmt).__name__} statements are not allowed (only assignments, if and return)"
            )
        return None


def read_rule(text: str) -> str:
    """A rule as an expression: a ``lambda``/bare expression as given, or the ``generate_next`` function of a
    function or of a rule writer's reply, rewritten (see :func:`translate_generate_next`)."""
    if "def " in text:
        _, code = parse_rule_writer_reply(text)
        return translate_generate_next(code)
    compile_expression(text)
    return text.strip()


def identify_rule(expression: str, level: str) -> MathRule:
    """The grammar's rule that ``expression`` is, checked by code on the level's extension; ``GuessRejected``
    when it is outside the language, no rule of the grammar, the wrong shape for the level, or degenerate."""
    program = compile_expression(expression)
    ops = solver_ops()
    found: list[list[Op]] = []
    for parity in (0, 1):
        indices = [i for i in _INDICES if i % 2 == parity]
        points = [(v, i, op.apply(v)) for op in ops for i in indices for v in _PROBE_VALUES]
        truth, errors = program.evaluate_with_errors(np.array(points, dtype=np.float64))
        table = (truth & ~errors).reshape(len(ops), -1)
        ok = [bool(table[k].all()) for k in range(len(ops))]
        found.append([op for op, good in zip(ops, ok, strict=True) if good])
    even, odd = found
    if not even or not odd:
        raise GuessRejected("it is not one operation of the grammar for each parity of the index")
    same = [op for op in even if op in odd]
    rule = MathRule(same[0], same[0]) if same else MathRule(even[0], odd[0])
    if not judge_expression(rule, level, expression).equivalent:  # pragma: no cover - agreed on every probe
        raise GuessRejected("it does not generate the rule's sequences")
    if level in ("L1", "L2") and rule.alternating:
        raise GuessRejected(f"an {level} rule is one operation, and this one differs on even and odd indices")
    if level == "L3" and not rule.alternating:
        raise GuessRejected("an L3 rule has different operations on even and odd indices")
    reason = rule_rejection(rule, level)
    if reason is not None:
        raise GuessRejected(f"its sequences are mostly degenerate: {reason}")
    return rule


_FUNCTION = re.compile(r"^def generate_next\(", re.MULTILINE)


def split_functions(text: str) -> list[str]:
    """The ``def generate_next`` functions of a few-shot file, one text each."""
    starts = [m.start() for m in _FUNCTION.finditer(text)]
    return [text[s:e].strip() for s, e in itertools.pairwise([*starts, len(text)])]
