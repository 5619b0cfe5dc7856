"""``--limit N`` (the first N items of any family's split, each with all its trials, as Inspect's ``--limit``),
applied by the engine and stored with the run; and ``--n`` refused in one line where it changes nothing the run
plays (issue 49, item 8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from wason.cli import main
from wason.core import registry
from wason.engine import baselines_of, create_run, limit_items, load_config, run_items
from wason.engine.sweep import parse_sweep, run_sweep
from wason.store import Store

UNREACHABLE = "http://127.0.0.1:9/v1"  # nothing listens: a run that got as far as its model would say so


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'limits.db'}"


def _keys(store: Store, run_id: int) -> list[str]:
    return [e.item_key for e in sorted(store.list_episodes(run_id), key=lambda e: e.index)]


def _unlimited(name: str, **fields: Any) -> list[str]:
    family = registry.get(name)
    return [key for key, _ in family.items(family.config_type(**fields))]


def test_limit_takes_the_first_items_each_with_all_its_trials(db: str) -> None:
    """Inspect's order: the first N items, then every trial (epoch) of each: 2 rules x 3 trials = 6 episodes."""
    argv = ["eval", "wilt", "--ids", "1,2,3", "--trials", "3", "--limit", "2", "--player", "solver"]
    assert main([*argv, "--db", db, "-q"]) == 0
    store = Store(db)
    (run,) = store.list_runs()
    every = _unlimited("wilt", ids=[1, 2, 3], trials=3, player="solver")
    assert len(every) == 9 and _keys(store, run.id) == every[:6]
    assert {k.split("|")[0] for k in _keys(store, run.id)} == {k.split("|")[0] for k in every[:6]}
    assert run.config["limit"] == 2 and load_config(store, run.id).limit == 2  # stored: --resume keeps it


def test_the_header_says_the_run_is_limited(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "math", "--limit", "1", "--player", "solver", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "math L1, 1 games" in out and "the first 1 item (--limit)" in out


def test_a_model_run_and_its_baseline_play_the_same_limited_items(db: str) -> None:
    with FakeOpenAIServer(lambda messages, body: "Final Guess: ```lambda x, y, z: x < y < z```") as server:
        argv = ["eval", "wilt", "--limit", "3", "--model", "vllm:fake", "--base-url", server.base_url]
        assert main([*argv, "--db", db, "-q"]) == 0
    store = Store(db)
    run = next(r for r in store.list_runs() if r.player == "llm")
    (baseline,) = baselines_of(store, run.id)
    assert _keys(store, run.id) == _keys(store, baseline) == _unlimited("wilt")[:3]


def test_resume_finishes_a_limited_run_without_adding_items(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(db)
    config = registry.get("lists").config_type(player="solver", ids=[1, 2, 3], limit=2)
    run_id = create_run(store, config)  # made, never played: as a run killed before its first episode
    assert main(["eval", "--resume", str(run_id), "--db", db, "-q"]) == 0
    assert store.get_run(run_id).status == "completed"
    assert _keys(store, run_id) == _unlimited("lists", ids=[1, 2, 3], player="solver")[:2]


def test_a_run_stored_before_limits_existed_loads_and_stores_as_before(tmp_path: Path) -> None:
    """A configuration without a limit is stored without the key (byte for byte as before), and a run of the
    release before limits (its stored configuration has no ``limit``) loads with none."""
    import shutil

    old = tmp_path / "old.db"
    shutil.copy(Path(__file__).parents[1] / "store" / "data" / "wason-0.1.0.db", old)
    store = Store(f"sqlite:///{old}")
    runs = store.list_runs()
    assert runs and all("limit" not in r.config for r in runs)
    assert all(load_config(store, r.id).limit is None for r in runs)
    config = registry.get("wilt").config_type(player="solver")
    assert "limit" not in config.model_dump(mode="json") and '"limit"' not in config.model_dump_json()


def test_limit_groups_an_items_trials_whatever_the_family_calls_an_item() -> None:
    """AIW's item is a (variation, prompt type) pair played ``trials`` times: --limit 1 is one pair's trials."""
    family = registry.get("aiw")
    items = family.items(family.config_type(prompt_types=["STANDARD", "THINKING"], trials=3))
    first = limit_items(items, 1)
    assert [i["trial"] for _, i in first] == [1, 2, 3]
    assert len({(i["variation"], i["prompt_type"]) for _, i in first}) == 1
    assert items[3][1]["trial"] == 1  # the next item starts there, and is left out
    assert (
        limit_items(items, None) == items and limit_items(first, 1) == first
    )  # cutting twice changes nothing


def test_a_family_that_draws_items_one_at_a_time_draws_only_the_limited_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    family = registry.get("lists")
    config = family.config_type(player="solver", split="generated", seed=7, n=200, trials=2, limit=1)

    def every_item(config: Any) -> Any:
        raise AssertionError("the whole generated split was drawn for --limit 1")

    drawn: list[int] = []
    item_at = type(family).item_at

    def one(self: Any, config: Any, index: int) -> Any:
        drawn.append(index)
        return item_at(self, config, index)

    monkeypatch.setattr(type(family), "items", lambda self, config: every_item(config))
    monkeypatch.setattr(type(family), "item_at", one)
    got = run_items(config)
    assert [i["trial"] for _, i in got] == [1, 2] and len({i["rule"]["id"] for _, i in got}) == 1
    assert drawn == [0, 1, 2]  # the two trials, and the next rule's first, which ends them


def test_a_sweep_family_takes_a_limit(tmp_path: Path) -> None:
    text = """
name = "limited"
[[families]]
name = "wilt"
splits = ["lite"]
limit = 2
[[players]]
player = "solver"
"""
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    outcomes = run_sweep(store, parse_sweep(text), quiet=True)
    (outcome,) = outcomes.values()
    assert outcome.status == "completed" and outcome.run is not None
    assert _keys(store, outcome.run) == _unlimited("wilt")[:2]


@pytest.mark.parametrize("given", [["--limit", "0"], ["--limit", "50001"], ["--limit", "two"]])
def test_a_limit_out_of_its_bounds_is_one_line(
    given: list[str], db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "wilt", "--player", "solver", *given, "--db", db]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "limit" in err, err
    assert Store(db).list_runs() == []


# -- --n: only where it sizes what a run generates ----------------------------------------------------------
IDLE_N = {
    "wilt": ["--n", "2"],  # the lite split: --n is the generated split's size
    "lists": ["--n", "2"],
    "aiw": ["--n", "2"],  # published variations
    "code-functions": ["--split", "published", "--n", "2"],
    "dynamic-picnic": ["--n", "1", "--level", "L1"],  # the published rules of L1 (38 games were started)
}


@pytest.mark.parametrize("name", sorted(IDLE_N))
def test_n_that_changes_nothing_is_one_line_that_offers_limit(
    name: str, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", name, *IDLE_N[name], "--model", "vllm:fake", "--base-url", UNREACHABLE, "--db", db]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("wason: error: --n changes nothing in this run (") and "use --limit N" in err, err
    assert "cannot reach" not in err and Store(db).list_runs() == []  # refused before any request or record


def test_n_names_what_it_would_size_and_what_the_run_plays(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "wilt", "--n", "2", "--player", "solver", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "(split lite)" in err and "rules in the generated split" in err, err


@pytest.mark.parametrize(
    ("name", "given"),
    [
        ("wilt", ["--split", "generated", "--seed", "7"]),
        ("lists", ["--split", "generated", "--seed", "7"]),
        ("code-functions", []),  # generated by default
        ("math", []),  # every game draws its rule
        ("lab", []),  # every game draws its domain
    ],
)
def test_n_that_sizes_a_generated_set_is_taken(
    name: str, given: list[str], db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    family = registry.get(name)
    assert main(["eval", name, *given, "--n", "2", "--player", "solver", "--db", db, "-q"]) == 0
    (run,) = Store(db).list_runs()
    one = family.config_type(**run.config | {"n": 1})
    assert len(Store(db).list_episodes(run.id)) == 2 * len(family.items(one)) > 0


def test_picnic_n_is_games_per_level_and_taken(db: str) -> None:
    family = registry.get("picnic")
    argv = ["eval", "picnic", "--level", "L1", "--n", "2", "--player", "solver", "--db", db, "-q"]
    assert main(argv) == 0
    (run,) = Store(db).list_runs()
    one = family.config_type(**run.config | {"n": 1})
    assert len(Store(db).list_episodes(run.id)) == 2 * len(family.items(one))
