"""The family contract as a function: :func:`check_family` plays a small run of one family and checks what the
engine, sessions, reports, the command line and the server rely on.

Each check is independent where it can be: a failure is recorded with its message and the next check runs, so
one call lists everything that is wrong. Checks that need a played run are skipped (and say so) when the run
could not be played.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from wason.core import registry, session
from wason.core.family import REPORT_HOOKS, Family, Item, RunSettings, endpoint_fields, model_fields
from wason.core.game import PLAYER_METRICS
from wason.core.leaks import MIN_NUMBER, find_leaks, hidden_texts, leaves, readable
from wason.core.public import public_config
from wason.core.records import RunReport
from wason.core.results import Results, Transcript
from wason.core.session import to_json
from wason.players.llm import Conversation
from wason.players.scripted import ScriptedPlayer

if TYPE_CHECKING:
    from wason.store import Store

WORKER_TIMEOUT = 300
"""Seconds the other process may take to draw the items and finish the sessions."""

# Run in a fresh interpreter: imports the family the way the registry does for a plugin (``module:attribute``),
# draws the configuration's items and finishes the sessions from where this process left them.
_WORKER = """
import asyncio, json, sys
from wason.core import registry, session
from wason.store import Store

job = json.loads(sys.argv[1])
if job["target"]:
    registry.register_from({job["family"]: job["target"]})
family = registry.get(job["family"])
items = family.items(family.config_type.model_validate(job["config"]))
store = Store(job["db"])
views = {}

async def play():
    for session_id, actions in job["steps"]:
        views[session_id] = [await session.step(store, session_id, action) for action in actions]

asyncio.run(play())
store.close()
print(json.dumps({"items": items, "views": views}, default=str))
"""


class FamilyCheckFailed(AssertionError):
    """One or more checks of :func:`check_family` failed.

    Attributes:
        family: the family's name.
        failures: ``(check, message)`` for every check that failed.
        report: what was checked, including the checks that passed.
    """

    def __init__(self, report: FamilyReport) -> None:
        self.family = report.family
        self.failures = list(report.failed)
        self.report = report
        lines = [f"{name}: {message}" for name, message in self.failures]
        super().__init__(
            f"task family {report.family!r} fails {len(lines)} of {len(report.checks)} contract checks:\n- "
            + "\n- ".join(lines)
        )


@dataclass
class FamilyReport:
    """What :func:`check_family` checked.

    Attributes:
        family: the family's name.
        player: who played the run (``solver`` or ``scripted``, from ``sample_actions``).
        items: the keys of the items played.
        passed: the checks that passed.
        failed: ``(check, message)`` for each check that failed.
        skipped: ``(check, reason)`` for each check that could not run.
    """

    family: str
    player: str = ""
    items: list[str] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    @property
    def checks(self) -> list[str]:
        """Every check, in the order run."""
        return [*self.passed, *(n for n, _ in self.failed), *(n for n, _ in self.skipped)]

    def __str__(self) -> str:
        lines = [
            f"{self.family}: {len(self.passed)} checks passed ({self.player}, items {', '.join(self.items)})"
        ]
        lines += [f"  ok    {name}" for name in self.passed]
        lines += [f"  FAIL  {name}: {message}" for name, message in self.failed]
        lines += [f"  skip  {name}: {reason}" for name, reason in self.skipped]
        return "\n".join(lines)


def _public_reader(store: Store) -> Any:
    """The store as the server hands it to a family's reports (``wason serve``'s own reader): an episode whose
    game is not over reduced to its item's public keys, a run with such a game to its public configuration."""
    from wason.server.web.browse import PublicReader

    return PublicReader(store)


class _Skip(Exception):
    """A check that cannot run (what it needs failed before it)."""


def check_family(
    family: Family[Any],
    *,
    config: RunSettings | Mapping[str, Any] | None = None,
    items: int = 2,
    target: str | None = None,
    command_line: bool = True,
) -> FamilyReport:
    """Check that ``family`` honours the contract the engine, sessions, reports and the server rely on.

    On a small run (``items`` items of ``config``, played by the family's solver, else by its
    ``sample_actions``), in a temporary SQLite store (never the user's):

    - the configuration round-trips through JSON, a wrong value names its field, its public fields are its own
      and none draws items, every model and address field is marked;
    - items are deterministic JSON with unique string keys, the same in another process;
    - the run plays through the engine in one go and completes; stored actions decode and encode to the same JSON;
    - each game, played as a session half here and finished in another process (which imports the family as the
      registry imports a plugin, by ``module:attribute``), stores the same turns and outcome as the run;
    - nothing a client reads of a session before its game ends (its views and summary, the play page's form and
      history, the run's reports drawn from its public part) names the hidden item: its key, the hidden values
      the game has not shown, a seed the public configuration hides;
    - the run report and every episode's transcript render;
    - the command line's flags are the configuration's own (``command_line=False`` skips it).

    Args:
        family: the family to check (registered for the duration of the call if it is not).
        config: its configuration, or fields of it (narrow it to keep the check fast); default: its defaults.
        items: how many of the configuration's items are played.
        target: ``"module:attribute"`` another process imports the family from; found by default from the
            module that defines the family's class, or the registry for a built-in or an installed plugin.
        command_line: check the command-line flags (they compare the family against every registered family).

    Returns:
        What was checked and passed.

    Raises:
        FamilyCheckFailed: one or more checks failed; its message lists each with the reason.
    """
    if items < 1:
        raise ValueError(f"items: at least 1, not {items}")
    with _registered(family), tempfile.TemporaryDirectory(prefix="wason-check-") as tmp:
        checker = _Checker(family, config, items, target, Path(tmp))
        try:
            checker.run(command_line=command_line)
        finally:
            checker.close()
    if checker.report.failed:
        raise FamilyCheckFailed(checker.report)
    return checker.report


@contextlib.contextmanager
def _registered(family: Family[Any]) -> Iterator[None]:
    """``family`` known to the registry by its name while the checks run (sessions find it there)."""
    name = family.name
    try:
        known: Family[Any] | None = registry.get(name)
    except ValueError:
        known = None
    if known is family:
        yield
        return
    registry.register(family, replace=True)
    try:
        yield
    finally:
        registry.unregister(name)
        if known is not None:
            registry.register(known, replace=True)


def _as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _kept(turns: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What a turn says about the game (not who wrote it or when)."""
    return [(t["index"], t["action"], t["observation"], t["feedback"]) for t in turns]


def _render(renderable: Any, width: int = 160) -> str:
    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=width).print(renderable)
    return out.getvalue()


def _flags(config_type: type[RunSettings], *, play: bool = False) -> set[str]:
    """The flags the command line derives from a configuration's own fields."""
    from wason.cli import family_fields

    out = set()
    for name, info in family_fields(config_type, play=play).items():
        flag = config_type.play_flag(name) if play else "--" + config_type.flag_names.get(name, name)
        flag = flag.replace("_", "-")
        out.add(f"--no-{flag[2:]}" if info.default is True else flag)
    return out


def _shown_flag(text: str, flag: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text) is not None


def _where(exc: BaseException) -> str:
    """A bare ``assert``'s place, for a failure with no message."""
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    return f"{last.filename}:{last.lineno}: {last.line}" if last else type(exc).__name__


class _Checker:
    """The state of one :func:`check_family` call: the family, its configuration, the run and the sessions."""

    def __init__(
        self,
        family: Family[Any],
        config: RunSettings | Mapping[str, Any] | None,
        n_items: int,
        target: str | None,
        tmp: Path,
    ) -> None:
        self.family = family
        self.given = config
        self.n_items = n_items
        self.target = target
        self.db = f"sqlite:///{tmp / 'contract.db'}"
        self.report = FamilyReport(family.name)
        self.store: Store | None = None
        self.config: RunSettings | None = None
        self.items: list[Item] = []
        self.played: list[Item] = []
        self.scripted = False
        self.run_id: int | None = None
        self.sessions: list[tuple[int, Any]] = []  # (session id, the run's episode it replays)
        self.views: dict[int, list[dict[str, Any]]] = {}  # what a client read of each session, in order
        self.rest: list[tuple[int, list[dict[str, Any]]]] = []  # what the other process plays of each session
        self.first_forms: dict[int, str] = {}  # the web form of each session at its start
        self.opening: dict[int, list[str]] = {}  # what a model reads of each session first: its instructions
        self.mid_game: dict[int, list[str]] = {}  # what the family's own code shows of each session half-way
        self.unreadable: list[str] = []
        self.worker: dict[str, Any] | None = None

    # -- running the checks --------------------------------------------------------------------------------
    def run(self, *, command_line: bool) -> None:
        checks: list[tuple[str, Callable[[], None]]] = [
            ("config: builds, plays without a model", self.setup),
            ("config: round-trips through JSON", self.config_round_trips),
            ("config: a wrong value names its field", self.config_errors_name_the_field),
            ("config: public fields and model references", self.config_declares_public_and_models),
            ("items: deterministic JSON with unique keys", self.items_are_deterministic_json),
            ("run: played in one go, completes", self.play_in_one_go),
            ("actions: decode and encode to the same JSON", self.actions_round_trip),
            ("sessions: started and played half-way here", self.sessions_half_here),
            ("sessions: finished in another process equal the run", self.sessions_across_processes),
            ("items: the same in another process", self.items_in_another_process),
            ("leaks: nothing read before the end names the hidden item", self.no_leaks),
            ("report: the run report and transcripts render", self.reports_render),
            ("rewards: the reward audit passes (wason audit)", self.reward_audit),
        ]
        if command_line:
            checks.append(("command line: flags derived from the config", self.command_line))
        for name, check in checks:
            try:
                check()
            except _Skip as skip:
                self.report.skipped.append((name, str(skip)))
            except AssertionError as exc:
                self.report.failed.append((name, " ".join(str(exc).split())[:2000] or _where(exc)))
            except Exception as exc:  # the family's own bug: say what it raised, in one line
                message = " ".join(str(exc).split())[:2000]
                self.report.failed.append((name, f"{type(exc).__name__}: {message} ({_where(exc)})"))
            else:
                self.report.passed.append(name)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()

    def need(self, *what: str) -> None:
        for name in what:
            if name == "config" and self.config is None:
                raise _Skip("the configuration could not be built")
            if name == "run" and self.run_id is None:
                raise _Skip("the run could not be played")
            if name == "sessions" and self.worker is None:
                raise _Skip("the sessions could not be played in another process")

    # -- a. the configuration ----------------------------------------------------------------------------------
    def setup(self) -> None:
        family, kind = self.family, self.family.config_type
        given = self.given
        fields = given.model_dump(mode="json") if isinstance(given, RunSettings) else dict(given or {})
        fields["model"] = None
        config = kind.model_validate({**fields, "player": "solver"})
        self.items = family.items(config)
        self.played = self.items[: self.n_items]
        assert self.played, f"the configuration gives no items: {fields}"
        if family.solver(config, self.played[0][1]) is None:
            config = kind.model_validate({**fields, "player": "scripted"})
            self.scripted = True
            missing = [key for key, item in self.played if family.sample_actions(config, item) is None]
            assert not missing, (
                f"neither a solver nor sample_actions for {missing}: the contract cannot play it "
                "(implement Family.solver or Family.sample_actions)"
            )
        assert family.oracle(config) is None, (
            f"the configuration needs an oracle model ({family.oracle(config)}): give one judged by code"
        )
        self.config = config
        self.report.player = "scripted" if self.scripted else "solver"
        self.report.items = [key for key, _ in self.played]

    def config_round_trips(self) -> None:
        self.need("config")
        config, kind = self.config, self.family.config_type
        assert config is not None
        dumped = config.model_dump(mode="json")
        assert kind.model_validate(dumped) == config, "model_validate(model_dump(mode='json')) differs"
        assert kind.model_validate(json.loads(json.dumps(dumped))) == config, "a JSON round trip differs"
        assert kind.model_validate_json(config.model_dump_json()) == config, "model_validate_json differs"

    def config_errors_name_the_field(self) -> None:
        self.need("config")
        assert self.config is not None
        from wason.cli import family_fields

        kind = self.family.config_type
        base = self.config.model_dump(mode="json")
        unnamed = []
        for name in [*family_fields(kind), "player", "timeout"]:
            try:
                kind.model_validate({**base, name: {"not": "a value"}})
            except ValidationError as error:
                if (name,) not in [tuple(e["loc"][:1]) for e in error.errors()]:
                    unnamed.append(f"{name} (the error names {[e['loc'] for e in error.errors()]})")
            except ValueError as error:
                unnamed.append(f"{name} (a {type(error).__name__}, not a validation error naming it)")
            else:
                unnamed.append(f"{name} (accepted {{'not': 'a value'}})")
        assert not unnamed, "a wrong value is not refused naming its field: " + "; ".join(unnamed)

    def config_declares_public_and_models(self) -> None:
        kind = self.family.config_type
        public, fields = kind.public_fields, set(kind.model_fields)
        assert public <= fields, (
            f"public_fields names fields the configuration lacks: {sorted(public - fields)}"
        )
        drawing = kind.item_fields
        # a family that shows no field hides every one, whichever choose its items; one that shows some says which
        assert drawing is not None or not public, (
            f"{kind.__name__} shows fields (public_fields) but does not say which fields choose its items: "
            "declare item_fields (a ClassVar[frozenset[str] | None]; frozenset() where no field does)"
        )
        drawing = drawing or frozenset()
        assert drawing <= fields, (
            f"item_fields names fields the configuration lacks: {sorted(drawing - fields)}"
        )
        shown = drawing & public
        assert not shown, f"public_fields shows what chooses the items (its item_fields): {sorted(shown)}"
        for name, info in kind.model_fields.items():
            if "str" in str(info.annotation) and (name == "model" or name.endswith("_model")):
                assert name in model_fields(kind), (
                    f"{name} names a model: mark it ModelRef(its address field)"
                )
            if name.endswith("base_url"):
                assert name in endpoint_fields(kind), (
                    f"{name} is an address: mark it EndpointRef(its model field)"
                )
        for name, address in model_fields(kind).items():
            assert address is None or endpoint_fields(kind).get(address) == name, (
                f"{name}: ModelRef({address!r}) but {address!r} is not EndpointRef({name!r})"
            )

    # -- b. items -----------------------------------------------------------------------------------------------
    def items_are_deterministic_json(self) -> None:
        self.need("config")
        assert self.config is not None
        kind = self.family.config_type
        again = self.family.items(kind.model_validate(self.config.model_dump(mode="json")))
        assert again == self.items, "the same configuration gives other items the second time"
        keys = [key for key, _ in self.items]
        assert all(isinstance(k, str) for k in keys), "an item key is not a string"
        doubled = sorted({k for k in keys if keys.count(k) > 1})
        assert not doubled, f"item keys repeat: {doubled[:5]}"
        for key, item in self.items:
            # an item comes back from the store as JSON: tuples or other types would change the game on resume
            assert _as_json(item) == item, f"item {key} is not plain JSON (a tuple, a set, a number key...)"

    def items_in_another_process(self) -> None:
        self.need("config", "sessions")
        assert self.worker is not None
        assert self.worker["items"] == _as_json(self.items), "another process draws other items"

    # -- c. a run in one go -----------------------------------------------------------------------------------
    def play_in_one_go(self) -> None:
        from wason.engine import create_run, execute_run, solver_player_factory
        from wason.store import Store

        self.need("config")
        family, config = self.family, self.config
        assert config is not None

        def scripted(item: dict[str, Any], episode_id: int, index: int) -> Any:
            return ScriptedPlayer(family.sample_actions(config, item) or [])

        self.store = store = Store(self.db)
        factory = scripted if self.scripted else solver_player_factory(config)
        run_id = create_run(store, config, self.played)
        asyncio.run(execute_run(store, run_id, factory, concurrency=1))
        episodes = store.list_episodes(run_id)
        assert [e.item_key for e in episodes] == [k for k, _ in self.played], (
            "the run's episodes are not its items"
        )
        bad = [
            (e.item_key, e.status, e.error) for e in episodes if (e.status, e.error) != ("completed", None)
        ]
        assert not bad, f"episodes did not complete: {bad}"
        assert store.get_run(run_id).status == "completed", f"the run is {store.get_run(run_id).status}"
        for e in episodes:
            assert isinstance(e.success, bool), f"{e.item_key}: success is {e.success!r}, not a bool"
            assert e.metrics is not None, f"{e.item_key}: no metrics"
            turns = store.list_turns(e.id)
            assert turns, f"{e.item_key}: no turns stored"
            if self.scripted:  # a sample script ends the game exactly: no move left over, none missing
                script = family.sample_actions(config, e.item) or []
                assert len(turns) == len(script), (
                    f"{e.item_key}: sample_actions has {len(script)} moves, the game took {len(turns)}"
                )
        self.run_id = run_id

    def actions_round_trip(self) -> None:
        self.need("run")
        assert self.store is not None and self.run_id is not None
        codec = self.family.actions
        for e in self.store.list_episodes(self.run_id):
            for turn in self.store.list_turns(e.id):
                action = codec.decode(turn["action"])
                assert _as_json(to_json(action)) == turn["action"], (
                    f"{e.item_key} turn {turn['index']}: {turn['action']} decodes to {action!r}, stored otherwise"
                )
                assert _as_json(codec.encode(action)) == turn["action"], (
                    f"{e.item_key} turn {turn['index']}: {action!r} encodes to {codec.encode(action)}"
                )

    # -- d. sessions, across processes ----------------------------------------------------------------------------
    def _target(self) -> str | None:
        """Where another process imports the family from; None where the registry finds it by itself."""
        if self.target is not None:
            return self.target
        name, family = self.family.name, self.family
        with contextlib.suppress(Exception):
            registry.unregister(name)
            try:
                if registry.get(name) is family:  # a built-in or an installed plugin
                    return None
            finally:
                registry.register(family, replace=True)
        module = sys.modules.get(type(family).__module__)
        attr = next((a for a, v in vars(module).items() if v is family), None) if module else None
        assert module is not None and module.__name__ != "__main__" and attr is not None, (
            f"another process cannot import the family: {type(family).__qualname__} is defined in "
            f"{type(family).__module__} with no module attribute holding it; give target='module:attribute'"
        )
        return f"{module.__name__}:{attr}"

    def sessions_half_here(self) -> None:
        self.need("run")
        family, store, config = self.family, self.store, self.config
        assert store is not None and self.run_id is not None and config is not None
        for e in store.list_episodes(self.run_id):
            public = set(family.public(e.item))
            assert public <= set(e.item), (
                f"public() names keys the item lacks: {sorted(public - set(e.item))}"
            )
            assert public != set(e.item), (
                f"{e.item_key}: public() shows every key, so the player sees the rule"
            )
            shown = {k: e.item[k] for k in public}
            actions = [t["action"] for t in store.list_turns(e.id)]
            sid = session.start(store, family.name, config, item=(e.item_key, e.item))
            views = self.views[sid] = [asyncio.run(session.view(store, sid))]
            views.append(asyncio.run(session.summary(store, sid)))  # what the API's summary says of a game on
            self.first_forms[sid] = self._read_now(sid)[0]
            self.opening[sid] = self._opening(sid)
            assert not views[0]["done"] and views[0]["item"] == shown, (
                f"{e.item_key}: a new session shows {sorted(views[0]['item'])}, not the public keys {sorted(shown)}"
            )
            half = len(actions) // 2
            for action in actions[:half]:  # in this process, as action objects
                views.append(asyncio.run(session.step(store, sid, family.actions.decode(action))))
            assert not views[-1]["done"] and views[-1]["item"] == shown, (
                f"{e.item_key}: after {half} of {len(actions)} moves the session shows {sorted(views[-1]['item'])}"
                f" (done: {views[-1]['done']})"
            )
            self.rest.append((sid, actions[half:]))
            self.sessions.append((sid, e))
        for sid, _ in self.sessions:  # every game on: what a client reads of them now
            self.mid_game[sid] = self._read_now(sid)[1]

    def _opening(self, session_id: int) -> list[str]:
        """What a model (or a trainer's text environment) reads of a session before its first move: the
        protocol's instructions and its first message, as :class:`~wason.players.llm.Conversation` writes them."""
        assert self.store is not None
        _, config, episode, live = asyncio.run(session.load(self.store, session_id))
        protocol = self.family.protocol(config, episode.item)
        return [m.content for m in Conversation(protocol).prompt(live.observation)]

    def _read_now(self, session_id: int) -> tuple[str, list[str]]:
        """What a client reads of a session now through the family's own code: the play page's form (at the
        start it is the game's instructions, which count as shown), its history, and the run's reports as the
        server draws them while a game is on (from the public part of its episodes and configuration)."""
        family, store = self.family, self.store
        assert store is not None
        texts: list[str] = []
        _, config, episode, live = asyncio.run(session.load(store, session_id))
        turns = store.list_turns(session_id)
        public, run_id = _public_reader(store), episode.run_id
        readers: list[tuple[str, Callable[[], list[str]]]] = [
            ("web_form", lambda: [family.web_form(config, episode.item, live.observation, live.turn).prompt]),
            ("web_history", lambda: family.web_history(config, episode.item, turns)),
            (
                "report_json",
                lambda: [json.dumps(family.report_json(public, [run_id]).model_dump(mode="json"))],
            ),
            ("results", lambda: [family.results(public, [run_id]).model_dump_json()]),
        ]
        for what, read in readers:
            try:
                texts += read()
            except Exception as exc:
                if what.startswith(("report", "results")):
                    # the server then draws the report of the games over alone: nothing of these is read
                    continue
                # the play page of a game on would fail the same way
                self.unreadable.append(f"{what} of a game not over raises {type(exc).__name__}: {exc}")
                texts.append("")
        return texts[0], texts[1:]

    def sessions_across_processes(self) -> None:
        self.need("run")
        assert self.sessions, "no session was played half-way"
        store = self.store
        assert store is not None
        self.worker = self._other_process(self.rest)  # the rest in another process, as JSON
        for sid, e in self.sessions:
            self.views[sid] += self.worker["views"][str(sid)]
            assert _kept(store.list_turns(sid)) == _kept(store.list_turns(e.id)), (
                f"{e.item_key}: the session's turns differ from the run's"
            )
            stored = store.get_episode(sid)
            # what the run's player reported about itself has no counterpart in actions replayed without one
            game_metrics = {k: v for k, v in e.metrics.items() if k != PLAYER_METRICS}
            got = (stored.status, stored.success, stored.metrics)
            assert got == ("completed", e.success, game_metrics), (
                f"{e.item_key}: the session ended {got[:2]}, the run {('completed', e.success)}"
                + ("" if got[2] == game_metrics else f"; metrics {got[2]} != {game_metrics}")
            )
            result = asyncio.run(session.summary(store, sid))
            assert result["done"] and result["status"] == "completed", f"{e.item_key}: summary says {result}"
            assert (result["success"], _as_json(result["metrics"])) == (e.success, _as_json(game_metrics)), (
                f"{e.item_key}: the summary's result differs from the run's"
            )
            # the whole item is shown once the game is over
            assert result["item"] == e.item, (
                f"{e.item_key}: the summary of a game over hides part of the item"
            )

    def _other_process(self, steps: list[tuple[int, list[dict[str, Any]]]]) -> dict[str, Any]:
        assert self.config is not None
        job = {
            "family": self.family.name,
            "target": self._target(),
            "config": self.config.model_dump(mode="json"),
            "db": self.db,
            "steps": steps,
        }
        # the child imports what this process imports (a plugin in the author's checkout, tests' families)
        path = [p or os.getcwd() for p in sys.path]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
        done = subprocess.run(
            [sys.executable, "-c", _WORKER, json.dumps(job)],
            env=env,
            capture_output=True,
            text=True,
            timeout=WORKER_TIMEOUT,
        )
        tail = done.stderr.strip().splitlines()[-12:]
        assert done.returncode == 0, "the other process failed:\n" + "\n".join(tail)
        lines = done.stdout.strip().splitlines()
        assert lines, "the other process printed nothing"
        out: dict[str, Any] = json.loads(lines[-1])
        return out

    # -- e. leaks -----------------------------------------------------------------------------------------------
    def no_leaks(self) -> None:
        """Everything a client reads of each session before its game ends, the instructions and the first
        observation included (none is excused for being the game's own words), searched for the session's
        hidden item by the detector the reward audit uses (:func:`wason.core.leaks.find_leaks`)."""
        self.need("sessions")
        store = self.store
        assert store is not None
        read: dict[str, str] = {}
        secrets: dict[str, dict[str, str]] = {}
        sources: dict[str, list[tuple[str, str]]] = {}  # where each text was read, to say where a leak is
        owns: dict[str, list[str]] = {}
        for sid, e in self.sessions:
            turns = store.list_turns(sid)
            found = [("the instructions a model reads", t) for t in self.opening[sid]]
            found += [("the play page", self.first_forms[sid])]
            found += [("the play page or the run's reports", t) for t in self.mid_game[sid]]
            found += [
                ("a session view (wason session, /api/sessions)", json.dumps(v))
                for v in self.views[sid]
                if not v["done"]
            ]
            for turn in turns[:-1]:  # the last move ends the game: what it shows is read after the end
                found += [
                    ("a turn's observation", json.dumps(turn["observation"])),
                    ("a turn's feedback", str(turn["feedback"] or "")),
                ]
            # the player's own moves, which a game may show back (a guess quoting a rule is the player's words)
            own = [t for turn in turns for t in leaves(turn["action"]) if t != turn["action"].get("type")]
            read[e.item_key] = readable([text for _, text in found], own)
            secrets[e.item_key] = self._secrets(sid)
            sources[e.item_key], owns[e.item_key] = found, own
        leaks = find_leaks(read, secrets, self._vocabulary())

        def where(leak: Any) -> str:
            key = str(leak.game)
            places = [p for p, text in sources[key] if leak.secret in readable([text], owns[key])]
            return f"{leak}, in {places[0] if places else 'what a client reads'}"

        assert not leaks, "a client reads, before the game ends: " + "; ".join(sorted(map(where, leaks))[:10])
        assert not self.unreadable, "; ".join(sorted(set(self.unreadable))[:5])

    def _vocabulary(self) -> tuple[str, ...]:
        """The names any player may read, as the family declares them for its reward audit (``public_names()``
        of its :attr:`~wason.core.family.RunSettings.audit_module`)."""
        name = self.family.config_type.audit_module
        if name is None:
            return ()
        names = getattr(importlib.import_module(name), "public_names", None)
        return tuple(names()) if callable(names) else ()

    def _secrets(self, session_id: int) -> dict[str, str]:
        """What must not be read of a game that is not over: ``{text: what it is}``."""
        assert self.store is not None
        episode = self.store.get_episode(session_id)
        run_config = self.store.get_run(episode.run_id).config
        shown = public_config(self.family, run_config)
        out = hidden_texts(self.family, episode.item_key, episode.item, shown=json.dumps(shown))
        for name, value in run_config.items():
            if name not in shown and isinstance(value, int) and abs(value) >= MIN_NUMBER:
                out[str(value)] = f"the configuration's {name}"
        return out

    # -- e2. the reward audit -------------------------------------------------------------------------------------
    def reward_audit(self) -> None:
        from wason.env.audit import audit, failed

        self.need("config")
        assert self.config is not None
        if self.family.oracle(self.config) is not None:
            raise _Skip("its games ask a model (an LLM judge or game master): run wason audit with one")
        config = self.config.model_dump(mode="json", exclude={"player", "model"})
        checks = asyncio.run(audit(self.family.name, config, games=self.n_items))
        bad = failed(checks)
        assert not bad, "; ".join(c.line() for c in bad)

    # -- f. reports -------------------------------------------------------------------------------------------
    def reports_render(self) -> None:
        from wason.report.render import transcript_terminal
        from wason.report.tables import episode_json, report_json, report_tables

        self.need("run")
        family, store, run_id = self.family, self.store, self.run_id
        assert store is not None and run_id is not None
        for module in family.reports:
            importlib.import_module(module)
        for name, wanted in REPORT_HOOKS.items():  # a reports module's function takes what its method takes
            hook = family.report_hook(name)
            if hook is None:
                continue
            try:
                inspect.signature(hook).bind(*wanted)
            except TypeError:
                raise AssertionError(
                    f"{name}{inspect.signature(hook)} in {hook.__module__} cannot take ({', '.join(wanted)})"
                ) from None
        if (
            family.wording is not None
        ):  # the web page's words for a person: intro and answer of an observation
            words = importlib.import_module(family.wording)
            for name in ("intro", "answer"):
                fn = getattr(words, name, None)
                assert callable(fn), f"{family.wording} (the family's wording) defines no {name}(observation)"
                try:
                    inspect.signature(fn).bind({})
                except TypeError:
                    raise AssertionError(
                        f"{name}{inspect.signature(fn)} in {family.wording} cannot take (observation)"
                    ) from None
        report = family.report_json(store, [run_id])
        assert isinstance(report, RunReport), f"report_json gives a {type(report).__name__}, not a RunReport"
        assert json.loads(json.dumps(report.model_dump(mode="json")))["run"] == run_id, (
            "report_json: wrong run"
        )
        assert json.dumps(report_json(store, [run_id])), "`wason show RUN --json` gives nothing"
        results = family.results(store, [run_id])
        assert isinstance(results, Results), f"results gives a {type(results).__name__}, not a Results"
        # what `wason show RUN` prints: the results drawn by the shared renderer, every line within 80 columns
        texts = [_render(r, width=80) for r in report_tables(store, [run_id])]
        assert "".join(texts).strip(), "`wason show RUN` prints nothing"
        wide = [line for t in texts for line in t.splitlines() if len(line.rstrip()) > 80]
        assert not wide, f"`wason show RUN` passes 80 columns: {wide[:3]}"
        # and nothing was cut to get there (rich marks a cell it had to crop with an ellipsis)
        assert "…" not in "".join(texts), "`wason show RUN` crops a cell at 80 columns"
        # the results' rows are the run's: a table that links a row to a run names this one
        named = {row.get("run") for t in results.tables for row in t.rows} - {None}
        assert not named or run_id in named, (
            f"the results' rows name runs {sorted(map(str, named))}, not run {run_id}"
        )
        run = store.get_run(run_id)
        for e in store.list_episodes(run_id):
            record = episode_json(store, run_id, e.index)
            messages = family.messages(record, run)
            assert isinstance(messages, Transcript), f"messages gives a {type(messages).__name__}"
            text = _render(transcript_terminal(messages, full=True))
            # something only the store knows: what a turn's action carried or the feedback it got
            said = [
                str(v)
                for t in record["turns"]
                for v in t["action"].values()
                if v and v != t["action"]["type"]
            ]
            said += [line for t in record["turns"] for line in (t["feedback"] or "").splitlines()[:1]]
            said = [" ".join(s.split())[:40] for s in said]
            flat = " ".join(text.split())
            # long enough not to be found by chance (a lone digit is in any table)
            assert any(len(s) >= 4 and s in flat for s in said), (
                f"{e.item_key}: the transcript shows no move nor feedback of the game: {text[:300]}"
            )

    # -- g. the command line ----------------------------------------------------------------------------------
    def command_line(self) -> None:
        from wason.cli import main

        family = self.family
        # what help shows of the family without importing it must be what the family says
        card = registry.declared_card(family.name)
        says = registry.Card(family.title, family.summary, family.commands, family.playable)
        assert card is None or card == says, (
            f"its card (what help shows without importing it: wason.cards) is {card}, the family says {says}"
        )

        def call(args: list[str]) -> tuple[int, str, str]:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(args)
            return code, out.getvalue(), err.getvalue()

        others: set[str] = set()
        for other in registry.families():
            if other.name != family.name:
                others |= _flags(other.config_type)
        own = _flags(family.config_type)

        code, text, _ = call(["eval", family.name, "--help"])
        assert code == 0, f"`wason eval {family.name} --help` exits {code}"
        missing = [f for f in sorted(own) if not _shown_flag(text, f)]
        assert not missing, f"`wason eval --help` lacks the configuration's flags {missing}"
        foreign = [f for f in sorted(others - own) if _shown_flag(text, f)]
        assert not foreign, f"`wason eval --help` offers other families' flags {foreign}"

        code, text, _ = call(["session", "start", family.name, "--help"])
        assert code == 0, f"`wason session start {family.name} --help` exits {code}"
        missing = [f for f in sorted(_flags(family.config_type, play=True)) if not _shown_flag(text, f)]
        assert not missing, f"`wason session start --help` lacks the configuration's flags {missing}"

        code, text, err = call(["eval", family.name, "--no-such-flag"])
        assert code == 2, f"an unknown flag exits {code}, not 2"
        assert text == "" and len(err.strip().splitlines()) == 1 and "--no-such-flag" in err, (
            f"an unknown flag is not one clear line naming it: {err[:300]!r}"
        )
