"""The published player, judge and rule-writer prompts, byte for byte, and the reply parser."""

from __future__ import annotations

import pytest

from tests.reference import reference
from wason.core.game import Malformed
from wason.tasks.code_functions.game import GiveUp, Guess, More, Observation, PredicateAnswer, QuizAnswer
from wason.tasks.code_functions.protocol import (
    PREDICATE_REQUEST,
    CodeFunctionsProtocol,
    find_predicate,
    judge_messages,
    load_text,
    parse_play,
    parse_quiz,
    short_message,
)
from wason.tasks.code_functions.writer import WriterProtocol

POS = ("apple", "stone")
NEG = ("tree", "strong")


def published(name: str) -> str:
    return reference("guess_the_rule", "code_functions", name).read_text(encoding="utf-8")


def fill(text: str, pos: tuple[str, ...], neg: tuple[str, ...]) -> str:
    return text.replace("{examples[0]}", ", ".join(pos)).replace("{examples[1]}", ", ".join(neg))


def start(pos: tuple[str, ...] = POS, neg: tuple[str, ...] = NEG) -> Observation:
    return Observation(kind="start", positives=pos, negatives=neg, all_positives=pos, all_negatives=neg)


@pytest.mark.parametrize(
    "name",
    [
        "player_guess_as_run_c7cb4c96.txt",
        "player_system.txt",
        "player_guess_L1_effective.txt",
        "player_guess_L2_L3_effective.txt",
        "api_init_message.txt",
        "api_more_examples_message.txt",
        "gm_short_messages.txt",
        "judge_user.txt",
        "validate_sysprompt.txt",
        "rule_generator_user.txt",
        "rule_generator_system_L1.txt",
        "rule_generator_system_L2.txt",
        "rule_generator_system_L3.txt",
        "history_L1.txt",
        "negative_history_L1.txt",
    ],
)
def test_package_texts_are_the_reference_files(name: str) -> None:
    assert load_text(name) == published(name)


def test_the_as_run_protocol_sends_the_published_prompt_every_turn() -> None:
    protocol = CodeFunctionsProtocol("as-run", "L1")
    assert protocol.system_prompt() == published("player_system.txt")
    first = protocol.first_message(start())
    assert first == fill(published("player_guess_as_run_c7cb4c96.txt"), POS, NEG)
    assert first.startswith("You are playing a game called 'Going on a Picnic'.")
    assert (
        "Examples of items I can bring: apple, stone\nExamples of items I cannot bring: tree, strong\n"
        in first
    )
    wrong = Observation(
        kind="wrong",
        positives=("light",),
        negatives=("go",),
        all_positives=(*POS, "light"),
        all_negatives=(*NEG, "go"),
    )
    assert protocol.feedback(wrong) == fill(
        published("player_guess_as_run_c7cb4c96.txt"), (*POS, "light"), (*NEG, "go")
    )


def test_the_head_protocols_are_the_texts_head_builds_and_meant_to_build() -> None:
    l1 = fill(published("player_guess_L1_effective.txt"), POS, NEG)
    assert CodeFunctionsProtocol("head", "L1").first_message(start()) == l1
    # HEAD's L2/L3 prompt has no examples (the reference's precedence bug), reproduced as published
    assert CodeFunctionsProtocol("head", "L2").first_message(start()) == published(
        "player_guess_L2_L3_effective.txt"
    )
    fixed = CodeFunctionsProtocol("head-fixed", "L3").first_message(start())
    assert fixed == published("player_guess_L2_L3_effective.txt") + l1
    assert "NEW GAME:\nI can bring: apple, stone\nI cannot bring: tree, strong\n" in fixed


def test_the_api_protocol_uses_the_published_api_messages() -> None:
    protocol = CodeFunctionsProtocol("game-api", "L1")
    text = protocol.first_message(start())
    assert text == published("api_init_message.txt").replace("{positives_string}", "apple, stone").replace(
        "{negatives_string}", "tree, strong"
    )
    assert protocol.parse("more 3") == More(3) and protocol.parse("More") == More(2)
    wrong = Observation(kind="wrong", positives=("light",), negatives=("go",))
    feedback = protocol.feedback(wrong)
    assert feedback.startswith("Incorrect guess. What would you like to do next?\n\nI can bring: light\n")
    assert short_message("base.py:358") == (
        "You guessed correctly. Check your performance stats in the panel above. Thanks for playing!"
    )
    assert (
        short_message("base.py:417")
        == "Game is over. You {status}. The rule was {rule}.\nCheck your stats in the top panel."
    )


def test_the_judge_messages_are_the_published_ones() -> None:
    system, user = judge_messages("def f(word):\n    return True\n", "any word")
    assert (system.role, user.role) == ("system", "user")
    assert system.content == published("validate_sysprompt.txt")
    assert user.content == published("judge_user.txt").replace(
        "{rule_code}", "def f(word):\n    return True\n"
    ).replace("{guess}", "any word")
    assert user.content == "Function code:\ndef f(word):\n    return True\n\n\nGuess:\nany word"


def test_the_rule_writer_messages_inject_the_published_histories() -> None:
    writer = WriterProtocol("L1")
    assert writer.system_prompt() == published("rule_generator_system_L1.txt")
    user = writer.first_message(None)
    expected = (
        published("rule_generator_user.txt")
        .replace("{negative_history_file}", published("negative_history_L1.txt"))
        .replace("{history_file}", published("history_L1.txt"))
    )
    assert user == expected and user.endswith("Generated code:")
    l3 = WriterProtocol("L3").first_message(None)
    assert (
        "BAD examples, which did not evenly split between True/False:\nEmpty file\nHere are some GOOD" in l3
    )
    assert WriterProtocol("L2").system_prompt() == published("rule_generator_system_L2.txt")


@pytest.mark.parametrize(
    ("reply", "predicate"),
    [
        ("The rule: lambda w: len(w) == 5", "lambda w: len(w) == 5"),
        ("`lambda w: w[0] in 'aeiou'` is my guess.", "lambda w: w[0] in 'aeiou'"),
        ("```python\nlambda word: word.endswith('s')\n```", "lambda word: word.endswith('s')"),
        ("lambda w: len(w) > 4.", "lambda w: len(w) > 4"),
        ("Items from the category 'fruit'", None),
        ("lambda w: __import__('os').system('rm -rf /')", None),
        ("lambda w: open('/etc/passwd')", None),
        ("first lambda w: len(w) == 4\nthen lambda w: len(w) == 6", "lambda w: len(w) == 6"),
        ("lambda" * 5000, None),
        ("lambda w: len(w) == 3\n" + "lambda x: (\n" * 1000, None),  # only the last 20 are tried
        ("lambda x: (\n" * 2000 + "lambda w: len(w) == 3", "lambda w: len(w) == 3"),
    ],
)
def test_a_predicate_is_found_in_a_reply(reply: str, predicate: str | None) -> None:
    assert find_predicate(reply) == predicate


def test_replies_during_play() -> None:
    assert parse_play("Give up.", allow_more=True) == GiveUp()
    assert parse_play("  i give up  ", allow_more=False) == GiveUp()
    assert isinstance(parse_play("   ", allow_more=False), Malformed)
    assert parse_play("more 7", allow_more=True) == More(7)
    assert parse_play("more 7", allow_more=False) == Guess("more 7")  # as-run: every reply is a guess
    long_guess = "Words with more vowels than consonants, and which are long and start with s"
    assert parse_play(long_guess, allow_more=True) == Guess(long_guess)
    assert parse_play("more 99999999999999", allow_more=True) == More(100)  # capped, as the game caps
    huge = "x" * 1_000_000
    action = parse_play(huge, allow_more=False)
    assert isinstance(action, Guess) and len(action.text) == 20_000


def test_follow_ups_are_read_by_what_was_asked() -> None:
    protocol = CodeFunctionsProtocol("as-run", "L1")
    protocol.first_message(start())
    assert protocol.feedback(Observation(kind="ask_predicate")) == PREDICATE_REQUEST
    assert protocol.parse("lambda w: len(w) == 5") == PredicateAnswer("lambda w: len(w) == 5")
    assert protocol.parse("I don't know") == PredicateAnswer(
        "I don't know"
    )  # judged, and refused, by the game
    quiz = protocol.feedback(Observation(kind="ask_quiz", quiz=("alpha", "beta", "gamma")))
    assert "1. alpha\n2. beta\n3. gamma" in quiz
    assert protocol.parse("1. Yes\n2: no\n**3.** yes\n4. yes") == QuizAnswer((True, False, True))
    assert parse_quiz("2. beta: Yes\nnothing else", 3) == QuizAnswer((None, True, None))
    assert protocol.feedback(Observation(kind="ended")) == ""
    assert isinstance(protocol.parse("lambda w: len(w) == 5"), Guess)  # back to play after the game


def test_an_unknown_protocol_is_refused() -> None:
    with pytest.raises(ValueError, match="protocol must be one of"):
        CodeFunctionsProtocol("telepathy")
