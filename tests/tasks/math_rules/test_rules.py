"""The sequence grammar: determinism under seed, the levels' shapes, degenerate sequences and rejected rules."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from wason.tasks.math_rules.family import MathRunConfig, make_item, rule_from_item
from wason.tasks.math_rules.rules import (
    BOUND,
    LENGTH,
    MIN_GOOD_STARTS,
    OPERATIONS,
    MathRule,
    Op,
    degeneracy,
    draw_rule,
    draw_sequences,
    good_starts,
    rule_rejection,
    sequence,
    transitions,
)


@pytest.mark.parametrize("level", ["L1", "L2", "L3"])
def test_same_seed_same_rule_and_items(level: str) -> None:
    rules = [draw_rule(level, s).rule for s in range(40)]
    assert rules == [draw_rule(level, s).rule for s in range(40)]
    assert len(set(rules)) > 10  # seeds do differ
    config = MathRunConfig(level=level, n=5, seed=3)
    assert config.items() == MathRunConfig(level=level, n=5, seed=3).items()
    assert config.items() != MathRunConfig(level=level, n=5, seed=4).items()


def test_items_are_the_same_in_a_new_process() -> None:
    code = (
        "import json; from wason.tasks.math_rules.family import MathRunConfig;"
        "print(json.dumps(MathRunConfig(level='L3', n=4, seed=9).items()))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == json.loads(json.dumps(MathRunConfig(level="L3", n=4, seed=9).items()))


@pytest.mark.parametrize("level", ["L1", "L2", "L3"])
def test_drawn_rules_keep_their_levels_promises(level: str) -> None:
    for seed in range(150):
        rule = draw_rule(level, seed).rule
        assert rule.alternating == (level == "L3")
        for op in (rule.even, rule.odd):
            assert op.c in OPERATIONS[level][op.kind]
        assert len(good_starts(rule, level)) >= MIN_GOOD_STARTS
        for terms in draw_sequences(rule, level, random.Random(seed), 5):
            assert len(terms) == LENGTH and degeneracy(terms) is None
            assert all(type(t) is int and abs(t) <= BOUND for t in terms)
            assert (terms[0] <= 0) if level == "L2" else (0 <= terms[0] <= 10)
            assert all(rule.next(terms[k], k) == terms[k + 1] for k in range(LENGTH - 1))


def test_the_item_records_its_generator_and_rule() -> None:
    key, item = make_item("L2", 7, 3, 4)
    assert key == "L2|7|3" and len(item["examples"]) == 4
    rule = rule_from_item(item)
    assert item["rule"]["generator"] == "math_rules.grammar" and item["rule"]["version"] == 1
    assert item["rule"]["expression"] == rule.expression() and item["rule"]["code"] == rule.code()
    item["rule"]["text"] = "something else"
    with pytest.raises(ValueError, match="no longer"):
        rule_from_item(item)


@pytest.mark.parametrize(
    ("terms", "reason"),
    [
        ([0] * LENGTH, "all zero"),
        ([4] * LENGTH, "constant"),
        ([10, 5, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "settled"),
        ([1] * 14, "overflow"),  # stopped early
        ([*(2**k for k in range(14)), BOUND + 1], "overflow"),
        ([1, 2.5, *range(13)], "non-integer"),
        ([1, True, *range(13)], "non-integer"),
        (list(range(LENGTH)), None),
        ([3, 6, 3, 6, 3, 6, 3, 6, 3, 6, 3, 6, 3, 6, 3], None),  # periodic is not settled
    ],
)
def test_degenerate_sequences(terms: list[object], reason: str | None) -> None:
    assert degeneracy(terms) == reason


def test_mostly_degenerate_rules_are_rejected() -> None:
    # integer division alone settles at 0 from every start
    assert rule_rejection(MathRule(Op("floordiv", 2), Op("floordiv", 2)), "L1") is not None
    # multiplying is degenerate only from 0
    assert rule_rejection(MathRule(Op("mul", 3), Op("mul", 3)), "L1") is None
    assert good_starts(MathRule(Op("mul", 3), Op("mul", 3)), "L1") == list(range(1, 11))
    # the rejected draws are recorded with their reason
    rejected = [r for s in range(60) for r in draw_rule("L1", s).rejected]
    assert rejected and all("starts give a usable sequence" in reason for _, reason in rejected)
    assert all("divides" in text for text, _ in rejected)


def test_overflowing_sequences_stop_just_past_the_bound() -> None:
    terms = sequence(MathRule(Op("mul", 10), Op("mul", 10)), 10**11)
    assert len(terms) == 3 and abs(terms[-1]) > BOUND
    assert degeneracy(terms) == "overflow"


def test_rule_texts_and_code() -> None:
    rule = MathRule(Op("mul", 2), Op("add", -3))
    assert rule.text().startswith("For an even index the sequence multiplies the current value by 2;")
    assert rule.expression() == "lambda v, i: (v * 2) if i % 2 == 0 else (v - 3)"
    assert rule.code() == (
        "def generate_next(current_value, index):\n    if index % 2 == 0:\n        return current_value * 2\n"
        "    else:\n        return current_value - 3"
    )
    assert MathRule(Op("mul", -3), Op("mul", -3)).expression() == "lambda v, i: v * (-3)"
    assert MathRule.from_json(rule.as_json()) == rule
    with pytest.raises(ValueError, match="rule"):
        MathRule.from_json({"even": ["add"]})
    with pytest.raises(ValueError, match="kind"):
        Op("pow", 2)  # type: ignore[arg-type]


def test_transitions_are_the_rules_extension_from_the_levels_starts() -> None:
    rule = MathRule(Op("add", 5), Op("add", 5))
    points = transitions(rule, "L1")
    assert len(points) == 11 * 14
    assert all(w == v + 5 for v, _, w in points)
    assert {v for v, i, _ in points if i == 0} == set(range(11))
