"""The word list, the grammar of word properties, generated rules and the balance check."""

from __future__ import annotations

import numpy as np
import pytest

from wason.sandbox import compile_word_rule
from wason.tasks.code_functions.grammar import (
    ATOMS,
    LEVELS,
    SHAPES,
    atom_table,
    balance,
    extension,
    generate_rules,
    grammar_rule,
)
from wason.tasks.code_functions.vocabulary import VOCABULARY_TOP_N, sample_words, vocabulary


def test_the_word_list_is_wordfreqs_frequent_words_of_four_to_seven_letters() -> None:
    import wordfreq

    words = vocabulary()
    top = wordfreq.top_n_list("en", VOCABULARY_TOP_N)
    assert len(words) == len(set(words)) > 10_000
    assert all(w.isascii() and w.isalpha() and w.islower() and 4 <= len(w) <= 7 for w in words)
    # frequency order is kept: every word comes from the list, in the list's order
    positions = [top.index(w) for w in words[:200]]
    assert positions == sorted(positions)
    assert "that" in words and "the" not in words and "wonderful" not in words
    assert sample_words(3, 5) == sample_words(3, 5) != sample_words(4, 5)


def test_every_atoms_native_test_is_its_word_language_predicate() -> None:
    words = vocabulary()[::25]  # 425 words spread over the list; the slow test checks all of them
    table = atom_table()
    for k, atom in enumerate(ATOMS):
        program = compile_word_rule(f"lambda w: {atom.source}")
        assert [program(w) for w in words] == list(table[k, ::25]), atom.id


@pytest.mark.slow
def test_every_atom_agrees_with_its_predicate_on_every_word() -> None:
    table = atom_table()
    for k, atom in enumerate(ATOMS):
        program = compile_word_rule(f"lambda w: {atom.source}")
        assert [program(w) for w in vocabulary()] == list(table[k]), atom.id


def test_atoms_are_distinct_and_named_once() -> None:
    assert len({a.id for a in ATOMS}) == len(ATOMS) == 94
    assert len({a.source for a in ATOMS}) == len(ATOMS)
    kinds = {a.kind for a in ATOMS}
    for wanted in (
        "length",
        "first",
        "last",
        "vowels",
        "consonants",
        "double",
        "repeat",
        "order",
        "contains",
        "substring",
        "mirror",
        "position",
    ):
        assert wanted in kinds


@pytest.mark.parametrize("level", LEVELS)
def test_generated_rules_are_seeded_balanced_distinct_and_of_their_level(level: str) -> None:
    rules = generate_rules(level, 7, 15)
    assert [r.to_json() for r in rules] == [r.to_json() for r in generate_rules(level, 7, 15)]
    assert [r.key for r in rules] != [r.key for r in generate_rules(level, 8, 15)]
    extensions = set()
    for rule in rules:
        assert rule.level == level and rule.shape in SHAPES[level]
        kinds = [a.kind for a in ATOMS if a.id in rule.atoms]
        assert len(set(kinds)) == len(rule.atoms)  # never two atoms of one kind
        truth = extension(rule)
        assert 0.10 <= truth.mean() <= 0.90
        check = rule.provenance["balance"]
        assert 4 < check["sample_true"] < 46 and check["published_ok"] and check["vocabulary_ok"]
        assert rule.provenance["generator"] == "code-functions-grammar" and rule.provenance["seed"] == 7
        assert rule.provenance["min_effect"] >= 0.01  # every atom decides at least 1% of the words
        extensions.add(truth.tobytes())
        program = compile_word_rule(rule.source)  # the predicate the player is judged against
        sample = vocabulary()[::97]
        assert [program(w) for w in sample] == list(truth[::97])
        assert rule.text.startswith(("The word", "Either the word"))
    assert len(extensions) == len(rules)


def test_the_l1_pool_is_finite_and_a_larger_request_says_so() -> None:
    with pytest.raises(ValueError, match="balanced L1 rules"):
        generate_rules("L1", 0, 500)
    with pytest.raises(ValueError, match="level must be one of"):
        generate_rules("L4", 0, 1)
    with pytest.raises(ValueError, match="n must be at least 1"):
        generate_rules("L1", 0, 0)


def test_the_balance_check_is_the_published_one_on_fifty_words() -> None:
    n = len(vocabulary())
    never = np.zeros(n, dtype=bool)
    always = np.ones(n, dtype=bool)
    assert not balance(never, 1).ok and balance(never, 1).sample_true == 0
    assert not balance(always, 1).ok and "46" in (balance(always, 1).reason() or "")
    half = np.arange(n) % 2 == 0
    check = balance(half, 1)
    assert check.ok and check.reason() is None and check.sample_size == 50
    # 7% of the words: passes the 50-word check on some draws by luck, never the whole-list bound
    rare = np.arange(n) % 14 == 0
    lucky = [s for s in range(100) if balance(rare, s).published_ok]
    assert lucky, "no draw of 50 words found more than 4 of the rule's words"
    check = balance(rare, lucky[0])
    assert (
        not check.ok
        and not check.vocabulary_ok
        and "of the word list (needs 10%-90%)" in (check.reason() or "")
    )


def test_an_atom_that_decides_almost_nothing_is_a_simpler_rule_in_disguise() -> None:
    from wason.tasks.code_functions.grammar import ATOM_INDEX, effect

    table = atom_table()
    atoms = [table[ATOM_INDEX[a]] for a in ("len_ge_6", "palindrome", "third_vowel")]
    # (at least 6 letters and a palindrome) or third letter a vowel: the first part holds for almost no word
    assert effect("and_or", atoms) < 0.001
    atoms = [table[ATOM_INDEX[a]] for a in ("len_ge_6", "first_vowel", "third_vowel")]
    assert effect("and_or", atoms) > 0.01
    assert effect("one", atoms[:1]) == 1.0


def test_grammar_rules_read_as_text_and_predicate() -> None:
    rule = grammar_rule("or_and", ["first_vowel", "last_e", "len_eq_5"], "L3")
    assert rule.source == 'lambda w: ((w[0] in "aeiou") or (w[-1] == "e")) and (len(w) == 5)'
    assert (
        rule.text
        == "The word has exactly 5 letters, and also starts with a vowel or ends with 'e' (or both)."
    )
    program = compile_word_rule(rule.source)
    assert program("apple") and program("horse") and not program("house!"[:5] + "s") and not program("apples")
    with pytest.raises(ValueError, match="takes 3 atoms"):
        grammar_rule("and3", ["first_vowel"], "L3")
