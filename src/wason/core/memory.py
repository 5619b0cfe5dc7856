"""An episode's record in memory, for players outside the store: a session writes its turns and outcome here, a
model client its calls."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from wason.core import registry
from wason.core.public import is_over, public_item

__all__ = ["EpisodeRecord"]


class EpisodeRecord:
    """One episode in memory, written as a session writes to the store (an
    :class:`~wason.core.session.EpisodeRecorder`), and its model calls (a ``wason.models.client.CallStore``):
    what an Inspect sample and a text environment keep of the episode they play."""

    def __init__(
        self, family: str, key: str, item: Mapping[str, Any], config: Mapping[str, Any], player: str
    ):
        self.family, self.key, self.item, self.config, self.player = family, key, dict(item), config, player
        self.turns: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self.status = "running"
        self.success: bool | None = None
        self.metrics: dict[str, Any] | None = None
        self.error: str | None = None

    # EpisodeRecorder
    def start_episode(self, episode_id: int) -> None:
        self.turns.clear()
        self.status = "running"

    def add_turn(
        self,
        episode_id: int,
        index: int,
        *,
        action: dict[str, Any],
        observation: dict[str, Any],
        reply: str | None,
        feedback: str | None,
        oracle: dict[str, Any] | None = None,
    ) -> None:
        self.turns.append(
            {
                "index": index,
                "action": action,
                "observation": observation,
                "reply": reply,
                "feedback": feedback,
                "oracle": oracle,
            }
        )

    def list_turns(self, episode_id: int) -> list[dict[str, Any]]:
        return list(self.turns)

    def finish_episode(
        self,
        episode_id: int,
        *,
        status: str,
        success: bool | None = None,
        metrics: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        self.status, self.success, self.metrics, self.error = status, success, metrics, error

    # CallStore
    def record_call(self, record: dict[str, Any]) -> object:
        self.calls.append({**record, "local_id": len(self.calls)})
        return len(self.calls) - 1

    def cache_get(self, key: str) -> dict[str, Any] | None:
        return None

    def data(self) -> dict[str, Any]:
        """The record as JSON values (what an Inspect sample's store keeps and ``wason import`` reads).

        Until the game is over it is what a client may read of it (:mod:`wason.core.public`): the item's public
        keys, the turns without their oracle work, no calls (a judge's messages may name the rule); the whole
        record once the game has ended."""
        over = is_over(self.status)
        record = {
            "family": self.family,
            "key": self.key,
            "item": self.item if over else public_item(registry.get(self.family), self.item),
            "config": dict(self.config),
            "player": self.player,
            "status": self.status,
            "success": self.success,
            "metrics": self.metrics,
            "error": self.error,
            "turns": self.turns if over else [{**t, "oracle": None} for t in self.turns],
            "calls": self.calls if over else [],
        }
        loaded: dict[str, Any] = json.loads(json.dumps(record, default=str))
        return loaded
