"""How complex the final guesses are (paper A.3, Table 2): operators, length, and set inclusion.

For every final guess the sandbox accepted:

- **operators**: the operators of its syntax tree (:meth:`wason.sandbox.Program.operator_count`: each binary,
  unary, comparison and boolean operator, conditional expression and call counts one; a literal's sign does
  not). The reference matched operator names as substrings of the guess's text, so the ``or`` in ``floor``
  counted as an operator and ``x<y<z`` counted as one ``<`` twice only by luck; counting on the tree is what the
  paper describes.
- **length**: the characters of the expression after the ``lambda x, y, z:`` head, spaces removed, so
  ``x<y<z`` and ``x < y < z`` are equally long.
- **set inclusion**: ``|G| / |R|`` over the reference's part of the probe set (uniform floats in +-200 and the
  integer grid) when the guess's true-set G contains the rule's R or lies inside it; undefined otherwise
  (:class:`wason.tasks.wilt.judge.Verdict.set_inclusion`). Below 1: the guess is narrower than the rule; above:
  wider.

A run reports the median of each over its guesses, as the paper's Table 2 does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from statistics import median
from typing import Any

from pydantic import BaseModel

from wason.sandbox import GuessRejected, compile_rule
from wason.tasks.wilt.single import compile_single

__all__ = ["GuessComplexity", "RunComplexity", "guess_complexity", "run_complexity"]

_HEAD = re.compile(r"^\s*lambda\b[^:]*:")


class GuessComplexity(BaseModel):
    """One final guess: its operators, its length, and its set inclusion (None where undefined)."""

    operators: int
    length: int
    set_inclusion: float | None


class RunComplexity(BaseModel):
    """The medians over a run's accepted final guesses (paper Table 2), and how many guesses they cover."""

    guesses: int
    median_operators: float | None
    median_length: float | None
    median_set_inclusion: float | None
    set_inclusion_defined: int


def guess_complexity(
    guess: str, verdict: Mapping[str, Any] | None, *, arity: int = 3
) -> GuessComplexity | None:
    """The complexity of one final guess (``arity`` 1: a one-argument lambda), or None when the sandbox did not
    accept it."""
    if verdict is not None and not verdict.get("accepted", True):
        return None
    try:
        program = compile_single(guess) if arity == 1 else compile_rule(guess)
    except GuessRejected:
        return None
    body = _HEAD.sub("", guess, count=1)
    inclusion = verdict.get("set_inclusion") if verdict is not None else None
    return GuessComplexity(
        operators=program.operator_count(),
        length=len("".join(body.split())),
        set_inclusion=float(inclusion) if isinstance(inclusion, int | float) else None,
    )


def run_complexity(metrics: Iterable[Mapping[str, Any] | None]) -> RunComplexity:
    """The medians over the final guesses of a run's finished episodes (their metrics)."""
    found = [
        c
        for m in metrics
        if m and isinstance(m.get("guess"), str)
        if (c := guess_complexity(m["guess"], m.get("verdict"), arity=int(m.get("arity", 3)))) is not None
    ]
    inclusions = [c.set_inclusion for c in found if c.set_inclusion is not None]
    return RunComplexity(
        guesses=len(found),
        median_operators=median(c.operators for c in found) if found else None,
        median_length=median(c.length for c in found) if found else None,
        median_set_inclusion=median(inclusions) if inclusions else None,
        set_inclusion_defined=len(inclusions),
    )
