"""Game-master-written generate_next functions: rewritten by ast into the guess language, never run; identified
with a rule of the grammar by code, or rejected with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reference import reference
from wason.sandbox import GuessRejected
from wason.tasks.math_rules.gm_code import (
    identify_rule,
    parse_rule_writer_reply,
    split_functions,
    translate_generate_next,
)
from wason.tasks.math_rules.rules import MathRule, Op

HEAD = "def generate_next(current_value, index):\n"


def fns(name: str) -> list[str]:
    return split_functions(reference("guess_the_rule", "math", name).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "name", ["L1_examples_math_fns.txt", "L2_examples_math_fns.txt", "L3_examples_math_fns.txt"]
)
def test_the_published_few_shot_functions_return_nothing(name: str) -> None:
    functions = fns(name)
    assert len(functions) == 4
    for code in functions:
        with pytest.raises(GuessRejected, match="never returns"):
            translate_generate_next(code)


def test_the_unused_published_examples_are_read_and_mostly_outside_the_grammar() -> None:
    found = []
    for code in fns("init_examples_math_fns.txt"):
        expression = translate_generate_next(code)
        try:
            found.append(identify_rule(expression, "L3"))
        except GuessRejected as exc:
            assert "not one operation of the grammar" in exc.reason
    assert found == [MathRule(Op("mul", 2), Op("add", -1))]


@pytest.mark.parametrize(
    ("body", "level", "rule"),
    [
        ("    return current_value * 3", "L1", MathRule(Op("mul", 3), Op("mul", 3))),
        ('    """Triples."""\n    next_value = current_value * 3\n    return next_value', "L1", None),
        ("    x = current_value\n    x += 4\n    return x", "L1", MathRule(Op("add", 4), Op("add", 4))),
        ("    return current_value * -2", "L2", MathRule(Op("mul", -2), Op("mul", -2))),
        (
            "    if index % 2 == 0:\n        next_value = current_value + 2\n    elif index % 2 == 1:\n"
            "        next_value = current_value + 1\n    return next_value",
            "L3",
            MathRule(Op("add", 2), Op("add", 1)),
        ),
        (
            "    if index % 2 == 1:\n        return current_value * 3\n    return current_value + 4",
            "L3",
            MathRule(Op("add", 4), Op("mul", 3)),
        ),
        ("    return current_value // 2 if index % 2 == 0 else current_value + 7", "L3", None),
    ],
)
def test_functions_of_the_grammar_are_identified(body: str, level: str, rule: MathRule | None) -> None:
    expression = translate_generate_next(HEAD + body)
    found = identify_rule(expression, level)
    if rule is not None:
        assert found == rule
    assert found.expression() != expression or rule is None  # identified by behaviour, not by text


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("import os\n" + HEAD + "    return 1", "only a function"),
        (HEAD + "    import os\n    return 1", "Import statements"),
        (HEAD + "    while True:\n        pass", "While statements"),
        (HEAD + "    for k in range(10**9):\n        current_value += 1\n    return current_value", "For"),
        (HEAD + "    return __import__('os').system('rm -rf /')", "__import__"),
        (HEAD + "    return eval('1')", "eval"),
        (HEAD + "    return generate_next(current_value, index)", "generate_next"),
        (HEAD + "    return y", "name 'y'"),
        (HEAD + "    current_value = 3\n    return current_value", "reassigned"),
        (HEAD + "    if index:\n        return 1", "returns nothing"),
        (HEAD + "    return", "bare return"),
        ("def generate_next(v):\n    return v", "two parameters"),
        ("def f(a, b):\n    return a\ndef g(a, b):\n    return b", "one function"),
        ("@cache\n" + HEAD + "    return 1", "two plain parameters"),
        (HEAD + "    return current_value ** 10 ** 100", None),
        ("def generate_next(v, i):\n    x = v\n" + "    x = x + x\n" * 40 + "    return x", "too large"),
        (
            "def generate_next(v, i):\n    x = v\n"
            + "".join(
                f"    if i == {k}:\n        x = x + x\n    else:\n        x = x - 1\n" for k in range(60)
            )
            + "    return x",
            "too large",
        ),
        ("def generate_next(v, i:\n", "not valid Python"),
        ("x" * 6000, "characters long"),
    ],
)
def test_hostile_functions_are_rejected_never_run(code: str, reason: str | None) -> None:
    if reason is None:
        expression = translate_generate_next(code)
        with pytest.raises(GuessRejected, match="grammar"):
            identify_rule(expression, "L1")
        return
    with pytest.raises(GuessRejected) as raised:
        translate_generate_next(code)
    assert reason in raised.value.reason


@pytest.mark.parametrize(
    ("body", "level", "reason"),
    [
        ("    return current_value * 2 if index % 2 == 0 else current_value + 1", "L1", "one operation"),
        ("    return current_value + 3", "L3", "different operations"),
        ("    return current_value // 2", "L1", "degenerate"),
        ("    return current_value * index", "L1", "grammar"),
        ("    return int(current_value / 2) if index % 2 == 0 else current_value + 7", "L3", "grammar"),
    ],
)
def test_functions_that_break_the_levels_promises_are_rejected(body: str, level: str, reason: str) -> None:
    with pytest.raises(GuessRejected, match=reason):
        identify_rule(translate_generate_next(HEAD + body), level)


def test_a_rule_writers_reply_is_cut_as_the_reference_cut_it() -> None:
    reply = (
        "Mathematical rule: The sequence triples the current value at each step.$$\n\n"
        "```python\ndef generate_next(current_value, index):\n    return current_value * 3\n```&&"
    )
    words, code = parse_rule_writer_reply(reply)
    assert words == "The sequence triples the current value at each step."
    assert code == "def generate_next(current_value, index):\n    return current_value * 3"
    assert identify_rule(translate_generate_next(code), "L1") == MathRule(Op("mul", 3), Op("mul", 3))
    with pytest.raises(ValueError, match="reply"):
        parse_rule_writer_reply("Mathematical rule: none$$")
    with pytest.raises(ValueError, match="reply"):
        parse_rule_writer_reply(None)  # type: ignore[arg-type]


def test_the_rule_and_judge_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from wason.cli import main

    reply = tmp_path / "reply.txt"
    reply.write_text(
        "Mathematical rule: triples $$\ndef generate_next(current_value, index):\n"
        "    nv = current_value * 3\n    return nv\n&&",
        encoding="utf-8",
    )
    assert main(["math", "rule", str(reply)]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        "The sequence multiplies the current value by 3 at each step.",
        "lambda v, i: v * 3",
    ]
    bad = tmp_path / "bad.txt"
    bad.write_text("def generate_next(a, b):\n    import os\n    return 1", encoding="utf-8")
    assert main(["math", "rule", str(bad)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Import statements are not allowed" in err
    assert main(["math", "rule", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err
    rule = "lambda v, i: v * 2 if i % 2 == 0 else v - 3"
    assert main(["math", "judge", rule, "lambda v, i: (v - 3) if i % 2 else 2 * v", "--level", "L3"]) == 0
    assert "equivalent: agreement 1.000" in capsys.readouterr().out
    assert main(["math", "judge", rule, "lambda v, i: v * 2", "--level", "L3"]) == 1
    assert "not equivalent" in capsys.readouterr().out
    assert main(["math", "judge", rule, "lambda v, i: open('x')", "--level", "L3"]) == 1
    assert "refused: function 'open' is not allowed" in capsys.readouterr().out
