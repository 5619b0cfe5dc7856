"""The guess sandbox: a whitelisted expression language for WILT rules and guesses, evaluated with numpy.

Model-written guesses are parsed with :mod:`ast` and never executed by Python; see ``docs/guess-language.md``.
"""

from wason.sandbox.evaluate import Inputs
from wason.sandbox.language import (
    MAX_DEPTH,
    MAX_NODES,
    MAX_SLOW_OPS,
    MAX_SOURCE_CHARS,
    GuessRejected,
    compile_rule,
)
from wason.sandbox.program import Program

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_SLOW_OPS",
    "MAX_SOURCE_CHARS",
    "GuessRejected",
    "Inputs",
    "Program",
    "compile_rule",
]
