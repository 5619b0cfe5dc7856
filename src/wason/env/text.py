"""A family as a text environment: Gymnasium's ``reset`` / ``step`` over the text a model reads and writes.

``reset(seed=s)`` draws one of the configuration's items with ``s`` (as ``wason session start --seed`` draws it)
and begins its game; the observation is the opening of the family's published protocol (its instructions and,
where the game opens with one, its first message), exactly as ``wason eval`` sends it. ``step(reply)`` reads the
model's whole reply with the protocol, plays it and returns the protocol's answer: a reply the protocol cannot read
is played as the unreadable reply it is (the game's feedback says so and counts it, as under ``wason eval``),
never an exception. The episode is over when the game is (``terminated``), or at ``max_turns`` (``truncated``).

Nothing here holds random state of its own: the item comes from the seed, the game from the item, so the same
seed gives the same game, byte for byte, in any process; G resets with one seed give G identical games.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError

from wason.core import registry
from wason.core.family import EpisodeContext, Family, Item, RunSettings, refusal
from wason.core.game import Malformed, Move
from wason.core.memory import EpisodeRecord
from wason.core.session import Session, pick_item, to_json
from wason.env.rewards import Shaping, terminal_components
from wason.players.llm import Conversation

__all__ = ["MAX_REPLY", "MAX_TURNS", "AsyncTextEnv", "StepResult", "TextEnv", "VectorTextEnv", "make"]

MAX_TURNS = 10_000
"""Turns after which an episode is truncated whatever ``max_turns`` says: a game that has not ended by then is a
bug in the game, and the environment never loops for ever."""

MAX_REPLY = 1_000_000
"""The longest reply read, in characters: a longer one is played unread, as an unreadable reply (the game says so
and counts it), so no reply costs the protocol's reader more than this."""

MAX_GAMES = 4096
"""The most games a :class:`VectorTextEnv` steps together."""

PLAYER = "session"
"""Who plays, as the configuration records it: a script (the trainer's model), with no model of wason's own, so a
family's LLM judges run only on a judge model named for them (``judge_model=...``), as under ``wason session``."""

T = TypeVar("T")


@dataclass(frozen=True)
class StepResult:
    """What one step returns, as Gymnasium's 5-tuple (``tuple(result)``)."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]

    def __iter__(self) -> Any:
        return iter((self.observation, self.reward, self.terminated, self.truncated, self.info))


def _config(
    family: Family[Any], config: RunSettings | Mapping[str, Any] | None, fields: Mapping[str, Any]
) -> RunSettings:
    given = config.model_dump() if isinstance(config, RunSettings) else dict(config or {})
    try:
        made: RunSettings = family.config_type.model_validate(
            {**given, **fields, "player": PLAYER, "model": None}
        )
    except ValidationError as exc:  # one line naming each field, as wason eval's flags are refused
        raise ValueError(f"{family.name}: {refusal(exc)}") from None
    return made


class AsyncTextEnv:
    """One family's games, one at a time, with ``async`` ``reset`` and ``step`` (for trainers with an event loop;
    :class:`TextEnv` is the same with plain methods).

    Args:
        family: the family's registered name.
        config: its run configuration (or the fields of one); ``fields`` add to it, as ``wason eval``'s flags.
        max_turns: truncate an episode after this many of the model's replies (default: the game's own end).
        shaping: the reward's weights (:class:`~wason.env.rewards.Shaping`, or its fields); default: the code
            verdict alone.
        oracle: the model client of a family's LLM judges or game master (default: one made from the
            configuration's ``judge_model``, or none where code decides).
    """

    def __init__(
        self,
        family: str,
        config: RunSettings | Mapping[str, Any] | None = None,
        *,
        max_turns: int | None = None,
        shaping: Shaping | Mapping[str, float] | None = None,
        oracle: Any = None,
        **fields: Any,
    ) -> None:
        self.family = registry.get(family)
        self.config = _config(self.family, config, fields)
        self.shaping = (
            shaping if isinstance(shaping, Shaping) else Shaping.model_validate(dict(shaping or {}))
        )
        self.shaping.check(self.family.name, self.config)
        if max_turns is not None and not 1 <= max_turns <= MAX_TURNS:
            raise ValueError(f"max_turns: from 1 to {MAX_TURNS}, not {max_turns}")
        self.max_turns = max_turns or MAX_TURNS
        self._oracle = oracle
        self._oracle_made = oracle is not None
        self._owns_oracle = False  # a client the caller gave stays the caller's to close
        self.record: EpisodeRecord | None = None
        self._session: Session | None = None
        self._conversation: Conversation | None = None
        self._replies = 0
        self._format_errors = 0
        self._components: dict[str, float] = {}

    # -- the episode -------------------------------------------------------------------------------------------
    @property
    def messages(self) -> list[dict[str, str]]:
        """The conversation so far as OpenAI-style messages (``{"role", "content"}``): what the model has read
        and written, in the order it will be sent."""
        if self._conversation is None:
            return []
        return [{"role": m.role, "content": m.content} for m in self._conversation.transcript()]

    @property
    def observation(self) -> Any:
        """What the game shows now, as the game gives it (the structured observation a solver reads)."""
        return self._session.observation if self._session is not None else None

    @property
    def done(self) -> bool:
        return self._session is None or self._session.done or self._replies >= self.max_turns

    async def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Begin a game: the item drawn with ``seed`` (or ``options["index"]``, or ``options["item"]``); returns
        the opening text and ``info``."""
        options = dict(options or {})
        item: Item | None = options.get("item")
        if item is None:
            item = pick_item(self.family, self.config, index=options.get("index"), seed=seed)
        key, value = item
        self.record = EpisodeRecord(self.family.name, key, value, self.config.model_dump(mode="json"), PLAYER)
        context = EpisodeContext(run_id=None, episode_id=0, oracle=self._oracle_client())
        game = self.family.game(self.config, value, context)
        protocol = self.family.protocol(self.config, value)
        self._session = Session.begin(game, self.record, 0, feedback=protocol.feedback)
        self._conversation = Conversation(protocol, system_as_user=self.config.system_as_user)
        self._replies = self._format_errors = 0
        self._components = {}
        await self._automatic()
        opening = self._conversation.prompt(self._session.observation)
        return "\n\n".join(m.content for m in opening), self._info()

    async def step(self, reply: str) -> StepResult:
        """Play the model's whole reply; returns the protocol's answer, the reward, and whether the episode is
        over.

        Raises:
            RuntimeError: a step before :meth:`reset`, or after the episode is over.
        """
        conversation = self._live()
        if not isinstance(reply, str):
            raise TypeError(f"a reply is text, not {type(reply).__name__}")
        if len(reply) > MAX_REPLY:
            conversation.replied(reply)
            action: Any = Malformed(f"the reply is longer than the {MAX_REPLY:,} characters a reply may have")
        else:
            action = conversation.read(reply)
        return await self._advance(action, reply)

    async def act(self, action: Any) -> StepResult:
        """Play a move as the game takes it (a solver's, say), with no text: the conversation records the
        family's message for it where it has one (:meth:`~wason.core.family.Family.action_message`), and the
        reward is paid as for a reply.

        Raises:
            RuntimeError: a move before :meth:`reset`, or after the episode is over.
        """
        conversation = self._live()
        text = self.family.action_message(to_json(action))
        conversation.replied(text if text is not None else "")
        return await self._advance(action, text)

    def _live(self) -> Conversation:
        """The episode's conversation, for a move.

        Raises:
            RuntimeError: before :meth:`reset`, or after the episode is over.
        """
        if self._session is None or self._conversation is None:
            raise RuntimeError("reset() the environment before you step it")
        if self.done:
            raise RuntimeError("the episode is over: reset() for another")
        return self._conversation

    async def _advance(self, action: Any, reply: str | None) -> StepResult:
        session, conversation = self._session, self._conversation
        assert session is not None and conversation is not None
        self._replies += 1
        reward = 0.0
        if isinstance(action, Malformed):
            self._format_errors += 1
            reward += self._pay({"format_error": self.shaping.format_error})
        await session.step(Move(action=action, reply=reply))
        await self._automatic()
        terminated = session.done
        truncated = not terminated and self._replies >= self.max_turns
        text = ""
        if not terminated:  # the protocol's answer: the last message of the next prompt
            text = conversation.prompt(session.observation)[-1].content
        if truncated:
            session.fail(f"truncated after {self._replies} replies (max_turns)")
        outcome = session.outcome()
        if outcome is not None:
            paid = terminal_components(self.shaping, self.config, outcome.success, outcome.metrics)
            reward += self._pay(paid)
        return StepResult(text, reward, terminated, truncated, self._info())

    async def _automatic(self) -> None:
        """The moves a game makes by itself before the player's next one (a game master's opening, say)."""
        session = self._session
        assert session is not None
        automatic = getattr(session.game, "automatic_action", None)
        while callable(automatic) and not session.done:
            own = automatic()
            if own is None:
                return
            await session.step(Move(action=own))

    def _pay(self, components: Mapping[str, float]) -> float:
        """Add ``components`` to the episode's; their sum is this step's reward."""
        for name, value in components.items():
            if value or name == "win":
                self._components[name] = self._components.get(name, 0.0) + value
        return float(sum(components.values()))

    def _info(self) -> dict[str, Any]:
        session = self._session
        assert session is not None
        info: dict[str, Any] = {
            "family": self.family.name,
            "observation": to_json(session.observation),
            "turn": session.turn,
            "replies": self._replies,
            "format_errors": self._format_errors,
            "reward_components": dict(self._components),
            "episode_reward": float(sum(self._components.values())),
        }
        outcome = session.outcome()
        if outcome is not None:
            info["success"] = outcome.success
            info["metrics"] = outcome.metrics
            assert self.record is not None
            info["item_key"] = self.record.key
        return info

    def _oracle_client(self) -> Any:
        if not self._oracle_made:
            self._oracle_made = True
            if self.family.oracle(self.config) is not None:
                from wason.engine.runs import make_oracle_client

                self._oracle = make_oracle_client(self.config, _NoCalls())  # type: ignore[arg-type]
                self._owns_oracle = self._oracle is not None
        return self._oracle

    async def aclose(self) -> None:
        close = getattr(self._oracle, "aclose", None)
        if callable(close) and self._owns_oracle:
            await close()


class _NoCalls:
    """Where an oracle made by the environment records its calls: nowhere (the episode's record keeps its own)."""

    def record_call(self, record: dict[str, Any]) -> object:
        return None

    def cache_get(self, key: str) -> dict[str, Any] | None:
        return None


class _Loop:
    """An event loop on a thread of its own, so the plain methods work inside and outside a running loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="wason-env", daemon=True)
        self.thread.start()

    def run(self, work: Awaitable[T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result()  # type: ignore[arg-type]

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class TextEnv:
    """:class:`AsyncTextEnv` with plain ``reset`` and ``step`` (Gymnasium's signatures over text)."""

    def __init__(
        self, family: str, config: RunSettings | Mapping[str, Any] | None = None, **kwargs: Any
    ) -> None:
        self.env = AsyncTextEnv(family, config, **kwargs)
        self._loop: _Loop | None = None

    def _run(self, work: Callable[[], Awaitable[T]]) -> T:
        if self._loop is None:
            self._loop = _Loop()
        return self._loop.run(work())

    @property
    def messages(self) -> list[dict[str, str]]:
        return self.env.messages

    @property
    def family(self) -> Family[Any]:
        return self.env.family

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        return self._run(lambda: self.env.reset(seed=seed, options=options))

    def step(self, reply: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        result = self._run(lambda: self.env.step(reply))
        return result.observation, result.reward, result.terminated, result.truncated, result.info

    def close(self) -> None:
        if self._loop is not None:
            self._loop.run(self.env.aclose())
            self._loop.close()
            self._loop = None


class VectorTextEnv:
    """N games of one family stepped together (their oracle calls at once): ``reset(seed=s)`` gives game ``i``
    the seed ``s + i`` (or ``seeds`` one each: the same seed N times is a GRPO group of identical games)."""

    def __init__(
        self, family: str, n: int, config: RunSettings | Mapping[str, Any] | None = None, **kwargs: Any
    ) -> None:
        if not 1 <= n <= MAX_GAMES:
            raise ValueError(f"n: from 1 to {MAX_GAMES} games, not {n}")
        self.envs = [AsyncTextEnv(family, config, **kwargs) for _ in range(n)]
        self._loop = _Loop()

    @property
    def num_envs(self) -> int:
        return len(self.envs)

    def reset(self, *, seed: int | Sequence[int] | None = None) -> tuple[list[str], list[dict[str, Any]]]:
        if isinstance(seed, int) or seed is None:
            seeds: list[int | None] = [None if seed is None else seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"seeds: one per game ({self.num_envs}), not {len(seeds)}")

        async def all_() -> list[tuple[str, dict[str, Any]]]:
            return list(
                await asyncio.gather(*(e.reset(seed=s) for e, s in zip(self.envs, seeds, strict=True)))
            )

        done = self._loop.run(all_())
        return [o for o, _ in done], [i for _, i in done]

    def step(
        self, replies: Sequence[str]
    ) -> tuple[list[str], list[float], list[bool], list[bool], list[dict[str, Any]]]:
        """One reply per game; a game that is over takes none (its entry is ignored): it returns an empty
        observation, no reward (it was paid at the end) and the flags it ended with."""
        if len(replies) != self.num_envs:
            raise ValueError(f"replies: one per game ({self.num_envs}), not {len(replies)}")

        async def one(env: AsyncTextEnv, reply: str) -> StepResult:
            if env.done:  # over already: its flags again, no reward paid twice
                ended = env._session is not None and env._session.done
                return StepResult("", 0.0, ended, not ended, env._info())
            return await env.step(reply)

        async def all_() -> list[StepResult]:
            return list(await asyncio.gather(*(one(e, r) for e, r in zip(self.envs, replies, strict=True))))

        results = self._loop.run(all_())
        return (
            [r.observation for r in results],
            [r.reward for r in results],
            [r.terminated for r in results],
            [r.truncated for r in results],
            [r.info for r in results],
        )

    def close(self) -> None:
        for env in self.envs:
            self._loop.run(env.aclose())
        self._loop.close()


def make(family: str, config: RunSettings | Mapping[str, Any] | None = None, **kwargs: Any) -> TextEnv:
    """The text environment of family ``family``: ``wason.env.make(NAME, **settings)`` (the settings are the
    family's run configuration, as ``wason eval NAME``'s flags)."""
    return TextEnv(family, config, **kwargs)
