"""Static Picnic data and rule pools: the published counts, safe parsing of the count files, seeded draws."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from tests.reference import reference
from wason.tasks.picnic.catalog import (
    LEVELS,
    catalog,
    counts,
    derive_seed,
    draw_rule,
    near_miss_mask,
    parse_count_key,
    pool,
    rule_text,
)


def test_the_items_and_tags_are_the_published_ones() -> None:
    cat = catalog()
    published = json.loads(
        reference("guess_the_rule", "static_picnic", "open_images_combined_items.json").read_text("utf-8")
    )
    tags = json.loads(
        reference("guess_the_rule", "static_picnic", "open_images_unique_tags.json").read_text("utf-8")
    )
    assert len(cat.items) == 511 and len(cat.tags) == 76
    assert {k: list(v) for k, v in cat.tags_of.items()} == published
    assert list(cat.tags) == tags
    assert all(cat.extension[t] for t in cat.tags)  # every tag is used
    per_item = Counter(len(v) for v in cat.tags_of.values())
    assert per_item == {1: 222, 2: 198, 3: 71, 4: 14, 5: 3, 6: 3}
    assert sum(item in cat.tags for item in cat.items) == 49


def test_the_count_files_are_read_without_eval_and_match_the_items() -> None:
    rows = counts()
    assert (len(rows["single"]), len(rows["pair"]), len(rows["triplet"])) == (76, 115, 71)
    assert rows["single"][0] == (("animal",), 110)
    assert rows["pair"][0] == (("animal", "mammal"), 51)
    assert parse_count_key("['ball (object)', 'sports equipment']") == ("ball (object)", "sports equipment")


@pytest.mark.parametrize(
    "key",
    [
        "__import__('os').system('true')",
        "['a'] + ['b']",
        "['a', \"b\"]",
        "['a',]",
        "[]",
        "['a\\'b']",
        "('a', 'b')",
        "['a'] ",
        "x" * 10_000,
    ],
)
def test_hostile_count_keys_are_refused(key: str) -> None:
    with pytest.raises(ValueError, match="not a count-file key"):
        parse_count_key(key)


def test_the_published_pool_has_115_definitions() -> None:
    sizes = {lv: Counter(r.kind for r in pool(lv, "published")) for lv in LEVELS}
    assert sizes == {
        "L1": {"single": 31},
        "L2": {"single": 21, "pair": 23},
        "L3": {"single": 6, "pair": 24, "triplet": 10},
    }
    assert sum(len(pool(lv, "published")) for lv in LEVELS) == 115


def test_the_distinct_pool_has_one_rule_per_set_of_items() -> None:
    assert [len(pool(lv, "distinct")) for lv in LEVELS] == [31, 39, 27]
    masks = {lv: {r.members() for r in pool(lv, "distinct")} for lv in LEVELS}
    published = {lv: {r.members() for r in pool(lv, "published")} for lv in LEVELS}
    assert masks == published
    assert len(masks["L1"] | masks["L2"] | masks["L3"]) == 64
    assert (
        len(masks["L1"] & masks["L2"]),
        len(masks["L2"] & masks["L3"]),
        len(masks["L1"] & masks["L3"]),
    ) == (
        16,
        17,
        4,
    )
    # one of the level's own definitions stands for each set, the one with the fewest categories
    for lv in LEVELS:
        for rule in pool(lv, "distinct"):
            assert all(len(rule.categories) <= len(a) for a in rule.aliases)
            assert all(catalog().members(a) == rule.members() for a in rule.aliases)
    assert sum(len(r.aliases) for lv in LEVELS for r in pool(lv, "distinct")) == 115 - 31 - 39 - 27


def test_positive_counts_follow_the_thresholds() -> None:
    for rule in pool("L1", "published"):
        assert bin(rule.members()).count("1") > 6
    for rule in pool("L3", "published"):
        n = bin(rule.members()).count("1")
        assert {"single": n == 3, "pair": 4 <= n <= 5, "triplet": n > 4}[rule.kind]
    # pairs with exactly 6 items fall in no pool (as published)
    six = [tags for tags, n in counts()["pair"] if n == 6]
    assert six and not any(r.categories in six for lv in LEVELS for r in pool(lv, "published"))


def test_rule_texts_are_the_published_templates() -> None:
    assert rule_text(["fruit"]) == "Items from the category 'fruit'"
    assert rule_text(["animal", "mammal"]) == "Items from the categories 'animal' and 'mammal'"
    assert rule_text(["a", "b", "c"]) == "Items from the categories 'a', 'b', and 'c'"
    templates = reference("guess_the_rule", "static_picnic", "rule_templates.txt").read_text("utf-8")
    assert "Items from the categories '{triplet[0]}', '{triplet[1]}', and '{triplet[2]}'" in templates


def test_draws_are_seeded_and_never_touch_the_global_generator() -> None:
    state = random.getstate()
    a = [draw_rule("L3", "published", derive_seed("t", i)).key for i in range(50)]
    b = [draw_rule("L3", "published", derive_seed("t", i)).key for i in range(50)]
    assert a == b and len(set(a)) > 10
    assert random.getstate() == state


def test_the_published_draw_picks_the_kind_first() -> None:
    kinds = Counter(draw_rule("L3", "published", derive_seed("kinds", i)).kind for i in range(3000))
    # equal odds of the kinds although the pool has 6 singles, 24 pairs and 10 triplets
    assert all(850 < kinds[k] < 1150 for k in ("single", "pair", "triplet")), kinds
    l2 = Counter(draw_rule("L2", "published", derive_seed("kinds", i)).kind for i in range(2000))
    assert 850 < l2["single"] < 1150


def test_near_misses_are_non_members_next_to_the_rule() -> None:
    cat = catalog()
    mammal = cat.members(["mammal"])
    near = near_miss_mask(("mammal",))
    assert near and not near & mammal
    names = set(cat.names(near))
    assert "eagle" in names or any("bird" in cat.tags_of[n] for n in names)
    assert all("animal" in cat.tags_of[n] for n in names)  # siblings and the parent: other animals
    pair = near_miss_mask(("food", "fruit"))
    assert not pair & cat.members(["food", "fruit"])
