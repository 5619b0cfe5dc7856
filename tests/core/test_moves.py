"""One declaration of a game's moves: typed commands at the terminal, the web form, the session help."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from wason.core.family import ActionCodec, FormField, PlayIO, form_number, form_value
from wason.core.game import PlayerLeft
from wason.core.moves import (
    Command,
    TerminalPlayer,
    action_error,
    describe_moves,
    form_moves,
    give_up,
    read_command,
    yes_no_quiz,
)


@dataclass(frozen=True)
class Ask:
    n: int


@dataclass(frozen=True)
class Say:
    text: str
    note: str | None = None


@dataclass(frozen=True)
class Pair:
    values: tuple[str, ...]


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class Batch:
    items: tuple[str, ...]


def _batch(values: Mapping[str, str]) -> Batch:
    items = tuple(values[f"i{k}"] for k in range(1, 4) if f"i{k}" in values)
    for k, item in enumerate(items, 1):
        if not item.isalpha():
            raise ValueError(f"i{k}: letters only, not {item!r}")
    return Batch(items)


COMMANDS = (
    Command(
        name="more",
        label="More",
        make=lambda v: Ask(form_number(v, "n")),
        fields=(FormField("n", "How many", kind="number", value="1"),),
        action="Ask",
    ),
    Command(
        name="guess",
        label="Guess",
        make=lambda v: Say(form_value(v, "text")),
        fields=(FormField("text", "Rule"),),
        words=("guess", "g"),
        action="Say",
    ),
    Command(
        name="test",
        label="Test",
        make=lambda v: Pair((v["a"], v["b"])),
        fields=(FormField("a", "a"), FormField("b", "b")),
        words=("", "test"),
        syntax="1 2",
        action="Pair",
    ),
    give_up(Quit),
    Command(name="notes", label="Notes", make=lambda v: "some notes", info=True),
)


def test_a_typed_line_is_read_by_the_longest_word_and_its_fields() -> None:
    assert read_command(COMMANDS, "more 3")[1] == {"n": "3"}
    assert read_command(COMMANDS, "more")[1] == {"n": "1"}  # a field's starting value
    assert read_command(COMMANDS, "G  x < y")[1] == {"text": "x < y"}
    assert read_command(COMMANDS, "give   up")[0].name == "give_up"
    assert read_command(COMMANDS, "(4, 5)")[1] == {"a": "4", "b": "5"}
    assert read_command(COMMANDS, "test 4 5")[1] == {"a": "4", "b": "5"}
    with pytest.raises(
        ValueError, match="'4 5 6' is not a move here; type more N, guess TEXT, 1 2 \\(2 values\\)"
    ):
        read_command(COMMANDS, "4 5 6")
    with pytest.raises(ValueError, match="give up takes nothing after it"):
        read_command(COMMANDS, "give up now")


def test_the_web_form_and_the_session_help_come_from_the_same_declaration() -> None:
    moves = form_moves(COMMANDS)
    assert [m.name for m in moves] == [
        "more",
        "guess",
        "test",
        "give_up",
    ]  # the terminal's notes are not a move
    lines = describe_moves(COMMANDS, ActionCodec(Ask, Say, Pair, Quit, Batch))
    assert 'more N: More\n  {"type": "Ask", "n": integer}' in "\n".join(lines)
    assert '  {"type": "Say", "text": string, "note"?: string | null}' in lines
    assert lines[-2:] == [
        "other actions:",
        '  {"type": "Batch", "items": [string, ...]}',
    ]
    assert '  {"type": "Quit"}' in lines


def test_a_bad_action_json_is_one_line_naming_the_field() -> None:
    codec = ActionCodec(Ask, Say)
    with pytest.raises(ValueError) as bad:
        codec.decode({"type": "Ask", "n": "many"})
    said = action_error(bad.value)
    assert said.startswith("Ask.n: should be a valid integer") and "'many'" in said and "\n" not in said
    with pytest.raises(ValueError) as missing:
        codec.decode({"type": "Say"})
    assert action_error(missing.value) == "Say.text: missing"


def play(commands: tuple[Command, ...], typed: list[str], turns: int = 1) -> tuple[list[Any], list[str]]:
    feed: Iterator[str] = iter(typed)
    out: list[str] = []

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    player = TerminalPlayer(
        lambda obs, turn: commands, lambda obs, turn: f"turn {turn}", PlayIO(read, out.append)
    )

    async def go() -> list[Any]:
        return [(await player.act(None)).action for _ in range(turns)]

    return asyncio.run(go()), out


def test_the_terminal_refuses_a_bad_line_at_no_cost_and_helps() -> None:
    actions, out = play(
        COMMANDS, ["", "help", "notes", "more lots", "what", "history", "more 2", "1 2"], turns=2
    )
    assert actions == [Ask(2), Pair(("1", "2"))]
    text = "\n".join(out)
    assert (
        out[0] == "turn 0" and "  more N " in out[1] and "  quit " in out[1]
    )  # the moves listed at the start
    assert "some notes" in text and "n: a whole number, not 'lots'. Nothing was played." in text
    assert "'what' is not a move here" in text and "turn 1" in text
    with pytest.raises(PlayerLeft):
        play(COMMANDS, ["quit"])
    with pytest.raises(PlayerLeft):
        play(COMMANDS, [])


def test_a_collecting_move_queues_one_field_a_line_and_sends_on_its_word() -> None:
    batch = Command(
        name="batch",
        label="Batch",
        make=_batch,
        fields=tuple(FormField(f"i{k}", f"item {k}", placeholder="abc") for k in range(1, 4)),
        words=("run",),
        collect=True,
    )
    actions, out = play((batch, COMMANDS[1]), ["run", "ab", "c1", "cd", "run", "x", "y", "z"], turns=2)
    assert actions == [Batch(("ab", "cd")), Batch(("x", "y", "z"))]  # the third line of a batch sends it
    text = "\n".join(out)
    assert "Nothing queued yet" in text and "i2: letters only, not 'c1'" in text and "queued 1 of 3" in text


def test_a_move_asked_field_by_field_reads_its_hint_and_asks_again_when_wrong() -> None:
    quiz = Command(
        name="quiz",
        label="Send",
        make=_batch,
        fields=tuple(FormField(f"i{k}", f"item {k}") for k in range(1, 4)),
        hint="name three things",
        ask=True,
    )
    actions, out = play((quiz,), ["a", "b2", "c", "a", "b", "c"])
    assert actions == [Batch(("a", "b", "c"))]
    assert (
        out[0] == "name three things:" and "i2: letters only, not 'b2'. Nothing was played; once more." in out
    )


@dataclass(frozen=True)
class Labels:
    labels: tuple[bool, ...]


def test_a_yes_no_quiz_reads_every_answer_and_names_the_one_it_cannot() -> None:
    quiz = yes_no_quiz(Labels, ["apple?", "pear?", "fig?"], "word", "answer y or n")
    assert [f.label for f in quiz.fields] == ["1. apple?", "2. pear?", "3. fig?"]
    assert quiz.make({"label1": " Yes", "label2": "n", "label3": "TRUE"}) == Labels((True, False, True))
    with pytest.raises(ValueError, match=r"^word 2: answer yes or no, not 'maybe'$"):
        quiz.make({"label1": "y", "label2": "maybe", "label3": "n"})
    with pytest.raises(ValueError, match=r"^word 3: answer yes or no, not ''$"):
        quiz.make({"label1": "y", "label2": "no"})
