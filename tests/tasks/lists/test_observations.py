"""Issue 48, part 2: every list the episode labelled is in every predicate verdict, with the label shown, and the
sampled probes reach the length and value bounds of a test list."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from typing import Any

import pytest

from wason.core.game import Malformed
from wason.tasks.lists.family import list_positives
from wason.tasks.lists.game import (
    FinalHypothesis,
    ListsConfig,
    ListsGame,
    PredicateAnswer,
    QuizAnswer,
    TestRound,
)
from wason.tasks.lists.judge import (
    JUDGE_MAX_STEPS,
    LARGEST_TEST_INTEGER,
    LONG_LENGTHS,
    PROBES_VERSION,
    SMALLEST_TEST_INTEGER,
    ListVerdict,
    judge_list_predicate,
    list_probes,
)
from wason.tasks.lists.language import LANGUAGE_VERSION, MAX_STEPS, ListEvalError, compile_list_predicate
from wason.tasks.lists.protocol import MAX_NUMBER_CHARS, ListsProtocol
from wason.tasks.lists.rules import ListRule, get_rule

PRIME_LENGTH = get_rule("pilot", 6)
INCREASING = get_rule("pilot", 1)
INCREASING_SOURCE = "lambda xs: all(a < b for a, b in zip(xs, xs[1:]))"


def strictly_increasing(xs: Sequence[int]) -> bool:
    return all(a < b for a, b in itertools.pairwise(xs))


def _game(rule: ListRule, seed: int = 0, **kwargs: Any) -> ListsGame:
    """A game as the family builds it: the rule's examples, drawn positives, the predicate judge."""
    config = kwargs.pop("config", ListsConfig(judges=("predicate",), probe_seed=seed))
    game = ListsGame(rule, rule.examples, config, positives=list_positives(rule, seed), **kwargs)
    game.start()
    return game


def _judged(game: ListsGame, source: str) -> ListVerdict:
    game.step(FinalHypothesis("the rule"))
    game.step(PredicateAnswer(source))
    assert game.predicate_verdict is not None
    return game.predicate_verdict


# ------------------------------------------------------------------------------------- the user's case


@pytest.mark.parametrize("seed", range(5))
def test_a_yes_on_a_thirteen_item_list_refutes_a_length_whitelist(seed: int) -> None:
    game = _game(PRIME_LENGTH, seed)
    one_to_thirteen = tuple(range(1, 14))
    assert game.step(TestRound((one_to_thirteen,))).labels == (True,)
    verdict = _judged(game, "lambda xs: len(xs) in [2, 3, 5, 7, 11]")
    assert not verdict.equivalent
    assert verdict.decided_by_observation and verdict.observation_mismatches == 1
    assert verdict.counterexamples[0] == {"list": list(one_to_thirteen), "rule": True, "guess": False}
    assert verdict.n_observations == len(PRIME_LENGTH.examples) + 1
    # the rule itself, written as a player would, agrees with everything the player saw and every sample
    right = _judged(_game(PRIME_LENGTH, seed), "lambda xs: is_prime(len(xs))")
    assert right.equivalent and not right.decided_by_observation


@pytest.mark.parametrize("seed", range(5))
def test_a_length_cap_on_strictly_increasing_is_refuted_without_any_observation(seed: int) -> None:
    capped = "lambda xs: all(a < b for a, b in zip(xs, xs[1:])) and len(xs) <= 10"
    verdict = _judged(_game(INCREASING, seed), capped)
    assert not verdict.equivalent and verdict.false_positives == 0
    assert not verdict.decided_by_observation  # the sampled long lists found it
    for example in verdict.counterexamples:
        assert len(example["list"]) > 10 and strictly_increasing(example["list"])
        assert example == {"list": example["list"], "rule": True, "guess": False}


def test_a_guess_contradicting_a_no_label_is_refuted_by_that_list() -> None:
    game = _game(INCREASING)
    odd_one = (907, 12, 5)
    assert game.step(TestRound(((1, 2), odd_one))).labels == (True, False)
    verdict = _judged(game, "lambda xs: all(a < b for a, b in zip(xs, xs[1:])) or xs == [907, 12, 5]")
    assert not verdict.equivalent
    # no sampled list is that one: the observation alone decides the verdict
    assert verdict.counterexamples == [{"list": list(odd_one), "rule": False, "guess": True}]
    assert verdict.false_positives == 1 and verdict.false_negatives == 0
    assert verdict.decided_by_observation and verdict.observation_mismatches == 1


def test_the_label_shown_counts_even_where_the_rules_code_disagrees() -> None:
    async def wrong_labeller(rule: str, cases: Sequence[object]) -> list[bool | None]:
        return [True] * len(cases)  # says Yes to [2, 1], which is not increasing

    game = _game(INCREASING, labeller=wrong_labeller)
    action = TestRound(((2, 1),))
    asyncio.run(game.settle(action))
    assert game.step(action).labels == (True,)
    verdict = _judged(game, INCREASING_SOURCE)
    assert not verdict.equivalent and verdict.decided_by_observation
    assert verdict.counterexamples == [{"list": [2, 1], "rule": True, "guess": False}]


def test_every_labelled_list_is_an_observation_with_its_label() -> None:
    game = _game(INCREASING)
    game.step(TestRound(((1, 2), (2, 1), (1.5, 2), ("a",), (1, 2))))
    game.step(Malformed("unreadable"))
    game.step(TestRound(((), (5, 9, 40))))
    examples = [(e, True) for e in INCREASING.examples]
    tested = [((1, 2), True), ((2, 1), False), ((1, 2), True), ((), True), ((5, 9, 40), True)]
    assert list(game.observations()) == [*examples, *tested]  # non-integer lists are left out
    verdict = _judged(game, INCREASING_SOURCE)
    assert verdict.equivalent
    assert verdict.n_observations == len(set(game.observations()))
    found = [xs for xs, label in tested if label]
    probes = list_probes(
        INCREASING.predicate,
        seed=0,
        key=INCREASING.key,
        positives=[*INCREASING.examples, *list_positives(INCREASING, 0), *found],  # as the game passes them
        observations=game.observations(),
    )
    assert verdict.probes == len(probes)
    assert list(probes[: verdict.n_observations]) == list(dict.fromkeys(xs for xs, _ in game.observations()))


def test_long_and_huge_observations_are_probed_and_judged() -> None:
    long_yes = tuple(range(-500, 1500, 3))  # 667 items
    huge_yes = (SMALLEST_TEST_INTEGER, 0, 7, LARGEST_TEST_INTEGER)
    huge_no = (LARGEST_TEST_INTEGER, SMALLEST_TEST_INTEGER)
    observations = [(long_yes, True), (huge_yes, True), (huge_no, False)]
    right = judge_list_predicate(
        strictly_increasing, INCREASING_SOURCE, seed=0, key="k", observations=observations
    )
    assert right.equivalent and right.n_observations == 3
    capped = judge_list_predicate(
        strictly_increasing,
        "lambda xs: all(a < b for a, b in zip(xs, xs[1:])) and max(map(abs, xs), default=0) < 10 ** 100",
        seed=0,
        key="k",
        observations=observations,
    )
    assert not capped.equivalent and capped.decided_by_observation
    assert {"list": list(huge_yes), "rule": True, "guess": False} in capped.counterexamples


def test_an_unevaluated_probe_is_never_taken_as_agreement() -> None:
    # Every list costs the guess the whole per-list budget, so the judgement's budget runs out after a few; the
    # rule says No everywhere and an error counts as No, so only the unevaluated probes stand in the way.
    def never(xs: Sequence[int]) -> bool:
        return False

    hostile = "lambda xs: sum(range(10 ** 5)) + sum(range(10 ** 5)) < 0"
    observations = [((1, 2, 3), False)] * 3 + [(tuple(range(n)), False) for n in range(40)]
    verdict = judge_list_predicate(never, hostile, seed=0, key="k", observations=observations)
    assert verdict.false_positives == verdict.false_negatives == 0
    assert not verdict.equivalent
    assert verdict.probes > JUDGE_MAX_STEPS // MAX_STEPS and verdict.errors == verdict.probes
    assert judge_list_predicate(
        never, "lambda xs: False", seed=0, key="k", observations=observations
    ).equivalent


# ------------------------------------------------------------------------------------------ the quiz


def test_the_quiz_never_asks_a_list_the_episode_tested() -> None:
    config = ListsConfig(judges=("quiz",), quiz_seed=3)
    untouched = _game(INCREASING, config=config)
    would_ask = untouched.step(FinalHypothesis("increasing")).quiz
    assert len(would_ask) == 10
    game = _game(INCREASING, config=config)
    for start in range(0, len(would_ask), 5):
        game.step(TestRound(would_ask[start : start + 5]))
    asked = game.step(FinalHypothesis("increasing")).quiz
    assert len(asked) == 10 and len(set(asked)) == 10
    assert not set(asked) & {xs for xs, _ in game.observations()}
    assert sum(INCREASING.accepts(xs) for xs in asked) == 5
    game.step(QuizAnswer(tuple(INCREASING.accepts(xs) for xs in asked)))
    assert game.quiz_accuracy() == 1.0


# ------------------------------------------------------------------------------------------ probe set


def test_the_probe_set_is_deterministic_per_seed_and_observations_only_add_lists() -> None:
    positives = [(1, 2, 3), (2, 5, 9, 10)]
    observations = [((1, 2, 3), True), ((9, 3), False), (tuple(range(50)), True), ((2, 5, 9, 10), True)]

    def probes(seed: int, seen: Sequence[tuple[tuple[int, ...], bool]] = ()) -> tuple[tuple[int, ...], ...]:
        return list_probes(strictly_increasing, seed=seed, key="k", positives=positives, observations=seen)

    with_seen = probes(1, observations)
    assert with_seen == probes(1, observations)
    assert with_seen != probes(2, observations)
    observed = [xs for xs, _ in observations]
    assert list(with_seen[:4]) == observed
    # the sampled part is the same lists whatever the episode showed
    assert list(with_seen[4:]) == [xs for xs in probes(1) if xs not in observed]


def test_sampled_probes_reach_the_length_and_value_bounds_of_a_test_list() -> None:
    probes = list_probes(strictly_increasing, seed=0, key="k", positives=[(1, 2, 3)])
    lengths = {len(p) for p in probes}
    assert set(range(LONG_LENGTHS[0], LONG_LENGTHS[1] + 1)) <= lengths
    values = [v for p in probes for v in p]
    assert max(values) == LARGEST_TEST_INTEGER and min(values) == SMALLEST_TEST_INTEGER
    assert sum(len(str(abs(v))) > 100 for v in values) >= 50
    # long lists the rule accepts, and ones it rejects
    long_lists = [p for p in probes if len(p) > 12]
    assert 20 <= sum(map(strictly_increasing, long_lists)) < len(long_lists)


def test_the_value_bounds_are_the_protocols() -> None:
    protocol = ListsProtocol(INCREASING.examples)
    largest, smallest = str(LARGEST_TEST_INTEGER), str(SMALLEST_TEST_INTEGER)
    assert len(largest) == len(smallest) == MAX_NUMBER_CHARS

    def reply(number: str) -> str:
        return f'<response>\n{{"test_cases": [[{number}, 1]], "leading_hypothesis": "x"}}'

    parsed = protocol.parse(reply(largest))
    assert isinstance(parsed, TestRound) and parsed.cases == ((LARGEST_TEST_INTEGER, 1),)
    parsed = protocol.parse(reply(smallest))
    assert isinstance(parsed, TestRound) and parsed.cases == ((SMALLEST_TEST_INTEGER, 1),)
    for beyond in (str(LARGEST_TEST_INTEGER + 1), str(SMALLEST_TEST_INTEGER - 1)):
        assert isinstance(protocol.parse(reply(beyond)), Malformed)


def test_primality_of_huge_numbers_with_a_small_factor_is_decided() -> None:
    no_primes = compile_list_predicate("lambda xs: not any(is_prime(x) for x in xs)")
    assert no_primes((LARGEST_TEST_INTEGER, SMALLEST_TEST_INTEGER, 2**600, 7 * 10**900 + 7, 4)) is True
    assert no_primes((LARGEST_TEST_INTEGER, 13)) is False
    with pytest.raises(ListEvalError, match="prime factor up to 37"):
        no_primes((2**521 - 1,))  # a Mersenne prime: only the full test could say
    # rules about primes stay solvable on the probes that hold huge numbers
    for rank, source in [
        (16, "lambda xs: not any(is_prime(x) for x in xs)"),
        (30, "lambda xs: is_prime(sum(xs))"),
        (34, "lambda xs: sum(1 for x in xs if is_prime(x)) == 1"),
        (24, "lambda xs: all(is_prime(abs(b - a)) for a, b in zip(xs, xs[1:]))"),
    ]:
        rule = get_rule("all", rank)
        verdict = judge_list_predicate(rule.predicate, source, seed=0, key=rule.key)
        assert verdict.equivalent, (rank, verdict.counterexamples, verdict.first_error)


# ------------------------------------------------------------------------------------------ records


def test_verdicts_record_their_versions_and_older_ones_still_read() -> None:
    verdict = judge_list_predicate(strictly_increasing, INCREASING_SOURCE, seed=0, key="k")
    assert verdict.probe_version == PROBES_VERSION != "wason-list-probes-1"
    assert verdict.language_version == LANGUAGE_VERSION
    stored = {  # a verdict as version 1 stored it, before observations
        "equivalent": True,
        "agreement": 1.0,
        "probes": 2561,
        "rule_positives": 978,
        "false_positives": 0,
        "false_negatives": 0,
        "errors": 0,
        "counterexamples": [],
        "rejection": None,
        "first_error": None,
        "probe_version": "wason-list-probes-1",
        "language_version": "wason-list-language-1",
        "seed": 0,
    }
    old = ListVerdict.model_validate(stored)
    assert old.probe_version == "wason-list-probes-1" and old.probes == 2561
    assert old.n_observations == 0 and old.observation_mismatches == 0 and not old.decided_by_observation
    assert ListVerdict.model_validate_json(verdict.model_dump_json()) == verdict


def test_a_list_shown_with_both_labels_refutes_every_guess() -> None:
    # Only an inconsistent labeller could show one list as Yes and as No; no predicate can agree with both.
    observations = [((5, 1), True), ((5, 1), False), ((5, 1), True)]
    for source in (INCREASING_SOURCE, "lambda xs: not all(a < b for a, b in zip(xs, xs[1:]))"):
        verdict = judge_list_predicate(
            strictly_increasing, source, seed=0, key="k", observations=observations
        )
        assert not verdict.equivalent and verdict.decided_by_observation
        assert verdict.n_observations == 2 and verdict.observation_mismatches == 1
        assert verdict.counterexamples[0]["list"] == [5, 1]
