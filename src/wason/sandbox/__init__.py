"""The guess sandbox's shared core: a whitelisted expression language over numbers, vectorized with numpy.

Families build their own guess languages on it (a family's private language lives in its package).

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
from wason.sandbox.words import WordOutcome, WordProgram, compile_word_rule

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_SLOW_OPS",
    "MAX_SOURCE_CHARS",
    "GuessRejected",
    "Inputs",
    "Program",
    "WordOutcome",
    "WordProgram",
    "compile_rule",
    "compile_word_rule",
]
