"""The published rules as a split: counts per type and level, duplicates, relational rules, kinds and the
predicates written for the lexical ones."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from tests.reference import reference
from wason.sandbox.words import compile_word_rule
from wason.tasks.dynamic_picnic.rules import (
    RELATIONAL_REASON,
    RULE_TYPES,
    classify,
    counts,
    get_rule,
    kind_counts,
    lexical_predicate,
    playable,
    published_rules,
    rule_pool,
)

DATA = resources.files("wason.tasks.dynamic_picnic").joinpath("data")


def test_the_package_data_is_the_reference_byte_for_byte() -> None:
    folder = reference("guess_the_rule", "dynamic_picnic")
    names = sorted(p.name for p in folder.iterdir())
    assert len(names) == 34
    for name in names:
        assert DATA.joinpath(name).read_bytes() == (folder / name).read_bytes(), name


def test_counts_per_type_and_level_are_the_published_ones() -> None:
    table = counts(published_rules())
    expected = {
        "attribute_based": (13, 30, 37),
        "categorical": (2, 9, 69),
        "logical": (22, 9, 49),
        "relational": (7, 12, 71),
        "semantic": (1, 22, 57),
        "total": (45, 82, 283),
    }
    for name, (l1, l2, l3) in expected.items():
        assert (table[name]["L1"], table[name]["L2"], table[name]["L3"]) == (l1, l2, l3), name
    assert table["total"]["total"] == 410
    # every row of the files, in file order
    rows = [row for t in RULE_TYPES for row in json.loads(DATA.joinpath(f"{t}_rules.json").read_text())]
    assert [r.text for r in published_rules()] == [row["rule"] for row in rows]


def test_two_repeated_texts_are_dropped_from_the_distinct_pool_and_kept_in_the_published_one() -> None:
    repeats = [(r.id, r.duplicate_of, r.rule_type, r.level) for r in published_rules() if r.duplicate_of]
    assert repeats == [(95, 81, "categorical", "L3"), (329, 321, "relational", "L1")]
    assert get_rule(95).text == get_rule(81).text
    assert len(rule_pool("published", relational=True)) == 410
    assert len(rule_pool("distinct", relational=True)) == 408
    with pytest.raises(ValueError, match="pool"):
        rule_pool("everything")


def test_relational_rules_are_excluded_by_default_with_their_reason() -> None:
    relational = [r for r in published_rules() if r.relational]
    assert len(relational) == 90
    assert all(r.text.startswith("Pairs of items") and r.rejection == RELATIONAL_REASON for r in relational)
    assert not any(r.relational for r in rule_pool())
    assert len(rule_pool()) == 319  # 408 distinct, less 89 distinct relational rules
    # kept as an option: playable on single items unless they are lexical
    assert sum(playable(r, relational=True) for r in rule_pool(relational=True) if r.relational) == 88


def test_kinds_of_the_default_pool() -> None:
    pool = rule_pool()
    assert dict(kind_counts(pool)) == {"semantic": 223, "lexical": 68, "mixed": 28}
    played = [r for r in pool if playable(r)]
    # lexical 13: rule 161 ("only if it starts with a vowel, ...") has its predicate now (issue 49)
    assert dict(kind_counts(played)) == {"semantic": 223, "mixed": 28, "lexical": 13}
    assert counts(played)["total"] == {"L1": 38, "L2": 68, "L3": 158, "total": 264}
    rejected = [r for r in pool if not playable(r)]
    assert len(rejected) == 55
    assert all(r.kind == "lexical" and "needs a predicate" in (r.rejection or "") for r in rejected)


def test_every_written_predicate_is_in_the_word_language() -> None:
    written = [r for r in published_rules() if r.predicate]
    assert len(written) == 41
    for rule in written:
        assert compile_word_rule(rule.predicate or "").source == rule.predicate


@pytest.mark.parametrize(
    ("text_start", "yes", "no"),
    [
        ("Only items that are palindromes", ["kayak", "noon", "race car"], ["apple", "a", "picnic"]),
        ("Only items that have a double letter", ["apple", "coffee"], ["banana", "tea"]),
        ("Only items that start with the letter 'F'", ["fig", "frisbee"], ["apple", "leaf"]),
        ("Only items that can be typed using only the top row", ["pepper", "tree"], ["apple", ""]),
        ("Only items that have a prime number of letters", ["kayak", "egg", "tea cups"], ["pear", "banana"]),
        ("Only items that can be spelled without repeating", ["plum", "tea cup"], ["apple", "kiwi"]),
        ("Only items that contain the same number of consonants", ["noon", "banana"], ["apple", "kiwis"]),
        ("Only items that have their vowels in alphabetical order", ["banana", "facet"], ["fuel", "olive"]),
        ("Only items that, when translated into Morse Code", ["eat", "tea"], ["ace", "fig"]),
        ("Only items that are spelled with letters that, when converted", ["ab", "ad"], ["abc", "apple"]),
        (
            "The item can be brought to the picnic only if it starts with a vowel",
            ["apple", "olive", "egg"],
            ["area", "ava", "banana"],
        ),
    ],
)
def test_lexical_predicates_decide_membership(text_start: str, yes: list[str], no: list[str]) -> None:
    (rule,) = [r for r in published_rules() if r.text.startswith(text_start)]
    program = rule.program()
    assert rule.kind == "lexical" and program is not None and playable(rule)
    assert [w for w in yes if program(w)] == yes
    assert [w for w in no if program(w)] == []


def test_the_noun_and_letter_family_is_mixed_with_the_letter_decided_by_code() -> None:
    text = (
        "The item can be brought to the picnic only if its name is a single-word noun that starts with the "
        "letter 'P'."
    )
    kind, predicate = lexical_predicate(text) or ("", "")
    assert kind == "mixed"
    program = compile_word_rule(predicate)
    assert program("pear") and not program("apple") and not program("party hat")
    ends = "The item can be brought to the picnic only if its name is a single-word noun and ends with the letter 't'."
    assert compile_word_rule((lexical_predicate(ends) or ("", ""))[1])("kite") is False
    assert compile_word_rule((lexical_predicate(ends) or ("", ""))[1])("basket") is True


def test_a_lexical_rule_without_a_valid_predicate_is_rejected_with_the_reason() -> None:
    kind, reason = classify("Only items with an odd number of syllables.", None)
    assert kind == "lexical" and reason and "needs a predicate" in reason
    kind, reason = classify("Only items with three letters.", "lambda w: __import__('os')")
    assert kind == "lexical" and reason and "not in the word language" in reason
    kind, reason = classify("Only items found in a kitchen.", None)
    assert (kind, reason) == ("semantic", None)
    with pytest.raises(ValueError, match="ids"):
        get_rule(411)


def test_the_rules_command_states_the_counts(capsys: pytest.CaptureFixture[str]) -> None:
    from wason.cli import main

    assert main(["dynamic-picnic", "rules", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pool"]["total"]["total"] == 319 and data["playable"]["total"]["total"] == 264
    assert len(data["rejected"]) == 55 and data["kinds"] == {"lexical": 13, "mixed": 28, "semantic": 223}
    assert main(["dynamic-picnic", "rules", "--pool", "published", "--relational"]) == 0
    out = capsys.readouterr().out
    assert (
        "published pool with relational rules: 410 rules" in out and "rejected before play: 56" in out
    )  # 55, and one pair rule about letters
