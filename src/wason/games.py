"""The guess-the-rule game API: the reference's Python shape, on top of sessions and the store.

A game is created by its published name (``GameApi.game_name`` of a registered family), a level and a number of
initial examples; then it is asked for more examples, sent guesses, summarised and loaded again by id, from any
process, because it is a session in the store (:mod:`wason.core.session`). Every answer is a JSON-ready dict
with the reference's keys (``game_uuid``, ``status``, ``system_message``...) plus the family's view fields;
the summary's ``game_class_name``, ``domain``, ``game_gen_type``, ``rule`` object and resume ``system_message``
are the game's (:class:`GameApi`). The reference's per-game classes (``SomeGame(uuid, difficulty,
num_init_examples)``) are made from the registry by the class name each game declares (:func:`game_class`), so
this module names no game.

Choices where the reference is silent or wrong:

- ``game_uuid`` is the session id as a string (``"12"``): a game is one session, so ``wason session view 12``
  and ``/api/sessions/12`` show the same game. It is not a secret; the server is for a trusted network.
- Statuses are ``ongoing``, ``won`` and ``lost``: ongoing until the session's game is over, then won when its
  outcome is a success (a game whose episode errored is lost).
- Levels are read in any case (``l1`` is ``L1``, as the reference upper-cases them); answers give the game's.
- ``turns_taken`` counts creation as turn 1 and each request for examples or guess as one more, as the
  reference's static game does (its other games never counted turns).
- The rule is in a summary only once the game is over (then always); ``include_rule`` while the game is
  ongoing is refused (:class:`RuleHidden`), where the reference revealed it.
- Games are judged by code only: a session built here has no model attached, so a family whose configuration
  asks a model (an LLM judge beside the code) refuses that action with :class:`NeedsModel` instead of crashing.
- The published name, level, number of initial examples, seed and player are kept in the episode's item key (a
  JSON line prefixed ``guess-the-rule:``), so the family's own configuration and item are stored untouched.
"""

from __future__ import annotations

import asyncio
import json
import random
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar

from wason.core import registry, session
from wason.core.family import EpisodeContext, Family, GameApi, RunSettings
from wason.core.game import ExternalFailure, Move, Settles
from wason.core.records import EpisodeRow, RunRow, TurnConflict
from wason.store import Store, StoreError

KEY_PREFIX = "guess-the-rule:"
"""How the item key of a game created through this API starts (the rest is its JSON metadata)."""

MAX_EXAMPLES = 10_000
"""The most examples one request may ask for (initial or more); a family may accept fewer."""

MAX_GUESS_CHARS = 10_000
"""The longest guess accepted, in characters."""

MAX_PLAYER_CHARS = 64
"""How much of the optional player name is kept."""

STATUSES = ("ongoing", "won", "lost")

T = TypeVar("T")


class GameError(ValueError):
    """A request the game API refuses; one line for the client.

    Attributes:
        field: the request field at fault (``game_name``, ``difficulty``, ``n_examples``...), or None.
        status: the HTTP status the server answers with.
    """

    status = 422
    kind = "invalid"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class UnknownGame(GameError):
    """No game with this id (or the session with this id was not created through the game API)."""

    status = 404
    kind = "not_found"


class GameOver(GameError):
    """The game is over: it takes no more examples or guesses."""

    status = 409
    kind = "game_over"


class GameConflict(GameError):
    """Another request on the same game was stored first; read the game again and retry."""

    status = 409
    kind = "conflict"


class RuleHidden(GameError):
    """The rule was asked for while the game is ongoing."""

    status = 409
    kind = "rule_hidden"


class NeedsModel(GameError):
    """The action needs a model (an LLM judge or labeller) and none is attached to games played here."""

    status = 424
    kind = "needs_model"


@dataclass(frozen=True)
class Meta:
    """What the game API keeps of a game besides its session: how it was created."""

    game_name: str
    difficulty: str
    num_init_examples: int
    seed: int
    player: str | None

    def key(self) -> str:
        data = {
            "game_name": self.game_name,
            "difficulty": self.difficulty,
            "num_init_examples": self.num_init_examples,
            "seed": self.seed,
            "player": self.player,
        }
        return KEY_PREFIX + json.dumps(data, separators=(",", ":"), ensure_ascii=True)

    @classmethod
    def from_key(cls, key: str) -> Meta | None:
        if not key.startswith(KEY_PREFIX):
            return None
        try:
            data = json.loads(key[len(KEY_PREFIX) :])
            return cls(
                game_name=str(data["game_name"]),
                difficulty=str(data["difficulty"]),
                num_init_examples=int(data["num_init_examples"]),
                seed=int(data["seed"]),
                player=None if data.get("player") is None else str(data["player"]),
            )
        except (ValueError, KeyError, TypeError):
            return None


@dataclass
class Loaded:
    """A game restored from the store: its session and every observation it produced, in order."""

    meta: Meta
    family: Family[Any]
    game_api: GameApi
    config: RunSettings
    run: RunRow
    episode: EpisodeRow
    live: session.Session
    history: list[tuple[Any, Any]]
    turn_times: list[datetime]

    @property
    def observations(self) -> list[Any]:
        """Every observation the game gave, in order (the start's first)."""
        return [observation for _, observation in self.history]

    @property
    def status(self) -> str:
        return game_status(self.live, self.episode)

    @property
    def done(self) -> bool:
        return self.live.done or self.episode.status not in ("running", "completed")


def game_status(live: session.Session, episode: EpisodeRow) -> str:
    """``ongoing`` / ``won`` / ``lost`` of a session."""
    if episode.status == "errored":
        return "lost"
    if not live.done:
        return "ongoing"
    outcome = live.outcome()
    return "won" if outcome is not None and outcome.success else "lost"


def game_apis() -> dict[str, tuple[Family[Any], GameApi]]:
    """Every published game name, with its family and game API (families without one are left out)."""
    out: dict[str, tuple[Family[Any], GameApi]] = {}
    for family in registry.families():
        game_api = family.game_api()
        if game_api is not None and game_api.game_name not in out:
            out[game_api.game_name] = (family, game_api)
    return out


def parse_game_id(game_id: str | int) -> int:
    """A game id as a session id: ASCII digits (a string or an int); anything else is an unknown game."""
    text = str(game_id) if isinstance(game_id, int) and not isinstance(game_id, bool) else game_id
    if not isinstance(text, str) or not text.isascii() or not text.isdigit() or len(text) > 18:
        raise UnknownGame(f"no game {str(game_id)[:40]!r}: a game id is a number", "game_id")
    return int(text)


def parse_count(value: Any, field: str) -> int:
    """A number of examples: an int or a string of digits (the reference sends strings), 1..MAX_EXAMPLES."""
    if isinstance(value, bool):
        raise GameError(f"{field} must be a whole number, not a boolean", field)
    if isinstance(value, str):
        text = value.strip()
        sign = text[:1] == "-"
        digits = text[1:] if sign else text
        if not (digits.isascii() and digits.isdigit()) or len(digits) > 12:
            raise GameError(f"{field} must be a whole number, got {value[:40]!r}", field)
        value = -int(digits) if sign else int(digits)
    if not isinstance(value, int):
        raise GameError(f"{field} must be a whole number, got {type(value).__name__}", field)
    if value < 1:
        raise GameError(f"{field} must be at least 1, got {value}", field)
    if value > MAX_EXAMPLES:
        raise GameError(f"{field} must be at most {MAX_EXAMPLES}, got {value}", field)
    return value


def _check_text(text: str, field: str) -> str:
    """``text`` if it is Unicode text a store can hold and export: a lone surrogate (half of a UTF-16 pair, which
    Python strings and JSON's ``\\u`` escapes can carry, and no UTF-8 file can) is refused, naming ``field``.

    Raises:
        GameError: the text holds a lone surrogate.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        raise GameError(
            f"{field} must be Unicode text: it holds U+{code:04X} at character {exc.start}, half of a UTF-16 "
            "surrogate pair (nothing was played)",
            field,
        ) from None
    return text


def parse_level(game_api: GameApi, difficulty: Any) -> str:
    """The game's level named by ``difficulty``, in any case (``l1`` is ``L1``, as the reference upper-cases it)."""
    if isinstance(difficulty, str):
        for level in game_api.levels:
            if level.upper() == difficulty.upper():
                return level
    raise GameError(
        f"difficulty must be one of {', '.join(game_api.levels)}, got {str(difficulty)[:20]!r}", "difficulty"
    )


def _field_of(exc: Exception, fields: tuple[str, ...]) -> str | None:
    text = str(exc)
    named = [(text.find(f), f) for f in fields if f in text]
    return min(named)[1] if named else None


def _aware(moment: datetime) -> datetime:
    """SQLite gives back naive datetimes; the store writes them in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else _aware(moment).isoformat()


class _Recording:
    """A game that remembers every action it took and observation it gave (the summary's history), otherwise
    the game itself."""

    def __init__(self, game: Any) -> None:
        self._game = game
        self.history: list[tuple[Any, Any]] = []

    @property
    def observations(self) -> list[Any]:
        return [observation for _, observation in self.history]

    @property
    def done(self) -> bool:
        return bool(self._game.done)

    def start(self) -> Any:
        observation = self._game.start()
        self.history.append((None, observation))
        return observation

    def step(self, action: Any) -> Any:
        observation = self._game.step(action)
        self.history.append((action, observation))
        return observation

    def outcome(self) -> Any:
        return self._game.outcome()


class _RecordingSettles(_Recording):
    """The same, for a game that settles its actions' outside work first (see :class:`Settles`)."""

    async def settle(self, action: Any) -> dict[str, Any] | None:
        record: dict[str, Any] | None = await self._game.settle(action)
        return record

    def settled(self, action: Any, record: dict[str, Any]) -> None:
        self._game.settled(action, record)


def _recording(game: Any) -> _Recording:
    return _RecordingSettles(game) if isinstance(game, Settles) else _Recording(game)


class Games:
    """The game API over one store: create, more examples, validate a guess, summary, load.

    The methods are coroutines (the server awaits them); :class:`GuessTheRuleGame` is the reference's
    synchronous object on top of them. Steps on one game in one process are serialized; a step stored first by
    another process makes this one a :class:`GameConflict`, never a corrupted game.
    """

    def __init__(self, store: Store | str | None = None) -> None:
        self.store = store if isinstance(store, Store) else Store(store)
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    @asynccontextmanager
    async def lock(self, session_id: int) -> AsyncIterator[None]:
        """Hold the one lock of session ``session_id`` in this process."""
        lock = self._locks.get(session_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[session_id] = lock
        async with lock:
            yield

    # -- the operations -----------------------------------------------------------------------------------
    async def create(
        self,
        game_name: str,
        difficulty: str,
        num_init_examples: int | str,
        seed: int | None = None,
        player: str | None = None,
    ) -> dict[str, Any]:
        """Create a game and return its first view (``game_uuid``, ``status``, ``system_message``, examples)."""
        known = game_apis()
        if not isinstance(game_name, str) or game_name not in known:
            names = ", ".join(sorted(known)) or "none registered"
            raise GameError(f"unknown game_name {str(game_name)[:60]!r}; known: {names}", "game_name")
        family, game_api = known[game_name]
        difficulty = parse_level(game_api, difficulty)
        n = parse_count(num_init_examples, "num_init_examples")
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise GameError("seed must be a whole number from 0 to 2**63 - 1", "seed")
        if player is not None and not isinstance(player, str):
            raise GameError("player must be a string", "player")
        if player is not None:
            _check_text(player[:MAX_PLAYER_CHARS], "player")
        meta = Meta(game_name, difficulty, n, seed, None if player is None else player[:MAX_PLAYER_CHARS])

        def start() -> int:
            try:
                config, (_, item) = game_api.create(difficulty, n, seed)
            except ValueError as exc:
                fields = ("difficulty", "num_init_examples", "seed")
                raise GameError(_one_line(exc), _field_of(exc, fields) or "num_init_examples") from None
            except ExternalFailure as exc:
                raise NeedsModel(f"{game_name} cannot be created here: {_one_line(exc)}") from None
            return session.start(self.store, family.name, config, item=(meta.key(), item))

        # the game is drawn and stored in a thread: a server's event loop answers meanwhile
        session_id = await asyncio.to_thread(start)
        loaded = await self._load(session_id)
        return self._state(loaded)

    async def more(
        self, game_id: str | int, n_examples: int | str, *, game_name: str | None = None
    ) -> dict[str, Any]:
        """Ask for ``n_examples`` more examples; returns the new view.

        ``game_name`` (in every operation on a stored game): only a game of this published name is found.
        """
        session_id = parse_game_id(game_id)
        n = parse_count(n_examples, "n_examples")
        async with self.lock(session_id):
            loaded = await self._load(session_id, game_name)
            self._ongoing(loaded, "n_examples")
            try:
                action = loaded.game_api.more(n)
            except ValueError as exc:
                raise GameError(_one_line(exc), "n_examples") from None
            await self._step(loaded, action)
            return self._state(loaded)

    async def validate_guess(
        self, game_id: str | int, guess: str, *, game_name: str | None = None
    ) -> dict[str, Any]:
        """Judge a guess (``give up`` included); returns ``game_uuid``, ``status``, ``guess_result``,
        ``system_message`` and ``turns_taken``."""
        session_id = parse_game_id(game_id)
        if not isinstance(guess, str):
            raise GameError("guess must be a string", "guess")
        if not guess.strip():
            raise GameError("guess is empty", "guess")
        if len(guess) > MAX_GUESS_CHARS:
            raise GameError(f"guess is longer than {MAX_GUESS_CHARS} characters", "guess")
        _check_text(guess, "guess")
        async with self.lock(session_id):
            loaded = await self._load(session_id, game_name)
            self._ongoing(loaded, "guess")
            try:
                action = loaded.game_api.guess(guess)
            except ValueError as exc:
                raise GameError(_one_line(exc), "guess") from None
            await self._step(loaded, action)
            view = self._view(loaded)
            return {
                "game_uuid": str(session_id),
                "status": loaded.status,
                "guess_result": view.get("guess_result"),
                "system_message": view.get("system_message"),
                "turns_taken": 1 + loaded.live.turn,
            }

    async def summary(
        self, game_id: str | int, include_rule: bool = False, *, game_name: str | None = None
    ) -> dict[str, Any]:
        """The game's summary: timing, turns, examples shown, status, the game's resume text
        (:meth:`GameApi.resume_message`); the rule (:meth:`GameApi.rule_object`) once the game is over.

        Raises:
            RuleHidden: ``include_rule`` while the game is ongoing.
        """
        session_id = parse_game_id(game_id)
        loaded = await self._load(session_id, game_name)
        if include_rule and not loaded.done:
            raise RuleHidden("the rule is shown only once the game is over", "include_rule")
        views = [loaded.game_api.view(o, False) for o in loaded.observations]
        positives = _gather(views, "positive_examples")
        negatives = _gather(views, "negative_examples")
        available = [
            v["total_examples_available"] for v in views if v.get("total_examples_available") is not None
        ]
        start = loaded.run.created_at
        end = loaded.turn_times[-1] if loaded.done and loaded.turn_times else None
        now = datetime.now(UTC)
        elapsed = (_aware(end or now) - _aware(start)).total_seconds()
        out = {
            **self._header(loaded),
            "game_end_time": _iso(end),
            "total_game_time": round(max(0.0, elapsed), 3),
            "turns_taken": 1 + loaded.live.turn,
            "game_history": {"positives": positives, "negatives": negatives},
            "total_examples_available": available[-1] if available else None,
            "total_pos_examples_shown": len(positives),
            "total_neg_examples_shown": len(negatives),
            "status": loaded.status,
        }
        rule = loaded.game_api.rule_object(loaded.episode.item) if loaded.done else None
        message = loaded.game_api.resume_message(loaded.history, loaded.status, rule)
        out["system_message"] = self._view(loaded).get("system_message") if message is None else message
        if loaded.done:
            out["rule"] = rule
        return out

    async def load(self, game_id: str | int, *, game_name: str | None = None) -> dict[str, Any]:
        """A stored game's current view (as :meth:`create` and :meth:`more` return it)."""
        return self._state(await self._load(parse_game_id(game_id), game_name))

    def game_name_of(self, game_id: str | int) -> str:
        """The published name of a stored game, read without restoring it.

        Raises:
            UnknownGame: no such game, or a session not created as a guess-the-rule game.
        """
        session_id = parse_game_id(game_id)
        try:
            episode = self.store.get_episode(session_id)
        except StoreError:
            raise UnknownGame(f"no game {session_id}", "game_id") from None
        meta = Meta.from_key(episode.item_key)
        if meta is None or meta.game_name not in game_apis():
            raise UnknownGame(f"session {session_id} is not a guess-the-rule game", "game_id")
        return meta.game_name

    # -- helpers ------------------------------------------------------------------------------------------
    async def _load(self, session_id: int, game_name: str | None = None) -> Loaded:
        try:
            episode = self.store.get_episode(session_id)
        except StoreError:
            raise UnknownGame(f"no game {session_id}", "game_id") from None
        meta = Meta.from_key(episode.item_key)
        known = game_apis()
        if meta is None or meta.game_name not in known:
            raise UnknownGame(f"session {session_id} is not a guess-the-rule game", "game_id")
        if game_name is not None and meta.game_name != game_name:
            raise UnknownGame(f"game {session_id} is a {meta.game_name} game, not {game_name}", "game_id")
        family, game_api = known[meta.game_name]
        run = self.store.get_run(episode.run_id)
        if run.task != family.name:
            raise UnknownGame(f"session {session_id} is not a {meta.game_name} game", "game_id")
        config = family.config_type.model_validate(run.config)
        game = _recording(family.game(config, episode.item, EpisodeContext(run.id, episode.id)))
        feedback = family.protocol(config, episode.item).feedback
        turns = self.store.list_turns(session_id)
        try:
            live = await session.Session.restore(
                game, self.store, episode.id, family.actions.decode, feedback=feedback
            )
        except ExternalFailure as exc:
            raise NeedsModel(f"game {session_id} cannot be restored here: {_one_line(exc)}") from None
        times = [t["created_at"] for t in turns]
        return Loaded(meta, family, game_api, config, run, episode, live, game.history, times)

    def _ongoing(self, loaded: Loaded, field: str) -> None:
        if loaded.done:
            raise GameOver(f"game {loaded.episode.id} is over ({loaded.status})", field)

    async def _step(self, loaded: Loaded, action: Any) -> None:
        try:
            await loaded.live.step(Move(action=action))
        except TurnConflict:
            raise GameConflict(
                f"game {loaded.episode.id} moved on: another request was stored first; read it again and retry"
            ) from None
        except ExternalFailure as exc:
            raise NeedsModel(
                f"this action needs a model, and games played here are judged by code only: {_one_line(exc)}"
            ) from None
        loaded.episode = self.store.get_episode(loaded.episode.id)
        loaded.turn_times.append(datetime.now(UTC))

    def _view(self, loaded: Loaded) -> dict[str, Any]:
        return dict(loaded.game_api.view(loaded.live.observation, loaded.done))

    def _header(self, loaded: Loaded) -> dict[str, Any]:
        meta, game_api = loaded.meta, loaded.game_api
        return {
            "game_uuid": str(loaded.episode.id),
            "game_name": meta.game_name,
            "family": loaded.family.name,
            "game_class_name": game_api.class_name,
            "domain": game_api.domain,
            "difficulty": meta.difficulty,
            "game_gen_type": game_api.game_gen_type,
            "num_init_examples": meta.num_init_examples,
            # the seed draws the rule (the code is public), so it is shown only once the game is over
            "seed": meta.seed if loaded.done else None,
            "player": meta.player,
            "start_time": _iso(loaded.run.created_at),
        }

    def _state(self, loaded: Loaded) -> dict[str, Any]:
        view = self._view(loaded)
        header = self._header(loaded)
        # the family's view may not overwrite what the API decides
        own = {k: v for k, v in view.items() if k not in header and k not in ("turns_taken", "status")}
        return {**header, "turns_taken": 1 + loaded.live.turn, "status": loaded.status, **own}


def _gather(views: list[dict[str, Any]], key: str) -> list[Any]:
    """Every example shown under ``key``, in the order shown, each once."""
    seen: list[Any] = []
    marks: set[str] = set()
    for view in views:
        for example in view.get(key) or []:
            mark = json.dumps(example, sort_keys=True, default=str)
            if mark not in marks:
                marks.add(mark)
                seen.append(example)
    return seen


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]


def _run(work: Coroutine[Any, Any, T]) -> T:
    """Run one operation to its end from synchronous code, also where an event loop is running already (a
    notebook, async code): then in a thread with its own loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, work).result()


class _LoadGame:
    """``load_game`` both ways the reference's code calls it: on an object (``cls(uuid=...).load_game()``, its
    web server) and on the class (``cls.load_game(uuid)``, its test script and README); the game either way."""

    def __get__(
        self, game: GuessTheRuleGame | None, owner: type[GuessTheRuleGame]
    ) -> Callable[..., GuessTheRuleGame]:
        if game is not None:
            return game._load_game

        def load(uuid_str: str | int | None = None, *, store: Store | str | None = None) -> GuessTheRuleGame:
            if uuid_str is None:
                raise UnknownGame("load_game on the class needs the game's uuid", "game_id")
            return owner(uuid=str(uuid_str), store=store)._load_game()

        return load


class GuessTheRuleGame:
    """One game with the reference's methods, synchronous (for scripts; async code uses :class:`Games`).

    ``GuessTheRuleGame("a game name", "L1", 2, seed=7)`` then :meth:`create_game_instance`; or
    ``GuessTheRuleGame(uuid="12").load_game()`` to go on with a stored game. The reference's classes, one per
    game (``SomeGame(difficulty="L1", num_init_examples=2)``), are made from the registered games as
    subclasses of :class:`PublishedGame` (:func:`game_class`, or ``from wason.games import SomeGame`` with the
    class name a game declares, ``GameApi.class_name``).

    Every method returns the dict :class:`Games` returns, except :meth:`load_game`, which returns the game.
    The store is ``store`` (a :class:`Store`, a URL or a path), else ``$WASON_DB``, else ``wason.db``.
    """

    load_game = _LoadGame()
    """``game.load_game(uuid_str=None)`` or ``Class.load_game(uuid_str)``: the stored game (this object, or a
    new one on the class), ready for the other methods. A per-game class loads only its own game."""

    def __init__(
        self,
        game_name: str | None = None,
        difficulty: str | None = None,
        num_init_examples: int | str | None = 2,
        *,
        seed: int | None = None,
        uuid: str | int | None = None,
        store: Store | str | None = None,
        player: str | None = None,
    ) -> None:
        self.games = Games(store)
        self.game_name: str | None = game_name
        self.difficulty: str | None = difficulty
        self.num_init_examples: int | None = None
        self.seed, self.player = seed, player
        self.uuid = None if uuid is None else str(uuid)
        # as the reference checks them when the object is made (validate_init): the level (in any case) and count
        if game_name is not None and difficulty is not None:
            known = game_apis()
            if game_name not in known:
                names = ", ".join(sorted(known)) or "none registered"
                raise GameError(f"unknown game_name {str(game_name)[:60]!r}; known: {names}", "game_name")
            self.difficulty = parse_level(known[game_name][1], difficulty)
        if num_init_examples is not None:
            self.num_init_examples = parse_count(num_init_examples, "num_init_examples")

    def create_game_instance(self) -> dict[str, Any]:
        """Create the game; its id is :attr:`uuid` from now on (an object holds one game)."""
        if self.uuid is not None:
            raise GameError(
                f"this object holds game {self.uuid} already; a new game needs a new object", "game_id"
            )
        if self.game_name is None:
            raise GameError("a new game needs a game_name", "game_name")
        if self.difficulty is None:
            raise GameError("a new game needs a difficulty", "difficulty")
        if self.num_init_examples is None:
            raise GameError("a new game needs num_init_examples", "num_init_examples")
        out = _run(
            self.games.create(
                self.game_name, self.difficulty, self.num_init_examples, self.seed, player=self.player
            )
        )
        self.uuid = str(out["game_uuid"])
        self.difficulty = out["difficulty"]
        return out

    def get_more_examples(self, n: int | str = 1) -> dict[str, Any]:
        return _run(self.games.more(self._uuid(), n, game_name=self._expected()))

    def validate_guess(self, guess: str) -> dict[str, Any]:
        return _run(self.games.validate_guess(self._uuid(), guess, game_name=self._expected()))

    def get_game_summary(self, include_rule: bool = False) -> dict[str, Any]:
        """The summary; the rule once the game is over (``include_rule`` before that is :class:`RuleHidden`)."""
        return _run(self.games.summary(self._uuid(), include_rule, game_name=self._expected()))

    def _load_game(self, uuid_str: str | int | None = None) -> GuessTheRuleGame:
        if uuid_str is not None:
            self.uuid = str(uuid_str)
        out = _run(self.games.load(self._uuid(), game_name=self._expected()))
        self.game_name, self.difficulty = out["game_name"], out["difficulty"]
        self.num_init_examples = out["num_init_examples"]
        return self

    def _expected(self) -> str | None:
        """The only game name this object's class plays (None: any)."""
        return None

    def _uuid(self) -> str:
        if self.uuid is None:
            raise UnknownGame("no game yet: call create_game_instance() or load_game(uuid)", "game_id")
        return self.uuid


class PublishedGame(GuessTheRuleGame):
    """A class for one published game, with the reference's constructor
    ``(uuid=None, difficulty=None, num_init_examples=None)``: the base of the classes :func:`game_class` makes.

    A new game needs ``difficulty`` and ``num_init_examples``; ``uuid`` names a stored game of this kind (another
    game's id is an :class:`UnknownGame`). ``seed``, ``store`` and ``player`` are keywords of ours.
    """

    published_name: ClassVar[str] = ""
    """The published game name (``GameApi.game_name``) this class plays."""

    def __init__(
        self,
        uuid: str | int | None = None,
        difficulty: str | None = None,
        num_init_examples: int | str | None = None,
        *,
        seed: int | None = None,
        store: Store | str | None = None,
        player: str | None = None,
    ) -> None:
        if not self.published_name:
            raise TypeError("PublishedGame is the base of the per-game classes; use game_class(name)")
        super().__init__(
            self.published_name,
            difficulty,
            num_init_examples,
            seed=seed,
            uuid=uuid,
            store=store,
            player=player,
        )

    def _expected(self) -> str | None:
        return self.published_name


_CLASSES: dict[tuple[str, str], type[PublishedGame]] = {}


def _class_name(game_name: str, game_api: GameApi) -> str:
    return game_api.class_name or "".join(part[:1].upper() + part[1:] for part in game_name.split("_"))


def game_class(name: str) -> type[PublishedGame]:
    """The class of one registered game, by the reference's class name (``GameApi.class_name``) or the published
    game name; the same class object on every call.

    Raises:
        GameError: no registered game by that name (``game_name``).
    """
    known = game_apis()
    for game_name, (_, game_api) in sorted(known.items()):
        if name in (game_name, game_api.class_name):
            class_name = _class_name(game_name, game_api)
            made = _CLASSES.get((class_name, game_name))
            if made is None:
                doc = f"The ``{game_name}`` game with the reference's constructor and methods (:class:`PublishedGame`)."
                attrs = {"published_name": game_name, "__module__": __name__, "__doc__": doc}
                made = _CLASSES[(class_name, game_name)] = type(class_name, (PublishedGame,), attrs)
            return made
    classes = sorted(_class_name(g, game_api) for g, (_, game_api) in known.items())
    raise GameError(
        f"no game class or game_name {str(name)[:60]!r}; known: {', '.join(classes) or 'none registered'}",
        "game_name",
    )


def select_new_game(game_name: str) -> type[PublishedGame]:
    """The class that creates games of ``game_name`` (the reference's ``lib/domain/game.py``)."""
    known = game_apis()
    if not isinstance(game_name, str) or game_name not in known:
        names = ", ".join(sorted(known)) or "none registered"
        raise GameError(f"unknown game_name {str(game_name)[:60]!r}; known: {names}", "game_name")
    return game_class(game_name)


def get_existing_game(uuid: str | int, store: Store | str | None = None) -> PublishedGame:
    """A stored game as an object of its own class, to be loaded (the reference's ``lib/domain/game.py``):
    ``get_existing_game(uuid).load_game().get_game_summary()``.

    Raises:
        UnknownGame: no such game in the store.
    """
    games = Games(store)
    return game_class(games.game_name_of(uuid))(uuid=uuid, store=games.store)


def __getattr__(name: str) -> type[PublishedGame]:
    """``from wason.games import <a game's class name>`` (e.g. the reference's class names): its class."""
    if not name.startswith("_"):
        for game_name, (_, game_api) in game_apis().items():
            if game_api.class_name == name:
                return game_class(game_name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MAX_EXAMPLES",
    "MAX_GUESS_CHARS",
    "STATUSES",
    "GameConflict",
    "GameError",
    "GameOver",
    "Games",
    "GuessTheRuleGame",
    "NeedsModel",
    "PublishedGame",
    "RuleHidden",
    "UnknownGame",
    "game_apis",
    "game_class",
    "game_status",
    "get_existing_game",
    "parse_count",
    "parse_game_id",
    "parse_level",
    "select_new_game",
]
