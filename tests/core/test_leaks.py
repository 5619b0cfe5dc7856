"""``wason.core.leaks``, the one leak detector of the family contract and the reward audit: a hidden text read in
any spelling is found, the player's own words and the family's boilerplate are not leaks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wason.core.leaks import find_leaks, hidden_texts, readable


class _Family:
    def public(self, item: Mapping[str, Any]) -> list[str]:
        return ["id"]


ITEM = {"id": 3, "rule": "x >= 37", "seed": 7305193, "note": "ok"}


def test_hidden_texts_are_the_key_and_the_hidden_values() -> None:
    assert hidden_texts(_Family(), "toy-9-3", ITEM) == {
        "toy-9-3": "the item key",
        "x >= 37": "a hidden value of the item",
        "7305193": "a hidden value of the item",
    }  # "ok" is too short to look for, 3 is public
    # what anyone reads anyway (the run's public configuration) is no secret
    assert "x >= 37" not in hidden_texts(_Family(), "toy-9-3", ITEM, shown='{"rule": "x >= 37"}')


def test_a_secret_is_found_in_every_spelling() -> None:
    secrets = {"a": {"x >= 37": "the rule"}}
    for text in ["the rule is x >= 37", "the rule is x &gt;= 37", '{"say": "x \\u003e= 37"}']:
        assert [str(leak) for leak in find_leaks({"a": readable([text])}, secrets)] == [
            "a: the rule ('x >= 37')"
        ]


def test_the_players_own_words_and_boilerplate_are_no_leak() -> None:
    secrets = {"a": {"x >= 37": "the rule"}, "b": {"x >= 50": "the rule"}}
    # the player guessed the rule and the game shows the guess back
    assert find_leaks({"a": readable(["you said x >= 37"], own=["x >= 37"])}, secrets) == []
    # a text every game shows, where another game's item has no such secret: the family's boilerplate (the
    # games of "x >= 50" say "x >= 37" too, so it tells nothing of the item)
    same = {"a": readable(["for example x >= 37"]), "b": readable(["for example x >= 37"])}
    assert find_leaks(same, secrets) == []
    # a secret both items share, read in both games, is no boilerplate: each leaks it
    shared = {"a": {"toy.threshold": "how it was drawn"}, "b": {"toy.threshold": "how it was drawn"}}
    read = {"a": readable(["drawn by toy.threshold"]), "b": readable(["drawn by toy.threshold"])}
    assert [leak.game for leak in find_leaks(read, shared)] == ["a", "b"]


def test_a_name_anyone_may_read_that_holds_the_secret_is_no_leak() -> None:
    secrets = {"a": {"tree": "the category"}}
    assert find_leaks({"a": readable(["a christmas tree"])}, secrets, ["christmas tree"]) == []
    assert len(find_leaks({"a": readable(["a christmas tree, a tree"])}, secrets, ["christmas tree"])) == 1
