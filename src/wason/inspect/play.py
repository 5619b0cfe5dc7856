"""The solvers of wason's Inspect tasks: a sample is played as ``wason eval`` plays an episode, through a
:class:`~wason.core.session.Session` of the family's game, by

- :func:`protocol_player` (the task's default): the eval's model through the family's text protocol, each of
  its turns one call of Inspect's ``generate`` with exactly the messages ``wason eval`` sends;
- :func:`reference_solver` (``--solver wason/solver``): the family's reference solver, no model calls;
- :func:`human_player` (``--solver wason/human``): a person at the terminal, through Inspect's input screen.

The episode's record (its item, turns, outcome and model calls) is kept in the sample's store under
:data:`EPISODE_KEY` as it is played, for the scorer and for ``wason import``; a family's LLM judges ask the
model of the ``judge`` role (:data:`wason.inspect.tasks.JUDGE_ROLE`).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from collections.abc import AsyncIterator
from typing import Any

from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
    get_model,
    model_roles,
)
from inspect_ai.model._generate_config import active_generate_config
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import input_screen

from wason.core import registry
from wason.core.family import EpisodeContext, PlayIO, RunSettings
from wason.core.game import Player, ReplyFormat, TextProtocol
from wason.core.memory import EpisodeRecord
from wason.core.records import CallContext
from wason.core.session import Session
from wason.engine.runs import stored_config
from wason.inspect.logs import EPISODE_KEY, model_spec
from wason.inspect.tasks import JUDGE_ROLE, TaskArgumentError, TaskPlay, one_line_error, play_of
from wason.models.base import ChatMessage, GenerationParams, ModelError, ModelResponse
from wason.models.client import ModelClient, RetryPolicy
from wason.players.llm import LLMPlayer, reply_format_of
from wason.report.inspect_log import GENERATE_FIELDS

__all__ = [
    "EPISODE_KEY",
    "REPLY_FORMAT",
    "human_player",
    "protocol_player",
    "reference_solver",
]

REPLY_FORMAT: contextvars.ContextVar[ReplyFormat | None] = contextvars.ContextVar(
    "wason_reply_format", default=None
)
"""The reply format the protocol asks of the model's next reply: what ``--model wason/local -M constrain=true``
holds the reply to (set by :func:`protocol_player` around each turn)."""

MAX_TURNS = 10_000
"""A game that has not ended after this many turns is a bug in the game: the sample errors, never hangs."""


def _inspect_messages(messages: list[ChatMessage]) -> list[Any]:
    out: list[Any] = []
    for m in messages:
        if m.role == "system":
            out.append(ChatMessageSystem(content=m.content))
        elif m.role == "assistant":
            out.append(ChatMessageAssistant(content=m.content))
        else:
            out.append(ChatMessageUser(content=m.content))
    return out


def _finish_reason(stop_reason: str | None) -> str | None:
    """Inspect's stop reason as the finish reason wason records (``max_tokens`` is a reply cut off)."""
    if stop_reason in ("max_tokens", "model_length"):
        return "length"
    return stop_reason


def _settings(params: GenerationParams, given: Any) -> dict[str, Any]:
    """The family's generation settings that the eval's own settings leave unset (a family's published
    temperature, say), as Inspect's ``generate`` takes them: what the user set for the eval wins, as an explicit
    flag wins over a family's default under ``wason eval``."""
    out: dict[str, Any] = {}
    for ours, theirs in GENERATE_FIELDS:
        value = getattr(params, ours)
        if value is not None and getattr(given, theirs, None) is None:
            out[theirs] = list(value) if ours == "stop" else value
    return out


class _Raised:
    """An exception of Inspect's (a limit, a cancelled sample) met inside a model call: the call fails for wason,
    and the solver raises the original for Inspect."""

    def __init__(self) -> None:
        self.error: BaseException | None = None


class InspectGenerate:
    """The eval's model as a wason :class:`~wason.models.base.Model`: each call sets the sample's messages to the
    conversation and calls Inspect's ``generate`` (so the model, its settings, retries, limits and logs are
    Inspect's)."""

    endpoint = "inspect"
    max_concurrency = 1_000_000  # Inspect's --max-connections limits the calls
    wall_clock = False  # Inspect's --timeout applies, not wason's

    def __init__(self, state: Any, generate: Any, raised: _Raised) -> None:
        self.state, self._generate, self.raised = state, generate, raised
        self.spec = model_spec(str(get_model()))

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        try:  # setting the messages may raise Inspect's message limit
            self.state.messages = _inspect_messages(messages)
            self.state = await self._generate(self.state, **_settings(params, active_generate_config()))
        except Exception as exc:
            self.raised.error = exc
            raise ModelError(f"{type(exc).__name__}: {exc}", transient=False) from exc
        return _response(self.state.output)

    async def aclose(self) -> None:
        return None


class InspectRole:
    """The model of an Inspect model role (by default the eval's model) as a wason model, for a family's LLM
    judges, labellers and game masters."""

    endpoint = "inspect"
    max_concurrency = 1_000_000
    wall_clock = False

    def __init__(self, role: str, raised: _Raised) -> None:
        self.role, self.raised = role, raised
        self.spec = model_spec(str(get_model(role=role)))

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        settings = _settings(params, GenerateConfig())
        try:
            output = await get_model(role=self.role).generate(
                _inspect_messages(messages), config=GenerateConfig(**settings)
            )
        except Exception as exc:
            self.raised.error = exc
            raise ModelError(f"{type(exc).__name__}: {exc}", transient=False) from exc
        return _response(output)

    async def aclose(self) -> None:
        return None


def _response(output: Any) -> ModelResponse:
    usage = getattr(output, "usage", None)
    choice = output.choices[0] if output.choices else None
    return ModelResponse(
        text=output.completion,
        input_tokens=getattr(usage, "input_tokens", None),
        output_tokens=getattr(usage, "output_tokens", None),
        finish_reason=_finish_reason(choice.stop_reason if choice is not None else None),
        model=output.model,
    )


def _oracle(family: Any, config: RunSettings, record: EpisodeRecord, raised: _Raised) -> ModelClient | None:
    if family.oracle(config) is None:
        return None
    return ModelClient(
        model=InspectRole(JUDGE_ROLE, raised), store=record, policy=RetryPolicy(retries=0), use_cache=False
    )


async def _play(
    state: Any,
    player: Player[Any, Any],
    session: Session,
    record: EpisodeRecord,
    raised: _Raised,
    *,
    protocol: Any = None,
    transcript: bool = False,
) -> None:
    """Play the session to its end, keeping the record in the sample's store after every turn."""
    try:
        while not session.done:
            if session.turn >= MAX_TURNS:
                raise RuntimeError(f"the game did not end within {MAX_TURNS} turns")
            token = REPLY_FORMAT.set(
                reply_format_of(protocol, session.observation) if protocol is not None else None
            )
            try:
                await session.play_turn(player)
            finally:
                REPLY_FORMAT.reset(token)
            if transcript:
                _add_turn(state, record)
            state.store.set(EPISODE_KEY, record.data())
    except ModelError as exc:
        if raised.error is not None:  # Inspect's own (a limit): the sample ends as Inspect ends it
            record.finish_episode(
                0,
                status="errored",
                error=f"the eval stopped the game: {type(raised.error).__name__}: {raised.error}",
            )
            state.store.set(EPISODE_KEY, record.data())
            raise raised.error from None
        record.finish_episode(0, status="errored", error=f"model call failed: {exc}")
        state.store.set(EPISODE_KEY, record.data())
        raise
    except Exception as exc:
        record.finish_episode(0, status="errored", error=f"{type(exc).__name__}: {exc}")
        state.store.set(EPISODE_KEY, record.data())
        raise
    state.store.set(EPISODE_KEY, record.data())


@contextlib.asynccontextmanager
async def _one_episode_at_a_time() -> AsyncIterator[None]:
    """The eval model's ``episode_lock`` held for the episode where its API has one (``wason/local``: one KV
    cache, which episodes played at once would thrash); nothing for any other model."""
    lock = getattr(get_model().api, "episode_lock", None)
    if lock is None:
        yield
        return
    async with lock:
        yield


def _begin(
    state: Any, player_name: str, raised: _Raised
) -> tuple[TaskPlay, RunSettings, EpisodeRecord, Session, TextProtocol[Any, Any]]:
    """The sample's game, begun for ``player_name`` with the configuration it plays (see
    :meth:`TaskPlay.played_by`).

    Raises:
        Exception: Inspect's one-line error where the configuration cannot be played so.
    """
    play = play_of(state.metadata)
    try:
        config = play.played_by(player_name, judge_named=JUDGE_ROLE in model_roles())
    except TaskArgumentError as exc:
        raise one_line_error(str(exc)) from None
    key, item = play.item(state.sample_id, state.epoch)
    record = EpisodeRecord(play.family.name, key, item, stored_config(config), player_name)
    oracle = _oracle(play.family, config, record, raised)
    game = play.family.game(config, item, EpisodeContext(run_id=None, episode_id=0, oracle=oracle))
    protocol = play.family.protocol(config, item)
    session = Session.begin(game, record, 0, feedback=protocol.feedback)
    return play, config, record, session, protocol


@solver(name="protocol")
def protocol_player() -> Solver:
    """The task's default solver: the eval's model plays the family's text protocol (see the module)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        raised = _Raised()
        play, config, record, session, protocol = _begin(state, "llm", raised)
        item = record.item
        client = ModelClient(
            model=InspectGenerate(state, generate, raised),
            store=record,
            policy=RetryPolicy(retries=0),
            use_cache=False,
        )
        context = CallContext(episode_id=0, sample=play.family.sample_key(config, item))
        player = LLMPlayer(
            client,
            protocol,
            play.family.generation_params(config, item),
            context,
            system_as_user=config.system_as_user,
        )
        async with _one_episode_at_a_time():
            await _play(state, player, session, record, raised, protocol=protocol)
        return state

    return solve


def _add_turn(state: Any, record: EpisodeRecord) -> None:
    """The last turn of a game played without a model, as the sample's messages: the move as the assistant's
    (in the protocol's words where the family gives them), the game's answer as the user's."""
    turn = record.turns[-1]
    family = registry.get(record.family)
    action = turn.get("action") or {}
    text = turn.get("reply") or family.action_message(action) or family.describe_action(action)
    state.messages.append(ChatMessageAssistant(content=str(text or json.dumps(action))))
    if turn.get("feedback"):
        state.messages.append(ChatMessageUser(content=str(turn["feedback"])))
    state.output = ModelOutput.from_content(model=f"wason/{record.player}", content=str(text or ""))


@solver(name="solver")
def reference_solver() -> Solver:
    """``--solver wason/solver``: the family's reference solver plays each sample (no model calls but a
    family's judges'); the solver row of ``wason eval`` in Inspect's logs."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        raised = _Raised()
        play, config, record, session, _ = _begin(state, "solver", raised)
        player = play.family.solver(config, record.item)
        if player is None:
            raise one_line_error(
                f"{play.family.title} has no reference solver: --solver wason/protocol plays a model"
            )
        await _play(state, player, session, record, raised, transcript=True)
        return state

    return solve


@solver(name="human")
def human_player() -> Solver:
    """``--solver wason/human``: a person plays each sample at the terminal (Inspect's display steps aside
    while they type)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        raised = _Raised()
        play, config, record, session, _ = _begin(state, "human", raised)

        def read(prompt: str) -> str:
            with input_screen() as console:
                return str(console.input(prompt))

        def write(text: str) -> None:
            with input_screen() as console:
                console.print(text, markup=False, highlight=False)

        player = play.family.human(
            config, record.item, PlayIO(read=read, write=write, turn=lambda: session.turn)
        )
        if player is None:
            raise one_line_error(f"{play.family.title} cannot be played by a person at the terminal")
        await _play(state, player, session, record, raised, transcript=True)
        return state

    return solve
