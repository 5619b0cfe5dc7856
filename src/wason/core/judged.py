"""What the guess-the-rule games share about a move: the LLM judge's record on it, asked for in ``settle`` (the
game's outside work) and read once by ``step``, and the count of the replies the game could not read."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any, ClassVar

from wason.core.game import Malformed


class JudgedMoves:
    """A game whose LLM judge rules on a move in ``settle`` (:meth:`_ask`), put back by :meth:`settled` when a
    stored game replays, and read once by ``step`` (:meth:`_judged`); ``judge_key`` names the judge's record in
    what ``settle`` returns. It counts the replies it could not read in ``format_errors`` and ``truncated``."""

    judge_key: ClassVar[str] = "llm_judgement"
    _pending: tuple[object, Mapping[str, Any]] | None = None
    format_errors: int
    truncated: int

    async def _ask(self, action: object, verdict: Awaitable[Mapping[str, Any]]) -> dict[str, Any]:
        """Wait for the judge's ``verdict`` on ``action``; the record ``settle`` returns."""
        record = dict(await verdict)
        self._pending = (action, record)
        return {self.judge_key: record}

    def settled(self, action: object, record: Mapping[str, Any]) -> None:
        """Restore what ``settle`` learnt for ``action``."""
        judgement = record.get(self.judge_key)
        self._pending = (action, dict(judgement)) if isinstance(judgement, Mapping) else None

    def _judged(self, action: object) -> Mapping[str, Any] | None:
        """The judge's record on ``action`` (None when it was not asked about this one); read once."""
        pending, self._pending = self._pending, None
        return pending[1] if pending is not None and pending[0] is action else None

    def _unreadable(self, action: object, unexpected: str = "unexpected") -> str:
        """Count a reply the game could not read (cut off at the token limit: ``truncated``, else a format
        error) or an action of no kind it knows; the reason to show."""
        if isinstance(action, Malformed) and action.truncated:
            self.truncated += 1
        else:
            self.format_errors += 1
        return action.reason if isinstance(action, Malformed) else f"{unexpected} {type(action).__name__}"
