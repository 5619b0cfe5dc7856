"""Reading guesses as category names (tolerant, hostile input) and the code judge by extension."""

from __future__ import annotations

import pytest

from wason.tasks.picnic.catalog import catalog, rule_text
from wason.tasks.picnic.guess import MAX_GUESS_CHARS, guess_members, judge_guess, read_guess


@pytest.mark.parametrize(
    ("text", "categories"),
    [
        ("Items from the category 'mammal'", ("mammal",)),
        ("Items from the categories 'animal' and 'mammal'", ("animal", "mammal")),
        ('items from the categories "food", "fruit"', ("food", "fruit")),
        (
            "Items from the categories \u2018food\u2019, \u2018animal\u2019, and \u2018seafood\u2019",
            ("food", "animal", "seafood"),
        ),
        ("ITEMS FROM THE CATEGORY `Kitchen Utensils`", ("kitchen utensil",)),
        ("Items from the category **fruits**. They are all sweet.", ("fruit",)),
        ("Items from the categories luggage and bags", ("luggage and bags",)),
        ("Items from the categories moths and butterflies and insect", ("moths and butterflies", "insect")),
        ("mammals", ("mammal",)),
        ("My guess is: fruits & vegetables", ("fruit", "vegetable")),
        ("Final answer: marine invertebrate", ("marine invertebrates",)),
        ("The rule is: ball", ("ball (object)",)),
        ("I looked at everything.\nItems from the category 'people'", ("person",)),
        ("Items from the category 'squash'", ("squash (plant)",)),
        ("My answer:\nItems from the categories:\n'tool' and 'container'\nThanks!", ("tool", "container")),
        ("Items from the category 'fashion accessories' + 'clothing'", ("fashion accessory", "clothing")),
    ],
)
def test_guesses_are_read_as_categories(text: str, categories: tuple[str, ...]) -> None:
    read = read_guess(text)
    assert read.categories == categories
    assert read.readable and read.combine == "all"


def test_or_between_names_is_a_union() -> None:
    read = read_guess("Items from the categories 'fruit' or 'vegetable'")
    assert read.combine == "any" and read.categories == ("fruit", "vegetable")
    cat = catalog()
    assert guess_members(read) == cat.extension["fruit"] | cat.extension["vegetable"]
    assert read_guess("fruit and vegetable").combine == "all"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "I think it is red things",
        "Items from the category 'things you eat with a fork'",
        "Items from the categories 'fruit' and 'red stuff'",
        "'; DROP TABLE games; --",
        "__import__('os').system('rm -rf /')",
        "\x00\x01\x02 \u202e fruit \u202d",
        "(" * 5000,
        "'" * 9999,
        "items from the category " * 2000,
        "\ud800 \U0001f34e\U0001f34c",
    ],
)
def test_hostile_or_free_text_guesses_are_never_readable_by_mistake(text: str) -> None:
    read = read_guess(text)
    if read.readable:  # only a guess naming a real category and nothing else may be judged by code
        assert all(c in catalog().tags for c in read.categories) and not read.unknown
    verdict = judge_guess(text, catalog().members(["fruit"]))
    assert verdict.equivalent in (None, False) or read.categories == ("fruit",)


def test_unknown_words_leave_the_guess_to_other_judges() -> None:
    read = read_guess("Items from the categories 'fruit' and 'red stuff'")
    assert read.categories == ("fruit",) and read.unknown and not read.readable
    assert judge_guess("red things", catalog().members(["fruit"])).equivalent is None


def test_a_long_guess_is_read_from_its_end_in_bounded_time() -> None:
    text = "blah " * 100_000 + "Items from the category 'fruit'"
    read = read_guess(text)
    assert read.categories == ("fruit",)
    assert len(text) > MAX_GUESS_CHARS


def test_the_code_judge_compares_items_not_words() -> None:
    cat = catalog()
    mammal = cat.members(["mammal"])
    assert judge_guess("Items from the categories 'animal' and 'mammal'", mammal).equivalent is True
    assert (
        judge_guess("Items from the category 'mammal'", cat.members(["animal", "mammal"])).equivalent is True
    )
    wrong = judge_guess("Items from the category 'animal'", mammal)
    assert wrong.equivalent is False
    assert wrong.guess_positives == 110 and wrong.extra and not wrong.missing
    narrow = judge_guess("carnivores", mammal)
    assert narrow.equivalent is False and narrow.missing and not narrow.extra
    # every published rule text is judged equivalent to its own rule
    from wason.tasks.picnic.catalog import LEVELS, pool

    for lv in LEVELS:
        for rule in pool(lv, "published"):
            assert judge_guess(rule.text, rule.members()).equivalent is True, rule.text
            assert judge_guess(rule_text(rule.categories[::-1]), rule.members()).equivalent is True
