"""The list-rule judge: probe sets are seeded and reach the boundary; verdicts and quizzes are right."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pydantic
import pytest

from wason.tasks.lists.examples import generate_examples
from wason.tasks.lists.judge import (
    JUDGE_MAX_STEPS,
    PROBES_VERSION,
    ListVerdict,
    Rule,
    judge_list_predicate,
    list_probes,
    mutations,
    quiz_lists,
)
from wason.tasks.lists.language import LANGUAGE_VERSION, MAX_STEPS
from wason.tasks.lists.rules import get_rule


def strictly_increasing(xs: Sequence[int]) -> bool:
    return all(a < b for a, b in itertools.pairwise(xs))


def all_non_negative(xs: Sequence[int]) -> bool:
    return all(x >= 0 for x in xs)


def sums_to_137(xs: Sequence[int]) -> bool:
    return sum(xs) == 137


def squares_minus_ten(xs: Sequence[int]) -> bool:
    return all(b == a * a - 10 for a, b in itertools.pairwise(xs))


def first_is_zero(xs: Sequence[int]) -> bool:
    return len(xs) > 0 and xs[0] == 0


INCREASING_POSITIVES = [(1, 2, 3), (2, 5, 9, 10), (-4, 0, 7)]


def _judge(rule: Rule, source: str, positives: Sequence[Sequence[int]] = (), seed: int = 0) -> ListVerdict:
    return judge_list_predicate(rule, source, seed=seed, key="test", positives=positives)


# ------------------------------------------------------------------------------------------ probes


def test_probes_are_deterministic_under_seed() -> None:
    state = random.getstate()
    a = list_probes(strictly_increasing, seed=3, key="k", positives=INCREASING_POSITIVES)
    assert random.getstate() == state  # never the global generator
    b = list_probes(strictly_increasing, seed=3, key="k", positives=INCREASING_POSITIVES)
    assert a == b
    assert a != list_probes(strictly_increasing, seed=4, key="k", positives=INCREASING_POSITIVES)
    assert a != list_probes(strictly_increasing, seed=3, key="other", positives=INCREASING_POSITIVES)


def test_probe_set_size_values_and_contents() -> None:
    probes = list_probes(strictly_increasing, seed=0, key="k", positives=INCREASING_POSITIVES)
    assert 1500 <= len(probes) <= 2500
    assert len(set(probes)) == len(probes)
    assert all(isinstance(p, tuple) and all(type(v) is int for v in p) for p in probes)
    # integers as large as a test list may hold (1,000 digits) come only from the few lists built for them:
    # mutations and the other random lists stay within 30 digits
    assert max(len(str(abs(v))) for p in probes for v in p) == 1000
    assert all(len(p) <= 8 for p in probes if any(abs(v) > 10**30 for v in p))
    assert {len(p) for p in probes} >= set(range(10))
    assert () in probes
    for positive in INCREASING_POSITIVES:
        assert positive in probes
    # near misses of a positive: one item changed by one, two items swapped, an item deleted or duplicated
    assert (1, 2, 4) in probes and (2, 1, 3) in probes and (1, 3) in probes and (1, 2, 2, 3) in probes
    accepted = sum(strictly_increasing(p) for p in probes)
    assert 0.1 < accepted / len(probes) < 0.9


def test_positives_are_mutated_into_near_misses() -> None:
    probes = list_probes(sums_to_137, seed=0, key="k", positives=[(100, 37)])
    assert (100, 38) in probes and (100, 36) in probes and (101, 37) in probes
    assert sum(sums_to_137(p) for p in probes) >= 5  # accepted near misses are mutated again


def test_mutations_are_small_edits() -> None:
    found = mutations((3, 5, 7), random.Random(0))
    assert (3, 5, 8) in found and (5, 3, 7) in found and (7, 5, 3) in found and (3, 5, 7, 9) in found
    assert () in found and (3,) in found
    assert all(len(m) <= 12 for m in found)
    assert mutations((), random.Random(0))


# ------------------------------------------------------------------------------------------ verdicts


@pytest.mark.parametrize(
    "source",
    [
        "lambda xs: all(a < b for a, b in zip(xs, xs[1:]))",
        "lambda xs: sorted(set(xs)) == xs",
        "lambda xs: all(xs[i] < xs[i + 1] for i in range(len(xs) - 1))",
        "def increasing(nums):\n    return not any(b <= a for a, b in zip(nums, nums[1:]))",
        "```python\nlambda xs: len(xs) < 2 or min(b - a for a, b in zip(xs, xs[1:])) > 0\n```",
    ],
)
def test_equivalent_predicates_written_differently(source: str) -> None:
    verdict = _judge(strictly_increasing, source, INCREASING_POSITIVES)
    assert verdict.equivalent, verdict.counterexamples
    assert verdict.agreement == 1.0
    assert verdict.false_positives == verdict.false_negatives == verdict.errors == 0
    assert verdict.counterexamples == []
    assert verdict.rejection is None
    assert verdict.rule_positives == sum(
        strictly_increasing(p)
        for p in list_probes(strictly_increasing, seed=0, key="test", positives=INCREASING_POSITIVES)
    )


def test_near_miss_non_strict_order_is_caught() -> None:
    verdict = _judge(
        strictly_increasing, "lambda xs: all(a <= b for a, b in zip(xs, xs[1:]))", INCREASING_POSITIVES
    )
    assert not verdict.equivalent
    assert verdict.false_positives > 0 and verdict.false_negatives == 0
    assert 0.5 < verdict.agreement < 1.0
    assert 1 <= len(verdict.counterexamples) <= 5
    for example in verdict.counterexamples:
        assert example["rule"] is False and example["guess"] is True
        assert strictly_increasing(example["list"]) is False
        assert example["list"] == sorted(example["list"])  # a tie, the only thing <= adds
    # simplest first
    lengths = [len(e["list"]) for e in verdict.counterexamples]
    assert lengths == sorted(lengths)


def test_near_miss_strict_bound_is_caught() -> None:
    verdict = _judge(all_non_negative, "lambda xs: all(x > 0 for x in xs)", [(0, 4, 9)])
    assert not verdict.equivalent
    assert verdict.false_negatives > 0 and verdict.false_positives == 0
    assert all(0 in e["list"] for e in verdict.counterexamples)


def test_off_by_one_target_is_caught_by_near_misses() -> None:
    verdict = _judge(sums_to_137, "lambda xs: sum(xs) in (137, 138)", [(100, 37), (130, 7)])
    assert not verdict.equivalent
    assert verdict.false_positives > 0
    assert all(sum(e["list"]) == 138 for e in verdict.counterexamples)
    assert _judge(sums_to_137, "lambda xs: 136 < sum(xs) < 138", [(100, 37)]).equivalent


def test_counterexamples_show_both_kinds_of_mistake() -> None:
    verdict = _judge(strictly_increasing, "lambda xs: len(xs) == 2", INCREASING_POSITIVES)
    kinds = {(e["rule"], e["guess"]) for e in verdict.counterexamples}
    assert kinds == {(True, False), (False, True)}
    assert verdict.false_positives > 0 and verdict.false_negatives > 0


def test_runtime_errors_count_as_no() -> None:
    # xs[0] fails on the empty list, where the rule says No anyway: still equivalent, errors counted.
    verdict = _judge(first_is_zero, "lambda xs: xs[0] == 0", [(0, 1)])
    assert verdict.equivalent
    assert verdict.errors == 1
    assert (
        verdict.first_error is not None
        and "IndexError" in verdict.first_error
        and "[]" in verdict.first_error
    )
    # Where the rule says Yes, an error is a false negative: here on every list shorter than two.
    wrong = _judge(strictly_increasing, "lambda xs: xs[0] < xs[1] or len(xs) < 2", INCREASING_POSITIVES)
    assert not wrong.equivalent
    assert wrong.errors > 0 and wrong.false_negatives >= wrong.errors
    assert {"list": [], "rule": True, "guess": False} in wrong.counterexamples
    crashing = _judge(strictly_increasing, "lambda xs: 1 // len(xs) >= 0 and xs == sorted(set(xs))")
    assert crashing.errors == 1 and not crashing.equivalent
    assert {"list": [], "rule": True, "guess": False} in crashing.counterexamples


def test_rejected_source_gives_a_reason() -> None:
    verdict = _judge(strictly_increasing, "__import__('os').system('true')")
    assert verdict.rejection is not None and "double underscores" in verdict.rejection
    assert not verdict.equivalent
    assert verdict.agreement == 0.0
    assert verdict.probes == 0 and verdict.counterexamples == []
    assert verdict.probe_version == PROBES_VERSION and verdict.language_version == LANGUAGE_VERSION


def test_hostile_predicate_is_stopped_by_the_judgement_budget() -> None:
    verdict = _judge(strictly_increasing, "lambda xs: sum(range(10 ** 5)) + sum(range(10 ** 5)) > 0")
    assert verdict.errors == verdict.probes
    assert verdict.first_error is not None and "step budget" in verdict.first_error
    assert not verdict.equivalent
    assert verdict.probes > JUDGE_MAX_STEPS // MAX_STEPS


def test_verdict_is_frozen_serialisable_and_deterministic() -> None:
    source = "lambda xs: all(a <= b for a, b in zip(xs, xs[1:]))"
    verdict = _judge(strictly_increasing, source, INCREASING_POSITIVES, seed=5)
    assert verdict == _judge(strictly_increasing, source, INCREASING_POSITIVES, seed=5)
    assert verdict.seed == 5
    assert ListVerdict.model_validate_json(verdict.model_dump_json()) == verdict
    with pytest.raises(pydantic.ValidationError):
        verdict.equivalent = True


def test_fast_growing_rule_with_generated_examples() -> None:
    positives = [(3, -1, -9, 71), (4, 6, 26, 666)]
    right = _judge(
        squares_minus_ten, "lambda xs: all(b == a ** 2 - 10 for a, b in zip(xs, xs[1:]))", positives
    )
    assert right.equivalent
    wrong = _judge(squares_minus_ten, "lambda xs: all(b == a * a - 9 for a, b in zip(xs, xs[1:]))", positives)
    assert not wrong.equivalent


# Reference predicates for the ten pilot rules, written as a model would, judged on probes built from
# generated examples: every one must be equivalent, and a plausible near miss of some must not be.
PILOT_GUESSES = {
    1: "lambda xs: all(a < b for a, b in zip(xs, xs[1:]))",
    2: "lambda xs: len(set(xs)) == len(xs)",
    3: "lambda xs: all((x % 3 == 0) != (x % 5 == 0) for x in xs)",
    4: "lambda xs: all(min(a, b) < c < max(a, b) for a, b, c in zip(xs, xs[1:], xs[2:]))",
    5: "lambda xs: sum(x % 2 for x in xs) % 2 == 1",
    6: "lambda xs: is_prime(len(xs))",
    7: "lambda xs: (len(xs) < 2 or xs[1] == xs[0]) and all(c in (b, a + b) for a, b, c in zip(xs, xs[1:], xs[2:]))",
    8: "lambda xs: all(b == (a // 2 if a % 2 == 0 else 5 * a + 1) for a, b in zip(xs, xs[1:]))",
    9: "lambda xs: all((x == 0 if p == 0 else x % p == 0) or x == p + 13 for p, x in zip(xs[1:], xs[2:]))",
    10: "lambda xs: all(a != 0 and b == int(str(abs(a) * 1000 // 17)[0]) for a, b in zip(xs, xs[1:]))",
}
PILOT_NEAR_MISSES = {
    3: "lambda xs: all(x % 3 == 0 or x % 5 == 0 for x in xs)",
    6: "lambda xs: len(xs) in (2, 3, 5)",
    8: "lambda xs: all(b == (a // 2 if a % 2 == 0 else 3 * a + 1) for a, b in zip(xs, xs[1:]))",
    9: "lambda xs: all(x % p == 0 or x == p + 13 for p, x in zip(xs[1:], xs[2:]) if p != 0)",
}


@pytest.mark.parametrize("rule_id", sorted(PILOT_GUESSES))
def test_pilot_rules_reference_guesses(rule_id: int) -> None:
    rule = get_rule("pilot", rule_id)
    positives = generate_examples(rule, seed=1, k=3)
    verdict = judge_list_predicate(
        rule.predicate, PILOT_GUESSES[rule_id], seed=1, key=rule.key, positives=positives
    )
    assert verdict.equivalent, (rule.short_rule, verdict.counterexamples, verdict.first_error)
    assert 0 < verdict.rule_positives < verdict.probes
    near = PILOT_NEAR_MISSES.get(rule_id)
    if near is not None:
        missed = judge_list_predicate(rule.predicate, near, seed=1, key=rule.key, positives=positives)
        assert not missed.equivalent and missed.counterexamples
        for example in missed.counterexamples:
            assert rule.predicate(example["list"]) is example["rule"]


# ------------------------------------------------------------------------------------------ quiz


def test_quiz_is_balanced_labelled_and_held_out() -> None:
    rule = get_rule("pilot", 1)
    positives = generate_examples(rule, seed=2, k=3)
    probes = list_probes(rule.predicate, seed=2, key=rule.key, positives=positives)
    seen = [tuple(p) for p in positives] + list(probes[:300])
    quiz = quiz_lists(rule.predicate, seed=2, key=rule.key, positives=positives, n=10, exclude=seen)
    assert len(quiz) == 10
    assert sum(label for _, label in quiz) == 5
    assert all(rule.predicate(xs) is label for xs, label in quiz)
    assert not {xs for xs, _ in quiz} & set(seen)
    assert len({xs for xs, _ in quiz}) == 10
    assert quiz == quiz_lists(rule.predicate, seed=2, key=rule.key, positives=positives, n=10, exclude=seen)
    assert quiz != quiz_lists(rule.predicate, seed=3, key=rule.key, positives=positives, n=10, exclude=seen)


def test_quiz_rejected_lists_are_near_misses() -> None:
    quiz = quiz_lists(sums_to_137, seed=0, key="k", positives=[(100, 37), (130, 7), (50, 50, 37)], n=20)
    assert sum(label for _, label in quiz) == 10
    rejected = [xs for xs, label in quiz if not label]
    assert all(not sums_to_137(xs) for xs in rejected)
    assert sum(abs(sum(xs) - 137) <= 100 for xs in rejected) >= 5  # mostly edits of accepted lists


def test_quiz_falls_back_when_a_rule_has_few_positives() -> None:
    def only_two_lists(xs: Sequence[int]) -> bool:
        return tuple(xs) in ((7,), (7, 7))

    quiz = quiz_lists(only_two_lists, seed=0, key="k", positives=[(7,), (7, 7)], n=10, exclude=[(7,)])
    assert len(quiz) == 10
    assert [xs for xs, label in quiz if label] == [(7, 7)]  # the only accepted list not excluded
    assert all(only_two_lists(xs) is label for xs, label in quiz)

    def everything(xs: Sequence[int]) -> bool:
        return True

    quiz = quiz_lists(everything, seed=0, key="k", positives=[(1, 2)], n=6)
    assert len(quiz) == 6 and all(label for _, label in quiz)


def test_quiz_sizes() -> None:
    assert quiz_lists(strictly_increasing, seed=0, key="k", positives=INCREASING_POSITIVES, n=0) == []
    odd = quiz_lists(strictly_increasing, seed=0, key="k", positives=INCREASING_POSITIVES, n=7)
    assert len(odd) == 7 and sum(label for _, label in odd) == 3
    with pytest.raises(ValueError, match="n must be non-negative"):
        quiz_lists(strictly_increasing, seed=0, key="k", positives=INCREASING_POSITIVES, n=-1)
