"""The one exception every layer shares: a failure outside a game that ends its episode as errored.

It lives below everything else (models raise it, the engine and sessions catch it), so no lower layer has to
import the engine's contracts to raise it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any


class ExternalFailure(Exception):
    """A failure outside the game (a model call that failed for good, a person who left) that ends the episode
    as errored. ``what`` names the kind of failure in reports."""

    what = "failure"


class OracleUnavailable(ExternalFailure):
    """A game asks a model (its judge, labeller or game master) and none is attached to it here: a stored game
    restored where no model is at hand, or a game that needs one started without it.

    Args:
        message: the reason, in one line.
        what: the kind of failure reports name (``no oracle``; a game master's game says which model).
    """

    def __init__(self, message: str, what: str = "no oracle") -> None:
        # both in args, so that the failure crosses a process (pickled) whole
        super().__init__(message, what)
        self.what = what

    def __str__(self) -> str:
        return str(self.args[0])


def unavailable(asks: str) -> Callable[..., Awaitable[Any]]:
    """The stand-in for a model a game asks where none is attached (a stored game restored without one): its
    turns carry what the model said, and a new move that needs it fails as :class:`OracleUnavailable`, naming
    ``asks`` (``an LLM judge``)."""

    async def ask(*args: Any, **kwargs: Any) -> Any:
        raise OracleUnavailable(f"this game asks {asks}, and no model is attached to it here")

    return ask
