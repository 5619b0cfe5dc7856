"""The Static Picnic family: configuration, items with provenance, the judge's model, the terminal player."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import ValidationError

from wason.core.family import EpisodeContext, PlayIO
from wason.tasks.picnic.catalog import pool
from wason.tasks.picnic.family import FAMILY, PicnicRunConfig, rule_from_item
from wason.tasks.picnic.game import GiveUp, Guess, More, PicnicObservation


def test_items_are_seeded_paired_across_turn_limits_and_carry_provenance() -> None:
    config = PicnicRunConfig(player="solver", n=5, max_turns=[1, 10], seed=3)
    items = FAMILY.items(config)
    assert len(items) == 3 * 5 * 2
    assert items == FAMILY.items(PicnicRunConfig(player="solver", n=5, max_turns=[1, 10], seed=3))
    assert items != FAMILY.items(PicnicRunConfig(player="solver", n=5, max_turns=[1, 10], seed=4))
    by_game: dict[tuple[str, int], set[tuple[str, int]]] = {}
    for _, item in items:
        by_game.setdefault((item["level"], item["game"]), set()).add((item["rule"]["text"], item["seed"]))
        assert item["provenance"]["generator"] == "wason-picnic-items" and item["provenance"]["seed"] == 3
        assert rule_from_item(item).text == item["rule"]["text"]
    assert all(len(v) == 1 for v in by_game.values())  # the same rule and examples at every limit
    hidden = set(items[0][1]) - set(FAMILY.public(items[0][1]))
    assert {"rule", "seed", "provenance"} <= hidden


def test_the_whole_pool_as_a_split() -> None:
    items = FAMILY.items(PicnicRunConfig(player="solver", draw="all", pool="published", level=["L3"], n=1))
    assert [item["rule"]["id"] for _, item in items] == [r.id for r in pool("L3", "published")]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"level": ["L4"]}, "level"),
        ({"level": []}, "level"),
        ({"n": 0}, "n"),
        ({"max_turns": [0]}, "max_turns"),
        ({"max_turns": []}, "max_turns"),
        ({"init_examples": 0}, "init_examples"),
        ({"pool": "all"}, "pool"),
        ({"negatives": "smart"}, "negatives"),
        ({"judges": ["code", "llm"], "model": None}, "judges"),
        ({"judges": ["llm"], "model": "a:b"}, "judges"),
    ],
)
def test_bad_configurations_name_the_field(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        PicnicRunConfig(**fields)  # type: ignore[arg-type]


def test_the_judge_model_is_the_families_oracle() -> None:
    assert FAMILY.oracle(PicnicRunConfig(model="openai:gpt-4o", judges=["code"])) is None  # turned off
    same = FAMILY.oracle(PicnicRunConfig(model="openai:gpt-4o", base_url="http://x"))
    assert (
        same is not None
        and same.model == "openai:gpt-4o"
        and same.same_as_player
        and same.base_url == "http://x"
    )
    other = FAMILY.oracle(
        PicnicRunConfig(model="a:b", judge_model="openai:gpt-4o-mini", judge_base_url="http://j")
    )
    assert other is not None and other.model == "openai:gpt-4o-mini" and other.base_url == "http://j"
    # the solver has no model: the LLM judge runs only on a judge model named for it
    assert not PicnicRunConfig(player="solver").llm_judge  # no model plays: no LLM judge by default
    solver = PicnicRunConfig(player="solver", model=None, judge_model="openai:gpt-4o-mini")
    assert solver.llm_judge and FAMILY.baseline(solver, 1).llm_judge
    assert not FAMILY.baseline(PicnicRunConfig(model="a:b"), 1).llm_judge


def test_a_game_without_its_judge_model_fails_as_an_outside_failure() -> None:
    from wason.core.game import ExternalFailure

    config = PicnicRunConfig(model="a:b")
    _, item = FAMILY.items(config)[0]
    game = FAMILY.game(config, item, EpisodeContext())
    game.start()
    with pytest.raises(ExternalFailure):
        asyncio.run(game.settle(Guess("fruit")))  # type: ignore[attr-defined]


def test_a_person_plays_at_the_terminal() -> None:
    lines = iter(
        ["", "help", "more lots", "categories", "more 3", "history", "guess fruit and food", "give up"]
    )
    written: list[str] = []
    config = PicnicRunConfig(**PicnicRunConfig.with_play_defaults({}), player="human")
    item = FAMILY.items(config)[0][1]
    player = FAMILY.human(config, item, PlayIO(read=lambda prompt: next(lines), write=written.append))
    assert player is not None
    start = PicnicObservation(
        kind="start", turn=1, turns_left=10, positives=("apple",), negatives=("dog",), remaining=5
    )

    async def moves() -> list[object]:
        return [(await player.act(start)).action for _ in range(3)]

    assert asyncio.run(moves()) == [More(3), Guess("fruit and food"), GiveUp()]
    text = "\n".join(written)
    # the web page's text, the typed commands, a typo refused at no cost, the categories
    assert "You can bring: apple" in text and "  more N " in text and "  give up " in text
    assert "n: a whole number, not 'lots'. Nothing was played." in text and "animal" in text


def test_games_not_played_yet_are_in_no_rate(tmp_path: Path) -> None:
    from wason.engine import create_run
    from wason.store import Store

    store = Store(f"sqlite:///{tmp_path / 'pending.db'}")
    rid = create_run(store, PicnicRunConfig(player="solver", level=["L1"], n=2))
    win = FAMILY.scores(store, rid)[0]
    assert (win.short, win.k, win.n, win.value) == ("Win", 0, 0, None)
    assert FAMILY.report_json(store, [rid]).model_dump()["summary"]["wins"]["n"] == 0
    store.close()
