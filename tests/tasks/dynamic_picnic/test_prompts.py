"""What the game sends is the reference's text byte for byte, with the placeholders filled: each expected
text is built here from the pack's file (``../shared/reference``) by plain replacement."""

from __future__ import annotations

import pytest

from tests.reference import reference
from wason.tasks.dynamic_picnic import prompts


def pack(name: str) -> str:
    return reference("guess_the_rule", "dynamic_picnic", name).read_text(encoding="utf-8")


def _dump(messages: list[object]) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in messages]  # type: ignore[attr-defined]


def test_example_writer_is_the_published_text() -> None:
    rule = "Only items that are round can be brought to the picnic."
    got = prompts.example_writer(rule, ["Ball", "orange"], ["kite"], 3)
    expected = (
        pack("example_generator.txt")
        .replace("{rule}", rule)
        .replace("{existing_generated}", "ball, orange")
        .replace("{existing_guesses}", "kite")
        .replace("{num_examples}", "3")
    )
    assert _dump(got) == [("user", expected)]
    assert "[item1], [item2], ..., [item3]" in expected
    empty = prompts.example_writer(rule, [], [], 2)[0].content
    assert "game master: none.\n" in empty and "guessed: none.\n" in empty


def test_judges_are_the_published_texts() -> None:
    rule, item = "Only red items.", "a tomato"
    assert _dump(prompts.example_judge(rule, item)) == [
        ("system", pack("judge_example_system.txt")),
        ("user", pack("judge_example.txt").replace("{rule}", rule).replace("{example_guess}", item)),
    ]
    assert _dump(prompts.rule_judge(rule, "red things")) == [
        ("system", pack("judge_rule_system.txt")),
        ("user", pack("judge_rule.txt").replace("{rule}", rule).replace("{rule_guess}", "red things")),
    ]
    assert _dump(prompts.guess_classifier("Can I bring a ball?")) == [
        ("user", pack("classify_guess.txt").replace("{user_input}", "Can I bring a ball?"))
    ]


@pytest.mark.parametrize("rule_type", prompts.RULE_TYPES)
@pytest.mark.parametrize("simple", [True, False])
def test_rule_writers_are_the_published_texts(rule_type: str, simple: bool) -> None:
    name = f"rule_generator_{'L1_' if simple else ''}{rule_type}.txt"
    first = prompts.rule_writer(rule_type, [], simple=simple)
    assert _dump(first) == [
        ("system", pack("rule_generator_system.txt")),
        ("user", pack(name).replace("{existing_rules_text}", "")),
    ]
    existing = ["Only red items.", "Only round items."]
    bulleted = pack("rule_generator_existing_rules_text.txt").replace(
        "{existing_rules_bulleted}", "- Only red items.\n- Only round items."
    )
    assert bulleted.endswith("- Only round items.\n")  # the published text's trailing newline
    later = prompts.rule_writer(rule_type, existing, simple=simple)
    assert later[1].content == pack(name).replace("{existing_rules_text}", bulleted)


def test_rule_writer_refuses_an_unknown_type() -> None:
    with pytest.raises(ValueError, match="rule_type"):
        prompts.rule_writer("pairs", [])


def test_level_classifier_is_sent_as_a_system_message() -> None:
    rule = "Only items that are palindromes can be brought to the picnic."
    assert _dump(prompts.level_classifier(rule)) == [
        ("system", pack("rule_level_classifier.txt").replace("{rule}", rule))
    ]


def test_player_prompts_are_the_published_texts() -> None:
    items = ["apple", "kite"]
    history = [
        ("Game Master", 'To start, here are some examples of items you can bring: "apple" and "kite".')
    ]
    history.append(("Player", "Can I bring a pear?"))
    examples = '"apple" and "kite"'
    lines = "\n".join(f"{who}: {said}" for who, said in history)
    assert prompts.initial_message(items) == pack("experiment_initial_message.txt").replace(
        "{examples_text}", examples
    )
    assert history[0][1] == prompts.initial_message(items)
    turn = pack("experiment_player_turn.txt")
    final = pack("experiment_player_final_turn.txt")
    assert prompts.player_turn(items, history, final=False) == turn.replace(
        "{examples_text}", examples
    ).replace("{conversation_history}", lines)
    assert prompts.player_turn(items, history, final=True) == final.replace(
        "{examples_text}", examples
    ).replace("{conversation_history}", lines)


def test_api_messages_are_the_published_texts() -> None:
    assert prompts.api_init(["apple", "kite"]) == pack("api_init_message.txt").replace(
        "{generated_examples_str}", "apple, kite"
    )
    assert prompts.api_more(["pear"]) == pack("api_more_examples_message.txt").replace(
        "{generated_examples_str}", "pear"
    )
    assert prompts.api_resume([("User", "hi")]) == pack("api_resume_message.txt").replace(
        "{current_conversation}", "User: hi"
    )
    shorts = prompts.short_messages()
    assert prompts.short("base.py:223", rule="R") == "You gave up, the correct rule was: R"
    assert shorts["base.py:227"] == "Incorrect guess. What would you like to do next?"
    won = prompts.short("base.py:220", rule="R")
    assert (
        won == "You guessed the rule correctly! The rule was: R \n\n"
        "Check your performance stats in the panel above. Thanks for playing!"
    )
    assert won in pack("gm_short_messages.txt").replace("{rule}", "R")


def test_fill_is_one_pass_and_refuses_a_missing_placeholder() -> None:
    # a value holding another placeholder's name is not filled again
    assert prompts.fill("{a} {b}", a="{b}", b="x") == "{b} x"
    with pytest.raises(ValueError, match="placeholder"):
        prompts.fill("no placeholders", a=1)


def test_the_harness_texts_are_kept_byte_for_byte() -> None:
    rule = "Only red items."
    gm = pack("experiment_gm_system.txt").replace("{secret_rule}", rule)
    assert _dump(prompts.harness_game_master(rule)) == [("system", gm)]
    assert gm.count(rule) == 2  # the rule is named twice: the secret and the "Correct!" line
    writer = (
        pack("experiment_example_generator.txt").replace("{secret_rule}", rule).replace("{num_examples}", "2")
    )
    assert _dump(prompts.harness_example_writer(rule, 2)) == [("user", writer)]
    validator = prompts.harness_example_validator(rule, ["a", "b"])[0].content
    assert validator == pack("experiment_example_validator.txt").replace("{secret_rule}", rule).replace(
        "{examples}", "a, b"
    )
    assert '{"validations": [true/false, ...]}' in validator
