"""The guess sandbox: whitelisted languages for WILT guesses (vectorized with numpy) and list predicates.

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
from wason.sandbox.lists import (
    LANGUAGE_SUMMARY,
    ListEvalError,
    ListGuessError,
    ListPredicate,
    compile_list_predicate,
)
from wason.sandbox.program import Program

__all__ = [
    "LANGUAGE_SUMMARY",
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_SLOW_OPS",
    "MAX_SOURCE_CHARS",
    "GuessRejected",
    "Inputs",
    "ListEvalError",
    "ListGuessError",
    "ListPredicate",
    "Program",
    "compile_list_predicate",
    "compile_rule",
]
