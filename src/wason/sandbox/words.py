"""The word-predicate language: whitelisted Python expressions over one string, run by our own interpreter.

A rule or guess such as ``lambda w: len(w) > 4 and w[0] not in "aeiou"`` is parsed with :func:`ast.parse`
(which only builds a syntax tree), every node is checked against a whitelist, and the accepted tree is evaluated
by the small interpreter in this module. Nothing is ever handed to ``eval``, ``exec`` or ``compile``, no
attribute is looked up with ``getattr``, and no name resolves to anything but the word, a comprehension variable
or one of the whitelisted built-ins below (each implemented or dispatched by this module).

Work is bounded: the text's length, node count and depth are limited before anything runs; each evaluation has
a step budget (every node visited, every element iterated and every character or element created costs steps),
and every intermediate string, sequence and integer is kept under a size bound. A word on which Python would
raise (``w[9]`` on a short word, ``1 // 0``, ``"a" < 1``), or on which a bound is hit, evaluates to ``False``;
:meth:`WordProgram.evaluate` says which. See ``docs/guess-language.md`` (section "The word language").
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from wason.sandbox.language import GuessRejected
from wason.sandbox.pyast import parse

MAX_WORD_SOURCE_CHARS = 1000
"""Longest accepted predicate text; checked before parsing."""
MAX_WORD_NODES = 250
"""Most syntax-tree nodes (contexts and operator tokens not counted)."""
MAX_WORD_DEPTH = 40
"""Deepest accepted syntax tree."""
MAX_WORD_STEPS = 100_000
"""Step budget of one evaluation."""
MAX_VALUE_LEN = 1000
"""Longest string, list, tuple, set or range an evaluation may create (and longest word it accepts)."""
MAX_INT = 10**15
"""Largest absolute integer an evaluation may create."""
MAX_LITERAL_CHARS = 200
"""Longest string literal."""
MAX_GENERATORS = 3
"""Most ``for`` clauses in one comprehension."""

_CONSTANT_NAMES: dict[str, bool] = {"True": True, "False": False}

# Built-in functions: name -> (min positional args, max positional args or None).
_BUILTINS: dict[str, tuple[int, int | None]] = {
    "len": (1, 1),
    "set": (0, 1),
    "sorted": (1, 1),
    "list": (0, 1),
    "tuple": (0, 1),
    "reversed": (1, 1),
    "sum": (1, 2),
    "all": (1, 1),
    "any": (1, 1),
    "min": (1, None),
    "max": (1, None),
    "ord": (1, 1),
    "chr": (1, 1),
    "abs": (1, 1),
    "int": (1, 1),
    "str": (0, 1),
    "bool": (0, 1),
    "range": (1, 3),
    "zip": (1, 3),
    "enumerate": (1, 2),
}
# Built-ins that may take a bare generator expression as their one argument (as Python allows).
_GENERATOR_CONSUMERS = frozenset({"set", "sorted", "list", "tuple", "sum", "all", "any", "min", "max"})

# Whitelisted str methods: name -> (min args, max args).
_STR_METHODS: dict[str, tuple[int, int]] = {
    "startswith": (1, 3),
    "endswith": (1, 3),
    "count": (1, 3),
    "find": (1, 3),
    "rfind": (1, 3),
    "index": (1, 3),
    "rindex": (1, 3),
    "isalpha": (0, 0),
    "isdigit": (0, 0),
    "isalnum": (0, 0),
    "islower": (0, 0),
    "isupper": (0, 0),
    "isspace": (0, 0),
    "lower": (0, 0),
    "upper": (0, 0),
    "strip": (0, 1),
    "lstrip": (0, 1),
    "rstrip": (0, 1),
    "replace": (2, 3),
    "join": (1, 1),
    "split": (0, 1),
}

_BINOPS: dict[type[ast.operator], Callable[[object, object], object]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_CMPOPS: dict[type[ast.cmpop], Callable[[Any, Any], object]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a),
}

_FORBIDDEN: dict[type[ast.AST], str] = {
    ast.Lambda: "lambdas inside the expression are not allowed",
    ast.NamedExpr: "assignment expressions (:=) are not allowed",
    ast.JoinedStr: "f-strings are not allowed",
    ast.FormattedValue: "f-strings are not allowed",
    ast.Dict: "dicts are not allowed",
    ast.DictComp: "dict comprehensions are not allowed",
    ast.Starred: "starred expressions are not allowed",
    ast.Await: "await is not allowed",
    ast.Yield: "yield is not allowed",
    ast.YieldFrom: "yield is not allowed",
}


class _Iter:
    """The result of ``zip``/``enumerate``/``reversed``: items that can only be iterated (as in Python)."""

    __slots__ = ("items",)

    def __init__(self, items: tuple[object, ...]) -> None:
        self.items = items


class _Lazy:
    """A generator expression given to a consuming built-in: its items are produced one at a time."""

    __slots__ = ("iterator",)

    def __init__(self, iterator: Iterator[object]) -> None:
        self.iterator = iterator


Value = object
"""Values the interpreter handles: bool, int, float, str, tuple, list, frozenset (a set), range, iterators."""


class _Abort(Exception):
    """Evaluation stops: Python would have raised here, or a bound was hit."""

    def __init__(self, reason: str, *, limit: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.limit = limit


@dataclass(frozen=True)
class WordOutcome:
    """What evaluating a predicate on one word gave.

    Attributes:
        value: the truth value (``False`` whenever ``error`` is set).
        error: ``None``, or one line saying where Python would have raised or which bound was hit.
        limit: the error is a bound of this sandbox (steps, sizes), not something Python itself would raise.
        steps: the steps the evaluation took (for callers that share a budget over many words).
    """

    value: bool
    error: str | None = None
    limit: bool = False
    steps: int = 0


@dataclass(frozen=True, eq=False)
class WordProgram:
    """A predicate over one string compiled by :func:`compile_word_rule`; immutable, safe to call on any word.

    Attributes:
        source: the text as given.
        param: the name of the lambda's parameter (``"w"`` for a bare expression).
        node_count: syntax-tree nodes counted against :data:`MAX_WORD_NODES`.
    """

    source: str
    param: str
    node_count: int
    _body: ast.expr = field(repr=False)

    def __repr__(self) -> str:
        return f"WordProgram({self.source!r})"

    @property
    def expression(self) -> str:
        """The predicate re-printed as ``lambda <param>: <body>`` (normalised spacing and quotes)."""
        return f"lambda {self.param}: {ast.unparse(self._body)}"

    def __call__(self, word: str) -> bool:
        """The predicate's truth value on ``word``; ``False`` where Python would raise or a bound is hit."""
        return self.evaluate(word).value

    def evaluate(self, word: str, *, max_steps: int = MAX_WORD_STEPS) -> WordOutcome:
        """Evaluate on one word, saying why when the answer is ``False`` by error.

        Args:
            word: the word.
            max_steps: the step budget of this evaluation (at most :data:`MAX_WORD_STEPS`).

        Raises:
            ValueError: ``word`` is not a str or is longer than :data:`MAX_VALUE_LEN`.
        """
        if not isinstance(word, str):
            raise ValueError(f"word: expected a str, got {type(word).__name__}")
        if len(word) > MAX_VALUE_LEN:
            raise ValueError(f"word: {len(word)} characters; the limit is {MAX_VALUE_LEN}")
        interpreter = _Interpreter(max(0, min(max_steps, MAX_WORD_STEPS)))
        try:
            result = interpreter.run(self._body, {self.param: word})
            return WordOutcome(value=interpreter.truth(result), steps=interpreter.steps)
        except _Abort as abort:
            return WordOutcome(value=False, error=abort.reason, limit=abort.limit, steps=interpreter.steps)
        except RecursionError:
            return WordOutcome(value=False, error="nested too deeply", limit=True, steps=interpreter.steps)


def compile_word_rule(text: str) -> WordProgram:
    """Compile a word predicate without running anything.

    Args:
        text: ``"lambda <name>: <expr>"`` (exactly one plain parameter, any name) or a bare expression in ``w``.

    Returns:
        The compiled program.

    Raises:
        GuessRejected: the text is not in the word language or exceeds a limit; ``.reason`` is one line.
    """
    if not isinstance(text, str):
        raise GuessRejected(f"a predicate must be text, not {type(text).__name__}")
    if len(text) > MAX_WORD_SOURCE_CHARS:
        raise GuessRejected(
            f"the predicate is {len(text)} characters long; the limit is {MAX_WORD_SOURCE_CHARS}"
        )
    stripped = text.strip()
    if not stripped:
        raise GuessRejected("the predicate is empty")
    try:
        tree = parse(stripped, mode="eval")
    except SyntaxError as exc:
        raise GuessRejected(f"not a valid Python expression: {_one_line(exc.msg)}") from None
    except (RecursionError, MemoryError, ValueError, OverflowError) as exc:
        raise GuessRejected(f"the predicate could not be parsed: {type(exc).__name__}") from None
    nodes = _check_size(tree.body)
    body = tree.body
    param = "w"
    if isinstance(body, ast.Lambda):
        param = _lambda_param(body.args)
        body = body.body
    _Checker(param).check(body)
    return WordProgram(source=text, param=param, node_count=nodes, _body=body)


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _check_size(root: ast.AST) -> int:
    # Iterative, so a pathological tree cannot exhaust the Python stack before it is measured.
    count = 0
    stack: list[tuple[ast.AST, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_WORD_DEPTH:
            raise GuessRejected(f"the predicate is nested more than {MAX_WORD_DEPTH} levels deep")
        if isinstance(node, (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)):
            continue
        count += 1
        if count > MAX_WORD_NODES:
            raise GuessRejected(f"the predicate has more than {MAX_WORD_NODES} syntax nodes")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return count


def _lambda_param(args: ast.arguments) -> str:
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.kw_defaults:
        raise GuessRejected(
            "the lambda must take exactly one plain parameter (no defaults, *args or **kwargs)"
        )
    params = [*args.posonlyargs, *args.args]
    if len(params) != 1:
        raise GuessRejected(f"the lambda must take exactly one parameter (the word), not {len(params)}")
    name = params[0].arg
    _check_bindable(name)
    return name


def _check_bindable(name: str) -> None:
    if name.startswith("_"):
        raise GuessRejected(f"name {name!r} is not allowed (names may not start with '_')")
    if name in _BUILTINS or name in _CONSTANT_NAMES:
        raise GuessRejected(f"name {name!r} is reserved")


class _Checker:
    """Whitelists a syntax tree: every node kind, name, method and call shape is checked before anything runs."""

    def __init__(self, param: str) -> None:
        self.scopes: list[set[str]] = [{param}]

    def bound(self, name: str) -> bool:
        return any(name in scope for scope in self.scopes)

    def check(self, node: ast.expr, *, generator_ok: bool = False) -> None:
        reason = _FORBIDDEN.get(type(node))
        if reason is not None:
            raise GuessRejected(reason)
        if isinstance(node, ast.Constant):
            self.constant(node.value)
        elif isinstance(node, ast.Name):
            if node.id in _CONSTANT_NAMES or self.bound(node.id):
                return
            if node.id in _BUILTINS:
                raise GuessRejected(f"{node.id!r} may only be called, e.g. {node.id}(...)")
            raise GuessRejected(f"name {node.id!r} is not allowed")
        elif isinstance(node, ast.BoolOp):
            for value in node.values:
                self.check(value)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.Not, ast.USub, ast.UAdd)):
                raise GuessRejected(f"the operator {type(node.op).__name__} is not allowed")
            self.check(node.operand)
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _BINOPS:
                raise GuessRejected(f"the operator {type(node.op).__name__} is not allowed")
            self.check(node.left)
            self.check(node.right)
        elif isinstance(node, ast.Compare):
            for op in node.ops:
                if type(op) not in _CMPOPS:
                    raise GuessRejected(
                        f"the comparison {type(op).__name__} is not allowed ('is' is not supported)"
                    )
            self.check(node.left)
            for comparator in node.comparators:
                self.check(comparator)
        elif isinstance(node, ast.IfExp):
            self.check(node.test)
            self.check(node.body)
            self.check(node.orelse)
        elif isinstance(node, ast.Subscript):
            self.check(node.value)
            if isinstance(node.slice, ast.Slice):
                for part in (node.slice.lower, node.slice.upper, node.slice.step):
                    if part is not None:
                        self.check(part)
            else:
                self.check(node.slice)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for element in node.elts:
                self.check(element)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, (ast.ListComp, ast.SetComp)):
            self.comprehension(node.elt, node.generators)
        elif isinstance(node, ast.GeneratorExp):
            if not generator_ok:
                raise GuessRejected(
                    "a generator expression is only allowed as the argument of "
                    + "/".join(sorted(_GENERATOR_CONSUMERS))
                    + " or str.join"
                )
            self.comprehension(node.elt, node.generators)
        elif isinstance(node, ast.Attribute):
            raise GuessRejected(
                f"attribute {node.attr!r} is only allowed as a call of a whitelisted str method"
            )
        else:
            raise GuessRejected(f"{type(node).__name__} expressions are not allowed")

    @staticmethod
    def constant(value: object) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, int):
            if abs(value) > MAX_INT:
                raise GuessRejected(f"the integer literal is larger than {MAX_INT}")
            return
        if isinstance(value, float):
            if not math.isfinite(value):
                raise GuessRejected("float literals must be finite")
            return
        if isinstance(value, str):
            if len(value) > MAX_LITERAL_CHARS:
                raise GuessRejected(f"a string literal is longer than {MAX_LITERAL_CHARS} characters")
            return
        raise GuessRejected(f"{type(value).__name__} literals are not allowed")

    def call(self, node: ast.Call) -> None:
        reason = _FORBIDDEN.get(type(node.func))
        if reason is not None:
            raise GuessRejected(reason)
        if node.keywords:
            if not (
                isinstance(node.func, ast.Name)
                and node.func.id == "sorted"
                and len(node.keywords) == 1
                and node.keywords[0].arg == "reverse"
            ):
                raise GuessRejected("keyword arguments are not allowed (except sorted(..., reverse=...))")
            self.check(node.keywords[0].value)
        one_generator = len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp)
        if isinstance(node.func, ast.Name):
            name = node.func.id
            if self.bound(name) or name not in _BUILTINS:
                raise GuessRejected(f"calling {name!r} is not allowed")
            low, high = _BUILTINS[name]
            if len(node.args) < low or (high is not None and len(node.args) > high):
                raise GuessRejected(f"{name}() takes {_arity(low, high)} argument(s), not {len(node.args)}")
            for arg in node.args:
                self.check(arg, generator_ok=one_generator and name in _GENERATOR_CONSUMERS)
        elif isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if method not in _STR_METHODS:
                raise GuessRejected(f"method {method!r} is not allowed")
            low, high = _STR_METHODS[method]
            if not low <= len(node.args) <= high:
                raise GuessRejected(
                    f".{method}() takes {_arity(low, high)} argument(s), not {len(node.args)}"
                )
            self.check(node.func.value)
            for arg in node.args:
                self.check(arg, generator_ok=one_generator and method == "join")
        else:
            raise GuessRejected("only whitelisted functions and str methods may be called")

    def comprehension(self, elt: ast.expr, generators: list[ast.comprehension]) -> None:
        if len(generators) > MAX_GENERATORS:
            raise GuessRejected(f"a comprehension may have at most {MAX_GENERATORS} 'for' clauses")
        pushed = 0
        try:
            for generator in generators:
                if generator.is_async:
                    raise GuessRejected("async comprehensions are not allowed")
                self.check(generator.iter)
                names = _target_names(generator.target)
                self.scopes.append(set(names))
                pushed += 1
                for condition in generator.ifs:
                    self.check(condition)
            self.check(elt)
        finally:
            del self.scopes[len(self.scopes) - pushed :]


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        _check_bindable(target.id)
        return [target.id]
    if isinstance(target, ast.Tuple) and target.elts and all(isinstance(e, ast.Name) for e in target.elts):
        names = [e.id for e in target.elts if isinstance(e, ast.Name)]
        for name in names:
            _check_bindable(name)
        if len(set(names)) != len(names):
            raise GuessRejected("a comprehension target names a variable twice")
        return names
    raise GuessRejected("a comprehension's target must be a name or a tuple of names")


def _arity(low: int, high: int | None) -> str:
    if high is None:
        return f"at least {low}"
    return str(low) if low == high else f"{low} to {high}"


def _type_name(value: object) -> str:
    if isinstance(value, frozenset):
        return "set"
    if isinstance(value, (_Iter, _Lazy)):
        return "iterator"
    return type(value).__name__


def _sort_key(value: object) -> tuple[str, object]:
    return (type(value).__name__, value)


class _Interpreter:
    """Evaluates a checked tree with Python's semantics, counting steps and bounding every value created."""

    def __init__(self, max_steps: int = MAX_WORD_STEPS) -> None:
        self.steps = 0
        self.max_steps = max_steps

    def charge(self, amount: int) -> None:
        self.steps += amount
        if self.steps > self.max_steps:
            raise _Abort(f"the evaluation took more than {self.max_steps} steps", limit=True)

    def bounded(self, value: object) -> Value:
        """Check a freshly created value against the size bounds, charging for its size."""
        if isinstance(value, bool):
            return value
        if isinstance(value, int):
            if abs(value) > MAX_INT:
                raise _Abort(f"an integer grew past {MAX_INT}", limit=True)
            return value
        if isinstance(value, float):
            return value
        if isinstance(value, (str, tuple, list, frozenset, range)):
            if len(value) > MAX_VALUE_LEN:
                raise _Abort(f"a {_type_name(value)} grew past {MAX_VALUE_LEN} elements", limit=True)
            if not isinstance(value, range):
                self.charge(len(value))
            return value
        if isinstance(value, (_Iter, _Lazy)):
            return value
        raise _Abort(f"unsupported value of type {type(value).__name__}")

    @staticmethod
    def truth(value: Value) -> bool:
        if isinstance(value, (_Iter, _Lazy)):
            return True
        return bool(value)

    def items(self, value: Value) -> Iterator[object]:
        """Iterate like Python; sets in sorted order, so that results never depend on hash randomisation."""
        if isinstance(value, (str, tuple, list, range)):
            seq: Sequence[object] = value
        elif isinstance(value, frozenset):
            seq = sorted(value, key=_sort_key)
        elif isinstance(value, _Iter):
            seq = value.items
        elif isinstance(value, _Lazy):
            for item in value.iterator:
                self.charge(1)
                yield item
            return
        else:
            raise _Abort(f"'{_type_name(value)}' object is not iterable")
        for item in seq:
            self.charge(1)
            yield item

    def materialize(self, value: Value) -> tuple[object, ...]:
        out: list[object] = []
        for item in self.items(value):
            out.append(item)
            if len(out) > MAX_VALUE_LEN:
                raise _Abort(f"a sequence grew past {MAX_VALUE_LEN} elements", limit=True)
        return tuple(out)

    def run(self, node: ast.expr, env: dict[str, object]) -> Value:
        self.charge(1)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in _CONSTANT_NAMES:
                return _CONSTANT_NAMES[node.id]
            return env[node.id]
        if isinstance(node, ast.BoolOp):
            result: Value = False
            for value_node in node.values:
                result = self.run(value_node, env)
                truth = self.truth(result)
                if isinstance(node.op, ast.And) and not truth:
                    return result
                if isinstance(node.op, ast.Or) and truth:
                    return result
            return result
        if isinstance(node, ast.UnaryOp):
            operand = self.run(node.operand, env)
            if isinstance(node.op, ast.Not):
                return not self.truth(operand)
            if not isinstance(operand, (int, float)):
                raise _Abort(f"bad operand type for unary operator: '{_type_name(operand)}'")
            return self.bounded(-operand if isinstance(node.op, ast.USub) else +operand)
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.run(node.left, env), self.run(node.right, env))
        if isinstance(node, ast.Compare):
            left = self.run(node.left, env)
            for op, comparator in zip(node.ops, node.comparators, strict=True):
                right = self.run(comparator, env)
                if not self.truth(self.compare(op, left, right)):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            if self.truth(self.run(node.test, env)):
                return self.run(node.body, env)
            return self.run(node.orelse, env)
        if isinstance(node, ast.Subscript):
            return self.subscript(node, env)
        if isinstance(node, ast.Tuple):
            return self.bounded(tuple(self.run(e, env) for e in node.elts))
        if isinstance(node, ast.List):
            return self.bounded([self.run(e, env) for e in node.elts])
        if isinstance(node, ast.Set):
            return self.bounded(self.make_set([self.run(e, env) for e in node.elts]))
        if isinstance(node, ast.ListComp):
            return self.bounded(list(self.collect(self.comprehension(node.elt, node.generators, env))))
        if isinstance(node, ast.SetComp):
            return self.bounded(
                self.make_set(self.collect(self.comprehension(node.elt, node.generators, env)))
            )
        if isinstance(node, ast.Call):
            return self.call(node, env)
        raise _Abort(f"{type(node).__name__} cannot be evaluated")  # unreachable after the checker

    def collect(self, values: Iterator[object]) -> tuple[object, ...]:
        return self.materialize(_Lazy(values))

    @staticmethod
    def make_set(values: Sequence[object]) -> frozenset[object]:
        try:
            return frozenset(values)
        except TypeError as exc:
            raise _Abort(_one_line(exc)) from None

    def comprehension(
        self, elt: ast.expr, generators: list[ast.comprehension], env: dict[str, object]
    ) -> Iterator[object]:
        if not generators:
            yield self.run(elt, env)
            return
        first, rest = generators[0], generators[1:]
        iterable = self.run(first.iter, env)
        for item in self.items(iterable):
            inner = dict(env)
            self.bind(first.target, item, inner)
            if all(self.truth(self.run(condition, inner)) for condition in first.ifs):
                yield from self.comprehension(elt, rest, inner)

    def bind(self, target: ast.expr, item: object, env: dict[str, object]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = item
            return
        assert isinstance(target, ast.Tuple)  # the checker allows only a name or a tuple of names
        if not isinstance(item, (str, tuple, list, frozenset, range)):
            raise _Abort(f"cannot unpack non-iterable {_type_name(item)} object")
        parts = self.materialize(item)
        if len(parts) != len(target.elts):
            raise _Abort(f"cannot unpack {len(parts)} values into {len(target.elts)} names")
        for name_node, part in zip(target.elts, parts, strict=True):
            assert isinstance(name_node, ast.Name)
            env[name_node.id] = part

    def binop(self, op: ast.operator, left: Value, right: Value) -> Value:
        sequence = (str, tuple, list)
        numeric = (bool, int, float)
        if not (isinstance(left, numeric) and isinstance(right, numeric)):
            # Only + (same-type sequences), * (sequence by int) and set - set go beyond numbers; in particular
            # no printf-style "%" formatting on strings.
            allowed = (
                (isinstance(op, ast.Add) and isinstance(left, sequence) and type(left) is type(right))
                or (isinstance(op, ast.Mult) and isinstance(left, sequence) and isinstance(right, int))
                or (isinstance(op, ast.Mult) and isinstance(right, sequence) and isinstance(left, int))
                or (isinstance(op, ast.Sub) and isinstance(left, frozenset) and isinstance(right, frozenset))
            )
            if not allowed:
                raise _Abort(
                    f"unsupported operand types for {type(op).__name__}: "
                    f"'{_type_name(left)}' and '{_type_name(right)}'"
                )
        if isinstance(op, ast.Mult):
            for seq, count in ((left, right), (right, left)):
                if (
                    isinstance(seq, sequence)
                    and isinstance(count, int)
                    and len(seq) * max(count, 0) > MAX_VALUE_LEN
                ):
                    raise _Abort(f"a {_type_name(seq)} grew past {MAX_VALUE_LEN} elements", limit=True)
        if (
            isinstance(op, ast.Add)
            and isinstance(left, sequence)
            and isinstance(right, sequence)
            and type(left) is type(right)
            and len(left) + len(right) > MAX_VALUE_LEN
        ):
            raise _Abort(f"a {_type_name(left)} grew past {MAX_VALUE_LEN} elements", limit=True)
        if (
            isinstance(op, ast.Pow)
            and isinstance(left, int)
            and isinstance(right, int)
            and abs(left) > 1
            and right > 64
        ):
            raise _Abort(f"an integer grew past {MAX_INT}", limit=True)
        try:
            result = _BINOPS[type(op)](left, right)
        except (TypeError, ZeroDivisionError, OverflowError, ValueError) as exc:
            raise _Abort(_one_line(exc) or type(exc).__name__) from None
        if isinstance(result, complex):
            raise _Abort("the result is a complex number")
        return self.bounded(result)

    def compare(self, op: ast.cmpop, left: Value, right: Value) -> object:
        for value in (left, right):
            if isinstance(value, (str, tuple, list, frozenset)):
                self.charge(len(value))
        if isinstance(op, (ast.In, ast.NotIn)):
            if isinstance(right, _Iter):
                found = any(item == left for item in self.items(right))
                return found if isinstance(op, ast.In) else not found
            if isinstance(right, str) and not isinstance(left, str):
                raise _Abort(f"'in <string>' requires string as left operand, not {_type_name(left)}")
            if not isinstance(right, (str, tuple, list, frozenset, range)):
                raise _Abort(f"argument of type '{_type_name(right)}' is not iterable")
        elif isinstance(left, _Iter) or isinstance(right, _Iter):
            if not isinstance(op, (ast.Eq, ast.NotEq)):
                raise _Abort("iterators cannot be ordered")
            return (left is right) == isinstance(op, ast.Eq)
        try:
            return _CMPOPS[type(op)](left, right)
        except TypeError as exc:
            raise _Abort(_one_line(exc)) from None

    def index(self, value: Value) -> int | None:
        if value is None:
            return None
        if not isinstance(value, int):
            raise _Abort(f"indices must be integers, not {_type_name(value)}")
        return int(value)

    def subscript(self, node: ast.Subscript, env: dict[str, object]) -> Value:
        target = self.run(node.value, env)
        if not isinstance(target, (str, tuple, list, range)):
            raise _Abort(f"'{_type_name(target)}' object is not subscriptable")
        if isinstance(node.slice, ast.Slice):
            lower = None if node.slice.lower is None else self.index(self.run(node.slice.lower, env))
            upper = None if node.slice.upper is None else self.index(self.run(node.slice.upper, env))
            step = None if node.slice.step is None else self.index(self.run(node.slice.step, env))
            if step == 0:
                raise _Abort("slice step cannot be zero")
            return self.bounded(target[lower:upper:step])
        position = self.index(self.run(node.slice, env))
        assert position is not None
        try:
            return target[position]
        except IndexError as exc:
            raise _Abort(_one_line(exc)) from None

    def call(self, node: ast.Call, env: dict[str, object]) -> Value:
        func = node.func
        if isinstance(func, ast.Attribute):
            receiver = self.run(func.value, env)
            if func.attr == "join" and isinstance(receiver, str) and len(node.args) == 1:
                argument = self.argument(node.args[0], env)
                return self.join(receiver, argument)
            args = [self.run(arg, env) for arg in node.args]
            return self.method(receiver, func.attr, args)
        assert isinstance(func, ast.Name)
        name = func.id
        if (
            len(node.args) == 1
            and isinstance(node.args[0], ast.GeneratorExp)
            and name in _GENERATOR_CONSUMERS
        ):
            generator = node.args[0]
            values: list[Value] = [_Lazy(self.comprehension(generator.elt, generator.generators, env))]
        else:
            values = [self.run(arg, env) for arg in node.args]
        reverse = False
        if node.keywords:
            reverse = self.truth(self.run(node.keywords[0].value, env))
        return self.builtin(name, values, reverse)

    def argument(self, arg: ast.expr, env: dict[str, object]) -> Value:
        if isinstance(arg, ast.GeneratorExp):
            return _Lazy(self.comprehension(arg.elt, arg.generators, env))
        return self.run(arg, env)

    def join(self, separator: str, argument: Value) -> Value:
        parts = self.materialize(argument)
        if not all(isinstance(part, str) for part in parts):
            raise _Abort("sequence item: expected str instance")
        strings = [part for part in parts if isinstance(part, str)]
        total = sum(len(s) for s in strings) + len(separator) * max(len(strings) - 1, 0)
        if total > MAX_VALUE_LEN:
            raise _Abort(f"a str grew past {MAX_VALUE_LEN} elements", limit=True)
        return self.bounded(separator.join(strings))

    def method(self, receiver: Value, name: str, args: list[Value]) -> Value:
        if not isinstance(receiver, str):
            raise _Abort(f"'{_type_name(receiver)}' object has no attribute '{name}'")
        self.charge(len(receiver))
        if name == "join":  # a join whose argument was not a single expression (not reached: arity is 1)
            return self.join(receiver, args[0])
        if name in ("startswith", "endswith"):
            prefix = args[0]
            if not (
                isinstance(prefix, str)
                or (isinstance(prefix, tuple) and all(isinstance(p, str) for p in prefix))
            ):
                raise _Abort(f"{name} first arg must be str or a tuple of str, not {_type_name(prefix)}")
        elif name in ("count", "find", "rfind", "index", "rindex"):
            if not isinstance(args[0], str):
                raise _Abort(f"must be str, not {_type_name(args[0])}")
        elif name in ("strip", "lstrip", "rstrip", "split"):
            if args and not isinstance(args[0], str):
                raise _Abort(f"{name} arg must be str, not {_type_name(args[0])}")
            if name == "split" and args and args[0] == "":
                raise _Abort("empty separator")
        elif name == "replace":
            old, new = args[0], args[1]
            if not isinstance(old, str) or not isinstance(new, str):
                raise _Abort("replace() arguments must be str")
            occurrences = len(receiver) + 1 if old == "" else receiver.count(old)
            if len(args) == 3:
                limit = args[2]
                if not isinstance(limit, int):
                    raise _Abort(f"'{_type_name(limit)}' object cannot be interpreted as an integer")
                if limit >= 0:
                    occurrences = min(occurrences, limit)
            if len(receiver) + occurrences * (len(new) - len(old)) > MAX_VALUE_LEN:
                raise _Abort(f"a str grew past {MAX_VALUE_LEN} elements", limit=True)
        for extra in args[1:] if name not in ("replace",) else args[2:]:
            if not isinstance(extra, int) and extra is not None:
                raise _Abort(f"slice indices must be integers, not {_type_name(extra)}")
        try:
            result = _STR_FUNCTIONS[name](receiver, *args)
        except (TypeError, ValueError, OverflowError) as exc:
            raise _Abort(_one_line(exc)) from None
        return self.bounded(result)

    def builtin(self, name: str, args: list[Value], reverse: bool) -> Value:
        if name == "len":
            (value,) = args
            if isinstance(value, (str, tuple, list, frozenset, range)):
                return len(value)
            raise _Abort(f"object of type '{_type_name(value)}' has no len()")
        if name == "set":
            members: set[object] = set()
            for item in self.items(args[0]) if args else iter(()):
                try:
                    members.add(item)
                except TypeError as exc:
                    raise _Abort(_one_line(exc)) from None
                if len(members) > MAX_VALUE_LEN:
                    raise _Abort(f"a set grew past {MAX_VALUE_LEN} elements", limit=True)
            return self.bounded(frozenset(members))
        if name in ("list", "tuple"):
            items = self.materialize(args[0]) if args else ()
            return self.bounded(list(items) if name == "list" else items)
        if name == "sorted":
            items = self.materialize(args[0])
            self.charge(len(items) * max(1, len(items).bit_length()))
            try:
                return self.bounded(sorted(items, reverse=reverse))  # type: ignore[type-var]
            except TypeError as exc:
                raise _Abort(_one_line(exc)) from None
        if name == "reversed":
            value = args[0]
            if not isinstance(value, (str, tuple, list, range)):
                raise _Abort(f"'{_type_name(value)}' object is not reversible")
            return _Iter(tuple(self.materialize(value))[::-1])
        if name in ("all", "any"):
            want = name == "any"
            for item in self.items(args[0]):
                if self.truth(item) == want:
                    return want
            return not want
        if name == "sum":
            total: object = 0
            if len(args) == 2:
                total = args[1]
                if isinstance(total, str):
                    raise _Abort("sum() can't sum strings [use ''.join(seq) instead]")
            for item in self.items(args[0]):
                total = self.binop(ast.Add(), total, item)
            return total
        if name in ("min", "max"):
            better: Callable[[Any, Any], object] = operator.lt if name == "min" else operator.gt
            best: object = None
            empty = True
            for item in self.items(args[0]) if len(args) == 1 else iter(args):
                try:
                    if empty or better(item, best):
                        best = item
                except TypeError as exc:
                    raise _Abort(_one_line(exc)) from None
                empty = False
            if empty:
                raise _Abort(f"{name}() arg is an empty sequence")
            return best
        if name in ("ord", "chr", "abs", "int", "str", "bool"):
            return self.scalar(name, args)
        if name == "range":
            bounds = []
            for value in args:
                if not isinstance(value, int):
                    raise _Abort(f"'{_type_name(value)}' object cannot be interpreted as an integer")
                bounds.append(int(value))
            if len(bounds) == 3 and bounds[2] == 0:
                raise _Abort("range() arg 3 must not be zero")
            return self.bounded(range(*bounds))
        if name == "zip":
            columns = [self.materialize(arg) for arg in args]
            return _Iter(tuple(zip(*columns, strict=False)))
        if name == "enumerate":
            start = 0
            if len(args) == 2:
                if not isinstance(args[1], int):
                    raise _Abort(f"'{_type_name(args[1])}' object cannot be interpreted as an integer")
                start = int(args[1])
            items = self.materialize(args[0])
            return _Iter(tuple((self.bounded(start + i), item) for i, item in enumerate(items)))
        raise _Abort(f"{name}() is not available")  # unreachable after the checker

    def scalar(self, name: str, args: list[Value]) -> Value:
        if name == "bool":
            return self.truth(args[0]) if args else False
        if name == "str":
            if not args:
                return ""
            value = args[0]
            if isinstance(value, (bool, int, float, str)):
                return self.bounded(str(value))
            raise _Abort(f"str() of a {_type_name(value)} is not supported")
        (value,) = args
        try:
            if name == "ord":
                if not isinstance(value, str):
                    raise _Abort(f"ord() expected string of length 1, but {_type_name(value)} found")
                return ord(value)
            if name == "chr":
                if not isinstance(value, int):
                    raise _Abort(f"'{_type_name(value)}' object cannot be interpreted as an integer")
                return chr(value)
            if name == "abs":
                if not isinstance(value, (int, float)):
                    raise _Abort(f"bad operand type for abs(): '{_type_name(value)}'")
                return self.bounded(abs(value))
            if isinstance(value, str):  # int(text): at most MAX_VALUE_LEN digits, then bounded
                return self.bounded(int(value))
            if isinstance(value, (int, float)):
                return self.bounded(int(value))
            raise _Abort(f"int() argument must be a string or a number, not '{_type_name(value)}'")
        except (TypeError, ValueError, OverflowError) as exc:
            raise _Abort(_one_line(exc)) from None


_STR_FUNCTIONS: dict[str, Callable[..., object]] = {
    "startswith": str.startswith,
    "endswith": str.endswith,
    "count": str.count,
    "find": str.find,
    "rfind": str.rfind,
    "index": str.index,
    "rindex": str.rindex,
    "isalpha": str.isalpha,
    "isdigit": str.isdigit,
    "isalnum": str.isalnum,
    "islower": str.islower,
    "isupper": str.isupper,
    "isspace": str.isspace,
    "lower": str.lower,
    "upper": str.upper,
    "strip": str.strip,
    "lstrip": str.lstrip,
    "rstrip": str.rstrip,
    "replace": str.replace,
    "join": str.join,
    "split": str.split,
}
if set(_STR_FUNCTIONS) != set(_STR_METHODS):  # pragma: no cover - a module invariant
    raise RuntimeError("the str method tables disagree")
