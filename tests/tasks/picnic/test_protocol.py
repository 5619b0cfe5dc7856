"""The published player protocol, byte for byte against the reference pack, and its reply parser."""

from __future__ import annotations

import pytest

from tests.reference import reference
from wason.core.game import Malformed
from wason.tasks.picnic.catalog import get_rule, pool
from wason.tasks.picnic.game import (
    MAX_REQUEST,
    GiveUp,
    Guess,
    More,
    PicnicConfig,
    PicnicGame,
    PicnicObservation,
)
from wason.tasks.picnic.protocol import PicnicProtocol, parse_reply


def pack(name: str) -> str:
    return reference("guess_the_rule", "static_picnic", name).read_text(encoding="utf-8")


def fill(text: str, **values: object) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def test_the_package_data_are_the_pack_files() -> None:
    from wason.tasks.picnic.protocol import load_text

    for name in (
        "player_system.txt",
        "player_first_turn.txt",
        "player_first_turn_single_turn_game.txt",
        "player_next_turn.txt",
        "player_final_turn.txt",
        "player_no_examples_left.txt",
        "player_examples_exceeded_line.txt",
        "judge.txt",
        "judge_system.txt",
        "api_init_message.txt",
        "api_more_examples_message.txt",
        "gm_short_messages.txt",
    ):
        assert load_text(name) == pack(name), name


def test_the_conversation_is_the_published_one() -> None:
    g = PicnicGame(get_rule("distinct", "L1", 3), 7, PicnicConfig(num_init_examples=2, max_turns=3))
    protocol = PicnicProtocol(3)
    assert protocol.system_prompt() == pack("player_system.txt")
    start = g.start()
    assert protocol.first_message(start) == fill(
        pack("player_first_turn.txt"),
        turns=1,
        max_turns=3,
        remaining_count=start.remaining,
        positives_string=", ".join(start.positives),
        negatives_string=", ".join(start.negatives),
    )
    assert ", " in protocol.first_message(start)
    obs = g.step(More(2))
    assert protocol.feedback(obs) == fill(
        pack("player_next_turn.txt"),
        turns=2,
        remaining_count=obs.remaining,
        positives_string=", ".join(obs.positives),
        negatives_string=", ".join(obs.negatives),
    )
    obs = g.step(Guess("Items from the category 'weapon'"))  # wrong: the host hands out 2 more, final turn
    assert obs.final_turn
    assert protocol.feedback(obs) == fill(
        pack("player_final_turn.txt"),
        turns=3,
        positives_string=", ".join(obs.positives),
        negatives_string=", ".join(obs.negatives),
    )
    assert protocol.feedback(g.step(GiveUp())) == ""


def test_a_single_turn_game_uses_its_own_first_message() -> None:
    g = PicnicGame(get_rule("distinct", "L2", 1), 3, PicnicConfig(max_turns=1))
    start = g.start()
    assert PicnicProtocol(1).first_message(start) == fill(
        pack("player_first_turn_single_turn_game.txt"),
        turns=1,
        positives_string=", ".join(start.positives),
        negatives_string=", ".join(start.negatives),
    )


def test_capped_requests_and_exhaustion_use_the_published_lines() -> None:
    rule = next(r for r in pool("L3", "published") if r.kind == "single")  # 3 items
    g = PicnicGame(rule, 5, PicnicConfig(num_init_examples=2, max_turns=5))
    protocol = PicnicProtocol(5)
    g.start()
    obs = g.step(More(4))
    exceeded = fill(pack("player_examples_exceeded_line.txt"), remaining_count=1)
    body = fill(
        pack("player_no_examples_left.txt"),
        turns=2,
        positives_string=", ".join(obs.positives),
        negatives_string=", ".join(obs.negatives),
    )
    head, _, rest = body.partition("\n")
    assert protocol.feedback(obs) == f"{head}\n{exceeded}{rest}"
    assert "Defaulting to maximum available 1\n" in protocol.feedback(obs)


def test_a_first_turn_with_too_many_examples_says_so() -> None:
    rule = next(r for r in pool("L3", "published") if r.kind == "single")
    g = PicnicGame(rule, 5, PicnicConfig(num_init_examples=10, max_turns=5))
    text = PicnicProtocol(5).first_message(g.start())
    assert text.startswith(
        "Turn 1\nRequested number of examples exceeds the maximum available count. Defaulting to maximum "
        "available 3\nLet's play the game 'going on a picnic'."
    )


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("more 5", More(5)),
        ("More 3 examples please", More(3)),
        ("I would like 4 more examples.", More(4)),
        ("more", More(2)),
        ("More examples, please.", More(2)),
        ("more 0", More(2)),
        ("more 99999999999999999999999999999999", More(MAX_REQUEST)),
        ("more " + "9" * 5000, More(MAX_REQUEST)),
        ("give up", GiveUp()),
        ("Give up.", GiveUp()),
        ("I give up!", GiveUp()),
        ("Items from the category 'fruit'", Guess("Items from the category 'fruit'")),
        # an answer that mentions "more" is still an answer (the reference took it as a request)
        (
            "Items from the categories 'food' and 'fruit', more or less",
            Guess("Items from the categories 'food' and 'fruit', more or less"),
        ),
        (
            "The items seem to be more about things found in a kitchen like cups and bowls",
            Guess("The items seem to be more about things found in a kitchen like cups and bowls"),
        ),
        ("mammals", Guess("mammals")),
        ("", Guess("")),
        ("   \n\t ", Guess("")),
    ],
)
def test_replies_are_read_as_moves(reply: str, action: object) -> None:
    assert parse_reply(reply) == action


@pytest.mark.parametrize(
    "reply",
    ["\x00" * 100, "more " * 50_000, "(" * 100_000, "give up " * 1000, "\U0001f600" * 30_000, "'''" * 7000],
)
def test_hostile_replies_become_some_move(reply: str) -> None:
    action = parse_reply(reply)
    assert isinstance(action, More | Guess | GiveUp) and not isinstance(action, Malformed)
    if isinstance(action, More):
        assert 1 <= action.n <= MAX_REQUEST


def test_ended_observations_send_nothing() -> None:
    obs = PicnicObservation(kind="ended", turn=3, turns_left=None, end_reason="gave_up", rule="x")
    assert PicnicProtocol(5).feedback(obs) == ""
