"""The word-predicate language: whitelisted Python expressions over one string, run by our own interpreter.

A rule or guess such as ``lambda w: len(w) > 4 and w[0] not in "aeiou"`` is parsed with :func:`ast.parse`
(which only builds a syntax tree), every node is checked against a whitelist, and the accepted tree is evaluated
by the small interpreter in this module (turned once per program into one closure per node, so an evaluation
runs no dispatch on node types). Nothing is ever handed to ``eval``, ``exec`` or ``compile``, no
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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from wason.sandbox.language import parse_guess
from wason.sandbox.rejected import GuessRejected

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

    @cached_property
    def _code(self) -> tuple[_Code, int]:
        """The checked tree turned into closures (:class:`_Compiler`), once, and how many name slots an
        evaluation has; not pickled (rebuilt on first use)."""
        compiler = _Compiler(self.param)
        code = compiler.compile(self._body)
        return code, compiler.slots

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state.pop("_code", None)
        return state

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
        code, slots = self._code
        env: _Env = [word] * slots  # the word's slot, then one per comprehension variable (set before read)
        interpreter = _Interpreter(max(0, min(max_steps, MAX_WORD_STEPS)))
        try:
            result = code(interpreter, env)
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
    tree = parse_guess(text, "the predicate", MAX_WORD_SOURCE_CHARS)
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
    """The state of one evaluation (its steps) and the operations on values, with Python's semantics, counting
    steps and bounding every value created; :class:`_Compiler` turns the checked tree into the closures that
    call them."""

    __slots__ = ("max_steps", "steps")

    def __init__(self, max_steps: int = MAX_WORD_STEPS) -> None:
        self.steps = 0
        self.max_steps = max_steps

    def charge(self, amount: int) -> None:
        self.steps += amount
        if self.steps > self.max_steps:
            self.over()

    def over(self) -> None:
        """The step budget is spent (the closures count their own visits and call this)."""
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

    @staticmethod
    def sequence(value: Value) -> Iterable[object]:
        """What iterating ``value`` goes through, not yet charged; sets in sorted order, so that results never
        depend on hash randomisation (a set whose items cannot be ordered is an error, as sorting it is)."""
        if isinstance(value, (str, tuple, list, range)):
            return value
        if isinstance(value, frozenset):
            try:
                return sorted(value, key=_sort_key)
            except TypeError as exc:
                raise _Abort(_one_line(exc)) from None
        if isinstance(value, _Iter):
            return value.items
        if isinstance(value, _Lazy):
            return value.iterator
        raise _Abort(f"'{_type_name(value)}' object is not iterable")

    def items(self, value: Value) -> Iterator[object]:
        """Iterate like Python (see :meth:`sequence`), one step per item."""
        for item in self.sequence(value):
            self.charge(1)
            yield item

    def materialize(self, value: Value) -> tuple[object, ...]:
        out: list[object] = []
        for item in self.sequence(value):
            self.steps += 1
            if self.steps > self.max_steps:
                self.over()
            out.append(item)
            if len(out) > MAX_VALUE_LEN:
                raise _Abort(f"a sequence grew past {MAX_VALUE_LEN} elements", limit=True)
        return tuple(out)

    def collect(self, values: Iterator[object]) -> tuple[object, ...]:
        return self.materialize(_Lazy(values))

    @staticmethod
    def make_set(values: Sequence[object]) -> frozenset[object]:
        try:
            return frozenset(values)
        except TypeError as exc:
            raise _Abort(_one_line(exc)) from None

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
            for item in self.sequence(args[0]):
                self.charge(1)
                if (item if item.__class__ is bool else self.truth(item)) is want:
                    return want
            return not want
        if name == "sum":
            total: object = 0
            if len(args) == 2:
                total = args[1]
                if isinstance(total, str):
                    raise _Abort("sum() can't sum strings [use ''.join(seq) instead]")
            for item in self.sequence(args[0]):
                self.charge(1)
                if total.__class__ is int and (item.__class__ is int or item.__class__ is bool):
                    # what binop does for an int and an int (or a bool): the sum, bounded
                    total = total + item
                    if abs(total) > MAX_INT:
                        raise _Abort(f"an integer grew past {MAX_INT}", limit=True)
                else:
                    total = self.binop(_ADD, total, item)
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


_Env = list[object]
"""The values of one evaluation's names: the word first, then each comprehension variable in its own slot."""
_Code = Callable[[_Interpreter, _Env], Value]
"""A compiled node: evaluates it, counting its visit (one step) as the tree's interpreter did."""
_Stream = Callable[[_Interpreter, _Env], Iterator[object]]
"""A compiled comprehension: the values of its element, produced one at a time."""

_ADD = ast.Add()
_MEMBERSHIP: dict[type[ast.cmpop], int] = {ast.In: 1, ast.NotIn: 2}
_SIMPLE_METHODS = frozenset(
    {
        "isalpha",
        "isdigit",
        "isalnum",
        "islower",
        "isupper",
        "isspace",
        "lower",
        "upper",
        "strip",
        "lstrip",
        "rstrip",
    }
)
"""The str methods whose only check, called without arguments on a str, is the receiver's type."""
_PREFIX_METHODS = frozenset({"startswith", "endswith", "count", "find", "rfind", "index", "rindex"})
"""The str methods whose only check, called with one str argument on a str, is the types."""


class _Compiler:
    """Turns a checked tree into closures, once per program, so that an evaluation runs no dispatch on node
    types: each closure counts its visit and calls :class:`_Interpreter`'s operations in the order the
    node-by-node interpreter did, so values, errors and steps are the same; the common cases (two strings
    compared, a str method with plain arguments, integer arithmetic, a one-character ``ord``, ``len``) skip the
    generic checks they would pass. Names are resolved here: each comprehension variable has its own slot."""

    def __init__(self, param: str) -> None:
        self.scopes: list[dict[str, int]] = [{param: 0}]
        self.slots = 1

    def compile(self, node: ast.expr) -> _Code:
        build = _BUILDERS.get(type(node))
        if build is None:
            return self._unknown(type(node).__name__)
        return build(self, node)

    @staticmethod
    def _unknown(name: str) -> _Code:
        # a generator expression outside a call that consumes it (str.join on a non-str): not evaluated
        def unknown(it: _Interpreter, env: _Env) -> Value:
            it.charge(1)
            raise _Abort(f"{name} cannot be evaluated")

        return unknown

    def _Constant(self, node: ast.Constant) -> _Code:
        value = node.value

        def constant(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            return value

        return constant

    def _Name(self, node: ast.Name) -> _Code:
        if node.id in _CONSTANT_NAMES:
            return self._Constant(ast.Constant(_CONSTANT_NAMES[node.id]))
        slot = next(scope[node.id] for scope in reversed(self.scopes) if node.id in scope)

        def name(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            return env[slot]

        return name

    def _BoolOp(self, node: ast.BoolOp) -> _Code:
        values = [self.compile(value) for value in node.values]
        want = isinstance(node.op, ast.Or)  # the truth value that stops: True for or, False for and

        def boolop(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            result: Value = False
            for value in values:
                result = value(it, env)
                truth = result if result.__class__ is bool else it.truth(result)
                if truth is want:
                    return result
            return result

        return boolop

    def _UnaryOp(self, node: ast.UnaryOp) -> _Code:
        operand = self.compile(node.operand)
        if isinstance(node.op, ast.Not):

            def not_(it: _Interpreter, env: _Env) -> Value:
                it.steps += 1
                if it.steps > it.max_steps:
                    it.over()
                return not it.truth(operand(it, env))

            return not_
        negate = isinstance(node.op, ast.USub)

        def sign(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            value = operand(it, env)
            if not isinstance(value, (int, float)):
                raise _Abort(f"bad operand type for unary operator: '{_type_name(value)}'")
            return it.bounded(-value if negate else +value)

        return sign

    def _BinOp(self, node: ast.BinOp) -> _Code:
        left, right, op = self.compile(node.left), self.compile(node.right), node.op
        native = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}.get(type(op))

        def binop(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            a, b = left(it, env), right(it, env)
            if native is not None and a.__class__ is int and b.__class__ is int:
                # what binop does for two ints under + - *: the result, bounded
                result = native(a, b)
                if abs(result) > MAX_INT:
                    raise _Abort(f"an integer grew past {MAX_INT}", limit=True)
                return result
            return it.binop(op, a, b)

        return binop

    def _Compare(self, node: ast.Compare) -> _Code:
        first = self.compile(node.left)
        rest = [
            (op, _CMPOPS[type(op)], _MEMBERSHIP.get(type(op), 0), self.compile(comparator))
            for op, comparator in zip(node.ops, node.comparators, strict=True)
        ]

        def compare(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            left = first(it, env)
            for op, native, membership, comparator in rest:
                right = comparator(it, env)
                if left.__class__ is str and right.__class__ is str:
                    # what compare does for two strings: charge each one's length, then compare
                    it.steps += len(left)
                    if it.steps > it.max_steps:
                        it.over()
                    it.steps += len(right)
                    if it.steps > it.max_steps:
                        it.over()
                    # in: 1, not in: 2, else 0
                    result = native(left, right) if membership == 0 else (left in right) is (membership == 1)
                elif membership == 0 and left.__class__ is int and right.__class__ is int:
                    result = native(left, right)  # what compare does for two ints, but for in
                else:
                    result = it.compare(op, left, right)
                if not (result if result.__class__ is bool else it.truth(result)):
                    return False
                left = right
            return True

        return compare

    def _IfExp(self, node: ast.IfExp) -> _Code:
        test, body, orelse = self.compile(node.test), self.compile(node.body), self.compile(node.orelse)

        def ifexp(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            if it.truth(test(it, env)):
                return body(it, env)
            return orelse(it, env)

        return ifexp

    def _Subscript(self, node: ast.Subscript) -> _Code:
        target_code = self.compile(node.value)
        part = node.slice
        if isinstance(part, ast.Slice):
            lower_code, upper_code, step_code = (
                None if bound is None else self.compile(bound)
                for bound in (part.lower, part.upper, part.step)
            )

            def sliced(it: _Interpreter, env: _Env) -> Value:
                it.steps += 1
                if it.steps > it.max_steps:
                    it.over()
                target = target_code(it, env)
                if not isinstance(target, (str, tuple, list, range)):
                    raise _Abort(f"'{_type_name(target)}' object is not subscriptable")
                lower = None if lower_code is None else it.index(lower_code(it, env))
                upper = None if upper_code is None else it.index(upper_code(it, env))
                step = None if step_code is None else it.index(step_code(it, env))
                if step == 0:
                    raise _Abort("slice step cannot be zero")
                return it.bounded(target[lower:upper:step])

            return sliced
        position_code = self.compile(part)

        def indexed(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            target = target_code(it, env)
            if not isinstance(target, (str, tuple, list, range)):
                raise _Abort(f"'{_type_name(target)}' object is not subscriptable")
            position = position_code(it, env)
            if position.__class__ is not int:
                position = it.index(position)
                assert position is not None  # only a missing slice bound is None
            try:
                return target[position]
            except IndexError as exc:
                raise _Abort(_one_line(exc)) from None

        return indexed

    def _display(self, nodes: list[ast.expr], make: Callable[[_Interpreter, list[Value]], object]) -> _Code:
        """A tuple, list or set display: its elements evaluated in order, then made into the container."""
        elements = [self.compile(element) for element in nodes]

        def display(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            return it.bounded(make(it, [element(it, env) for element in elements]))

        return display

    def _Tuple(self, node: ast.Tuple) -> _Code:
        return self._display(node.elts, lambda it, values: tuple(values))

    def _List(self, node: ast.List) -> _Code:
        return self._display(node.elts, lambda it, values: values)

    def _Set(self, node: ast.Set) -> _Code:
        return self._display(node.elts, lambda it, values: it.make_set(values))

    def _ListComp(self, node: ast.ListComp) -> _Code:
        stream = self.comprehension(node.elt, node.generators)

        def listcomp(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            return it.bounded(list(it.collect(stream(it, env))))

        return listcomp

    def _SetComp(self, node: ast.SetComp) -> _Code:
        stream = self.comprehension(node.elt, node.generators)

        def setcomp(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            return it.bounded(it.make_set(it.collect(stream(it, env))))

        return setcomp

    def comprehension(self, elt: ast.expr, generators: list[ast.comprehension]) -> _Stream:
        """The element's values over the ``for`` clauses (each binding its own slots, seen by the clauses after
        it and the element), one step per item iterated."""
        pushed = 0
        clauses: list[tuple[_Code, int | tuple[int, ...], list[_Code]]] = []
        try:
            for generator in generators:
                iterable = self.compile(generator.iter)  # in the scope before this clause's variables
                target = generator.target
                names = [target.id] if isinstance(target, ast.Name) else _target_names(target)
                scope = {name: self.slots + i for i, name in enumerate(names)}
                self.slots += len(names)
                self.scopes.append(scope)
                pushed += 1
                bind = scope[names[0]] if isinstance(target, ast.Name) else tuple(scope[n] for n in names)
                clauses.append((iterable, bind, [self.compile(condition) for condition in generator.ifs]))
            element = self.compile(elt)
        finally:
            del self.scopes[len(self.scopes) - pushed :]
        last = len(clauses) - 1

        def level(it: _Interpreter, env: _Env, depth: int) -> Iterator[object]:
            iterable, bind, conditions = clauses[depth]
            deeper = depth != last
            for item in it.sequence(iterable(it, env)):
                it.steps += 1
                if it.steps > it.max_steps:
                    it.over()
                if isinstance(bind, int):
                    env[bind] = item
                else:
                    if not isinstance(item, (str, tuple, list, frozenset, range)):
                        raise _Abort(f"cannot unpack non-iterable {_type_name(item)} object")
                    parts = it.materialize(item)
                    if len(parts) != len(bind):
                        raise _Abort(f"cannot unpack {len(parts)} values into {len(bind)} names")
                    for slot, part in zip(bind, parts, strict=True):
                        env[slot] = part
                kept = True
                for condition in conditions:  # all of them, stopping at the first false one
                    value = condition(it, env)
                    if not (value if value.__class__ is bool else it.truth(value)):
                        kept = False
                        break
                if not kept:
                    continue
                if deeper:
                    yield from level(it, env, depth + 1)
                else:
                    yield element(it, env)

        def stream(it: _Interpreter, env: _Env) -> Iterator[object]:
            return level(it, env, 0)

        return stream

    def _argument(self, arg: ast.expr) -> _Code:
        """An argument of ``str.join``: a generator expression is produced lazily (not a visited node)."""
        if isinstance(arg, ast.GeneratorExp):
            stream = self.comprehension(arg.elt, arg.generators)

            def lazy(it: _Interpreter, env: _Env) -> Value:
                return _Lazy(stream(it, env))

            return lazy
        return self.compile(arg)

    def _Call(self, node: ast.Call) -> _Code:
        func = node.func
        if isinstance(func, ast.Attribute):
            return self._method(func, node.args)
        assert isinstance(func, ast.Name)
        return self._builtin(func.id, node)

    def _method(self, func: ast.Attribute, args: list[ast.expr]) -> _Code:
        receiver_code, name = self.compile(func.value), func.attr
        if name == "join" and len(args) == 1:
            joined = self._argument(args[0])
            plain = self.compile(args[0])

            def join(it: _Interpreter, env: _Env) -> Value:
                it.steps += 1
                if it.steps > it.max_steps:
                    it.over()
                receiver = receiver_code(it, env)
                if isinstance(receiver, str):
                    return it.join(receiver, joined(it, env))
                return it.method(receiver, name, [plain(it, env)])

            return join
        arg_codes = [self.compile(arg) for arg in args]
        native = _STR_FUNCTIONS[name]
        simple = name in _SIMPLE_METHODS and not args
        prefix = name in _PREFIX_METHODS and len(args) == 1

        def method(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            receiver = receiver_code(it, env)
            values = [code(it, env) for code in arg_codes]
            if receiver.__class__ is str and (simple or (prefix and values[0].__class__ is str)):
                # what method does for these: charge the receiver's length, call, bound the result
                it.steps += len(receiver)
                if it.steps > it.max_steps:
                    it.over()
                try:
                    result = native(receiver, *values)
                except (TypeError, ValueError, OverflowError) as exc:  # as method: index, rindex not finding
                    raise _Abort(_one_line(exc)) from None
                return it.bounded(result)
            return it.method(receiver, name, values)

        return method

    def _builtin(self, name: str, node: ast.Call) -> _Code:
        args = node.args
        if name in ("len", "ord") and len(args) == 1 and not node.keywords:
            return self._len_or_ord(name, self.compile(args[0]))
        if len(args) == 1 and isinstance(args[0], ast.GeneratorExp) and name in _GENERATOR_CONSUMERS:
            stream = self.comprehension(args[0].elt, args[0].generators)

            def values_of(it: _Interpreter, env: _Env) -> list[Value]:
                return [_Lazy(stream(it, env))]

        else:
            arg_codes = [self.compile(arg) for arg in args]

            def values_of(it: _Interpreter, env: _Env) -> list[Value]:
                return [code(it, env) for code in arg_codes]

        reverse_code = self.compile(node.keywords[0].value) if node.keywords else None

        def builtin(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            values = values_of(it, env)
            reverse = False
            if reverse_code is not None:
                reverse = it.truth(reverse_code(it, env))
            return it.builtin(name, values, reverse)

        return builtin

    @staticmethod
    def _len_or_ord(name: str, arg_code: _Code) -> _Code:
        is_len = name == "len"

        def one(it: _Interpreter, env: _Env) -> Value:
            it.steps += 1
            if it.steps > it.max_steps:
                it.over()
            value = arg_code(it, env)
            if value.__class__ is str and (is_len or len(value) == 1):
                # what builtin does for a str (len) or one character (ord)
                return len(value) if is_len else ord(value)
            return it.builtin(name, [value], False)

        return one


_BUILDERS: dict[type[ast.expr], Callable[[_Compiler, Any], _Code]] = {
    ast.Constant: _Compiler._Constant,
    ast.Name: _Compiler._Name,
    ast.BoolOp: _Compiler._BoolOp,
    ast.UnaryOp: _Compiler._UnaryOp,
    ast.BinOp: _Compiler._BinOp,
    ast.Compare: _Compiler._Compare,
    ast.IfExp: _Compiler._IfExp,
    ast.Subscript: _Compiler._Subscript,
    ast.Tuple: _Compiler._Tuple,
    ast.List: _Compiler._List,
    ast.Set: _Compiler._Set,
    ast.ListComp: _Compiler._ListComp,
    ast.SetComp: _Compiler._SetComp,
    ast.Call: _Compiler._Call,
}
"""The node kinds the checker lets through (a generator expression only where a call consumes it)."""

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
