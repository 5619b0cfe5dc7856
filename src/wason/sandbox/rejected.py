"""The one error of the guess languages: a text they do not accept. Below the compiler and its rewrites
(:mod:`wason.sandbox.language`, :mod:`wason.sandbox.desugar`, :mod:`wason.sandbox.words`), which all raise it."""

from __future__ import annotations


class GuessRejected(ValueError):
    """The text is not in the guess language, or is over one of its limits.

    Attributes:
        reason: one human-readable line saying why, e.g. ``name 'self' is not allowed``.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
