"""The family contract, run over every registered family and every test family under ``tests/families/``.

A family is one package: given its ``FAMILY``, the engine plays it, sessions store and restore it (in another
process too), reports render it and the command line derives its flags, with nothing else written for it. Each
family runs on a cheap configuration: the ones this file knows are narrowed below, any other runs on its
configuration's defaults, and at most ``MAX_ITEMS`` of its items are played.
"""

from __future__ import annotations

import asyncio
import importlib
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from rich.console import Console

from wason.cli import family_fields, main
from wason.core import registry, session
from wason.core.family import Family, Item, RunSettings, endpoint_fields, model_fields
from wason.core.game import PLAYER_METRICS, Player
from wason.core.records import RunReport
from wason.core.session import to_json
from wason.engine import create_run, execute_run, solver_player_factory
from wason.players.scripted import ScriptedPlayer
from wason.report.tables import episode_json, report_json
from wason.store import Store

ROOT = Path(__file__).resolve().parents[2]
FAMILIES_DIR = ROOT / "tests" / "families"

# Narrower configurations of the families this file knows, to keep the contract fast.
CHEAP: dict[str, dict[str, Any]] = {"wilt": {"ids": [1, 2]}, "lists": {"ids": [1]}, "aiw": {"trials": 1}}
MAX_ITEMS = 2


def _test_families() -> dict[str, str]:
    """Every test family, found by listing ``tests/families/``: its name and its module."""
    found = {}
    for package in sorted(p for p in FAMILIES_DIR.iterdir() if (p / "__init__.py").is_file()):
        module = f"tests.families.{package.name}"
        found[importlib.import_module(module).FAMILY.name] = module
    return found


TEST_FAMILIES = _test_families()
NAMES = [*registry.names(), *(n for n in TEST_FAMILIES if n not in registry.names())]


def load(name: str) -> Family[Any]:
    """A family by name, without registering a test family."""
    if name in TEST_FAMILIES:
        fam: Family[Any] = importlib.import_module(TEST_FAMILIES[name]).FAMILY
        return fam
    return registry.get(name)


# Run in a fresh interpreter: registers the test families again (by module path), then does one job.
WORKER = """
import asyncio, importlib, json, sys
from wason.core import registry, session
from wason.store import Store

job = json.loads(sys.argv[1])
for module in job["register"]:
    registry.register(importlib.import_module(module).FAMILY)
if job["do"] == "items":
    family = registry.get(job["family"])
    print(json.dumps(family.items(family.config_type.model_validate(job["config"]))))
else:
    store = Store(job["db"])

    async def play():
        for session_id, actions in job["steps"]:
            for action in actions:
                await session.step(store, session_id, action)

    asyncio.run(play())
    store.close()
"""


def run_worker(job: dict[str, Any]) -> str:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    job = {"register": list(TEST_FAMILIES.values()), **job}
    done = subprocess.run(
        [sys.executable, "-c", WORKER, json.dumps(job)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


@dataclass
class Case:
    """One family on its cheap configuration, and who plays it."""

    family: Family[Any]
    config: RunSettings
    items: list[Item]
    played: list[Item]
    scripted: bool


@dataclass
class OneGo:
    """The played items, each a whole episode of one run, played by the engine in one go."""

    store: Store
    db: str
    run_id: int


@pytest.fixture(scope="module", params=NAMES)
def family(request: pytest.FixtureRequest) -> Iterator[Family[Any]]:
    name: str = request.param
    if name not in TEST_FAMILIES:
        yield registry.get(name)
        return
    fam = registry.register(load(name))
    yield fam
    registry.unregister(name)  # the real registry is unchanged for the other tests


@pytest.fixture(scope="module")
def case(family: Family[Any]) -> Case:
    fields = {**CHEAP.get(family.name, {}), "model": None}
    config = family.config_type.model_validate({**fields, "player": "solver"})
    items = family.items(config)
    played = items[:MAX_ITEMS]
    assert played, f"{family.name}: its configuration's defaults give no items"
    if family.solver(config, played[0][1]) is not None:
        return Case(family, config, items, played, scripted=False)
    config = family.config_type.model_validate({**fields, "player": "scripted"})
    return Case(family, config, items, played, scripted=True)


@pytest.fixture(scope="module")
def one_go(case: Case, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OneGo]:
    family, config = case.family, case.config
    if case.scripted and any(family.sample_actions(config, item) is None for _, item in case.played):
        pytest.fail(
            f"{family.name} has neither a solver nor sample_actions: the contract cannot play it "
            "(implement Family.solver or Family.sample_actions)"
        )
    assert family.oracle(config) is None, f"{family.name}: the contract needs a configuration judged by code"

    def scripted(item: dict[str, Any], episode_id: int, index: int) -> Player[Any, Any]:
        return ScriptedPlayer(family.sample_actions(config, item) or [])

    db = f"sqlite:///{tmp_path_factory.mktemp(family.name) / 'contract.db'}"
    store = Store(db)
    factory = scripted if case.scripted else solver_player_factory(config)
    run_id = create_run(store, config, case.played)
    asyncio.run(execute_run(store, run_id, factory, concurrency=1))
    yield OneGo(store, db, run_id)
    store.close()


# -- a. the configuration ------------------------------------------------------------------------------------
def test_config_round_trips_through_json(case: Case) -> None:
    config, kind = case.config, case.family.config_type
    assert kind.model_validate(config.model_dump(mode="json")) == config
    assert kind.model_validate(json.loads(json.dumps(config.model_dump(mode="json")))) == config
    assert kind.model_validate_json(config.model_dump_json()) == config


def test_config_rejects_a_wrong_type_naming_the_field(case: Case) -> None:
    kind = case.family.config_type
    base = case.config.model_dump(mode="json")
    for name in [*family_fields(kind), "player", "timeout"]:
        with pytest.raises(ValueError) as raised:
            kind.model_validate({**base, name: {"not": "a value"}})
        error = raised.value
        where = [e["loc"][:1] for e in error.errors()] if isinstance(error, ValidationError) else []
        assert (name,) in where, f"{name}: {error}"


def test_config_declares_what_is_public_and_where_models_go(case: Case) -> None:
    """What a page may show of a run whose games are on names fields the configuration has, and none that draws
    its items by name; every model it names and every address it holds is marked (the server checks them)."""
    kind = case.family.config_type
    assert kind.public_fields <= set(kind.model_fields), sorted(kind.public_fields - set(kind.model_fields))
    assert not {"split", "ids", "n", "rules_file"} & kind.public_fields
    for name, info in kind.model_fields.items():
        if "str" in str(info.annotation) and (name == "model" or name.endswith("_model")):
            assert name in model_fields(kind), f"{name} names a model: mark it ModelRef(its address field)"
        if name.endswith("base_url"):
            assert name in endpoint_fields(kind), (
                f"{name} is an address: mark it EndpointRef(its model field)"
            )
    for name, address in model_fields(kind).items():
        assert address is None or endpoint_fields(kind).get(address) == name, (name, address)


# -- b. items ----------------------------------------------------------------------------------------------------
def test_items_are_deterministic_json_with_unique_keys(case: Case) -> None:
    family, config = case.family, case.config
    again = family.items(family.config_type.model_validate(config.model_dump(mode="json")))
    assert again == case.items
    keys = [key for key, _ in case.items]
    assert all(isinstance(k, str) for k in keys) and len(set(keys)) == len(keys)
    for key, item in case.items:
        # an item comes back from the store as JSON: tuples or other types would change the game on resume
        assert as_json(item) == item, key
    fresh = run_worker({"do": "items", "family": family.name, "config": config.model_dump(mode="json")})
    assert json.loads(fresh) == as_json(case.items)


# -- c. a whole episode through the engine ------------------------------------------------------------------
def test_an_episode_played_in_one_go_completes(case: Case, one_go: OneGo) -> None:
    store = one_go.store
    episodes = store.list_episodes(one_go.run_id)
    assert [e.item_key for e in episodes] == [key for key, _ in case.played]
    assert [(e.status, e.error) for e in episodes] == [("completed", None)] * len(case.played)
    assert store.get_run(one_go.run_id).status == "completed"
    for e in episodes:
        assert isinstance(e.success, bool) and e.metrics is not None
        turns = store.list_turns(e.id)
        assert turns, e.item_key
        if case.scripted:  # a sample script ends the game exactly: no move left over, none missing
            assert len(turns) == len(case.family.sample_actions(case.config, e.item) or []), e.item_key


# -- d. actions round-trip ------------------------------------------------------------------------------------
def test_stored_actions_decode_and_encode_to_the_same_json(case: Case, one_go: OneGo) -> None:
    codec = case.family.actions
    for e in one_go.store.list_episodes(one_go.run_id):
        for turn in one_go.store.list_turns(e.id):
            action = codec.decode(turn["action"])
            assert as_json(to_json(action)) == turn["action"]
            assert as_json(codec.encode(action)) == turn["action"]


# -- e. sessions, across processes -----------------------------------------------------------------------------
def kept(turns: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What a turn says about the game (not who wrote it or when)."""
    return [(t["index"], t["action"], t["observation"], t["feedback"]) for t in turns]


def test_a_session_stepped_across_processes_equals_the_game_in_one_go(case: Case, one_go: OneGo) -> None:
    family, store = case.family, one_go.store
    rest: list[tuple[int, list[dict[str, Any]]]] = []
    sessions = []
    for e in store.list_episodes(one_go.run_id):
        public = set(family.public(e.item))
        assert public <= set(e.item), f"public keys {public - set(e.item)} are not keys of the item"
        assert public != set(e.item), "an item with nothing hidden: the player sees the rule"
        shown = {k: e.item[k] for k in public}
        actions = [t["action"] for t in store.list_turns(e.id)]
        sid = session.start(store, family.name, case.config, item=(e.item_key, e.item))
        view = asyncio.run(session.view(store, sid))
        assert not view["done"] and view["item"] == shown  # only the public keys before the end
        half = len(actions) // 2
        for action in actions[:half]:  # in this process, as action objects
            view = asyncio.run(session.step(store, sid, family.actions.decode(action)))
        assert not view["done"] and view["item"] == shown
        rest.append((sid, actions[half:]))
        sessions.append((sid, e))

    run_worker({"do": "steps", "db": one_go.db, "steps": rest})  # the rest in another process, as JSON

    for sid, e in sessions:
        assert kept(store.list_turns(sid)) == kept(store.list_turns(e.id))
        stored = store.get_episode(sid)
        # the game's metrics are the same; what the one-go run's player reported about itself has no counterpart
        # in actions replayed without a player
        game_metrics = {k: v for k, v in e.metrics.items() if k != PLAYER_METRICS}
        assert (stored.status, stored.success, stored.metrics) == ("completed", e.success, game_metrics)
        result = asyncio.run(session.summary(store, sid))
        assert result["done"] and result["status"] == "completed"
        assert (result["success"], as_json(result["metrics"])) == (e.success, game_metrics)
        # the whole item is shown once the game is over
        assert result["item"] == e.item and asyncio.run(session.view(store, sid))["item"] == e.item


# -- f. reports -------------------------------------------------------------------------------------------------
def render(renderable: Any) -> str:
    out = io.StringIO()
    Console(file=out, width=160).print(renderable)
    return out.getvalue()


def test_the_run_report_and_transcripts_render(case: Case, one_go: OneGo) -> None:
    family, store, run_id = case.family, one_go.store, one_go.run_id
    report = family.report_json(store, [run_id])
    assert isinstance(report, RunReport), f"{family.name}.report_json gives a {type(report).__name__}"
    assert json.loads(json.dumps(report.model_dump(mode="json")))["run"] == run_id
    assert json.dumps(report_json(store, [run_id]))  # what `wason show RUN --json` prints
    texts = [render(r) for r in family.report(store, [run_id])]
    assert texts and all(t.strip() for t in texts)
    # it says which run it is: "run 3", "Run 3", "run id: 3"
    assert re.search(rf"\brun\W*(id\W*)?{run_id}\b", "".join(texts), re.IGNORECASE), "".join(texts)
    run = store.get_run(run_id)
    for e in store.list_episodes(run_id):
        record = episode_json(store, run_id, e.index)
        text = render(family.transcript(record, run))
        # something only the store knows: what a turn's action carried or the feedback it got
        said = [
            str(v) for t in record["turns"] for v in t["action"].values() if v and v != t["action"]["type"]
        ]
        said += [line for t in record["turns"] for line in (t["feedback"] or "").splitlines()[:1]]
        said = [" ".join(s.split())[:40] for s in said]
        flat = " ".join(text.split())
        # long enough not to be found by chance (a lone digit is in any table)
        assert any(len(s) >= 4 and s in flat for s in said), f"episode {e.index}: {text[:500]}"


# -- g. the command line ----------------------------------------------------------------------------------------
def flags(config_type: type[RunSettings], *, play: bool = False) -> set[str]:
    """The flags ``wason.cli`` derives from a configuration's own fields."""
    out = set()
    for name, info in family_fields(config_type, play=play).items():
        flag = config_type.flag_names.get(name, name).replace("_", "-")
        out.add(f"--no-{flag}" if info.default is True else f"--{flag}")
    return out


def shown(text: str, flag: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text) is not None


def test_the_command_line_is_derived_from_the_config(
    family: Family[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    families = {n: load(n) for n in NAMES}
    others = set().union(*(flags(f.config_type) for n, f in families.items() if n != family.name))
    own = flags(family.config_type)

    assert main(["eval", family.name, "--help"]) == 0
    text = capsys.readouterr().out
    assert [f for f in sorted(own) if not shown(text, f)] == []
    assert [f for f in sorted(others - own) if shown(text, f)] == []

    assert main(["session", "start", family.name, "--help"]) == 0
    text = capsys.readouterr().out
    assert [f for f in sorted(flags(family.config_type, play=True)) if not shown(text, f)] == []

    assert main(["eval", family.name, "--no-such-flag"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert "--no-such-flag" in captured.err
