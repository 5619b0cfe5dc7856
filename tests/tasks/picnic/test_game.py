"""The Static Picnic game: examples, requests, exhaustion, the turn limit, give up, and what ends a game."""

from __future__ import annotations

import pytest

from wason.core.game import Malformed
from wason.tasks.picnic.catalog import PicnicRule, catalog, get_rule, near_miss_mask, pool
from wason.tasks.picnic.game import GiveUp, Guess, More, PicnicConfig, PicnicGame


def small_rule() -> PicnicRule:
    """An L3 single with exactly 3 items."""
    return next(r for r in pool("L3", "published") if r.kind == "single")


def game(rule: PicnicRule | None = None, seed: int = 1, **config: object) -> PicnicGame:
    return PicnicGame(rule or get_rule("distinct", "L1", 1), seed, PicnicConfig(**config))  # type: ignore[arg-type]


def test_the_first_examples_are_n_positives_and_n_negatives() -> None:
    g = game(num_init_examples=3)
    obs = g.start()
    rule = g.rule
    assert obs.kind == "start" and obs.turn == 1 and obs.turns_left == 10
    assert len(obs.positives) == 3 and len(obs.negatives) == 3
    assert all(rule.accepts(p) for p in obs.positives)
    assert not any(rule.accepts(q) for q in obs.negatives)
    assert obs.rule is None


def test_more_gives_unseen_examples_and_counts_a_turn() -> None:
    g = game()
    first = g.start()
    obs = g.step(More(5))
    assert obs.kind == "examples" and obs.turn == 2 and obs.turns_left == 9
    assert len(obs.positives) == 5 and len(obs.negatives) == 5
    assert not set(obs.positives) & set(first.positives)
    assert not set(obs.negatives) & set(first.negatives)
    assert len(set(g.seen_pos)) == len(g.seen_pos) == 7


def test_same_seed_same_game_and_no_global_randomness() -> None:
    import random

    state = random.getstate()
    runs = []
    for _ in range(2):
        g = game(seed=42)
        runs.append((g.start(), g.step(More(4)), g.step(Guess("fruit"))))
    assert runs[0] == runs[1]
    other = game(seed=43)
    assert other.start() != runs[0][0]
    assert random.getstate() == state


def test_requests_are_capped_and_exhaustion_says_so() -> None:
    g = game(small_rule(), num_init_examples=2)
    g.start()
    obs = g.step(More(5))
    assert obs.capped and len(obs.positives) == 1 and len(obs.negatives) == 1 and obs.remaining == 0
    empty = g.step(More(3))
    # nothing is left: nothing is handed out (the reference handed out every remaining negative)
    assert empty.kind == "examples" and empty.positives == () and empty.negatives == () and empty.capped
    assert g.outcome().metrics["empty_requests"] == 1


def test_a_right_guess_when_positives_ran_out_wins() -> None:
    rule = small_rule()
    g = game(rule, num_init_examples=3)
    assert g.start().remaining == 0
    obs = g.step(Guess(rule.text))
    assert obs.kind == "ended" and obs.end_reason == "correct" and obs.guess_right is True
    out = g.outcome()
    assert out.success and out.metrics["status"] == "won" and out.metrics["turns"] == 2


def test_a_wrong_guess_when_nothing_is_left_loses() -> None:
    g = game(small_rule(), num_init_examples=3)
    g.start()
    obs = g.step(Guess("Items from the category 'animal'"))
    assert obs.end_reason == "wrong_no_examples" and obs.rule == g.rule.text
    assert not g.outcome().success


def test_a_wrong_guess_goes_on_with_examples_as_published() -> None:
    g = game(num_init_examples=2)
    g.start()
    g.step(More(3))
    obs = g.step(Guess("Items from the category 'weapon'"))
    assert obs.kind == "wrong_guess" and obs.guess_right is False
    assert len(obs.positives) == 3 and obs.requested == 3  # the last requested count again
    quiet = game(num_init_examples=2, examples_each_turn=False)
    quiet.start()
    obs = quiet.step(Guess("Items from the category 'weapon'"))
    assert obs.kind == "wrong_guess" and obs.positives == () and obs.requested is None


def test_the_turn_limit_ends_the_game() -> None:
    g = game(max_turns=3)
    g.start()
    assert g.step(More(1)).turns_left == 2
    assert g.step(More(1)).final_turn
    obs = g.step(More(1))
    assert obs.kind == "ended" and obs.end_reason == "turn_limit"
    assert g.outcome().metrics["moves"] == 3 and g.outcome().metrics["turns"] == 4
    with pytest.raises(RuntimeError):
        g.step(More(1))
    one = game(max_turns=1)
    assert one.start().final_turn
    assert one.step(Guess(one.rule.text)).end_reason == "correct"
    unlimited = game(max_turns=None)
    assert unlimited.start().turns_left is None


def test_give_up_ends_the_game_lost() -> None:
    g = game()
    g.start()
    obs = g.step(GiveUp())
    assert obs.end_reason == "gave_up" and obs.rule == g.rule.text
    assert g.outcome().metrics["status"] == "lost"


def test_an_unreadable_move_costs_a_turn() -> None:
    g = game(max_turns=2)
    g.start()
    assert g.step(Malformed("empty")).kind == "format_error"
    assert g.step(Malformed("empty")).end_reason == "turn_limit"
    assert g.outcome().metrics["format_errors"] == 2


def test_a_reply_cut_at_the_token_limit_costs_a_turn_and_is_counted_apart() -> None:
    g = game(max_turns=2)
    g.start()
    assert g.step(Malformed("cut off", truncated=True)).kind == "format_error"
    assert g.step(Malformed("empty")).end_reason == "turn_limit"
    metrics = g.outcome().metrics
    assert (metrics["format_errors"], metrics["truncated"], metrics["moves"]) == (1, 1, 2)


def test_a_guess_naming_no_category_is_wrong_and_flagged_without_a_judge() -> None:
    g = game()
    g.start()
    g.step(Guess("things people like"))
    m = g.outcome().metrics
    assert m["history"][0]["decided_by"] == "unreadable" and m["history"][0]["right"] is False


def test_informative_negatives_are_near_misses() -> None:
    rule = get_rule(
        "distinct", "L1", next(r.id for r in pool("L1", "distinct") if r.categories == ("mammal",))
    )
    g = game(rule, negatives="informative", num_init_examples=5)
    obs = g.start()
    cat = catalog()
    near = near_miss_mask(rule.categories)
    assert all(near >> cat.index(q) & 1 for q in obs.negatives)
    assert all("animal" in cat.tags_of[q] for q in obs.negatives)


def test_the_config_is_validated_naming_the_field() -> None:
    with pytest.raises(ValueError, match="num_init_examples"):
        PicnicConfig(num_init_examples=0)
    with pytest.raises(ValueError, match="max_turns"):
        PicnicConfig(max_turns=0)
    with pytest.raises(ValueError, match="negatives"):
        PicnicConfig(negatives="clever")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="judge"):
        PicnicGame(get_rule("distinct", "L1", 1), 0, PicnicConfig(llm_judge=True))
