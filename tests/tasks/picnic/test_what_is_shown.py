"""What Static Picnic shows (issue 49): the count of examples left, which names the rule, is on the published
routes only as "whether any is left" and in the published model prompt, never in wason's own API or pages; no
negative is an item named like a category the rule covers; the web page lists the categories; a blind guess wins
no more than the pool's largest share."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest

from wason.core import session
from wason.core.family import EpisodeContext
from wason.games import GuessTheRuleGame
from wason.store import Store
from wason.tasks.picnic.catalog import LEVELS, PicnicRule, catalog, named_within, pool
from wason.tasks.picnic.family import FAMILY, PicnicRunConfig
from wason.tasks.picnic.game import More, PicnicConfig, PicnicGame
from wason.tasks.picnic.protocol import PicnicProtocol


def test_the_count_is_not_in_the_sessions_api(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "s.db"))
    sid = session.start(store, "picnic", {"level": ["L1"]}, seed=4)

    async def play() -> tuple[dict[str, object], dict[str, object]]:
        first = await session.view(store, sid)
        after = await session.step(store, sid, {"type": "More", "n": 1})
        return first, after

    first, after = asyncio.run(play())
    store.close()
    for view in (first, after):
        assert "remaining" not in json.dumps(view["observation"])
    # the feedback (the published texts) says how to ask for more, without the count: "... for the rule."
    feedback = str(after["feedback"])
    assert (
        "type 'more N' to request N more examples for the rule." in feedback and "available)" not in feedback
    )


def test_a_model_reads_the_published_count_and_a_person_does_not() -> None:
    item = FAMILY.items(PicnicRunConfig(level=["L1"], n=1, judges=["code"]))[0][1]
    game = FAMILY.game(PicnicRunConfig(level=["L1"], n=1, judges=["code"]), item, EpisodeContext())
    start = game.start()
    left = item["rule"]["positives"] - 2
    model = FAMILY.protocol(PicnicRunConfig(level=["L1"], model="m", judges=["code"]), item)
    person = FAMILY.protocol(PicnicRunConfig(level=["L1"], player="human:ada"), item)
    assert f"(up to {left} available)" in model.first_message(start)  # the paper's prompt, byte for byte
    assert "available)" not in person.first_message(start)
    assert PicnicProtocol(10).counts and not PicnicProtocol(10, counts=False).counts
    # the page and the terminal read the wording module: no count
    page = FAMILY.web_form(PicnicRunConfig(level=["L1"], player="human:ada"), item, start, 0).prompt
    assert "available" not in page


def test_the_published_route_says_only_whether_examples_are_left(tmp_path: Path) -> None:
    """The exact count named the rule: guessing from it alone won 136 of 200 L1 games at the first guess."""
    sizes = {lv: Counter(bin(r.members()).count("1") for r in pool(lv)) for lv in LEVELS}
    store = Store(str(tmp_path / "g.db"))
    shown = set()
    for seed in range(20):
        game = GuessTheRuleGame("static_picnic", "L1", 2, seed=seed, store=store)
        shown.add(game.create_game_instance()["total_examples_available"])
    store.close()
    assert shown == {1}  # every L1 rule has 7 items or more
    assert min(sizes["L1"]) >= 7 and any(n == 1 for n in sizes["L1"].values())


def rule_of(categories: tuple[str, ...]) -> PicnicRule:
    for level in LEVELS:
        for rule in pool(level, "published"):
            if rule.categories == categories:
                return rule
    raise LookupError(categories)


@pytest.mark.parametrize(
    ("categories", "never"),
    [(("mammal",), "mammal"), (("fruit",), "fruit"), (("dessert", "food"), "dessert"), (("tree",), "tree")],
)
def test_no_negative_is_named_like_a_category_the_rule_covers(
    categories: tuple[str, ...], never: str
) -> None:
    rule = rule_of(categories)
    assert not rule.accepts(never) and named_within(categories) >> catalog().index(never) & 1

    def dealt(seed: int, exclude: bool) -> list[str]:
        game = PicnicGame(
            rule, seed, PicnicConfig(num_init_examples=1, max_turns=None, negatives="informative")
        )
        if not exclude:
            game._not_negative = 0  # as the reference dealt them
        game.start()
        while game.remaining():
            game.step(More(50))
        return game.seen_neg

    assert any(never in dealt(seed, exclude=False) for seed in range(40))  # the deals this test looks at
    assert not any(never in dealt(seed, exclude=True) for seed in range(40))


def test_an_item_named_like_a_category_the_rule_does_not_cover_may_be_a_negative() -> None:
    # a bird is no mammal: the item "bird" is a fine negative of the rule mammal
    assert not named_within(("mammal",)) >> catalog().index("bird") & 1
    assert not rule_of(("mammal",)).accepts("bird")


def test_the_web_page_lists_the_76_categories() -> None:
    config = PicnicRunConfig(level=["L1"], player="human:ada")
    item = FAMILY.items(config)[0][1]
    game = FAMILY.game(config, item, EpisodeContext())
    page = FAMILY.web_form(config, item, game.start(), 0).prompt
    listed = next(line for line in page.splitlines() if line.startswith("The 76 categories: "))
    names = listed.removeprefix("The 76 categories: ").removesuffix(".").split(", ")
    assert names == list(catalog().tags)


@pytest.mark.parametrize("level", LEVELS)
def test_a_blind_category_guess_wins_no_more_than_the_largest_share(tmp_path: Path, level: str) -> None:
    rules = pool(level)
    extensions = Counter(r.members() for r in rules)
    best = max(rules, key=lambda r: extensions[r.members()])
    largest = extensions[best.members()] / len(rules)  # the distinct pool: one rule per set of items
    store = Store(str(tmp_path / "b.db"))
    won = 0
    for seed in range(50):
        game = GuessTheRuleGame("static_picnic", level, 2, seed=seed, store=store)
        game.create_game_instance()
        won += game.validate_guess(best.text)["status"] == "won"
    store.close()
    assert won / 50 <= largest + 0.1, (won, largest)
