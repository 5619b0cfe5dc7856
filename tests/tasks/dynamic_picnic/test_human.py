"""A person plays Dynamic Picnic at the terminal by the moves the family declares: typed commands, or any line
read as the game reads a model's reply."""

from __future__ import annotations

import asyncio
from typing import Any

from wason.core.family import PlayIO
from wason.tasks.dynamic_picnic.family import FAMILY, DynamicPicnicRunConfig
from wason.tasks.dynamic_picnic.game import (
    GM,
    PLAYER,
    AskItem,
    GiveUp,
    GuessRule,
    MoreExamples,
    PicnicObservation,
)


def test_commands_and_replies_make_the_same_actions() -> None:
    typed = iter(
        [
            "Can I bring a kite?",
            "more x",
            "more 3",
            "more examples",
            "hello",
            "The rule is: red things",
            "give up",
        ]
    )
    out: list[str] = []
    config = DynamicPicnicRunConfig(model="a:b", more_default=2)
    item = FAMILY.items(config)[0][1]
    player = FAMILY.human(config, item, PlayIO(lambda _: next(typed), out.append))
    assert player is not None
    start = PicnicObservation(kind="start", turns_left=5, history=((GM, "You can bring an apple."),))
    later = PicnicObservation(
        kind="answer",
        turn=1,
        turns_left=4,
        history=((GM, "hi"), (PLAYER, "Can I bring a kite?"), (GM, "No.")),
    )

    async def moves() -> list[Any]:
        return [(await player.act(start if i == 0 else later)).action for i in range(5)]

    assert asyncio.run(moves()) == [
        AskItem(item="a kite", said="Can I bring a kite?"),
        MoreExamples(n=3),
        MoreExamples(n=2),
        GuessRule(text="red things", said="The rule is: red things"),
        GiveUp(said="I give up"),
    ]
    text = "\n".join(out)
    assert "You can bring an apple." in text and "Game Master: No.\n(4 turns left)" in text
    assert "n: a whole number, not 'x'. Nothing was played." in text
    assert "not understood:" in text  # 'hello' is read like a model's reply, refused at no cost
