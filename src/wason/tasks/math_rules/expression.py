"""A player's rule as an expression ``lambda v, i: ...``, judged by code on the rule's whole extension.

The expression is never executed by Python. It is parsed with :mod:`ast` only to check its shape (a lambda of two
plain parameters), and its body is then compiled by the shared sandbox (:func:`wason.sandbox.compile_rule`:
whitelisted, size-, depth- and operation-bounded, evaluated with numpy) as the predicate
``lambda v, i, t: (body) == t``, evaluated at every ``(value, index, next)`` the hidden rule reaches from its
level's starts (:func:`wason.tasks.math_rules.rules.transitions`). The expression is the rule when the predicate
holds at all of them without an error: it then generates the same sequence as the rule from every start a game
can show. A bare expression in ``v`` and ``i`` is read as the lambda's body.
"""

from __future__ import annotations

import ast
import re

import numpy as np
from pydantic import BaseModel, ConfigDict

from wason.sandbox import MAX_SOURCE_CHARS, GuessRejected, Program, compile_rule
from wason.sandbox.language import parse_guess
from wason.tasks.math_rules.rules import MathRule, transitions

_MAX_TEXT = MAX_SOURCE_CHARS - 40  # room for the wrapper the body is compiled in
_MAX_COUNTEREXAMPLES = 3
_LAMBDA = re.compile(r"\blambda\b")
_TRAILING = "`'\"., ;\t"


def compile_expression(source: str) -> Program:
    """Compile ``lambda v, i: body`` (any two parameter names) or a bare body in ``v`` and ``i`` as the sandbox
    program of the predicate ``body == t`` over ``(v, i, t)``; ``GuessRejected`` (its ``.reason`` says why) when
    it is not a two-parameter expression in the guess language."""
    if not isinstance(source, str):
        raise GuessRejected(f"an expression must be text, not {type(source).__name__}")
    tree = parse_guess(source, "the expression", _MAX_TEXT)
    text = source.strip()  # the text the tree's positions count in
    node = tree.body
    if isinstance(node, ast.Lambda):
        a = node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.kw_defaults:
            raise GuessRejected("the lambda must take two plain parameters: lambda v, i: ...")
        params = [p.arg for p in [*a.posonlyargs, *a.args]]
        if len(params) != 2:
            raise GuessRejected(f"the lambda must take two parameters (v, i), not {len(params)}")
        if params[0] == params[1]:
            raise GuessRejected("the lambda's parameter names must be distinct")
        body = ast.get_source_segment(text, node.body)
    else:
        params, body = ["v", "i"], ast.get_source_segment(text, node)
    if body is None:  # pragma: no cover - ast always has positions for parsed source
        raise GuessRejected("the expression could not be read")
    target = "t"
    while target in params or re.search(rf"\b{target}\b", body):
        target += "_"
    # the body is a complete expression, so in parentheses it means what it meant; the sandbox parses it again
    # with all its limits (a name other than the parameters, a call outside its whitelist, ... is refused there)
    return compile_rule(f"lambda {params[0]}, {params[1]}, {target}: ({body}) == {target}")


def find_expression(text: str) -> str | None:
    """The ``lambda ...`` a free-text guess contains, from ``lambda`` to the end of its line, without the code
    marks and punctuation around it; None when the text has no lambda."""
    found = _LAMBDA.search(text)
    if found is None:
        return None
    line = text[found.start() :].splitlines()[0]
    return line.strip().rstrip(_TRAILING).strip() or None


class ExpressionVerdict(BaseModel):
    """What the code said about an expression: ``equivalent`` when it is the rule on every transition of the
    rule's extension (``points`` of them), else the share where it agrees and a few counterexamples, or why it
    could not be used."""

    model_config = ConfigDict(frozen=True)

    source: str | None
    equivalent: bool
    rejection: str | None = None
    points: int = 0
    agreement: float = 0.0
    counterexamples: list[dict[str, int]] = []


def judge_expression(rule: MathRule, level: str, source: str | None) -> ExpressionVerdict:
    """Judge ``source`` against ``rule`` on every transition the rule reaches from ``level``'s starts."""
    if source is None:
        return ExpressionVerdict(source=None, equivalent=False, rejection="no expression was given")
    try:
        program = compile_expression(source)
    except GuessRejected as exc:
        return ExpressionVerdict(source=source, equivalent=False, rejection=exc.reason)
    points = transitions(rule, level)
    truth, errors = program.evaluate_with_errors(np.array(points, dtype=np.float64).reshape(-1, 3))
    right = truth & ~errors
    wrong = [p for p, ok in zip(points, right.tolist(), strict=True) if not ok]
    return ExpressionVerdict(
        source=source,
        equivalent=not wrong,
        points=len(points),
        agreement=float(right.mean()) if points else 0.0,
        counterexamples=[{"value": v, "index": i, "next": w} for v, i, w in wrong[:_MAX_COUNTEREXAMPLES]],
    )
