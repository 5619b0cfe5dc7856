"""Static Picnic through the reference's game API: creation, more, guesses, the published messages, no leaks."""

from __future__ import annotations

import json

import pytest

from tests.reference import reference
from wason.core.family import EpisodeContext
from wason.core.game import Game
from wason.tasks.picnic.family import FAMILY
from wason.tasks.picnic.game import GiveUp, Guess, More


def pack(name: str) -> str:
    return reference("guess_the_rule", "static_picnic", name).read_text(encoding="utf-8")


def new_game(level: str = "L1", n: int = 2, seed: int = 5) -> tuple[Game[object, object], dict[str, object]]:
    api = FAMILY.game_api()
    config, (_, item) = api.create(level, n, seed)
    assert json.loads(json.dumps(item)) == item
    return FAMILY.game(config, item, EpisodeContext()), item  # type: ignore[arg-type]


def test_create_is_seeded_and_has_no_turn_limit() -> None:
    api = FAMILY.game_api()
    assert api.game_name == "static_picnic" and api.levels == ("L1", "L2", "L3")
    a = api.create("L2", 3, 9)
    assert a == api.create("L2", 3, 9)
    config, (_, item) = a
    assert item["max_turns"] is None and item["num_init_examples"] == 3 and item["level"] == "L2"
    assert config.examples_each_turn is False  # type: ignore[attr-defined]
    fresh = [api.create("L2", 3, None)[1][1]["provenance"]["seed"] for _ in range(2)]  # type: ignore[index]
    assert fresh[0] != fresh[1]  # no seed: a fresh one each time


@pytest.mark.parametrize(
    ("difficulty", "n", "field"),
    [
        ("L4", 2, "difficulty"),
        ("l1", 2, "difficulty"),
        ("L1", 0, "num_init_examples"),
        ("L1", -3, "num_init_examples"),
        ("L1", 10**9, "num_init_examples"),
        ("L1", True, "num_init_examples"),
    ],
)
def test_bad_creation_names_the_field(difficulty: str, n: int, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        FAMILY.game_api().create(difficulty, n, 1)


@pytest.mark.parametrize("n", [0, -1, 10**6, True])
def test_bad_requests_name_the_field(n: int) -> None:
    with pytest.raises(ValueError, match="n_examples"):
        FAMILY.game_api().more(n)


def test_the_messages_are_the_published_ones_and_never_show_the_rule_early() -> None:
    api = FAMILY.game_api()
    game, item = new_game()
    rule = item["rule"]["text"]  # type: ignore[index]
    start = api.view(game.start(), False)
    assert start["system_message"] == pack("api_init_message.txt").format(
        positives_string=", ".join(start["positive_examples"]),
        negatives_string=", ".join(start["negative_examples"]),
    )
    assert len(start["positive_examples"]) == 2 and start["guess_result"] is None
    more = api.view(game.step(api.more(3)), False)
    assert more["system_message"] == pack("api_more_examples_message.txt").format(
        positives_string=", ".join(more["positive_examples"]),
        negatives_string=", ".join(more["negative_examples"]),
    )
    wrong = api.view(game.step(api.guess("Items from the category 'weapon'")), False)
    assert wrong["system_message"] == "Incorrect guess. What would you like to do next?"
    assert wrong["guess_result"] is False and wrong["positive_examples"] == []
    for view in (start, more, wrong):
        assert rule not in json.dumps(view) and str(item["rule"]["categories"]) not in json.dumps(view)  # type: ignore[index]
    right = api.view(game.step(api.guess(rule)), True)  # type: ignore[arg-type]
    assert right["guess_result"] is True
    assert right["system_message"] == (
        "You guessed correctly. Check your performance stats in the panel above. Thanks for playing!"
    )
    assert api.rule_text(item) == rule


def test_give_up_and_exhaustion() -> None:
    api = FAMILY.game_api()
    assert api.guess("Give up") == GiveUp() and api.guess("give up.") == GiveUp()
    assert api.guess("fruit") == Guess("fruit") and api.more(2) == More(2)
    game, item = new_game("L3", 2, 1)
    start = api.view(game.start(), False)
    total = item["rule"]["positives"]  # type: ignore[index]
    assert start["total_examples_available"] == total - 2
    capped = api.view(game.step(api.more(50)), False)
    assert capped["system_message"].startswith(
        "Requested number of examples exceeds the maximum available count. Defaulting to maximum available "
        f"{total - 2}\nI can bring: "
    )
    assert capped["system_message"].endswith(
        "\n(This is the last turn because there are no more examples available)"
    )
    refused = api.view(game.step(api.more(2)), False)
    assert refused["system_message"].startswith(
        "Request number of examples n=2 exceeds available number of examples 0. Please give a final guess!"
    )
    over = api.view(game.step(api.guess("give up")), True)
    assert over["system_message"] == f"Game Over! The rule was: {item['rule']['text']}"  # type: ignore[index]
