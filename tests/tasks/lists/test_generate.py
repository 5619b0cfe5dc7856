"""The generated list split: deterministic under seed, playable rules (three positive examples each), honest
sources, distinct meanings, and a spread over tiers and families."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections import Counter

import pytest

from wason.tasks.lists.examples import generate_examples
from wason.tasks.lists.generate import (
    GENERATOR,
    MAX_SHARE,
    TIERS,
    VERSION,
    broad_sample,
    generate_rules,
    tier_cuts,
    tier_of,
)
from wason.tasks.lists.hypotheses import build_space, extension_probe, get_hypothesis
from wason.tasks.lists.rules import ListRule, is_prime


@pytest.fixture(scope="module")
def rules() -> list[ListRule]:
    return generate_rules(1, 30)


def _fingerprint(rules: list[ListRule]) -> list[tuple[object, ...]]:
    return [(r.id, r.text, r.source, r.difficulty, sorted((r.provenance or {}).items())) for r in rules]


def test_same_seed_same_rules_byte_for_byte_in_a_fresh_process(rules: list[ListRule]) -> None:
    # A fresh interpreter (with another hash seed) recomputes the space and the draw from nothing.
    code = (
        "from wason.tasks.lists.generate import generate_rules\n"
        "for r in generate_rules(1, 6):\n"
        "    print(r.id, r.provenance['key'], r.text, r.source, r.difficulty, sep='\\t')\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    expected = "".join(
        f"{r.id}\t{(r.provenance or {})['key']}\t{r.text}\t{r.source}\t{r.difficulty}\n" for r in rules[:6]
    )
    assert out.stdout == expected


def test_a_longer_split_extends_a_shorter_one_and_copies_are_fresh(rules: list[ListRule]) -> None:
    again = generate_rules(1, 30)
    assert again is not rules and again[0].provenance is not rules[0].provenance
    assert _fingerprint(again) == _fingerprint(rules)
    # n only says where to stop: the first 12 of 30 are the split of 12.
    assert _fingerprint(generate_rules(1, 12)) == _fingerprint(rules[:12])


def test_different_seeds_give_different_rules(rules: list[ListRule]) -> None:
    other = generate_rules(2, 6)
    keys = [(r.provenance or {})["key"] for r in rules[:6]]
    other_keys = [(r.provenance or {})["key"] for r in other]
    assert keys != other_keys
    assert len(set(keys) & set(other_keys)) < 3


def test_rules_are_well_formed_and_record_their_provenance(rules: list[ListRule]) -> None:
    assert [r.id for r in rules] == list(range(1, 31))
    for r in rules:
        assert r.split == "generated" and r.key == f"generated/{r.id}"
        assert r.text and r.text[0].isupper() and r.text.endswith(".")
        assert r.source is not None and r.source.startswith("lambda xs: ")
        prov = r.provenance or {}
        assert set(prov) == {"generator", "version", "seed", "key", "family", "complexity", "tier"}
        assert (prov["generator"], prov["version"], prov["seed"]) == (GENERATOR, VERSION, 1)
        h = get_hypothesis(prov["key"])
        assert (r.text, r.source) == (h.text, h.source)
        assert (prov["family"], prov["complexity"]) == (h.family, h.complexity)
        assert prov["tier"] == tier_of(h.complexity, tier_cuts(build_space()))
        assert r.difficulty == 1.0 + TIERS.index(prov["tier"])


@pytest.fixture(scope="module")
def examples(rules: list[ListRule]) -> dict[int, list[list[int]]]:
    """The three positive examples a game on each rule shows (drawn here, not taken from the generator)."""
    return {r.id: generate_examples(r, seed=0, k=3) for r in rules}


def test_every_rule_is_playable(rules: list[ListRule], examples: dict[int, list[list[int]]]) -> None:
    sample = broad_sample()
    for r in rules:
        shown = examples[r.id]
        assert len(shown) == 3
        assert all(len(xs) >= 3 and r.accepts(xs) for xs in shown), r.text
        assert len({x for xs in shown for x in xs}) > 1, r.text
        share = sum(r.accepts(xs) for xs in sample) / len(sample)
        assert share <= MAX_SHARE, r.text


def test_sources_agree_with_predicates(rules: list[ListRule], examples: dict[int, list[list[int]]]) -> None:
    lists = [*broad_sample()[:300], *(tuple(xs) for shown in examples.values() for xs in shown)]
    for r in rules:
        assert r.source is not None
        # Tests only, on the generator's own trusted strings.
        fn = eval(r.source, {"math": math, "is_prime": is_prime})
        assert all(fn(xs) == r.predicate(xs) for xs in lists), r.text


def test_rules_differ_in_meaning(rules: list[ListRule]) -> None:
    probe = extension_probe()
    extensions = {bytes(r.predicate(xs) for xs in probe) for r in rules}
    assert len(extensions) == len(rules)


def test_tiers_rotate_and_families_are_mixed(rules: list[ListRule]) -> None:
    tiers = [(r.provenance or {})["tier"] for r in rules]
    assert Counter(tiers) == {"easy": 10, "medium": 10, "hard": 10}
    assert tiers[:3] == list(TIERS)
    families = Counter((r.provenance or {})["family"] for r in rules)
    assert len(families) >= 4
    assert families["combination"] < 20  # a family is drawn first, so combinations do not crowd the split
    complexity = {t: [(r.provenance or {})["complexity"] for r in rules if (r.provenance or {})["tier"] == t]
                  for t in TIERS}  # fmt: skip
    assert max(complexity["easy"]) < min(complexity["medium"]) <= max(complexity["medium"])
    assert max(complexity["medium"]) < min(complexity["hard"])


def test_tier_cuts_split_the_space_near_thirds() -> None:
    space = build_space()
    cuts = tier_cuts(space)
    counts = Counter(tier_of(h.complexity, cuts) for h in space)
    assert set(counts) == set(TIERS)
    assert all(len(space) / 6 < counts[t] < len(space) / 2 for t in TIERS)


def test_a_split_of_100_works(rules: list[ListRule]) -> None:
    hundred = generate_rules(1, 100)
    assert _fingerprint(hundred[:30]) == _fingerprint(rules)
    assert len({(r.provenance or {})["key"] for r in hundred}) == 100
    assert Counter((r.provenance or {})["tier"] for r in hundred) == {"easy": 34, "medium": 33, "hard": 33}
    probe = extension_probe()
    assert len({bytes(r.predicate(xs) for xs in probe) for r in hundred}) == 100


@pytest.mark.parametrize("n", [0, -3])
def test_too_few_rules_is_an_error_naming_n(n: int) -> None:
    with pytest.raises(ValueError, match="n must be a positive integer"):
        generate_rules(1, n)


def test_more_rules_than_the_grammar_has_is_an_error_naming_n() -> None:
    with pytest.raises(ValueError, match=r"n=100000 is more than"):
        generate_rules(1, 100_000)


def test_the_bound_of_n_is_the_runs_bound_on_drawn_examples_which_the_grammar_exceeds() -> None:
    from wason.tasks.lists.family import MAX_DRAWN_EXAMPLES, MAX_GENERATED, SERVED_GENERATED, ListsRunConfig

    # every episode of a generated rule draws its examples, and a run draws them for at most 500 episodes: that
    # bound comes first (the grammar's rules are more; a slow test in tests/core/test_config_bounds.py draws 500)
    assert MAX_GENERATED == MAX_DRAWN_EXAMPLES < len(build_space())
    assert SERVED_GENERATED < MAX_GENERATED
    assert ListsRunConfig(split="generated", seed=1, n=MAX_GENERATED, judges=["predicate"]).n == MAX_GENERATED
    with pytest.raises(ValueError, match=f"less than or equal to {MAX_GENERATED}"):
        ListsRunConfig(split="generated", seed=1, n=MAX_GENERATED + 1, judges=["predicate"])
