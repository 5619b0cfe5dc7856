"""Rewrite pure Python the reference accepts into the core guess language, before it is compiled.

The reference ``eval``s a guess, so any pure expression of x, y and z counts there. These forms are rewritten,
on the syntax tree, into forms the compiler (:mod:`wason.sandbox.language`) already evaluates with Python's
semantics, so nothing new is ever executed:

- a lambda's default parameters (``lambda x, y, z, k=2: ...``) and ``*args`` (``lambda *a: a[0] < a[1]``): the
  names are replaced by the default, or by the tuple of the remaining arguments;
- a lambda called where it is written, or passed to one and called there
  (``(lambda a, b: a < b)(x, y)``, ``(lambda f: f(x, y))(lambda a, b: a > b)``): its body with the arguments put
  in for its parameters (at most :data:`MAX_INLINES` such calls, so ``(lambda f: f(f))(lambda f: f(f))`` is
  refused, not expanded forever);
- sequences whose length is known here (tuple, list and set displays, ``set(...)``, ``sorted(...)``, ``*args``):
  a constant subscript (``s[0]``, ``s[-1]``) is that element; ``len(...)`` their length (a set's: the number of
  distinct elements, by ``==`` as Python's sets compare numbers); ``sorted(...)`` (``reverse=`` a constant) a
  network of ``min`` and ``max``; ``==`` and ``!=`` between two of them element by element (a list never equals a
  tuple, as in Python); ``in`` over any of them;
- ``math.hypot(a, b, ...)`` as ``math.sqrt(a*a + b*b + ...)``.

Arguments of an inlined call are put in where their parameter is used, so an argument Python would evaluate
once (and whose error it would raise even where the parameter is unused) is evaluated where it is used: guesses
are pure, so only an error in an unused argument differs.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping

from wason.sandbox.rejected import GuessRejected

MAX_INLINES = 32
"""Most lambda calls inlined in one guess."""
MAX_EXPANDED_NODES = 20_000
"""Most syntax nodes put in for parameters in one guess (an argument used many times is copied each time)."""
MAX_SORTED = 6
"""Most elements ``sorted(...)`` takes (its min/max network grows with the square of the count)."""

_Seq = ast.Tuple | ast.List | ast.Set


class _Desugar:
    def __init__(self) -> None:
        self.inlined = 0
        self.copied = 0

    def _put_in(self, value: ast.expr) -> ast.expr:
        self.copied += sum(1 for _ in ast.walk(value))
        if self.copied > MAX_EXPANDED_NODES:
            raise GuessRejected("the guess is too large once its lambdas are expanded")
        return copy.deepcopy(value)

    # -- the top lambda -----------------------------------------------------------------------------------
    def top(self, node: ast.expr) -> ast.expr:
        if not isinstance(node, ast.Lambda):
            return self.expr(node, {})
        a = node.args
        if a.kwarg or a.kwonlyargs:
            raise GuessRejected("the lambda may not take **kwargs or keyword-only parameters")
        names = [p.arg for p in [*a.posonlyargs, *a.args]]
        n_plain = len(names) - len(a.defaults)
        if a.vararg is None and n_plain == 3 and not a.defaults:
            return ast.Lambda(args=a, body=self.expr(node.body, {}))
        if a.vararg is None and not a.defaults:
            return node  # the compiler says what is wrong with the parameters
        # called with exactly three arguments: the first three parameters take them, defaults the rest
        if len(set(names) | ({a.vararg.arg} if a.vararg else set())) != len(names) + (1 if a.vararg else 0):
            raise GuessRejected("the lambda's parameter names must be distinct")
        if n_plain > 3 or (a.vararg is None and len(names) < 3):
            raise GuessRejected(
                f"the lambda must take three arguments (x, y, z), not {max(n_plain, len(names))}"
            )
        taken = names[:3]
        fresh = [
            name for name in ("x", "y", "z", "x_", "y_", "z_", "a1", "a2", "a3") if name not in _names(node)
        ]
        params = [*taken, *fresh[: 3 - len(taken)]]
        env: dict[str, ast.expr] = {}
        for i, name in enumerate(names[3:], start=3):
            env[name] = self.expr(a.defaults[i - n_plain], {})
        if a.vararg is not None:
            rest: list[ast.expr] = [ast.Name(id=p, ctx=ast.Load()) for p in params[len(taken) :]]
            env[a.vararg.arg] = ast.Tuple(elts=rest, ctx=ast.Load())
        args = ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=p) for p in params],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        )
        return ast.Lambda(args=args, body=self.expr(node.body, env))

    # -- expressions ----------------------------------------------------------------------------------------
    def expr(self, node: ast.expr, env: Mapping[str, ast.expr]) -> ast.expr:
        if isinstance(node, ast.Name):
            if node.id in env:
                return self._put_in(env[node.id])
            return node
        if isinstance(node, ast.Call):
            return self._call(node, env)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, env)
        if isinstance(node, ast.Compare):
            return self._compare(node, env)
        if isinstance(node, ast.Lambda):
            return self._lambda(node, env)
        if isinstance(node, ast.ListComp | ast.GeneratorExp | ast.SetComp):
            return self._comprehension(node, env)
        return self._children(node, env)

    def _children(self, node: ast.expr, env: Mapping[str, ast.expr]) -> ast.expr:
        out = copy.copy(node)
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                setattr(out, field, self.expr(value, env))
            elif isinstance(value, list):
                setattr(out, field, [self.expr(v, env) if isinstance(v, ast.expr) else v for v in value])
        return out

    def _lambda(self, node: ast.Lambda, env: Mapping[str, ast.expr]) -> ast.expr:
        # a lambda that is not called here stays as it is (the compiler refuses it), its own names shadowing
        params = _params(node)
        inner = {k: v for k, v in env.items() if k not in params}
        needed: set[str] = set()
        for value in inner.values():
            needed |= _free(value)
        if params & needed:
            raise GuessRejected("a parameter of a nested lambda hides a name its argument needs; rename it")
        return ast.Lambda(args=node.args, body=self.expr(node.body, inner))

    def _comprehension(
        self, node: ast.ListComp | ast.GeneratorExp | ast.SetComp, env: Mapping[str, ast.expr]
    ) -> ast.expr:
        bound: set[str] = set()
        generators = []
        for gen in node.generators:
            iterable = self.expr(gen.iter, {k: v for k, v in env.items() if k not in bound})
            bound |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
            inner = {k: v for k, v in env.items() if k not in bound}
            generators.append(
                ast.comprehension(
                    target=gen.target,
                    iter=iterable,
                    ifs=[self.expr(c, inner) for c in gen.ifs],
                    is_async=gen.is_async,
                )
            )
        for name, value in env.items():
            if name not in bound and _free(value) & bound:
                raise GuessRejected("a name of a comprehension hides a name an inlined lambda needs")
        inner = {k: v for k, v in env.items() if k not in bound}
        elt = self.expr(node.elt, inner)
        if isinstance(node, ast.SetComp):
            return ast.SetComp(elt=elt, generators=generators)
        if isinstance(node, ast.ListComp):
            return ast.ListComp(elt=elt, generators=generators)
        return ast.GeneratorExp(elt=elt, generators=generators)

    def _call(self, node: ast.Call, env: Mapping[str, ast.expr]) -> ast.expr:
        func = self.expr(node.func, env)
        if isinstance(func, ast.Lambda):
            return self._inline(func, node, env)
        if _is_math_call(func, "hypot") and not node.keywords:
            args = [self.expr(a, env) for a in node.args]
            if not args or any(isinstance(a, ast.Starred) for a in args):
                raise GuessRejected("math.hypot() takes one or more numbers")
            squares: ast.expr = ast.BinOp(left=args[0], op=ast.Mult(), right=copy.deepcopy(args[0]))
            for arg in args[1:]:
                square = ast.BinOp(left=arg, op=ast.Mult(), right=copy.deepcopy(arg))
                squares = ast.BinOp(left=squares, op=ast.Add(), right=square)
            sqrt = ast.Attribute(value=ast.Name(id="math", ctx=ast.Load()), attr="sqrt", ctx=ast.Load())
            return ast.Call(func=sqrt, args=[squares], keywords=[])
        if isinstance(func, ast.Name) and func.id in ("len", "sorted", "set", "list", "tuple"):
            return self._sequence_call(func.id, node, env)
        args = [self.expr(a, env) for a in node.args]
        keywords = [ast.keyword(arg=k.arg, value=self.expr(k.value, env)) for k in node.keywords]
        return ast.Call(func=func, args=args, keywords=keywords)

    def _inline(self, func: ast.Lambda, node: ast.Call, env: Mapping[str, ast.expr]) -> ast.expr:
        self.inlined += 1
        if self.inlined > MAX_INLINES:
            raise GuessRejected(f"the guess calls lambdas more than {MAX_INLINES} times once expanded")
        a = func.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or node.keywords:
            raise GuessRejected("a lambda called in a guess takes plain parameters and plain arguments")
        if any(isinstance(arg, ast.Starred) for arg in node.args):
            raise GuessRejected("starred arguments are not allowed")
        names = [p.arg for p in a.args]
        if len(set(names)) != len(names):
            raise GuessRejected("a lambda's parameter names must be distinct")
        args = [self.expr(arg, env) for arg in node.args]
        n_plain = len(names) - len(a.defaults)
        if not n_plain <= len(args) <= len(names):
            raise GuessRejected(
                f"a lambda taking {len(names)} parameters is called with {len(args)} arguments"
            )
        binding: dict[str, ast.expr] = dict(zip(names, args, strict=False))
        for i in range(len(args), len(names)):
            binding[names[i]] = self.expr(a.defaults[i - n_plain], env)
        return self.expr(func.body, binding)

    # -- sequences ------------------------------------------------------------------------------------------
    def _sequence_call(self, name: str, node: ast.Call, env: Mapping[str, ast.expr]) -> ast.expr:
        args = [self.expr(a, env) for a in node.args]
        keywords = {k.arg: self.expr(k.value, env) for k in node.keywords}
        if name == "sorted":
            return self._sorted(args, keywords)
        if keywords or len(args) > 1:
            raise GuessRejected(f"{name}() takes one sequence here")
        if not args:
            if name == "len":
                raise GuessRejected("len() takes one sequence")
            return ast.Set(elts=[]) if name == "set" else _seq_like(name, [])
        seq = args[0]
        if not isinstance(seq, _Seq):
            return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=args, keywords=[])
        if name == "len":
            if isinstance(seq, ast.Set):
                return _distinct_count(seq.elts)
            return ast.Constant(value=len(seq.elts))
        if name == "set":
            return ast.Set(elts=list(seq.elts))
        if isinstance(seq, ast.Set):
            raise GuessRejected(f"{name}() of a set has no defined order")
        return _seq_like(name, list(seq.elts))

    def _sorted(self, args: list[ast.expr], keywords: Mapping[str | None, ast.expr]) -> ast.expr:
        if len(args) != 1 or not isinstance(args[0], _Seq):
            raise GuessRejected(
                "sorted() needs a literal tuple, list or set of numbers, e.g. sorted([x, y, z])"
            )
        reverse = False
        for key, value in keywords.items():
            if (
                key != "reverse"
                or not isinstance(value, ast.Constant)
                or not isinstance(value.value, bool | int)
            ):
                raise GuessRejected("sorted() takes only reverse=True or reverse=False here")
            reverse = bool(value.value)
        items = list(args[0].elts)
        if len(items) > MAX_SORTED:
            raise GuessRejected(f"sorted() here takes at most {MAX_SORTED} elements")
        if isinstance(args[0], ast.Set):
            raise GuessRejected("sorted() of a set here: write sorted([...]) (a set drops equal values)")
        # odd-even transposition: n rounds of compare-and-swap make any order sorted
        for round_ in range(len(items)):
            for i in range(round_ % 2, len(items) - 1, 2):
                low = _call("min", [items[i], items[i + 1]])
                high = _call("max", [copy.deepcopy(items[i]), copy.deepcopy(items[i + 1])])
                items[i], items[i + 1] = low, high
        if reverse:
            items.reverse()
        return ast.List(elts=items, ctx=ast.Load())

    def _subscript(self, node: ast.Subscript, env: Mapping[str, ast.expr]) -> ast.expr:
        seq = self.expr(node.value, env)
        index = self.expr(node.slice, env)
        if not isinstance(seq, ast.Tuple | ast.List):
            raise GuessRejected("subscripts (a[i]) are allowed only on a tuple or list of known length")
        value = _int_constant(index)
        if value is None:
            raise GuessRejected("a subscript must be a whole-number literal, e.g. a[0] or a[-1]")
        if not -len(seq.elts) <= value < len(seq.elts):
            raise GuessRejected(f"index {value} is out of range for {len(seq.elts)} elements")
        return seq.elts[value]

    def _compare(self, node: ast.Compare, env: Mapping[str, ast.expr]) -> ast.expr:
        operands = [self.expr(node.left, env), *(self.expr(c, env) for c in node.comparators)]
        if not any(isinstance(o, _Seq) for o in operands):
            return ast.Compare(left=operands[0], ops=node.ops, comparators=operands[1:])
        parts: list[ast.expr] = []
        for i, op in enumerate(node.ops):
            left, right = operands[i], operands[i + 1]
            if isinstance(op, ast.In | ast.NotIn) and isinstance(right, _Seq):
                if i != len(node.ops) - 1:
                    raise GuessRejected("a tuple after 'in' cannot be compared further")
                if isinstance(left, _Seq):
                    raise GuessRejected("'in' here tests a number against a sequence")
                elts = [copy.deepcopy(e) for e in right.elts]
                parts.append(
                    ast.Compare(left=left, ops=[op], comparators=[ast.Tuple(elts=elts, ctx=ast.Load())])
                )
            elif isinstance(op, ast.Eq | ast.NotEq) and isinstance(left, _Seq) and isinstance(right, _Seq):
                equal = _sequences_equal(left, right)
                parts.append(equal if isinstance(op, ast.Eq) else ast.UnaryOp(op=ast.Not(), operand=equal))
            elif isinstance(left, _Seq) or isinstance(right, _Seq):
                raise GuessRejected("comparing tuples or lists is supported only with == and != (and 'in')")
            else:
                parts.append(ast.Compare(left=left, ops=[op], comparators=[right]))
        return parts[0] if len(parts) == 1 else ast.BoolOp(op=ast.And(), values=parts)


def desugar(node: ast.expr) -> ast.expr:
    """The guess's tree with the forms listed in the module's docstring rewritten (a new tree; the tree itself
    when it holds none of them, the common case, which costs one walk)."""
    if not _needs_rewrite(node):
        return node
    out = _Desugar().top(node)
    return ast.fix_missing_locations(out)


_SEQUENCE_CALLS = frozenset({"len", "sorted", "set", "list", "tuple"})


def _needs_rewrite(root: ast.expr) -> bool:
    if isinstance(root, ast.Lambda) and (root.args.vararg or root.args.defaults):
        return True
    body = root.body if isinstance(root, ast.Lambda) else root
    for node in ast.walk(body):
        if isinstance(node, ast.Lambda | ast.Subscript | ast.Set):
            return True
        if isinstance(node, ast.Call) and (
            (isinstance(node.func, ast.Name) and node.func.id in _SEQUENCE_CALLS)
            or _is_math_call(node.func, "hypot")
        ):
            return True
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for i, operand in enumerate(operands):
                after_in = i > 0 and isinstance(node.ops[i - 1], ast.In | ast.NotIn)
                if isinstance(operand, ast.Tuple | ast.List) and not after_in:
                    return True
    return False


def _sequences_equal(left: _Seq, right: _Seq) -> ast.expr:
    if isinstance(left, ast.Set) or isinstance(right, ast.Set):
        raise GuessRejected("comparing sets is not supported; compare len({...}) or use 'in'")
    if type(left) is not type(right) or len(left.elts) != len(right.elts):
        return ast.Constant(value=False)  # a list never equals a tuple; lengths differ
    if not left.elts:
        return ast.Constant(value=True)
    pairs = [
        ast.Compare(left=copy.deepcopy(a), ops=[ast.Eq()], comparators=[copy.deepcopy(b)])
        for a, b in zip(left.elts, right.elts, strict=True)
    ]
    return pairs[0] if len(pairs) == 1 else ast.BoolOp(op=ast.And(), values=list(pairs))


def _distinct_count(elts: list[ast.expr]) -> ast.expr:
    """How many distinct values (by ==) the elements hold: 1 for the first, plus one per element unequal to
    every earlier one."""
    if not elts:
        return ast.Constant(value=0)
    total: ast.expr = ast.Constant(value=1)
    for i in range(1, len(elts)):
        unequal = [
            ast.Compare(left=copy.deepcopy(elts[i]), ops=[ast.NotEq()], comparators=[copy.deepcopy(elts[j])])
            for j in range(i)
        ]
        new: ast.expr = unequal[0] if len(unequal) == 1 else ast.BoolOp(op=ast.And(), values=list(unequal))
        total = ast.BinOp(left=total, op=ast.Add(), right=new)
    return total


def _seq_like(name: str, elts: list[ast.expr]) -> ast.expr:
    return ast.Tuple(elts=elts, ctx=ast.Load()) if name == "tuple" else ast.List(elts=elts, ctx=ast.Load())


def _call(name: str, args: list[ast.expr]) -> ast.expr:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=args, keywords=[])


def _is_math_call(func: ast.expr, name: str) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "math"
        and func.attr == name
    )


def _int_constant(node: ast.expr) -> int | None:
    sign = 1
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        sign = -sign if isinstance(node.op, ast.USub) else sign
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def _params(node: ast.Lambda) -> set[str]:
    a = node.args
    names = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
    names |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
    return names


def _names(node: ast.AST) -> set[str]:
    out = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    out |= {n.arg for n in ast.walk(node) if isinstance(n, ast.arg)}
    return out


def _free(node: ast.AST) -> set[str]:
    """Every name the tree uses (a superset of its free names: enough to refuse a capture)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
