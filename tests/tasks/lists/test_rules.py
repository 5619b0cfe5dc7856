"""The list rules: published examples, near misses built by reasoning, chosen readings, input validation."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from tests.reference import reference
from wason.tasks.lists.rules import (
    SECOND_SET,
    SPLITS,
    ListRule,
    english,
    get_rule,
    is_prime,
    load_split,
    unrepresentable,
)

PILOT = {rule.short_rule: rule for rule in load_split("pilot")}
PHASE1 = {rule.short_rule: rule for rule in load_split("phase1")}


def cand(rank: int) -> ListRule:
    return get_rule("all", rank)


# ---------------------------------------------------------------------------------------------- splits


def test_split_sizes_cover_every_candidate_once() -> None:
    ranks = [rule.id for rule in load_split("all")] + [u.rank for u in unrepresentable()]
    assert sorted(ranks) == list(range(1, 61))
    assert len(load_split("pilot")) == 10
    assert len(load_split("second")) == 10
    assert len(load_split("phase1")) == 8


def test_unrepresentable_rules_carry_reasons() -> None:
    left_out = unrepresentable()
    assert [u.rank for u in left_out] == [46]
    assert all(u.reason and u.text for u in left_out)


def test_second_split_is_the_purple_set_and_interleaves_the_pilot() -> None:
    second = [rule.id for rule in load_split("second")]
    pilot = [rule.rank for rule in load_split("pilot")]
    # The purple sample takes every sixth rank starting at 6; the blue (pilot) one every sixth starting at 3.
    assert second == list(range(6, 61, 6))
    assert pilot == list(range(3, 61, 6))


def test_package_data_reproduces_the_reference() -> None:
    ref = json.loads(reference("numberwang", "rules.json").read_text(encoding="utf-8"))
    purple = [c["rank"] for c in ref["candidates"] if c["set"] == SECOND_SET]
    assert [rule.id for rule in load_split("second")] == purple
    by_rank = {c["rank"]: c["text"] for c in ref["candidates"]}
    assert all(rule.text == by_rank[rule.id] for rule in load_split("all"))
    for split in ("pilot", "phase1"):
        texts = [(e["rule"], [tuple(x) for x in e["examples"]]) for e in ref[split]]
        assert [(r.text, list(r.examples)) for r in load_split(split)] == texts


def test_pilot_rules_share_their_candidates_predicates() -> None:
    for rule in load_split("pilot"):
        assert rule.rank is not None
        assert rule.predicate is cand(rule.rank).predicate


def test_unknown_split_and_id_raise() -> None:
    with pytest.raises(ValueError, match="unknown lists split"):
        load_split("nope")
    with pytest.raises(ValueError, match="no rule"):
        get_rule("all", 46)


# ---------------------------------------------------------------------------------------------- published examples


@pytest.mark.parametrize("rule", load_split("pilot"), ids=lambda r: r.short_rule)
def test_pilot_examples_satisfy_their_rule(rule: ListRule) -> None:
    assert len(rule.examples) == 3
    assert all(rule(list(ex)) for ex in rule.examples)


KNOWN_BAD_EXAMPLE = ("alternating increase decrease", (9, 14, 19))


@pytest.mark.parametrize("rule", load_split("phase1"), ids=lambda r: r.short_rule)
def test_phase1_examples_satisfy_their_rule_except_the_known_error(rule: ListRule) -> None:
    for ex in rule.examples:
        if (rule.short_rule, ex) == KNOWN_BAD_EXAMPLE:
            continue
        assert rule(list(ex)), ex


def test_known_example_error_is_rejected() -> None:
    rule = PHASE1[KNOWN_BAD_EXAMPLE[0]]
    assert KNOWN_BAD_EXAMPLE[1] in rule.examples
    # 9 -> 14 -> 19 rises twice: the differences do not alternate in sign.
    assert not rule(list(KNOWN_BAD_EXAMPLE[1]))


# Each near miss breaks its rule in one place, by construction (reason in the comment).
NEAR_MISSES = {
    "strictly increasing order": [2, 5, 5],  # a tie is not an increase
    "no repeated numbers": [4, 11, 8, 4],  # 4 repeats
    "mult 3 or 5 not both": [9, 25, 15],  # 15 is a multiple of both
    "converging toward center": [5, 24, 25],  # 25 is outside (5, 24)
    "odd number of odd numbers": [15, 7, 12],  # two odds
    "prime number of elements": [8, 13, 2, 12],  # four items
    "previous or sum": [3, 3, 6, 9, 10],  # 10 is neither 9 nor 6 + 9
    "collatzish": [12, 6, 3, 10],  # 3 is odd, so 16 must follow
    "divisible or plus 13": [2, 6, 19, 38, 50],  # 50 is neither a multiple of 38 nor 51
    "previous over 17": [4, 2, 1, 6],  # 1 / 17 = 0.0588..., so 5 must follow
}


@pytest.mark.parametrize("short", sorted(NEAR_MISSES))
def test_pilot_rule_rejects_a_near_miss(short: str) -> None:
    assert not PILOT[short](NEAR_MISSES[short])


# ---------------------------------------------------------------------------------------------- chosen readings


def test_in_between_is_strict() -> None:
    rule = PILOT["converging toward center"]
    assert rule([5, 24, 17])
    assert not rule([5, 24, 24])  # inclusive reading would accept
    assert not rule([5, 24, 5])
    assert rule([5, 5])  # the first two are free, equal or not


def test_previous_or_sum_element_two_must_repeat_element_one() -> None:
    rule = PILOT["previous or sum"]
    assert rule([3, 3, 6])
    assert not rule([3, 5, 8])  # 8 = 3 + 5, so only an unconstrained element 2 would accept this
    assert rule([3, 3, 3, 6])  # repeats are allowed after the start too


def test_divisible_means_multiple_of_the_previous_element() -> None:
    rule = PILOT["divisible or plus 13"]
    assert rule([5, 6, 12])
    assert not rule([5, 6, 3])  # 3 divides 6, which is the other reading
    assert rule([6, 2])  # the first two are free
    assert rule([7, 3, 16])  # 3 + 13


def test_divisible_by_zero_means_zero() -> None:
    rule = PILOT["divisible or plus 13"]
    assert rule([1, 0, 0])
    assert not rule([1, 0, 5])
    assert rule([1, 0, 13])  # 0 + 13
    assert rule([1, 5, 0])  # 0 is a multiple of 5


def test_previous_over_17_after_zero_fails_and_sign_is_ignored() -> None:
    rule = PILOT["previous over 17"]
    assert not rule([0, 0])
    assert rule([0])
    assert rule([-4, 2])  # 4 / 17 = 0.235...


def test_collatzish_on_negative_numbers() -> None:
    rule = PILOT["collatzish"]
    assert rule([-3, -14, -7, -34])
    assert not rule([-3, -16])


@pytest.mark.parametrize(
    ("rank", "yes", "no"),
    [
        (2, [4, 6, 9], [4, 6, 10]),
        (2, [5, 0, 0], [0, 0, 5]),
        (6, [1, 3], [13, 23]),  # the number 3, not the digit
        (10, [-1, 0, 3, 8], [2]),
        (17, [0, 1, 2, 9, -7], [3]),
        (20, [0], []),
        (24, [10, 7], [10, 6]),  # absolute difference 3 is prime
        (32, [1], []),
        (38, [12, 23, 31], [12, 32]),
        (41, [10, 23], [10, 21]),
        (43, [5, 8, 3, -5], [5, 8, 4]),
        (49, [10, 7, 4, 3, 2, 2], [10, 6]),  # ceiling(1.2^10) = ceiling(6.19...) = 7
        (50, [3, 9, 5, 7], [3, 9, 20]),  # |9 + 3 - 7| = 5, not |3 * 9 - 7| = 20
        (54, [12, 15, 21, 33], [12, 18]),  # the published example; 18 would count 1 as a nonprime
        (55, [1, 2, 3, 2, 0], [1, 2, 3, 6]),  # |3 - 1| = 2, not |3 - 3 * 3| = 6
        (56, [8, 8, 2, 3, 5, 2, 9, 4, 1, 1, 7, 6, 4, 7, 0, 5, 8], [8, 2]),
        (58, [2, 4, 6, 30, 32, 44, 66, 2000, 4000000], [-2]),
        (60, [0, 1, 2, 3, 5, 8, 1258], [4, 16]),
    ],
)
def test_candidate_readings(rank: int, yes: list[int], no: list[int]) -> None:
    rule = cand(rank)
    assert rule(yes)
    assert not rule(no)


def test_english_spelling() -> None:
    assert english(101) == "one hundred one"
    assert english(-40) == "negative forty"
    assert english(10**36) is None
    assert not cand(58)([10**36])


def test_primality_matches_trial_division() -> None:
    def slow(n: int) -> bool:
        return n >= 2 and all(n % d for d in range(2, int(n**0.5) + 1))

    assert [n for n in range(-5, 2000) if is_prime(n)] == [n for n in range(-5, 2000) if slow(n)]


def test_huge_sequential_inputs_stay_fast() -> None:
    # A model may propose huge numbers; these must be decided without computing 1.2^(10^9) or pi(10^18).
    assert not cand(49)([10**9, 5])
    assert not cand(54)([10**18, 3])


def test_every_rule_labels_lists_at_the_value_bounds_of_a_test_list() -> None:
    # The protocol reads integers of up to 1,000 characters; a float of one would overflow (1.2 ** p, y / ln y).
    top, bottom = 10**1000 - 1, -(10**999 - 1)
    assert not cand(49)([top, 5]) and not cand(49)([bottom * -10, 1])
    assert cand(49)([bottom, 1]) and cand(49)([5, 3, 2])  # ceil(1.2 ** p) is 1 for p <= 0
    assert not cand(54)([top, 3]) and not cand(54)([top, 3 * top]) and not cand(54)([bottom, 3])
    assert cand(10)([top]) and cand(17)([bottom])  # 10**1000 is a square, -(10**999) a cube
    lists = [[top], [bottom], [bottom, top], [top, top], [6, top, 3], [top, 0, bottom, 9]]
    for split in ("pilot", "phase1", "all"):
        for rule in load_split(split):
            for xs in lists:
                assert rule(xs) in (True, False), (rule.key, xs)


# ---------------------------------------------------------------------------------------------- edge cases


def test_empty_and_singleton_lists() -> None:
    assert PILOT["strictly increasing order"]([])
    assert not PILOT["odd number of odd numbers"]([])
    assert not PILOT["prime number of elements"]([])
    assert not cand(11)([])  # no first item to duplicate
    for short in ("converging toward center", "previous or sum", "collatzish", "divisible or plus 13"):
        assert PILOT[short]([7]), short


@pytest.mark.parametrize(
    "bad",
    [[2.5], [2.0], [True, 2], [1, False], ["3"], [[1]], "123", None, 3, {1, 2}, [1, None]],
    ids=repr,
)
def test_non_integer_input_is_no(bad: object) -> None:
    for rule in load_split("all"):
        assert not rule(bad), rule.key


def test_tuples_and_numpy_integers_are_integers() -> None:
    rule = PILOT["strictly increasing order"]
    assert rule((1, 2, 3))
    assert rule([np.int64(1), np.int32(2)])
    assert not rule([np.float64(1.0), 2])


# ---------------------------------------------------------------------------------------------- determinism


def test_verdicts_are_deterministic() -> None:
    rng = random.Random(20260)
    lists = [[rng.randint(-30, 120) for _ in range(rng.randint(0, 7))] for _ in range(300)]
    first = {r.key: [r(xs) for xs in lists] for s in SPLITS for r in load_split(s)}
    second = {r.key: [r(xs) for xs in lists] for s in SPLITS for r in load_split(s)}
    assert first == second
