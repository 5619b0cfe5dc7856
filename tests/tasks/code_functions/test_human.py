"""A person at the terminal plays a whole game, by the moves the family declares."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from wason.core.family import PlayIO
from wason.core.game import PlayerLeft
from wason.tasks.code_functions.family import FAMILY, CodeFunctionsConfig
from wason.tasks.code_functions.game import CodeFunctionsGame, GameSettings
from wason.tasks.code_functions.grammar import grammar_rule
from wason.tasks.code_functions.judge import rule_truth


def scripted(lines: list[str]) -> tuple[Any, list[str]]:
    feed: Iterator[str] = iter(lines)
    out: list[str] = []

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    config = CodeFunctionsConfig(**CodeFunctionsConfig.with_play_defaults({}), player="human")
    item = FAMILY.items(config)[0][1]
    return FAMILY.human(config, item, PlayIO(read=read, write=out.append)), out


def test_a_person_asks_for_more_guesses_and_answers_the_quiz() -> None:
    rule = grammar_rule("one", ["first_vowel"], "L1")
    game = CodeFunctionsGame(rule, rule_truth(rule), GameSettings(seed=1, max_turns=None, quiz_size=2))
    lines = ["help", "more x", "more 3", "words", "guess", "guess starts with a vowel"]
    lines += ["lambda w: w[0] in 'aeiou'", "maybe", "n", "y", "n"]
    player, out = scripted(lines)
    obs = game.start()
    while not game.done:
        obs = game.step(asyncio.run(player.act(obs)).action)
    text = "\n".join(out)
    # each mistake is one line and costs nothing: a bad count, an empty guess, a quiz answer that is not yes/no
    assert "n: a whole number, not 'x'. Nothing was played." in text
    assert "text: write something first. Nothing was played." in text
    assert "word 1: answer yes or no, not 'maybe'. Nothing was played; once more." in text
    assert text.count("You can bring: ") >= 3 and game.outcome().metrics["requests"] == 1
    assert game.outcome().success and game.outcome().metrics["turns"] == 2


def test_closing_the_input_leaves_the_game() -> None:
    rule = grammar_rule("one", ["first_vowel"], "L1")
    game = CodeFunctionsGame(rule, rule_truth(rule), GameSettings(seed=1))
    player, _ = scripted([])
    with pytest.raises(PlayerLeft):
        asyncio.run(player.act(game.start()))
