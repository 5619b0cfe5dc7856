"""Generated examples: every list is checked against the rule's own predicate, which is the oracle here."""

from __future__ import annotations

import pytest

from wason.tasks.lists.examples import (
    COMPLETED,
    GUIDED,
    SAMPLED,
    generate_examples,
    generate_examples_with_provenance,
)
from wason.tasks.lists.rules import ListRule, load_split

RULES = [rule for split in ("pilot", "second", "all", "phase1") for rule in load_split(split)]


@pytest.mark.parametrize("rule", RULES, ids=[rule.key for rule in RULES])
def test_examples_are_accepted_distinct_varied_and_reproducible(rule: ListRule) -> None:
    examples = generate_examples(rule, seed=7)
    assert len(examples) == 3
    for xs in examples:
        assert rule.accepts(xs), (rule.key, xs)
        # Trivial lists ([] or one item) teach nothing; every rule here allows longer ones.
        assert len(xs) >= 3
    assert len({tuple(xs) for xs in examples}) == 3
    assert len({len(xs) for xs in examples}) > 1
    assert generate_examples(rule, seed=7) == examples


@pytest.mark.parametrize("split", ["pilot", "second"])
def test_different_seeds_usually_differ(split: str) -> None:
    for rule in load_split(split):
        draws = {tuple(map(tuple, generate_examples(rule, seed=seed))) for seed in range(3)}
        assert len(draws) > 1, rule.key


def test_more_examples_stay_accepted_and_distinct() -> None:
    for rule in load_split("pilot"):
        examples = generate_examples(rule, seed=3, k=6)
        assert len({tuple(xs) for xs in examples}) == 6
        assert all(rule.accepts(xs) for xs in examples)


def test_provenance_records_one_known_method_per_example() -> None:
    rule = load_split("pilot")[7]
    examples, provenance = generate_examples_with_provenance(rule, seed=11, k=4)
    assert len(provenance.methods) == len(examples)
    assert set(provenance.methods) <= {SAMPLED, COMPLETED, GUIDED}
    assert provenance.rule_key == rule.key
    # The provenance does not change what generate_examples returns for the same seed.
    assert generate_examples(rule, seed=11, k=4) == examples


def test_unsatisfiable_rule_raises_naming_the_rule() -> None:
    impossible = ListRule(split="test", id=99, text="nothing fits", predicate=lambda xs: False)
    with pytest.raises(ValueError, match="test/99"):
        generate_examples(impossible, seed=0, k=1)


def test_k_below_one_is_rejected() -> None:
    with pytest.raises(ValueError, match="k must be at least 1"):
        generate_examples(load_split("pilot")[0], seed=0, k=0)
