"""The guess language: parse model-written Python with :mod:`ast`, whitelist it, compile it to IR.

Nothing here executes the text. ``ast.parse`` only builds a syntax tree; every node kind that is not explicitly
understood is rejected with a one-line reason, and the accepted subset is compiled to the small IR of
:mod:`wason.sandbox.ir`, which :mod:`wason.sandbox.evaluate` runs with numpy. See ``docs/guess-language.md``.
"""

from __future__ import annotations

import ast
import functools
import math
import weakref
from collections.abc import Iterator, Mapping, Sequence

from wason.sandbox.desugar import desugar
from wason.sandbox.ir import (
    BINARY,
    BOOLOP,
    CALL,
    COMPARE,
    CONST,
    IFEXP,
    ISTYPE,
    REDUCE,
    SEQ,
    SLOW_CALLS,
    UNARY,
    VAR,
    Item,
    Node,
)
from wason.sandbox.program import Program
from wason.sandbox.pyast import parse
from wason.sandbox.rejected import GuessRejected as GuessRejected

MAX_SOURCE_CHARS = 2000
"""Longest accepted text; checked before parsing so the parser never sees more."""
MAX_NODES = 300
"""Largest accepted IR, counted after comprehensions are unrolled."""
MAX_DEPTH = 50
"""Deepest accepted IR."""
MAX_SLOW_OPS = 16
"""Most distinct operations that need CPython's C library point by point (``**``, log/exp/trig, 2-arg round)."""
MAX_ROUND_DIGITS = 22
"""Largest |ndigits| accepted by ``round(v, ndigits)`` (10**22 is the largest power of ten a float holds exactly)."""
_MAX_AST_DEPTH = 100  # guards the recursive compiler; the IR depth limit is the real one

DEFAULT_PARAMS = ("x", "y", "z")


_BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.BitAnd: "and",
    ast.BitOr: "or",
    ast.BitXor: "xor",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
}
_CMPOPS: dict[type[ast.cmpop], str] = {
    ast.Lt: "lt",
    ast.LtE: "le",
    ast.Gt: "gt",
    ast.GtE: "ge",
    ast.Eq: "eq",
    ast.NotEq: "ne",
    ast.In: "in",
    ast.NotIn: "notin",
}
# name -> (min args, max args); None means unbounded
_BUILTINS: dict[str, tuple[int, int | None]] = {
    "abs": (1, 1),
    "int": (0, 1),
    "float": (0, 1),
    "bool": (0, 1),
    "round": (1, 2),
    "pow": (2, 2),
    "min": (1, None),
    "max": (1, None),
    "sum": (1, 1),
    "all": (1, 1),
    "any": (1, 1),
    "isinstance": (2, 2),
}
_MATH_FUNCS: dict[str, tuple[int, int | None]] = {
    "floor": (1, 1),
    "ceil": (1, 1),
    "trunc": (1, 1),
    "sqrt": (1, 1),
    "isqrt": (1, 1),
    "fabs": (1, 1),
    "gcd": (0, None),
    "log": (1, 2),
    "log2": (1, 1),
    "log10": (1, 1),
    "exp": (1, 1),
    "sin": (1, 1),
    "cos": (1, 1),
    "tan": (1, 1),
    "pow": (2, 2),
}
_MATH_CONSTS: dict[str, float] = {
    "pi": math.pi,
    "e": math.e,
    "tau": math.tau,
    "inf": math.inf,
    "nan": math.nan,
}
_RESERVED = frozenset({"math", "None", "True", "False", *_BUILTINS})
_REDUCERS = frozenset({"min", "max", "sum", "all", "any"})

_FORBIDDEN: dict[type[ast.AST], str] = {
    ast.Subscript: "subscripts (a[i]) are not allowed",
    ast.Lambda: "nested lambdas are not allowed",
    ast.NamedExpr: "assignment expressions (:=) are not allowed",
    ast.JoinedStr: "f-strings are not allowed",
    ast.FormattedValue: "f-strings are not allowed",
    ast.Dict: "dicts are not allowed",
    ast.DictComp: "dict comprehensions are not allowed",
    ast.Set: "sets are not allowed",
    ast.SetComp: "set comprehensions are not allowed",
    ast.Starred: "starred expressions are not allowed",
    ast.Await: "await is not allowed",
    ast.Yield: "yield is not allowed",
    ast.YieldFrom: "yield is not allowed",
    ast.Slice: "slices are not allowed",
    ast.Tuple: "a tuple is only allowed inside all/any/sum/min/max, as a comprehension's iterable or after 'in'",
    ast.List: "a list is only allowed inside all/any/sum/min/max, as a comprehension's iterable or after 'in'",
    ast.ListComp: "a comprehension is only allowed as the argument of all/any/sum/min/max",
    ast.GeneratorExp: "a comprehension is only allowed as the argument of all/any/sum/min/max",
}


def compile_rule(text: str) -> Program:
    """Compile a rule or guess into a :class:`Program`, without executing anything.

    Args:
        text: ``"lambda a, b, c: <expr>"`` (any three positional parameter names, no defaults) or a bare
            expression in ``x``, ``y`` and ``z``.

    Returns:
        The compiled, immutable program.

    Raises:
        GuessRejected: the text is not in the guess language or exceeds a limit; ``.reason`` says why.
    """
    if not isinstance(text, str):
        raise GuessRejected(f"a guess must be text, not {type(text).__name__}")
    return _compile(text)


COMPILED_KEPT = 1024
"""Compiled programs kept by their text (:func:`compile_rule`): a run compiles each guess at least twice (the
judge, the complexity figures) and a model repeats its guesses; compiling one takes milliseconds."""


@functools.lru_cache(maxsize=COMPILED_KEPT)
def _compile(text: str) -> Program:
    """:func:`compile_rule` for a text (a refused text raises again each time: only programs are kept)."""
    tree = parse_guess(text, "the guess", MAX_SOURCE_CHARS)
    _check_ast_depth(tree.body)
    expanded = desugar(tree.body)
    _check_ast_depth(expanded)
    params, body = _split_lambda(expanded)
    compiler = _Compiler()
    root = compiler.expr(body, {name: compiler.var(i) for i, name in enumerate(params)})
    return Program(
        source=text,
        constants=tuple(_literal_constants(body)),
        node_count=root.size,
        _root=root,
        _operators=_operator_count(body),
    )


def parse_guess(text: str, what: str, limit: int) -> ast.Expression:
    """``text``, stripped, parsed as one Python expression; a refusal is one line naming ``what`` (``the
    guess``): longer than ``limit`` characters, empty, not an expression, or beyond what the parser takes.

    Raises:
        GuessRejected: the text is refused; ``.reason`` says why.
    """
    if len(text) > limit:
        raise GuessRejected(f"{what} is {len(text)} characters long; the limit is {limit}")
    stripped = text.strip()
    if not stripped:
        raise GuessRejected(f"{what} is empty")
    try:
        return parse(stripped, mode="eval")
    except SyntaxError as exc:
        raise GuessRejected(f"not a valid Python expression: {_one_line(exc.msg)}") from None
    except (RecursionError, MemoryError, ValueError, OverflowError) as exc:
        raise GuessRejected(f"{what} could not be parsed: {type(exc).__name__}") from None


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _check_ast_depth(root: ast.AST) -> None:
    # Iterative, so a pathological tree cannot exhaust the Python stack before we look at it.
    stack: list[tuple[ast.AST, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > _MAX_AST_DEPTH:
            raise GuessRejected(f"the guess is nested more than {MAX_DEPTH} levels deep")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _split_lambda(node: ast.expr) -> tuple[tuple[str, ...], ast.expr]:
    if not isinstance(node, ast.Lambda):
        return DEFAULT_PARAMS, node
    a = node.args
    if a.vararg or a.kwarg or a.kwonlyargs:
        raise GuessRejected(
            "the lambda must take exactly three plain parameters (no *args, **kwargs or keywords)"
        )
    if a.defaults or a.kw_defaults:
        raise GuessRejected("lambda parameters may not have default values")
    params = tuple(p.arg for p in [*a.posonlyargs, *a.args])
    if len(params) != 3:
        raise GuessRejected(f"the lambda must take exactly three parameters (x, y, z), not {len(params)}")
    if len(set(params)) != 3:
        raise GuessRejected("the lambda's parameter names must be distinct")
    for name in params:
        if name in _RESERVED:
            raise GuessRejected(f"parameter name '{name}' is reserved")
    return params, node.body


def _literal_constants(root: ast.expr) -> Iterator[float]:
    """Numeric literals in order of first appearance, with a leading unary minus folded in."""
    seen: set[tuple[float, bool]] = set()
    stack: list[ast.AST] = [root]
    while stack:
        node = stack.pop()
        value: float | None = None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            sign = 1.0
            inner: ast.expr = node
            while isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.USub | ast.UAdd):
                sign = -sign if isinstance(inner.op, ast.USub) else sign
                inner = inner.operand
            literal = _number_value(inner)
            if literal is not None:
                value = sign * literal
        elif _number_value(node) is not None:
            value = _number_value(node)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "math"
            and node.attr in _MATH_CONSTS
        ):
            value = _MATH_CONSTS[node.attr]
        if value is not None:
            key = (value, math.copysign(1.0, value) < 0)
            if math.isfinite(value) and key not in seen:
                seen.add(key)
                yield value
            continue
        # reversed, so the stack pops children in source order
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _is_number_literal(node: ast.AST) -> bool:
    return _number_value(node) is not None


def _number_value(node: ast.AST) -> float | None:
    """The value of an int or float literal (not a bool), else None."""
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return _literal_float(node.value)
    return None


def _literal_float(value: int | float) -> float:
    try:
        return float(value)
    except OverflowError:  # an integer literal beyond the float range stands for itself as +-inf
        return math.inf if value > 0 else -math.inf


def _operator_count(root: ast.expr) -> int:
    count = 0
    for node in ast.walk(root):
        if isinstance(node, ast.BinOp | ast.Call | ast.IfExp):
            count += 1
        elif isinstance(node, ast.UnaryOp):
            # The sign of a literal is part of the number, not an operator applied to it.
            if not (isinstance(node.op, ast.USub | ast.UAdd) and _is_number_literal(node.operand)):
                count += 1
        elif isinstance(node, ast.BoolOp):
            count += len(node.values) - 1
        elif isinstance(node, ast.Compare):
            count += len(node.ops)
    return count


# Structurally equal nodes are one object, across programs too; entries vanish with the last program using them.
# A key holds the ids of the children, which stay valid because a live node keeps its children alive.
_INTERNED: weakref.WeakValueDictionary[tuple[object, ...], Node] = weakref.WeakValueDictionary()


class _Compiler:
    """AST -> interned IR, enforcing the whitelist and the size, depth and slow-operation limits."""

    def __init__(self) -> None:
        self._used: set[int] = set()  # ids of the nodes of this program, to count its slow operations
        self._keep: list[Node] = []  # strong references while compiling, so interned entries cannot vanish
        self._slow = 0

    # ---- node construction -------------------------------------------------------------------------------

    def make(
        self,
        kind: str,
        op: str = "",
        args: Sequence[Node] = (),
        *,
        ops: tuple[str, ...] = (),
        items: Sequence[Item] = (),
        pre: Sequence[Node] = (),
        lazy: bool = False,
        value: float = 0.0,
        is_int: bool = False,
        index: int = 0,
    ) -> Node:
        key = (
            kind,
            op,
            tuple(id(a) for a in args),
            ops,
            tuple((tuple(id(c) for c in it.conds), id(it.body)) for it in items),
            tuple(id(p) for p in pre),
            lazy,
            value.hex(),
            is_int,
            index,
        )
        found = _INTERNED.get(key)
        if found is not None:
            self._count(found)
            return found
        children = [*args, *pre]
        for it in items:
            children.extend(it.conds)
            children.append(it.body)
        size = 1 + sum(c.size for c in children)
        depth = 1 + max((c.depth for c in children), default=0)
        if size > MAX_NODES:
            raise GuessRejected(f"the guess is too large: more than {MAX_NODES} operations once expanded")
        if depth > MAX_DEPTH:
            raise GuessRejected(f"the guess is nested more than {MAX_DEPTH} levels deep")
        boolean = (
            kind in (COMPARE, ISTYPE)
            or (kind == UNARY and op == "not")
            or (kind == REDUCE and op in ("all", "any"))
            or (kind == CALL and op in ("bool", "is_integer"))
            or (kind == CONST and is_int and value in (0.0, 1.0))
            or (kind == BOOLOP and all(a.boolean for a in args))
            or (kind == IFEXP and args[1].boolean and args[2].boolean)
        )
        free = 1 << index if kind == VAR else 0
        for c in children:
            free |= c.free
        node = Node(
            kind=kind,
            op=op,
            args=tuple(args),
            ops=ops,
            items=tuple(items),
            pre=tuple(pre),
            lazy=lazy,
            value=value,
            is_int=is_int,
            index=index,
            size=size,
            depth=depth,
            boolean=boolean,
            free=free,
        )
        self._count(node)
        _INTERNED[key] = node
        return node

    def _count(self, node: Node) -> None:
        if id(node) in self._used:
            return
        self._used.add(id(node))
        self._keep.append(node)
        if (node.kind == BINARY and node.op == "pow") or (node.kind == CALL and node.op in SLOW_CALLS):
            self._slow += 1
            if self._slow > MAX_SLOW_OPS:
                raise GuessRejected(
                    f"the guess uses more than {MAX_SLOW_OPS} distinct powers, logarithms, exponentials, "
                    "trigonometric functions or 2-argument rounds"
                )

    def var(self, index: int) -> Node:
        return self.make(VAR, index=index)

    def const(self, value: float, is_int: bool) -> Node:
        return self.make(CONST, value=value, is_int=is_int)

    # ---- expressions -------------------------------------------------------------------------------------

    def expr(self, node: ast.expr, env: Mapping[str, Node]) -> Node:
        if isinstance(node, ast.Constant):
            return self._constant(node)
        if isinstance(node, ast.Name):
            return self._name(node, env)
        if isinstance(node, ast.Attribute):
            return self._attribute(node, env)
        if isinstance(node, ast.UnaryOp):
            return self._unary(node, env)
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise GuessRejected("the @ operator is not allowed")
            return self.make(BINARY, op, (self.expr(node.left, env), self.expr(node.right, env)))
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            return self.make(BOOLOP, op, [self.expr(v, env) for v in node.values])
        if isinstance(node, ast.Compare):
            return self._compare(node, env)
        if isinstance(node, ast.IfExp):
            parts = (self.expr(node.test, env), self.expr(node.body, env), self.expr(node.orelse, env))
            return self.make(IFEXP, "", parts)
        if isinstance(node, ast.Call):
            return self._call(node, env)
        reason = _FORBIDDEN.get(type(node))
        raise GuessRejected(reason or f"{type(node).__name__} expressions are not allowed")

    def _constant(self, node: ast.Constant) -> Node:
        v = node.value
        if isinstance(v, bool):
            return self.const(float(v), True)
        if isinstance(v, int):
            return self.const(_literal_float(v), True)
        if isinstance(v, float):
            return self.const(v, False)
        if isinstance(v, complex):
            raise GuessRejected("complex numbers are not allowed")
        if isinstance(v, str | bytes):
            raise GuessRejected("strings are not allowed")
        raise GuessRejected(f"the constant {v!r} is not allowed")

    def _name(self, node: ast.Name, env: Mapping[str, Node]) -> Node:
        found = env.get(node.id)
        if found is not None:
            return found
        if node.id == "math":
            raise GuessRejected("'math' can only be used as math.<function>(...) or math.pi, math.e")
        if node.id in _BUILTINS:
            raise GuessRejected(f"'{node.id}' can only be called")
        if node.id == "None":  # pragma: no cover - Python parses None as a Constant
            raise GuessRejected("None is not allowed")
        raise GuessRejected(f"name '{node.id}' is not allowed")

    def _attribute(self, node: ast.Attribute, env: Mapping[str, Node]) -> Node:
        if _is_math(node.value, env):
            if node.attr in _MATH_CONSTS:
                return self.const(_MATH_CONSTS[node.attr], False)
            if node.attr in _MATH_FUNCS:
                raise GuessRejected(f"math.{node.attr} must be called")
            raise GuessRejected(f"math.{node.attr} is not supported")
        _check_owner(node.value, env)
        if node.attr == "is_integer":
            raise GuessRejected("is_integer must be called: (value).is_integer()")
        raise GuessRejected(f"attribute '.{node.attr}' is not allowed")

    def _unary(self, node: ast.UnaryOp, env: Mapping[str, Node]) -> Node:
        operand = self.expr(node.operand, env)
        if isinstance(node.op, ast.UAdd | ast.USub) and operand.kind == CONST:
            value = -operand.value if isinstance(node.op, ast.USub) else operand.value
            return self.const(value, operand.is_int)
        if isinstance(node.op, ast.USub):
            return self.make(UNARY, "neg", (operand,))
        if isinstance(node.op, ast.UAdd):
            return self.make(UNARY, "pos", (operand,))
        if isinstance(node.op, ast.Not):
            return self.make(UNARY, "not", (operand,))
        return self.make(UNARY, "invert", (operand,))

    def _compare(self, node: ast.Compare, env: Mapping[str, Node]) -> Node:
        if isinstance(node.left, ast.Tuple | ast.List):
            raise GuessRejected("comparing tuples or lists is not supported")
        operands = [self.expr(node.left, env)]
        ops: list[str] = []
        for i, (op_node, right) in enumerate(zip(node.ops, node.comparators, strict=True)):
            if isinstance(op_node, ast.Is | ast.IsNot):
                raise GuessRejected("'is' compares object identity and is not allowed; use == or !=")
            op = _CMPOPS[type(op_node)]
            if op in ("in", "notin"):
                if not isinstance(right, ast.Tuple | ast.List):
                    raise GuessRejected(
                        "'in' needs a literal tuple or list on its right, e.g. x in (1, 2, 3)"
                    )
                if i != len(node.ops) - 1:
                    raise GuessRejected("a tuple after 'in' cannot be compared further")
                operands.append(self.make(SEQ, "", [self.expr(e, env) for e in _elements(right)]))
            else:
                if isinstance(right, ast.Tuple | ast.List):
                    raise GuessRejected("comparing tuples or lists is not supported")
                operands.append(self.expr(right, env))
            ops.append(op)
        return self.make(COMPARE, "", operands, ops=tuple(ops))

    # ---- calls -------------------------------------------------------------------------------------------

    def _call(self, node: ast.Call, env: Mapping[str, Node]) -> Node:
        if node.keywords:
            raise GuessRejected("keyword arguments are not allowed")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise GuessRejected("starred arguments are not allowed")
        func = node.func
        n = len(node.args)
        if isinstance(func, ast.Name):
            if func.id in env:
                raise GuessRejected(f"'{func.id}' is a number and cannot be called")
            if func.id not in _BUILTINS:
                if func.id == "range":
                    raise GuessRejected(
                        "range() is not allowed: iterate over a literal tuple such as (x, y, z)"
                    )
                raise GuessRejected(f"function '{func.id}' is not allowed")
            _check_arity(func.id, n, _BUILTINS[func.id])
            return self._builtin(func.id, node.args, env)
        if isinstance(func, ast.Attribute):
            if _is_math(func.value, env):
                if func.attr not in _MATH_FUNCS:
                    raise GuessRejected(f"math.{func.attr} is not supported")
                _check_arity(f"math.{func.attr}", n, _MATH_FUNCS[func.attr])
                args = [self.expr(a, env) for a in node.args]
                name = "fpow" if func.attr == "pow" else func.attr
                if name == "log" and n == 2:
                    name = "logb"
                return self.make(CALL, name, args)
            _check_owner(func.value, env)
            if func.attr != "is_integer" and isinstance(func.value, ast.Call):
                self.expr(func.value, env)  # report the inner call first: __import__('os').system(...)
            if func.attr == "is_integer":
                if n:
                    raise GuessRejected("is_integer() takes no arguments")
                return self.make(CALL, "is_integer", (self.expr(func.value, env),))
            raise GuessRejected(f"method '.{func.attr}()' is not allowed")
        if isinstance(func, ast.Lambda):
            raise GuessRejected("calling a lambda is not allowed")
        raise GuessRejected("only whitelisted functions can be called")

    def _builtin(self, name: str, args: list[ast.expr], env: Mapping[str, Node]) -> Node:
        if name in _REDUCERS:
            return self._reduction(name, args, env)
        if name == "isinstance":
            return self.make(ISTYPE, _isinstance_kind(args[1]), (self.expr(args[0], env),))
        if not args:  # int(), float(), bool() are 0, 0.0, False
            return self.const(0.0, name != "float")
        if name == "round" and len(args) == 2:
            return self.make(CALL, "round2", (self.expr(args[0], env), self._ndigits(args[1])))
        compiled = [self.expr(a, env) for a in args]
        if name == "pow":
            return self.make(BINARY, "pow", compiled)
        return self.make(CALL, "round1" if name == "round" else name, compiled)

    def _ndigits(self, node: ast.expr) -> Node:
        sign, inner = 1, node
        while isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.USub | ast.UAdd):
            sign = -sign if isinstance(inner.op, ast.USub) else sign
            inner = inner.operand
        if not (isinstance(inner, ast.Constant) and type(inner.value) is int):
            raise GuessRejected("round()'s second argument must be an integer literal, e.g. round(x, 2)")
        digits = sign * inner.value
        if abs(digits) > MAX_ROUND_DIGITS:
            raise GuessRejected(
                f"round()'s second argument must be between -{MAX_ROUND_DIGITS} and {MAX_ROUND_DIGITS}"
            )
        return self.const(float(digits), True)

    def _reduction(self, name: str, args: list[ast.expr], env: Mapping[str, Node]) -> Node:
        if len(args) > 1:
            if name in ("min", "max"):
                return self.make(REDUCE, name, items=[Item((), self.expr(a, env)) for a in args])
            raise GuessRejected(f"{name}() takes one iterable")  # pragma: no cover - arity checked before
        arg = args[0]
        if isinstance(arg, ast.Tuple | ast.List):
            items = [Item((), self.expr(e, env)) for e in _elements(arg)]
            if not items and name in ("min", "max"):
                raise GuessRejected(f"{name}() of an empty sequence always fails")
            return self.make(REDUCE, name, items=items)
        if isinstance(arg, ast.ListComp | ast.GeneratorExp):
            items, pre = self._unroll(arg, env)
            if not items and name in ("min", "max"):
                raise GuessRejected(f"{name}() of an empty sequence always fails")
            lazy = isinstance(arg, ast.GeneratorExp) and name in ("all", "any")
            return self.make(REDUCE, name, items=items, pre=pre, lazy=lazy)
        raise GuessRejected(
            f"{name}() needs a literal tuple/list or a comprehension over one, e.g. {name}((x, y, z))"
        )

    def _unroll(
        self, comp: ast.ListComp | ast.GeneratorExp, env: Mapping[str, Node]
    ) -> tuple[list[Item], list[Node]]:
        if len(comp.generators) != 1:
            raise GuessRejected("a comprehension may have only one 'for'")
        gen = comp.generators[0]
        if gen.is_async:
            raise GuessRejected("async comprehensions are not allowed")
        names = _target_names(gen.target)
        if not isinstance(gen.iter, ast.Tuple | ast.List):
            if (
                isinstance(gen.iter, ast.Call)
                and isinstance(gen.iter.func, ast.Name)
                and gen.iter.func.id == "range"
            ):
                raise GuessRejected("range() is not allowed: iterate over a literal tuple such as (x, y, z)")
            raise GuessRejected(
                "a comprehension must iterate over a literal tuple or list, e.g. for v in (x, y, z)"
            )
        # Python builds the iterable before the first iteration, so its elements are compiled in the outer scope.
        bindings: list[dict[str, Node]] = []
        pre: list[Node] = []
        for element in _elements(gen.iter):
            if names is None:
                assert isinstance(gen.target, ast.Name)
                value = self.expr(element, env)
                pre.append(value)
                bindings.append({gen.target.id: value})
                continue
            if not isinstance(element, ast.Tuple | ast.List) or len(element.elts) != len(names):
                raise GuessRejected(f"cannot unpack an element of the iterable into {len(names)} names")
            values = [self.expr(e, env) for e in _elements(element)]
            pre.extend(values)
            bindings.append(dict(zip(names, values, strict=True)))
        items: list[Item] = []
        for binding in bindings:
            inner = {**env, **binding}
            conds = tuple(self.expr(c, inner) for c in gen.ifs)
            items.append(Item(conds, self.expr(comp.elt, inner)))
        return items, pre


def _check_arity(name: str, n: int, arity: tuple[int, int | None]) -> None:
    low, high = arity
    if n < low or (high is not None and n > high):
        if low == high:
            expected = f"{low} argument{'s' if low != 1 else ''}"
        elif high is None:
            expected = f"at least {low} argument{'s' if low != 1 else ''}"
        else:
            expected = f"{low} to {high} arguments"
        raise GuessRejected(f"{name}() takes {expected}, not {n}")


def _check_owner(node: ast.expr, env: Mapping[str, Node]) -> None:
    """Name the real culprit of ``self.rule`` or ``os.system(...)``: the unknown name, not its attribute."""
    if isinstance(node, ast.Name) and node.id not in env:
        raise GuessRejected(f"name '{node.id}' is not allowed")


def _is_math(node: ast.expr, env: Mapping[str, Node]) -> bool:
    return isinstance(node, ast.Name) and node.id == "math" and "math" not in env


def _elements(node: ast.Tuple | ast.List) -> list[ast.expr]:
    for e in node.elts:
        if isinstance(e, ast.Starred):
            raise GuessRejected("starred expressions are not allowed")
    return list(node.elts)


def _target_names(target: ast.expr) -> list[str] | None:
    """None for a single name; the names of a flat tuple target otherwise."""
    if isinstance(target, ast.Name):
        _check_loop_name(target.id)
        return None
    if isinstance(target, ast.Tuple | ast.List) and all(isinstance(t, ast.Name) for t in target.elts):
        names = [t.id for t in target.elts if isinstance(t, ast.Name)]
        for name in names:
            _check_loop_name(name)
        if len(set(names)) != len(names):
            raise GuessRejected("a comprehension's loop names must be distinct")
        return names
    raise GuessRejected("a comprehension's loop target must be a name or a tuple of names")


def _check_loop_name(name: str) -> None:
    if name in _RESERVED:
        raise GuessRejected(f"loop variable name '{name}' is reserved")


def _isinstance_kind(node: ast.expr) -> str:
    names: list[ast.expr] = list(node.elts) if isinstance(node, ast.Tuple) else [node]
    kinds: set[str] = set()
    for n in names:
        if not isinstance(n, ast.Name) or n.id not in ("int", "float"):
            shown = n.id if isinstance(n, ast.Name) else type(n).__name__
            raise GuessRejected(f"isinstance() supports only int and float, not {shown}")
        kinds.add(n.id)
    if not kinds:
        raise GuessRejected("isinstance() needs int, float or (int, float)")
    return "number" if kinds == {"int", "float"} else kinds.pop()
