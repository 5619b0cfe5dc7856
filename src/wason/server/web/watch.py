"""Watch: start a model (or the solver) on a chosen game and see each turn as it is stored.

``GET /watch`` is the form (a family, its own configuration fields, the player, the game by index or seed);
``POST /watch`` creates a run of that one game and plays it in a background task of the server process with
:func:`wason.engine.play_run`, as ``wason eval`` does (the family's players and oracles; the run is stored like any
other, without a solver baseline); ``GET /watch/{run}`` shows it, updated by server-sent events from
``GET /watch/{run}/events``, which polls the store for new turns (in a thread) and ends when the run ends; ``POST
/watch/{run}/stop`` cancels the task, leaving the run interrupted and resumable (``wason eval --resume``). A game
asked for by neither index nor seed is drawn with a fresh random seed the server keeps to itself, so an earlier
run of the same form does not tell which game this one plays.

Event streams are capped (:class:`StreamLimits`, ``wason serve --max-streams``/``--max-client-streams``): one more
than a client (a remote address) may follow is a 429, one more than the server follows a 503, both with one line
saying so and ``Retry-After``; the page itself is still served.

What is sent of an episode before its game is over (completed or errored, :mod:`wason.core.public`): its turns
(action, observation, feedback, the model's reply) and the item's public keys. The rest of the item, the metrics
(the verdict names the rule) and the outcome only once it is over.

Every model the form names (the player, a judge, a labeller, a game master) must be one the operator allowed at
start (``wason serve --model SPEC [--base-url URL]``; the embedded model always): each is called at the address,
and with the key, it was configured with, and an address typed in the form is refused unless it is that one
(:mod:`wason.server.allowed`). The local provider plays only the embedded model unless the operator allowed a
model file.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import threading
import types
import typing
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from pydantic import ValidationError

from wason.core import registry, session
from wason.core.family import Family, Item, RunSettings, endpoint_fields, model_fields
from wason.core.game import Move, Player
from wason.core.public import is_over, public_episode
from wason.core.records import EpisodeRow, RunRow
from wason.engine import Clients, create_run, play_run
from wason.models.base import GenerationParams, ModelConfigError
from wason.redaction import redact
from wason.server.allowed import EMBEDDED, AllowedModels, ModelNotAllowed, Refused, allowed_models, own_fields
from wason.server.web import auth
from wason.server.web.pages import render
from wason.server.web.play import action_words
from wason.store import Store, StoreError

log = logging.getLogger("wason.server.watch")

LOCAL_MAX_TOKENS = 256  # as `wason eval` gives the local model
MAX_WATCHED = 4
"""Runs a server plays at once from this page; one more is refused (429) until one ends."""
MAX_PACE = 10.0
POLL_SECONDS = 0.25
"""The shortest pause between two reads of the store by one event stream."""
POLL_SHARE = 4.0
"""A stream waits at least this many times as long as its last read took (queue included) before the next: a run
whose reads are slow (hundreds of episodes), or a server whose reading threads are busy, is read less often."""
POLL_THREADS = 2
"""Threads that read the store for every event stream of the process (apart from those that start games)."""
KEEPALIVE_SECONDS = 15.0
DEFAULT_MAX_STREAMS = 32
"""Event streams a server follows at once by default (``wason serve --max-streams``)."""
DEFAULT_MAX_CLIENT_STREAMS = 8
"""Event streams one client (remote address) may follow at once by default (``--max-client-streams``)."""
MAX_STREAMS_BOUND = 1000
"""The most either limit may be set to."""


# -- the runs this server plays ---------------------------------------------------------------------------
@dataclass
class Watched:
    """A run played by this server, in a thread of its own with its own event loop (a solver's moves are pure
    Python: on the server's loop they would hold every other request), and why it crashed (if it did) before
    its episodes could say."""

    run_id: int
    thread: threading.Thread | None = None
    loop: asyncio.AbstractEventLoop | None = None
    task: asyncio.Task[None] | None = None
    error: str | None = None
    stopped: bool = False
    # set once the run's task is over (its outcome stored); its thread may still finish a model call it started
    played: threading.Event = field(default_factory=threading.Event)
    ended: threading.Event = field(default_factory=threading.Event)

    @property
    def active(self) -> bool:
        return self.thread is not None and not self.ended.is_set()

    def start(self, play: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Play ``play()`` in a new thread; :attr:`ended` is set when it is over, however it ended."""

        def run() -> None:
            try:
                asyncio.run(self._main(play))
            except BaseException:  # cancelled (Stop) or crashed: _play recorded what it could
                log.debug("watched run %s ended by an exception", self.run_id, exc_info=True)
            finally:
                self.ended.set()

        self.thread = threading.Thread(target=run, name=f"wason-watch-{self.run_id}", daemon=True)
        self.thread.start()

    async def _main(self, play: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        if self.stopped and self.task is not None:
            self.task.cancel()  # stopped before its loop began: cancelled at its first wait
        try:
            await play()
        finally:
            self.played.set()

    def cancel(self) -> None:
        """Ask the run to stop (its task is cancelled in its own loop); see :meth:`wait`."""
        self.stopped = True
        loop, task = self.loop, self.task
        if loop is not None and task is not None:
            loop.call_soon_threadsafe(task.cancel)

    async def wait(self, timeout: float) -> None:
        """Until the run's task is over and its state stored (at most ``timeout`` seconds), without holding the
        server's loop; a model call it had started may still be finishing in its thread (it stays
        :attr:`active` until then)."""
        await asyncio.to_thread(self.played.wait, timeout)


@dataclass
class Watches:
    runs: dict[int, Watched] = field(default_factory=dict)

    def active(self) -> list[Watched]:
        return [w for w in self.runs.values() if w.active]

    async def stop_all(self) -> None:
        running = self.active()
        for w in running:
            w.cancel()
        await asyncio.gather(*(w.wait(10) for w in running))


def watches(app: Any) -> Watches:
    found = getattr(app.state, "watches", None)
    if not isinstance(found, Watches):
        found = Watches()
        app.state.watches = found
    return found


def install(app: FastAPI) -> None:
    """Add the watch routes; runs still playing when the server stops are cancelled (left interrupted)."""
    app.include_router(router)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        async with inner(a) as state:
            try:
                yield state
            finally:
                await watches(app).stop_all()

    app.router.lifespan_context = lifespan


# -- event streams: how many at once ---------------------------------------------------------------------
@dataclass(frozen=True)
class StreamLimits:
    """How many event streams (``GET /watch/{run}/events``) a server follows at once, and one client (a remote
    address: behind a proxy, every client is the proxy's).

    Raises:
        ValueError: a limit that is not a whole number from 1 to :data:`MAX_STREAMS_BOUND`, naming its flag.
    """

    server: int = DEFAULT_MAX_STREAMS
    client: int = DEFAULT_MAX_CLIENT_STREAMS

    def __post_init__(self) -> None:
        for flag, value in (("--max-streams", self.server), ("--max-client-streams", self.client)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{flag} must be a whole number, got {value!r}")
            if not 1 <= value <= MAX_STREAMS_BOUND:
                raise ValueError(f"{flag} must be from 1 to {MAX_STREAMS_BOUND:,}, got {value:,}")


_default_limits = StreamLimits()


def use_stream_limits(limits: StreamLimits) -> None:
    """The limits of every app of this process that was given none (``wason serve`` sets its flags' here)."""
    global _default_limits
    _default_limits = limits


def limit_streams(app: Any, limits: StreamLimits) -> None:
    """``app``'s own limits (an app made in code)."""
    app.state.stream_limits = limits


def stream_limits(app: Any) -> StreamLimits:
    """The limits ``app`` applies: its own, else the process's."""
    found = getattr(app.state, "stream_limits", None)
    return found if isinstance(found, StreamLimits) else _default_limits


@dataclass
class Streams:
    """The event streams an app follows now, by client."""

    by_client: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.by_client.values())

    def take(self, client: str, limits: StreamLimits) -> Callable[[], None]:
        """A place for one more stream of ``client``, and how to give it back (once; more calls do nothing).

        Raises:
            StreamRefused: the client, or the server, follows as many as it may.
        """
        mine = self.by_client.get(client, 0)
        if mine >= limits.client:
            raise StreamRefused(
                429,
                f"this client ({client}) already follows {mine} event streams, the most one client may; close one "
                "(a /watch page in another tab) and try again",
            )
        if self.total >= limits.server:
            raise StreamRefused(
                503,
                f"this server already follows {self.total} event streams, the most it may; try again in a few "
                "seconds (the page itself shows the run as stored: reload it)",
            )
        self.by_client[client] = mine + 1
        given = [False]

        def give_back() -> None:
            if given[0]:
                return
            given[0] = True
            left = self.by_client.get(client, 0) - 1
            if left > 0:
                self.by_client[client] = left
            else:
                self.by_client.pop(client, None)

        return give_back


class StreamRefused(RuntimeError):
    """One more event stream than a client, or the server, may follow: ``status`` is 429 or 503."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def streams(app: Any) -> Streams:
    found = getattr(app.state, "event_streams", None)
    if not isinstance(found, Streams):
        found = app.state.event_streams = Streams()
    return found


class _Counted:
    """An event stream holding its place until it ends, however it ends: finished, the client gone (cancelled), or
    never begun (the response dropped unsent, when this object is collected)."""

    def __init__(self, stream: AsyncIterator[str], give_back: Callable[[], None]) -> None:
        self._stream = stream
        self._give_back = give_back
        weakref.finalize(self, give_back)

    def __aiter__(self) -> _Counted:
        return self

    async def __anext__(self) -> str:
        try:
            return await self._stream.__anext__()
        except BaseException:
            self._give_back()
            raise


_poll_threads: ThreadPoolExecutor | None = None


def _pollers() -> ThreadPoolExecutor:
    global _poll_threads
    if _poll_threads is None:
        _poll_threads = ThreadPoolExecutor(max_workers=POLL_THREADS, thread_name_prefix="wason-events")
    return _poll_threads


# -- the form ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Option:
    """One configuration field as the form shows it."""

    name: str
    kind: str  # "bool", "choice", "list", "int", "float", "text", "model" (one of the allowed models)
    default: str
    choices: tuple[str, ...] = ()
    help: str = ""
    checked: bool = False


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def options(family: Family[Any]) -> list[Option]:
    """The family's own configuration fields (as the sessions API takes them: none naming a file); a field
    naming a model is a choice among the allowed models, and the address of one is not asked (the server's
    list has it)."""
    config_type = family.config_type
    models = model_fields(config_type)
    addresses = endpoint_fields(config_type)
    out = []
    for name in own_fields(config_type):
        if name in addresses:
            continue
        info = config_type.model_fields[name]
        kind, _ = _unwrap(info.annotation)
        default = info.get_default(call_default_factory=True)
        shown = (
            ""
            if default is None
            else ",".join(map(str, default))
            if isinstance(default, list)
            else str(default)
        )
        help_text = (info.description or "").replace("%%", "%")  # argparse help writes a percent sign twice
        origin = typing.get_origin(kind)
        if name in models:
            out.append(Option(name, "model", shown, help=help_text))
        elif kind is bool:
            out.append(Option(name, "bool", "", help=help_text, checked=bool(default)))
        elif origin is typing.Literal:
            out.append(Option(name, "choice", shown, tuple(map(str, typing.get_args(kind))), help_text))
        elif origin is list:
            out.append(Option(name, "list", shown, help=help_text or "comma-separated"))
        elif kind in (int, float):
            out.append(Option(name, kind.__name__, shown, help=help_text))
        else:
            out.append(Option(name, "text", shown, help=help_text))
    return out


class FormError(ValueError):
    """A bad field of the form, one line for the page."""


def _config_fields(family: Family[Any], form: Mapping[str, str]) -> dict[str, Any]:
    """The family's fields the form gave (an empty box is the default). A model's address is not in the form,
    but one sent anyway is read, so that the allow-list refuses it rather than it being ignored."""
    fields: dict[str, Any] = {}
    annotations = family.config_type.model_fields
    for name in endpoint_fields(family.config_type):
        text = form.get(f"cfg.{name}", "").strip()
        if text and name in own_fields(family.config_type):
            fields[name] = text
    for opt in options(family):
        key = f"cfg.{opt.name}"
        if opt.kind == "bool":
            fields[opt.name] = key in form
            continue
        text = form.get(key, "").strip()
        if not text:
            continue
        if opt.kind == "list":
            kind, _ = _unwrap(annotations[opt.name].annotation)
            # an element type with bounds (Annotated[int, Field(...)]) is its type
            args = [
                typing.get_args(a)[0] if typing.get_origin(a) is typing.Annotated else a
                for a in typing.get_args(kind)
                if a is not Ellipsis
            ]
            # numbers are read here (one message for a bad one); the rest (a Literal's words...) by the config
            inner = args[0] if len(args) == 1 and args[0] in (int, float) else str
            try:
                fields[opt.name] = [inner(t.strip()) for t in text.split(",") if t.strip()]
            except ValueError:
                raise FormError(f"{opt.name}: expected a comma-separated list, got {text[:60]!r}") from None
        elif opt.kind in ("int", "float"):
            try:
                fields[opt.name] = int(text) if opt.kind == "int" else float(text)
            except ValueError:
                raise FormError(f"{opt.name}: expected a number, got {text[:60]!r}") from None
        else:
            fields[opt.name] = text
    return fields


def _number(form: Mapping[str, str], key: str, kind: Callable[[str], Any], what: str) -> Any:
    text = form.get(key, "").strip()
    if not text:
        return None
    try:
        return kind(text)
    except ValueError:
        raise FormError(f"{what}: expected a number, got {text[:60]!r}") from None


@dataclass
class Plan:
    """What ``POST /watch`` will play: the configuration, the one item, the pause between moves, and the
    allow-list that gives each model's key."""

    family: Family[Any]
    config: RunSettings
    item: Item
    pace: float
    models: AllowedModels
    # wraps each episode's player (the published llm-gameplay route narrates and bounds its moves)
    wrap: Callable[[Player[Any, Any], dict[str, Any]], Player[Any, Any]] | None = None


def _plan(family: Family[Any], form: Mapping[str, str], store: Store, models: AllowedModels) -> Plan:
    try:
        fields = models.check(family.config_type, _config_fields(family, form), prefix="cfg.")
    except Refused as exc:
        raise FormError(_one_line(str(exc))) from None
    player = form.get("player", "solver")
    run: dict[str, Any] = {"player": "llm"}
    if player == "solver":
        if "solver" not in family.players:
            raise FormError(f"{family.title} has no solver; choose a model")
        run = {"player": "solver"}
    elif player == "local":
        run["model"] = EMBEDDED
    elif player == "model":
        spec = form.get("model", "").strip()
        if not spec:
            raise FormError("model: choose one of the models this server allows")
        base_url = form.get("base_url", "").strip() or None
        try:
            run.update(models.check(RunSettings, {"model": spec[:200], "base_url": base_url}))
        except ModelNotAllowed as exc:
            raise FormError(_one_line(str(exc))) from None
    else:
        raise FormError(f"player: one of solver, local, model; got {player[:40]!r}")
    if run["player"] == "llm":
        temperature = _number(form, "temperature", float, "temperature")
        max_tokens = _number(form, "max_tokens", int, "max_tokens")
        if max_tokens is None and player == "local":
            max_tokens = LOCAL_MAX_TOKENS
        run["params"] = GenerationParams(temperature=temperature, max_tokens=max_tokens)
        retries = _number(form, "retries", int, "retries")
        if retries is not None:
            run["retries"] = retries
        timeout = _number(form, "timeout", float, "timeout")
        if timeout is not None:
            run["timeout"] = timeout
    pace = _number(form, "pace", float, "pace") or 0.0
    if not 0.0 <= pace <= MAX_PACE:
        raise FormError(f"pace: from 0 to {MAX_PACE:g} seconds")
    try:
        config = family.config_type(**fields, **run)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "config"
        raise FormError(f"{where}: {first['msg']}") from None
    index = _number(form, "index", int, "index")
    seed = _number(form, "seed", int, "seed")
    if index is not None and seed is not None:
        raise FormError("give the game's index or a seed, not both")
    if index is None and seed is None:
        # drawn at random, as /api/sessions and /play draw theirs: always the first item, an ongoing watched game's
        # rule was that of any earlier finished run of the same form. The seed is not kept: the item is stored
        seed = _fresh_seed()
    try:
        # completed from the store as `wason eval` does (evidence taken from another run); the game's item drawn
        # alone where the family can (one generated world of a thousand, not all of them)
        config = family.prepare(config, store)
        item = session.pick_item(family, config, index=index, seed=seed)
    except (ValueError, StoreError) as exc:
        raise FormError(_one_line(str(exc))) from None
    return Plan(family, config, item, pace, models)


# -- playing ------------------------------------------------------------------------------------------------
class Paced:
    """A player that waits ``pace`` seconds before each move, so a fast player can be followed."""

    def __init__(self, inner: Player[Any, Any], pace: float) -> None:
        self.inner, self.pace = inner, pace

    async def act(self, observation: Any) -> Move[Any]:
        await asyncio.sleep(self.pace)
        return await self.inner.act(observation)


def _one_line(text: str) -> str:
    return " ".join(text.split())[:500]


def _fresh_seed() -> int:
    """A seed nobody can know: the server's own random source, not the seeded generators of the games."""
    return random.SystemRandom().randrange(2**63)


def _first_line(error: str | None) -> str | None:
    if error is None:
        return None
    return _one_line(redact(error.split("Traceback (most recent call last)")[0]))


async def _play(store: Store, run_id: int, plan: Plan, clients: Clients, watched: Watched) -> None:
    """Play the run as ``wason eval`` does; a failure before the episodes could record it marks them errored."""

    def wrap(player: Player[Any, Any], item: dict[str, Any]) -> Player[Any, Any]:
        if plan.wrap is not None:
            player = plan.wrap(player, item)
        return Paced(player, plan.pace) if plan.pace > 0 else player

    try:
        await play_run(
            store,
            plan.config,
            run_id=run_id,
            clients=clients,
            wrap=wrap if plan.pace > 0 or plan.wrap is not None else None,
        )
    except asyncio.CancelledError:
        if store.get_run(run_id).status == "pending":  # stopped before it began
            store.set_run_status(run_id, "interrupted")
        raise
    except Exception as exc:
        reason = _one_line(redact(f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)))
        log.warning("watched run %s failed: %s", run_id, reason, exc_info=exc)
        watched.error = reason
        for e in store.list_episodes(run_id):
            if not is_over(e.status):
                store.finish_episode(e.id, status="errored", error=reason)
        store.set_run_status(run_id, "incomplete")


def start_run(app: Any, store: Store, plan: Plan) -> int:
    """Create the run and its task (the clients first: a bad model spec is a form error, not a run)."""
    try:
        clients = Clients.open(plan.config, store, key_for=plan.models.key_for)
    except (ModelConfigError, ValueError) as exc:
        raise FormError(_one_line(redact(str(exc)))) from None
    run_id = create_run(store, plan.config, [plan.item], baseline=False)
    watched = Watched(run_id)
    watches(app).runs[run_id] = watched
    watched.start(lambda: _play(store, run_id, plan, clients, watched))
    return run_id


# -- what is sent -------------------------------------------------------------------------------------------
def _episode_view(family: Family[Any] | None, episode: EpisodeRow, n_turns: int) -> dict[str, Any]:
    done = is_over(episode.status)
    return {
        "episode": episode.id,
        "index": episode.index,
        "status": episode.status,
        "done": done,
        "item": public_episode(episode, family).item,
        "success": episode.success if done else None,
        "metrics": episode.metrics if done else None,
        "error": _first_line(episode.error) if episode.status == "errored" else None,
        "turns": n_turns,
    }


def _turn_view(family: Family[Any] | None, turn: Mapping[str, Any]) -> dict[str, Any]:
    """A stored turn as the page shows it (never its oracle work: a judge's messages may name the rule); the
    move in words as the Play page words it, and as stored."""
    return {
        "episode": turn["episode_id"],
        "index": turn["index"],
        "move": action_words(family, turn["action"]),
        "action": turn["action"],
        "observation": turn["observation"],
        "feedback": turn["feedback"],
        "reply": turn["reply"],
    }


def _family(name: str) -> Family[Any] | None:
    try:
        return registry.get(name)
    except (registry.UnknownFamily, registry.FamilyLoadError):
        return None


def _own(watched: Watched | None) -> bool:
    """Whether this server plays the run now (only then can it stop it)."""
    return watched is not None and watched.active


def _run_view(run: RunRow, watched: Watched | None, live: bool) -> dict[str, Any]:
    return {
        "run": run.id,
        "status": run.status,
        "live": live,
        "own": _own(watched),
        "error": watched.error if watched is not None else None,
        "stopped": watched.stopped if watched is not None else False,
    }


def _live(run: RunRow, watched: Watched | None) -> bool:
    """Whether the run may still change: played here, or leased by another live process."""
    if watched is not None and watched.thread is not None:
        return watched.active
    return run.status in ("pending", "running") and run.owner is not None


def _snapshot(store: Store, run_id: int) -> tuple[RunRow, list[EpisodeRow], dict[int, list[dict[str, Any]]]]:
    run = store.get_run(run_id)
    episodes = store.list_episodes(run_id)
    turns = {e.id: store.list_turns(e.id) for e in episodes if e.status != "pending"}
    return run, episodes, turns


def _sse(event: str, data: Any, event_id: int) -> str:
    text = json.dumps(data, default=str, separators=(",", ":"))
    return f"id: {event_id}\nevent: {event}\ndata: {text}\n\n"


@dataclass
class _Followed:
    """What one event stream has sent of its run (read and updated by one poll at a time, in a thread)."""

    run_id: int
    turns: dict[int, int] = field(default_factory=dict)
    episodes: dict[int, str] = field(default_factory=dict)
    run: str = ""
    n: int = 0


def _poll(store: Store, followed: _Followed, watched: Watched | None) -> tuple[str, bool]:
    """The events since the last poll (in a thread: it reads the store and compares what it read), and whether
    the run may still change; once it cannot, the events end with ``end``."""
    run_id = followed.run_id
    live = _live(store.get_run(run_id), watched)  # before the snapshot: nothing written after is missed
    run, episodes, turns = _snapshot(store, run_id)
    family = _family(run.task)
    out: list[str] = []
    for e in episodes:
        stored = turns.get(e.id, [])
        if len(stored) < followed.turns.get(e.id, 0):  # replayed from its start (a resumed episode)
            followed.turns[e.id] = 0
            followed.episodes.pop(e.id, None)
        # the episode first (a page makes its section from it), then its new turns
        view = _episode_view(family, e, len(stored))
        key = json.dumps(view, sort_keys=True, default=str)
        if followed.episodes.get(e.id) != key:
            followed.episodes[e.id] = key
            followed.n += 1
            out.append(_sse("episode", view, followed.n))
        for t in stored[followed.turns.get(e.id, 0) :]:
            followed.n += 1
            out.append(_sse("turn", _turn_view(family, t), followed.n))
        followed.turns[e.id] = len(stored)
    run_view = _run_view(run, watched, live)
    run_key = json.dumps(run_view, sort_keys=True)
    if run_key != followed.run:
        followed.run = run_key
        followed.n += 1
        out.append(_sse("run", run_view, followed.n))
    if not live:
        followed.n += 1
        out.append(_sse("end", {"run": run_id, "status": run.status}, followed.n))
    return "".join(out), live


async def _events(request: Request, store: Store, run_id: int) -> AsyncIterator[str]:
    """Everything so far, then what changes, until the run ends (its last state, then ``end``). The store is read
    in a thread of the streams' own (:data:`POLL_THREADS`), never on the loop."""
    registry_ = watches(request.app)
    followed = _Followed(run_id)
    loop = asyncio.get_running_loop()
    quiet = 0.0
    yield "retry: 2000\n\n"
    while True:
        watched = registry_.runs.get(run_id)
        began = loop.time()
        text, live = await loop.run_in_executor(_pollers(), _poll, store, followed, watched)
        took = loop.time() - began
        if text:
            quiet = 0.0
            yield text
        if not live:
            return
        if await request.is_disconnected():
            return
        pause = max(POLL_SECONDS, POLL_SHARE * took)
        await asyncio.sleep(pause)
        quiet += pause
        if quiet >= KEEPALIVE_SECONDS:
            quiet = 0.0
            yield ": still playing\n\n"


# -- routes -------------------------------------------------------------------------------------------------
router = APIRouter()


def _store(request: Request) -> Store:
    store: Store = request.app.state.games.store
    return store


def _families() -> list[Family[Any]]:
    return list(registry.families())


def _form_page(
    request: Request,
    family: Family[Any] | None,
    values: Mapping[str, str],
    error: str | None = None,
    status_code: int = 200,
) -> Response:
    return render(
        request,
        "watch/form.html",
        status_code=status_code,
        families=_families(),
        family=family,
        options=options(family) if family is not None else [],
        values=dict(values),
        error=error,
        token_needed=auth.server_token(request.app) is not None,
        max_pace=MAX_PACE,
        models=[m for m in allowed_models(request.app).specs() if m != EMBEDDED],
        all_models=allowed_models(request.app).specs(),
    )


def _from_a_page(request: Request) -> bool:
    """A request a browser sends from a page (it reads HTML, or posts a page's form): it is answered with a
    page; a script gets JSON."""
    form = request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/form-data")
    )
    return form or "text/html" in request.headers.get("accept", "")


def _message(request: Request, status: int, message: str, back: str | None = None) -> Response:
    if _from_a_page(request):
        return render(request, "watch/message.html", status_code=status, message=message, back=back)
    return JSONResponse(status_code=status, content={"error": message, "field": None, "kind": "invalid"})


@router.get("/watch")
async def watch_form(request: Request, family: str | None = None) -> Response:
    """The form: a family (``?family=NAME``), then its options, the player and the game."""
    chosen = None
    if family:
        chosen = _family(family[:100])
        if chosen is None:
            return _form_page(request, None, {}, f"no family {family[:100]!r}", 404)
    return _form_page(request, chosen, {"family": chosen.name if chosen else ""})


@router.post("/watch")
async def watch_start(request: Request) -> Response:
    """Start the run and go to its page (303); a bad field shows the form again with one message (422)."""
    try:
        form = await auth.read_form(request)
    except auth.FormTooLarge as exc:
        return _message(request, 413, str(exc))
    family = _family(form.get("family", "")[:100])
    if family is None:
        return _form_page(request, None, form, f"choose a family (got {form.get('family', '')[:100]!r})", 422)
    if len(watches(request.app).active()) >= MAX_WATCHED:
        return _form_page(
            request, family, form, f"this server already plays {MAX_WATCHED} runs; stop one or wait", 429
        )
    store = _store(request)
    try:
        plan = await asyncio.to_thread(_plan, family, form, store, allowed_models(request.app))
        run_id = start_run(request.app, store, plan)
    except FormError as exc:
        return _form_page(request, family, form, str(exc), 422)
    return RedirectResponse(f"/watch/{run_id}", status_code=303)


def _run_id(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def _stored_run_id(text: str) -> int:
    """The run id a page's path names; StoreError (a 404) when it is not a number."""
    if (rid := _run_id(text)) is None:
        raise StoreError(f"no run {text[:40]!r}: a run id is a number")
    return rid


@router.get("/watch/{run_id}")
async def watch_page(request: Request, run_id: str) -> Response:
    """The run as it is now; its script follows the events."""
    store = _store(request)
    try:
        rid = _stored_run_id(run_id)
        run, episodes, turns = await asyncio.to_thread(_snapshot, store, rid)
    except StoreError as exc:
        return _message(request, 404, _one_line(str(exc)))
    watched = watches(request.app).runs.get(rid)
    family = _family(run.task)
    views = [
        {
            "episode": _episode_view(family, e, len(turns.get(e.id, []))),
            "turns": [_turn_view(family, t) for t in turns.get(e.id, [])],
        }
        for e in episodes
    ]
    return render(
        request,
        "watch/run.html",
        run=run,
        title=family.title if family is not None else run.task,
        state=_run_view(run, watched, _live(run, watched)),
        episodes=views,
        token_needed=auth.server_token(request.app) is not None,
    )


@router.get("/watch/{run_id}/events")
async def watch_events(request: Request, run_id: str) -> Response:
    """Server-sent events: ``turn``, ``episode`` and ``run`` as they change, then ``end``."""
    store = _store(request)
    try:
        rid = _stored_run_id(run_id)
        await _read_store(store.get_run, rid)
    except StoreError as exc:
        return JSONResponse(status_code=404, content={"error": _one_line(str(exc)), "kind": "not_found"})
    client = request.client.host if request.client is not None else "unknown"
    try:
        give_back = streams(request.app).take(client, stream_limits(request.app))
    except StreamRefused as exc:
        return JSONResponse(
            status_code=exc.status,
            content={"error": str(exc), "field": None, "kind": "busy"},
            headers={"Retry-After": "5"},
        )
    return StreamingResponse(
        _Counted(_events(request, store, rid), give_back),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _read_store(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a thread of the event streams (a read of the store)."""
    return await asyncio.get_running_loop().run_in_executor(_pollers(), fn, *args)


@router.post("/watch/{run_id}/stop")
async def watch_stop(request: Request, run_id: str) -> Response:
    """Cancel the run's task (it is left interrupted, resumable with ``wason eval --resume``)."""
    rid = _run_id(run_id)
    watched = watches(request.app).runs.get(rid) if rid is not None else None
    if watched is None or not watched.active:
        message = (
            f"run {run_id[:40]} is not being played by this server: a run that `wason eval` plays is stopped "
            "where it plays (Ctrl-C), and a run that is over needs no stopping"
        )
        return _message(request, 409, message, f"/watch/{rid}" if rid is not None else None)
    watched.cancel()
    await watched.wait(10)
    if _from_a_page(request):
        return RedirectResponse(f"/watch/{rid}", status_code=303)
    return JSONResponse({"run": rid, "status": _store(request).get_run(watched.run_id).status})


__all__ = [
    "DEFAULT_MAX_CLIENT_STREAMS",
    "DEFAULT_MAX_STREAMS",
    "MAX_STREAMS_BOUND",
    "MAX_WATCHED",
    "FormError",
    "Option",
    "Paced",
    "Plan",
    "StreamLimits",
    "StreamRefused",
    "Streams",
    "Watched",
    "Watches",
    "install",
    "limit_streams",
    "options",
    "router",
    "start_run",
    "stream_limits",
    "streams",
    "use_stream_limits",
    "watches",
]
