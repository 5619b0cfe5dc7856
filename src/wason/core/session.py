"""Sessions: one game in the store, advanced one action at a time.

A session is an episode of a run: its family and configuration are the run's, its item is the episode's, and
its turns are the episode's turns. Every step is written before it returns, so a session survives its process:
it is restored by replaying its stored actions (games are deterministic; what oracles said is replayed from the
turn's record, never asked again). Runs, ``wason play``, ``wason session`` and, later, the HTTP API all advance
games through :class:`Session`, so there is one way to play.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from wason.core import registry
from wason.core.family import EpisodeContext, Family, Item, RunReader, RunSettings
from wason.core.game import EPISODE_METRICS, PLAYER_METRICS, Game, Malformed, Move, Outcome, Player, Settles
from wason.core.moves import action_error, action_shape, describe_moves
from wason.core.public import is_over, public_item
from wason.core.records import EpisodeRow, TurnConflict, to_json


class SessionError(ValueError):
    """A session cannot do what was asked (it has ended, the action is not one of the game's); one line."""


class SessionDiverged(RuntimeError):
    """Replaying a session's stored actions did not give back its stored observations: the game changed."""


class EpisodeRecorder(Protocol):
    """Where sessions write (implemented by :class:`wason.store.Store`)."""

    def start_episode(self, episode_id: int) -> None: ...

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
    ) -> None: ...

    def list_turns(self, episode_id: int) -> list[dict[str, Any]]: ...

    def finish_episode(
        self,
        episode_id: int,
        *,
        status: str,
        success: bool | None = None,
        metrics: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None: ...


class SessionStore(EpisodeRecorder, RunReader, Protocol):
    """What the session functions need of the store."""

    def create_run(
        self,
        *,
        task: str,
        player: str,
        model: str | None,
        config: dict[str, Any],
        items: list[tuple[str, dict[str, Any]]] | None = None,
    ) -> int: ...

    def get_episode(self, episode_id: int) -> EpisodeRow: ...

    def set_run_status(self, run_id: int, status: str) -> None: ...


class Session:
    """One game bound to its episode in the store.

    Build it with :meth:`begin` (a new game) or :meth:`restore` (a stored one); then :meth:`step` until
    :attr:`done`. ``feedback`` renders an observation as the text a model would read, for the transcript.
    """

    def __init__(
        self,
        game: Game[Any, Any],
        recorder: EpisodeRecorder,
        episode_id: int,
        *,
        feedback: Callable[[Any], str] | None = None,
    ) -> None:
        self.game = game
        self.recorder = recorder
        self.episode_id = episode_id
        self.feedback = feedback
        self.turn = 0
        self.observation: Any = None
        self._outcome: Outcome | None = None

    @classmethod
    def begin(
        cls,
        game: Game[Any, Any],
        recorder: EpisodeRecorder,
        episode_id: int,
        *,
        feedback: Callable[[Any], str] | None = None,
    ) -> Session:
        """Start the episode afresh (turns left by an interrupted attempt are dropped)."""
        recorder.start_episode(episode_id)
        session = cls(game, recorder, episode_id, feedback=feedback)
        session.observation = game.start()
        return session

    @classmethod
    async def restore(
        cls,
        game: Game[Any, Any],
        recorder: EpisodeRecorder,
        episode_id: int,
        decode: Callable[[Mapping[str, Any]], Any],
        *,
        feedback: Callable[[Any], str] | None = None,
    ) -> Session:
        """Rebuild a stored game by replaying its stored actions; the observations must come out the same."""
        session = cls(game, recorder, episode_id, feedback=feedback)
        session.observation = game.start()
        for turn in recorder.list_turns(episode_id):
            action = decode(turn["action"])
            if isinstance(game, Settles):
                record = turn.get("oracle")
                if record is not None:
                    game.settled(action, record)
                else:
                    await game.settle(action)
            session.observation = game.step(action)
            if to_json(session.observation) != turn["observation"]:
                raise SessionDiverged(
                    f"episode {episode_id}, turn {turn['index']}: replaying the stored action gave another "
                    "observation than the stored one (the game or its data changed since)"
                )
            session.turn += 1
        return session

    @property
    def done(self) -> bool:
        return self.game.done

    async def step(self, move: Move[Any]) -> Any:
        """Apply one move: settle its outside work, step the game, store the turn; returns the observation.

        Once the game is over the episode is marked completed with its outcome.
        """
        if self.game.done:
            raise SessionError("the game is over")
        record = await self.game.settle(move.action) if isinstance(self.game, Settles) else None
        observation = self.game.step(move.action)
        self.recorder.add_turn(
            self.episode_id,
            self.turn,
            action=to_json(move.action),
            observation=to_json(observation),
            reply=move.reply,
            feedback=self.feedback(observation) if self.feedback else None,
            oracle=record,
        )
        self.turn += 1
        self.observation = observation
        outcome = self.outcome()
        if outcome is not None:
            metrics = outcome.metrics
            reported = move.meta.get(EPISODE_METRICS)
            if isinstance(reported, dict) and reported and PLAYER_METRICS not in metrics:
                # what the player said about its episode, apart from the game's own metrics
                metrics = {**metrics, PLAYER_METRICS: reported}
            self.recorder.finish_episode(
                self.episode_id, status="completed", success=outcome.success, metrics=metrics
            )
        return observation

    async def play_turn(self, player: Player[Any, Any]) -> Any:
        """One turn: the game's own move when it has one now (``automatic_action``, e.g. a game master preparing
        the opening examples), else the player's move after seeing the observation; returns the observation."""
        automatic = getattr(self.game, "automatic_action", None)
        own = automatic() if callable(automatic) else None
        move = Move(action=own) if own is not None else await player.act(self.observation)
        return await self.step(move)

    def outcome(self) -> Outcome | None:
        """The game's outcome once it is over (computed once: some outcomes are costly to score)."""
        if self._outcome is None and self.game.done:
            self._outcome = self.game.outcome()
        return self._outcome

    def fail(self, reason: str) -> None:
        """End the episode as errored (a player who left, a model that failed for good)."""
        self.recorder.finish_episode(self.episode_id, status="errored", error=reason)


# -- sessions by id --------------------------------------------------------------------------------------
def start(
    store: SessionStore,
    family: str,
    config: RunSettings | Mapping[str, Any],
    *,
    item: Item | None = None,
    index: int | None = None,
    seed: int | None = None,
    player: str = "session",
) -> int:
    """Start a game and return its session id (the episode's id).

    Args:
        store: where the session lives.
        family: the family's registered name.
        config: the family's run configuration (or its fields as a mapping).
        item: the item to play; default: one of the configuration's items, ``index`` or drawn with ``seed``.
        index: which of the configuration's items (0-based).
        seed: draws the item when neither ``item`` nor ``index`` is given.
        player: who plays, as the run records it (``session``, ``human``...).
    """
    fam = registry.get(family)
    if isinstance(config, RunSettings) and not isinstance(config, fam.config_type):
        raise SessionError(f"the configuration is not a {fam.name} configuration")
    fields = config.model_dump() if isinstance(config, RunSettings) else dict(config)
    # validated again as the player's: a person or a script plays, no model
    cfg = fam.config_type.model_validate({**fields, "player": player, "model": None})
    if item is None:
        item = pick_item(fam, cfg, index=index, seed=seed)
    # the run and its one episode in one transaction: a crash in between leaves no empty run
    run_id = store.create_run(
        task=fam.name, player=player, model=None, config=cfg.model_dump(mode="json"), items=[item]
    )
    episode = store.list_episodes(run_id)[0]
    begin(store, episode)
    return episode.id


def pick_item(
    family: Family[Any], config: RunSettings, *, index: int | None = None, seed: int | None = None
) -> Item:
    """One item of ``config``: the one at ``index``, else one drawn with ``seed``; only that one is drawn where
    the family can count its items without drawing them (:meth:`Family.item_count`).

    Raises:
        SessionError: ``index`` out of range, or a configuration without items.
    """
    items: list[Item] | None = None
    count = family.item_count(config)
    if count is None:
        items = family.items(config)
        count = len(items)
    if count == 0:
        raise SessionError("this configuration has no games")
    if index is None:
        # randrange(n) draws as choice() of n items did, so a seed picks the item it always picked
        index = random.Random(seed).randrange(count)
    elif not 0 <= index < count:
        raise SessionError(f"index: from 0 to {count - 1} in this configuration, not {index}")
    return items[index] if items is not None else family.item_at(config, index)


def begin(store: SessionStore, episode: EpisodeRow) -> Session:
    """Start ``episode``'s game afresh in the store."""
    _, _, game, feedback = _build(store, episode)
    return Session.begin(game, store, episode.id, feedback=feedback)


async def load(store: SessionStore, session_id: int) -> tuple[Family[Any], RunSettings, EpisodeRow, Session]:
    """Restore session ``session_id`` from its stored actions."""
    episode = store.get_episode(session_id)
    fam, cfg, game, feedback = _build(store, episode)
    session = await Session.restore(game, store, episode.id, fam.actions.decode, feedback=feedback)
    return fam, cfg, episode, session


async def step(
    store: SessionStore, session_id: int, action: Mapping[str, Any] | Any = None, *, text: str | None = None
) -> dict[str, Any]:
    """Apply one move to a stored session and return the player's view.

    The move is an action object, its JSON, or ``text``: a reply as a model writes it, read by the family's
    protocol at the point the game has reached (and kept in the transcript). A reply the protocol cannot read
    is refused, not counted: a script that sends text can fix it and send it again.
    """
    if (action is None) == (text is None):
        raise SessionError("give an action or a text reply (one of them)")
    fam, cfg, episode, session = await load(store, session_id)
    if episode.status not in ("running", "completed"):
        raise SessionError(f"session {session_id} is {episode.status}; it cannot be played on")
    if session.done:
        raise SessionError(f"session {session_id} is over")
    if text is not None:
        protocol = fam.protocol(cfg, episode.item)
        if session.turn:  # a protocol reads a reply by what it last asked (tests, a predicate, a quiz...)
            protocol.feedback(session.observation)
        action = protocol.parse(text)
        if isinstance(action, Malformed):
            raise SessionError(f"the reply cannot be read: {action.reason}")
    elif isinstance(action, Mapping):
        action = decode_action(fam, action)
    try:
        await session.step(Move(action=action, reply=text))
    except TurnConflict:
        raise SessionError(
            f"session {session_id} moved on: another step was stored first; read it again and retry"
        ) from None
    if session.done:
        close(store, session_id)
    return _view(fam, store.get_episode(session_id), session)


async def moves(store: SessionStore, target: str) -> list[str]:
    """``wason session moves``: the moves a game takes and the action JSON each makes, for a stored session (its
    moves open now first) or a family by name (every move of a game of its default configuration).

    Raises:
        SessionError: ``target`` is neither a session id nor a family's name.
    """
    if target.isdigit():
        fam, cfg, episode, session = await load(store, int(target))
        observation = None if session.done else session.observation
        head = f"session {target} ({fam.title}), turn {session.turn}" + (", over" if session.done else "")
        listed = describe_moves(fam.moves(cfg, episode.item, observation), fam.actions)
    else:
        if target not in registry.names():
            raise SessionError(
                f"{target!r} is neither a session id nor a game ({', '.join(registry.names())})"
            )
        fam = registry.get(target)
        cfg = fam.config_type(**fam.config_type.with_play_defaults({}), player="session")
        count = fam.item_count(cfg)
        item = fam.item_at(cfg, 0)[1] if count else fam.items(cfg)[0][1]
        head = f"{fam.title}: the moves of its games"
        listed = describe_moves(fam.moves(cfg, item, None), fam.actions)
    usage = "send one with  wason session step ID 'JSON'  (or --text REPLY, read like a model's reply)"
    return [head, *listed, usage]


def decode_action(fam: Family[Any], data: Mapping[str, Any]) -> Any:
    """An action's JSON as the family's action, or one line saying what is wrong: the field and what it should
    be, then the action's whole expected shape (``expected {"type": "FinalGuess", "expression": string}``).

    Raises:
        SessionError: an unknown type, an unknown or missing field, a value of the wrong type.
    """
    kind = fam.actions.kinds.get(str(data.get("type")))
    expected = (
        f"; expected {action_shape(kind)}" if kind is not None and dataclasses.is_dataclass(kind) else ""
    )
    if expected and str(data.get("type")) not in fam.actions.hooks:
        known = {f.name for f in dataclasses.fields(kind)}  # type: ignore[arg-type]
        unknown = [k for k in data if k != "type" and k not in known]
        if unknown:
            names = ", ".join(repr(k) for k in unknown)
            raise SessionError(f"not a {fam.name} action: {kind.__name__} has no field {names}{expected}")  # type: ignore[union-attr]
    if not expected:
        expected = f" (each with an example: wason session actions {fam.name})"
    try:
        return fam.actions.decode(data)
    except ValueError as exc:
        raise SessionError(f"not a {fam.name} action: {action_error(exc)}{expected}") from None


@dataclasses.dataclass(frozen=True)
class ActionExample:
    """One kind of action of a family, for ``wason session actions``.

    Attributes:
        kind: its ``type``.
        shape: its JSON with each field's type (``{"type": "More", "n": integer}``; ``?``: may be left out).
        hint: what the move making it does, and how it is typed at the terminal ("" when no move makes it).
        example: an action of this kind that :func:`step` accepted in a game of the family's default
            configuration (item 0), as JSON; None when none was found.
        turn: the turn it was accepted at (0: as a game's first move).
        source: where it came from: ``solver`` (the reference solver's game), ``script`` (the family's sample
            game), ``move`` (a move without values, such as giving up) or ``types`` (made from the field types).
    """

    kind: str
    shape: str
    hint: str
    example: dict[str, Any] | None
    turn: int | None
    source: str


_PLACEHOLDER: dict[str, Any] = {"integer": 1, "number": 1.0, "boolean": True, "string": "x"}


def _from_types(kind: type[Any]) -> dict[str, Any] | None:
    """An action of ``kind`` with a plain value of each field's type (an optional field's too, where it is a
    string, number or flag), or None when a required field is not one (a list, an object)."""
    out: dict[str, Any] = {"type": kind.__name__}
    shape = action_shape(kind)
    for f in dataclasses.fields(kind):
        optional = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        typed = shape.split(f'"{f.name}"{"?" if optional else ""}: ', 1)[1]
        first = re.split(r", \"|\}$| \| ", typed, maxsplit=1)[0]
        if first in _PLACEHOLDER:
            out[f.name] = _PLACEHOLDER[first]
        elif not optional:
            return None
    return out


async def _accepted(store: SessionStore, fam: Family[Any], cfg: RunSettings, data: dict[str, Any]) -> bool:
    """Whether :func:`step` takes ``data`` as the first move of a new game of item 0."""
    sid = start(store, fam.name, cfg, index=0)
    try:
        await step(store, sid, data)
    except ValueError:  # a SessionError, or a value the game refused
        return False
    return True


async def action_examples(store: SessionStore, family: str, *, max_turns: int = 200) -> list[ActionExample]:
    """Every kind of action of ``family`` with its JSON shape and an example :func:`step` accepted.

    The examples come from one game of the family's default configuration (item 0) that its reference solver
    (or its sample game) plays through :func:`step`, each action sent as JSON, as ``wason session step`` sends
    it; the first action of each kind is kept with its turn. A kind the game did not use gets the action of a
    move without values (giving up), else one made from its field types, kept only if :func:`step` accepts it
    as a new game's first move. ``store`` is where these games are played: give a scratch store.

    Raises:
        SessionError: ``family`` is not a game.
    """
    if family not in registry.names():
        raise SessionError(f"{family!r} is not a game ({', '.join(registry.names())})")
    fam = registry.get(family)
    cfg = fam.config_type(**fam.config_type.with_play_defaults({}), player="session")
    found: dict[str, tuple[dict[str, Any], int, str]] = {}
    sid = start(store, fam.name, cfg, index=0)
    _, played_cfg, episode, live = await load(store, sid)
    solver = fam.solver(played_cfg, episode.item)
    script = [] if solver is not None else list(fam.sample_actions(played_cfg, episode.item) or [])
    source = "solver" if solver is not None else "script"
    try:
        for turn in range(max_turns):
            if live.done:
                break
            automatic = getattr(live.game, "automatic_action", None)
            own = automatic() if callable(automatic) else None
            if own is not None:
                action, by = own, "game"
            elif solver is not None:
                action, by = (await solver.act(live.observation)).action, source
            elif script:
                action, by = script.pop(0), source
            else:
                break
            data = json.loads(json.dumps(fam.actions.encode(action)))
            await step(store, sid, data)
            if by != "game":
                found.setdefault(data["type"], (data, turn, by))
            _, _, _, live = await load(store, sid)
    except ValueError:  # the game refused a move (a session error): keep what was found
        pass
    commands = fam.moves(played_cfg, episode.item, None)
    hints: dict[str, str] = {}
    for c in commands:
        if c.action and not c.info:
            hints.setdefault(c.action, f"{c.hint or c.label} (typed: {c.usage})")
    for c in commands:
        if c.action in fam.actions.kinds and c.action not in found and not c.fields and not c.info:
            data = json.loads(json.dumps(fam.actions.encode(c.make({}))))
            if await _accepted(store, fam, cfg, data):
                found[c.action] = (data, 0, "move")
    out = []
    for name, kind in fam.actions.kinds.items():
        if name == "Malformed" or not dataclasses.is_dataclass(kind):
            continue
        if name not in found:
            made = _from_types(kind)
            if made is not None and await _accepted(store, fam, cfg, made):
                found[name] = (made, 0, "types")
        hint = hints.get(name, "")
        if name in found:
            data, turn, by = found[name]
            out.append(ActionExample(name, action_shape(kind), hint, data, turn, by))
        else:
            out.append(ActionExample(name, action_shape(kind), hint, None, None, ""))
    return out


_SOURCES = {
    "solver": "the reference solver's move",
    "script": "the family's sample game's move",
    "move": "a move without values",
    "types": "made from the field types",
}


def describe_actions(family: str, examples: Sequence[ActionExample]) -> list[str]:
    """``wason session actions``: each kind of action, its JSON shape and its example, as lines of text."""
    fam = registry.get(family)
    lines = [
        f"{fam.title}: the actions `wason session step SESSION 'JSON'` takes, each with an example it accepted",
        "(sent as JSON to a game of item 0 of the default configuration; a field marked ? may be left out)",
    ]
    for e in examples:
        lines.append(f"{e.kind}: {e.hint}" if e.hint else e.kind)
        lines.append(f"  schema:  {e.shape}")
        if e.example is None:
            lines.append(
                "  example: none found in a game of the default configuration (its settings open it)"
            )
        else:
            when = "as a first move" if e.turn == 0 else f"at turn {(e.turn or 0) + 1}"
            shown = json.dumps(e.example, ensure_ascii=False)
            lines.append(f"  example: {shown}  ({_SOURCES.get(e.source, e.source)}, {when})")
    lines.append("send one with  wason session step ID 'JSON'  (or --text REPLY, read like a model's reply)")
    return lines


def close(store: SessionStore, session_id: int) -> str | None:
    """End the run of session ``session_id`` once its game is over, and return the run's status; None (nothing
    changed) while the game is on.

    A session's run is its one game, so it ends with it, as a run the engine played ends: ``completed`` when the
    game completed, ``incomplete`` when it errored (a player who left). Without this, a game played at the
    terminal or step by step stayed ``running`` and ``wason runs --status completed`` missed it.
    """
    run_id = store.get_episode(session_id).run_id
    statuses = [e.status for e in store.list_episodes(run_id)]
    if not all(is_over(s) for s in statuses):
        return None
    status = "completed" if all(s == "completed" for s in statuses) else "incomplete"
    store.set_run_status(run_id, status)
    return status


async def view(store: SessionStore, session_id: int) -> dict[str, Any]:
    """What the player sees now: the last observation, the turn, whether it is over; the non-public parts of the
    item only once the game is over."""
    fam, _, episode, session = await load(store, session_id)
    return _view(fam, episode, session)


async def summary(store: SessionStore, session_id: int) -> dict[str, Any]:
    """The session's result: status and, once the game is over, its outcome and the whole item."""
    fam, _, episode, session = await load(store, session_id)
    out = _view(fam, episode, session)
    outcome = session.outcome()
    out["success"] = outcome.success if outcome else None
    out["metrics"] = outcome.metrics if outcome else None
    return out


def _view(fam: Family[Any], episode: EpisodeRow, session: Session) -> dict[str, Any]:
    item = episode.item if session.done or is_over(episode.status) else public_item(fam, episode.item)
    return {
        "session": episode.id,
        "run": episode.run_id,
        "family": fam.name,
        "status": "completed" if session.done else episode.status,
        "done": session.done,
        "turn": session.turn,
        "item": item,
        "observation": to_json(session.observation),
        "feedback": session.feedback(session.observation) if session.feedback and session.turn else None,
    }


def _build(
    store: SessionStore, episode: EpisodeRow
) -> tuple[Family[Any], RunSettings, Game[Any, Any], Callable[[Any], str]]:
    """The family, configuration, a new game and the feedback renderer of a stored episode (no model: oracle
    answers come from the stored turns)."""
    run = store.get_run(episode.run_id)
    fam = registry.get(run.task)
    cfg = fam.config_type.model_validate(run.config)
    game = fam.game(cfg, episode.item, EpisodeContext(run_id=episode.run_id, episode_id=episode.id))
    return fam, cfg, game, fam.protocol(cfg, episode.item).feedback


__all__ = [
    "ActionExample",
    "EpisodeRecorder",
    "Session",
    "SessionDiverged",
    "SessionError",
    "SessionStore",
    "action_examples",
    "begin",
    "close",
    "decode_action",
    "describe_actions",
    "load",
    "start",
    "step",
    "summary",
    "to_json",
    "view",
]
