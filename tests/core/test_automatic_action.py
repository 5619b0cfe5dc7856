"""A game's own move (``automatic_action``): applied by the session before the player is asked, stored as a
turn with no reply, and never shown to the player as something to answer."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from wason.core.game import Move, Outcome
from wason.core.session import Session


@dataclass(frozen=True)
class Prepare:
    pass


@dataclass(frozen=True)
class Say:
    word: str


class _Game:
    """Prepares itself first, then ends on the player's first word."""

    def __init__(self) -> None:
        self.prepared = False
        self.said: str | None = None

    @property
    def done(self) -> bool:
        return self.said is not None

    def automatic_action(self) -> Prepare | None:
        return None if self.prepared else Prepare()

    def start(self) -> dict[str, Any]:
        return {"kind": "preparing"}

    def step(self, action: Any) -> dict[str, Any]:
        if isinstance(action, Prepare):
            self.prepared = True
            return {"kind": "ready", "examples": ["a", "b"]}
        self.said = action.word
        return {"kind": "over"}

    def outcome(self) -> Outcome:
        return Outcome(success=self.said == "b", metrics={})


class _Recorder:
    def __init__(self) -> None:
        self.turns: list[dict[str, Any]] = []
        self.finished: dict[str, Any] = {}

    def start_episode(self, episode_id: int) -> None: ...

    def add_turn(self, episode_id: int, index: int, **turn: Any) -> None:
        self.turns.append({"index": index, **turn})

    def list_turns(self, episode_id: int) -> list[dict[str, Any]]:
        return self.turns

    def finish_episode(self, episode_id: int, **fields: Any) -> None:
        self.finished = fields


class _Player:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def act(self, observation: Any) -> Move[Any]:
        self.seen.append(observation)
        return Move(action=Say(observation["examples"][-1]), reply="b it is")


def test_the_game_moves_first_and_the_player_sees_what_it_made() -> None:
    recorder, player = _Recorder(), _Player()
    session = Session.begin(_Game(), recorder, 1)

    async def play() -> None:
        while not session.done:
            await session.play_turn(player)

    asyncio.run(play())
    assert player.seen == [{"kind": "ready", "examples": ["a", "b"]}]  # never asked to answer "preparing"
    assert [(t["index"], t["action"], t["reply"]) for t in recorder.turns] == [
        (0, {"type": "Prepare"}, None),
        (1, {"type": "Say", "word": "b"}, "b it is"),
    ]
    assert recorder.finished["success"] is True
