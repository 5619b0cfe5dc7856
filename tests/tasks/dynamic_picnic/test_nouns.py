"""The published "its name is a single-word noun that ..." rules played without a model (issue 49): a word list
decides the noun, the predicate the rest; the game is played on single-word nouns and says so."""

from __future__ import annotations

import pytest

from wason.tasks.dynamic_picnic import vocab
from wason.tasks.dynamic_picnic.game import NOUNS_ONLY, AskItem, DynamicPicnicGame, GuessRule
from wason.tasks.dynamic_picnic.rules import PicnicRule, noun_rule, rule_pool

NOUN_RULE = "The item can be brought to the picnic only if its name is a single-word noun "


def by_text(end: str) -> PicnicRule:
    (rule,) = [r for r in rule_pool() if r.text == NOUN_RULE + end]
    return rule


def letter(first: str) -> str:
    return f"that starts with the letter '{first}'."


# every published rule of the form, with words read by hand from its text: nouns that fit, nouns that do not
INTENT: dict[str, tuple[list[str], list[str]]] = {
    letter("P"): (["pencil", "pizza"], ["apple", "bread"]),
    letter("T"): (["tent", "tea"], ["salt", "apple"]),
    letter("S"): (["salt", "sandwich"], ["basket", "tent"]),
    letter("L"): (["lemon", "lemonade"], ["apple", "melon"]),
    letter("C"): (["cake", "cupcake"], ["bread", "kite"]),
    letter("M"): (["map", "melon"], ["lemon", "apple"]),
    letter("B"): (["basket", "bread"], ["apple", "kite"]),
    letter("H"): (["hat", "hamper"], ["apple", "tent"]),
    letter("D"): (["drum", "dog"], ["bread", "salad"]),
    "that contains the letter 'e'.": (["bread", "tent"], ["salt", "pizza"]),
    letter("G"): (["grape", "guitar"], ["egg", "bag"]),
    letter("F"): (["fork", "frog"], ["leaf", "apple"]),
    letter("R"): (["radio", "rug"], ["bread", "car"]),
    letter("W"): (["water", "watermelon"], ["bread", "cow"]),
    letter("J"): (["jam", "juice"], ["apple", "pajamas"]),
    letter("N"): (["napkin", "nut"], ["apple", "lemon"]),
    letter("Z"): (["zebra", "zoo"], ["pizza", "apple"]),
    letter("V"): (["violin", "vase"], ["apple", "olive"]),
    "and starts with the letter 'Y'.": (["yogurt", "yacht"], ["toy", "apple"]),
    letter("Q"): (["quilt", "queen"], ["apple", "banquet"]),
    letter("U"): (["umbrella", "uncle"], ["apple", "cup"]),
    "and starts with the letter 'E'.": (["egg", "engine"], ["apple", "tree"]),
    "and contains the letter 'k'.": (["kite", "basket"], ["bread", "salt"]),
    "and ends with the letter 'd'.": (["bread", "salad"], ["cake", "tent"]),
    "and ends with the letter 't'.": (["tent", "basket"], ["kite", "bread"]),
    "and ends with a vowel.": (["pizza", "kite"], ["bread", "salt"]),
    "that contains the letter 'a' and ends with the letter 's'.": (["bananas", "hats"], ["lemons", "salt"]),
}


def test_every_noun_rule_of_the_published_pool_is_covered() -> None:
    nouns = [r for r in rule_pool() if noun_rule(r)]
    one_word = NOUN_RULE.replace("single-word", "one-word")
    covered = {NOUN_RULE + end for end in INTENT} | {one_word + "and starts with a consonant."}
    assert len(nouns) == 28 and {r.text for r in nouns} == covered
    assert all(r.kind == "mixed" for r in nouns)


@pytest.mark.parametrize("end", sorted(INTENT))
def test_a_noun_rule_played_by_code_decides_as_its_text_says(end: str) -> None:
    fits, does_not = INTENT[end]
    game = DynamicPicnicGame(by_text(end), seed=0)
    assert game.nouns and game.start().kind == "start"
    for word in fits:
        assert vocab.is_noun(word), word
        assert game.step(AskItem(item=word)).answer is True, word
    for word in does_not:
        assert game.step(AskItem(item=word)).answer is False, word
    # not a single word, or not a noun: never brought
    assert game.step(AskItem(item=f"{fits[0]} salad")).answer is False


def test_the_consonant_rule_is_decided_by_code_too() -> None:
    rule = next(r for r in rule_pool() if r.text.endswith("one-word noun and starts with a consonant."))
    game = DynamicPicnicGame(rule, seed=0)
    game.start()
    assert [game.step(AskItem(item=w)).answer for w in ("kite", "bread", "apple", "egg", "pretty")] == [
        True,
        True,
        False,
        False,
        False,
    ]


def test_the_game_is_played_on_nouns_and_says_so() -> None:
    rule = by_text(letter("P"))
    game = DynamicPicnicGame(rule, seed=3)
    first = game.start()
    assert first.history[-1] == ("Game Master", NOUNS_ONLY)
    shown = [*first.initial, *first.initial_negatives]
    assert shown and all(vocab.is_noun(w) for w in shown)
    assert all(w.startswith("p") for w in first.initial) and not any(
        w.startswith("p") for w in first.initial_negatives
    )
    assert game.outcome().metrics["domain"] == "nouns"
    # a word the list has with no noun reading, and one it does not know
    assert (
        game.step(AskItem(item="pretty")).message
        == "No, you cannot bring pretty: it is not a single-word noun."
    )
    unknown = game.step(AskItem(item="pxyzzy"))
    assert unknown.answer is None and "word list does not know" in unknown.message
    # a guess about the letters is checked on nouns (as the player was told): asking about "pretty" costs nothing
    wrong = game.step(GuessRule(text="p and long", predicate='lambda w: w.startswith("p") and len(w) > 5'))
    assert wrong.verdict is False and game.guesses[-1]["code_check"] is False
    right = game.step(GuessRule(text="starts with p", predicate='lambda w: w.startswith("p")'))
    assert right.end_reason == "won" and game.guesses[-1]["decided_by"] == "predicate"


def test_the_noun_list_reads_as_a_person_would() -> None:
    assert [vocab.is_noun(w) for w in ("apple", "apples", "kite", "pretty", "quickly", "the")] == [
        True,
        True,
        True,
        False,
        False,
        None,
    ]
    only, also = vocab.nouns()
    assert "apple" in only and "kite" in also and not set(only) & set(also)
    assert set(only) | set(also) <= set(vocab.vocabulary())
