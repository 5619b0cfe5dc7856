"""The word-predicate language: accepted text agrees with Python; hostile text is refused or bounded, never run."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wason.sandbox import GuessRejected, WordProgram, compile_word_rule
from wason.sandbox.words import (
    MAX_VALUE_LEN,
    MAX_WORD_DEPTH,
    MAX_WORD_NODES,
    MAX_WORD_SOURCE_CHARS,
    MAX_WORD_STEPS,
)

# Predicates written for this test (never model text): each is also run by CPython as the oracle.
AGREEING = [
    'len(w) > 4 and w[0] not in "aeiou"',
    'all(c in "aeiou" for c in w)',
    'any(c in "aeiou" for c in w[1:-1])',
    "len(set(w)) == len(w)",
    "len(set(w)) < len(w) - 1",
    '"".join(sorted(w)) == w',
    "sorted(w) == list(w)",
    "sorted(w, reverse=True) == list(w)",
    "w == w[::-1]",
    "w[::2] < w[1::2]",
    "any(a == b for a, b in zip(w, w[1:]))",
    "any(w[i] == w[i + 1] for i in range(len(w) - 1))",
    'sum(1 for ch in w.lower() if ch in "aeiou") >= 2',
    'sum(ch in "aeiou" for ch in w) % 2 == 1',
    'len([c for c in w if c not in "aeiou"]) > 3',
    'len({c for c in w if c not in "aeiou"}) > 3',
    'len(set(c.lower() for c in w if c.lower() in "bcdfghjklmnpqrstvwxyz")) > 3',
    "w[-1].lower() not in w[:-1].lower()",
    "len(w) > 1 and w[1].lower() not in w[2:].lower()",
    '"a" in w[: len(w) // 2].lower()',
    "w[2] == 'e'",
    "w[len(w) // 2] in 'aeiou'",
    "ord(w[0]) - ord('a') < 5",
    "ord(max(w)) - ord(min(w)) > 15",
    "w.startswith(('ab', 'c', 'st'))",
    "w.endswith('ing') or w.endswith('ed')",
    "w.count('e') == 2",
    "w.count('e', 1) >= 1",
    "w.find('a') == 1",
    "w.index('e') < 3",
    "w.isalpha() and w.islower()",
    "w.upper().isupper()",
    "w.replace('a', '') == w",
    "len(w.replace('e', 'ee')) > 6",
    "'ss' in w or 'll' in w",
    "w[0] == w[-1]",
    "w[1:3] in ('ea', 'ou', 'oo')",
    "len(w) % 2 == 0 if w[0] < 'm' else len(w) % 3 == 0",
    "not (len(w) < 5 or w[0] in 'st')",
    "max(w.count(c) for c in w) >= 2",
    "min(len(w), 5) == 5",
    "sum(ord(c) for c in w) % 7 == 0",
    "sum([1, 2, 3]) + len(w) > 10",
    "len(w) / 2 > 2.5",
    "2 ** len(w) > 60",
    "-len(w) < -5",
    "abs(len(w) - 5) <= 1",
    "int('1' + '2') + len(w) > 16",
    "str(len(w)) in '357'",
    "bool(w) and w[0] in {'a', 'b', 'c'}",
    "chr(ord(w[0]) + 1) in w",
    "any(c == d for i, c in enumerate(w) for d in w[i + 1 :])",
    "[i for i, c in enumerate(w) if c in 'aeiou'] == [1, 3]",
    "tuple(reversed(w)) == tuple(w)",
    "list(reversed(w))[0] == 'e'",
    "len(set(w) - set('aeiou')) >= 4",
    "(len(w) > 5) + (w[0] == 's') == 1",
    "3 < len(w) <= 6 != 5",
    "len(w.split('e')) == 3",
    "w.strip('s') != w",
    "'-'.join(w).count('-') == len(w) - 1",
    "'' .join(c for c in w if c not in 'aeiou') == w[::2]",
    "w[10] == 'a'",
    "1 // (len(w) - 5) > 0",
    "w < 5",
    "w.index('z') == 0",
    "min(c for c in w if c == 'q') == 'q'",
    "sum(c for c in w)",
    "len(w) * 1.5 > 7",
    "w * 2 == w + w",
    "[1, 2] * 2 == [1, 2, 1, 2]",
    "w.count('') == len(w) + 1",
]

WORDS = [
    "apple",
    "tree",
    "book",
    "level",
    "strong",
    "abc",
    "queue",
    "seeded",
    "rhythm",
    "a",
    "",
    "zzz",
    "Tiger",
]


def _python(text: str, word: str) -> tuple[bool, bool]:
    """CPython's answer on a test-authored predicate: (value, raised)."""
    try:
        # test-authored predicates only (never model text): CPython is the oracle the sandbox must agree with
        return bool(eval(text, {"__builtins__": __builtins__, "w": word})), False
    except Exception:
        return False, True


@pytest.mark.parametrize("text", AGREEING)
def test_agrees_with_python(text: str) -> None:
    program = compile_word_rule(text)
    for word in WORDS:
        expected, raised = _python(text, word)
        outcome = program.evaluate(word)
        assert outcome.value == expected, (text, word)
        assert (outcome.error is not None) == raised, (text, word, outcome.error)
        assert not outcome.limit


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abcdeilmnorstuyz", min_size=0, max_size=12))
def test_agrees_with_python_on_random_words(word: str) -> None:
    for text in AGREEING[:30]:
        assert compile_word_rule(text)(word) == _python(text, word)[0], (text, word)


def test_lambda_any_parameter_name_and_bare_expression() -> None:
    for text in [
        "lambda word: word[0] == 'a'",
        "lambda x: x[0] == 'a'",
        "w[0] == 'a'",
        "  lambda w : w[0]=='a'  ",
    ]:
        program = compile_word_rule(text)
        assert isinstance(program, WordProgram)
        assert program("apple") is True
        assert program("banana") is False
        assert program.source == text
    assert compile_word_rule("lambda word: word[0] == 'a'").param == "word"
    assert compile_word_rule("lambda word: word[0]=='a'").expression == "lambda word: word[0] == 'a'"


def test_errors_evaluate_false_with_reason() -> None:
    outcome = compile_word_rule("w[9] == 'a'").evaluate("abc")
    assert outcome.value is False
    assert outcome.error == "string index out of range"
    assert outcome.limit is False
    assert compile_word_rule("not w[9] == 'a'")("abc") is False  # an error is False even under a negation


def test_sets_iterate_in_a_fixed_order_across_processes() -> None:
    text = "list(set(w))[0] == 'a' and ''.join(c for c in set(w)) == 'abcdr'"
    assert compile_word_rule(text)("abracadabra") is True
    code = (
        "from wason.sandbox import compile_word_rule as c; "
        f"print(c({text!r})('abracadabra'), c('list(set(w))')('zebra'))"
    )
    outputs = set()
    for seed in ("1", "2", "3"):
        result = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        )
        outputs.add(result.stdout)
    assert outputs == {"True True\n"}


def test_a_set_that_cannot_be_ordered_is_an_error_not_a_crash() -> None:
    # iterating a set goes in sorted order; items Python cannot order make that an error (False), not a raise
    for text in [
        "list({(1,), ('a',)}) == []",
        "sorted({(1,), ('a',)}) == []",
        "any(x for x in {(1,), ('a',)})",
    ]:
        outcome = compile_word_rule(text).evaluate("abc")
        assert outcome.value is False and outcome.error is not None and "not supported" in outcome.error


def test_program_pickles() -> None:
    program = compile_word_rule("lambda w: len(set(w)) == len(w)")
    assert program("abc") is True  # evaluated once: its compiled closures are not pickled
    copy = pickle.loads(pickle.dumps(program))
    assert copy("abc") is True
    assert copy("abca") is False


def test_bad_words_raise_value_error() -> None:
    program = compile_word_rule("len(w) > 1")
    with pytest.raises(ValueError, match="word: expected a str"):
        program(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="the limit is"):
        program("a" * (MAX_VALUE_LEN + 1))


HOSTILE_REJECTED = {
    "w.__class__": "attribute '__class__'",
    "w.__class__.__mro__[1].__subclasses__()": "method '__subclasses__' is not allowed",
    "lambda w: w.__len__()": "method '__len__' is not allowed",
    "lambda w: w.format(w)": "method 'format' is not allowed",
    "lambda w: w.encode()": "method 'encode' is not allowed",
    "lambda w: w.lower": "attribute 'lower'",
    "(1).real": "attribute 'real'",
    "__import__('os').system('echo hi')": "method 'system' is not allowed",
    "__import__('os')": "calling '__import__' is not allowed",
    "import os": "not a valid Python expression",
    "open('/etc/passwd').read()": "method 'read' is not allowed",
    "open('/etc/passwd')": "calling 'open' is not allowed",
    "eval('1')": "calling 'eval' is not allowed",
    "exec('1')": "calling 'exec' is not allowed",
    "globals()": "calling 'globals' is not allowed",
    "getattr(w, 'upper')()": "only whitelisted functions",
    "getattr(w, 'upper')": "calling 'getattr' is not allowed",
    "type(w)": "calling 'type' is not allowed",
    "vars()": "calling 'vars' is not allowed",
    "breakpoint()": "calling 'breakpoint' is not allowed",
    "self": "name 'self' is not allowed",
    "len": "'len' may only be called",
    "lambda w: (lambda: 1)()": "lambdas inside the expression are not allowed",
    "lambda w: (lambda x: x)(w)": "lambdas inside the expression are not allowed",
    "lambda w: sorted(w, key=lambda c: c)": "keyword arguments are not allowed",
    "lambda w: (y := w)": "assignment expressions (:=) are not allowed",
    "lambda w: any((c := x) for x in w)": "assignment expressions (:=) are not allowed",
    "f'{w}'": "f-strings are not allowed",
    "f'{open(1)}' == w": "f-strings are not allowed",
    "{'a': 1}": "dicts are not allowed",
    "{c: 1 for c in w}": "dict comprehensions are not allowed",
    "len(*w)": "starred expressions are not allowed",
    "(c for c in w)": "a generator expression is only allowed",
    "len(c for c in w)": "a generator expression is only allowed",
    "w is 'a'": "'is' is not supported",
    "~len(w)": "the operator Invert is not allowed",
    "len(w) << 3": "the operator LShift is not allowed",
    "len(w) & 1": "the operator BitAnd is not allowed",
    "lambda a, b: a": "exactly one parameter",
    "lambda: 1": "exactly one parameter",
    "lambda *w: 1": "exactly one plain parameter",
    "lambda w=1: w": "exactly one plain parameter",
    "lambda __w: 1": "names may not start with '_'",
    "lambda len: 1": "name 'len' is reserved",
    "any(len for len in w)": "name 'len' is reserved",
    "any(_c for _c in w)": "names may not start with '_'",
    "any(a for a, a in zip(w, w))": "names a variable twice",
    "any(w[0] for w[0] in w)": "target must be a name or a tuple of names",
    "lambda w: w[0](1)": "only whitelisted functions",
    "None": "NoneType literals are not allowed",
    "w == b'a'": "bytes literals are not allowed",
    "1j": "complex literals are not allowed",
    "...": "ellipsis literals are not allowed",
    "10**100 == 1 or w": "",  # accepted: a power of literals is bounded when evaluated (see below)
    "10000000000000000000000": "integer literal is larger than",
    "w == '" + "a" * 300 + "'": "string literal is longer than",
    "len(w) > 3; import os": "not a valid Python expression",
    "await w": "await is not allowed",
    "[x async for x in w]": "async comprehensions are not allowed",
    "any(1 for a in w for b in w for c in w for d in w)": "at most 3 'for' clauses",
    "": "the predicate is empty",
    "   ": "the predicate is empty",
    "w\x00": "not a valid Python expression",
    "range": "'range' may only be called",
    "len(w, w)": "len() takes 1 argument(s), not 2",
    "w.count()": ".count() takes 1 to 3 argument(s), not 0",
}


@pytest.mark.parametrize("text", sorted(HOSTILE_REJECTED))
def test_hostile_text_is_refused(text: str) -> None:
    fragment = HOSTILE_REJECTED[text]
    if not fragment:
        compile_word_rule(text)  # accepted; bounded at run time
        return
    with pytest.raises(GuessRejected) as info:
        compile_word_rule(text)
    assert fragment in info.value.reason
    assert "\n" not in info.value.reason


def test_size_limits() -> None:
    with pytest.raises(GuessRejected, match="the limit is 1000"):
        compile_word_rule("len(w) > 1 " + " " * MAX_WORD_SOURCE_CHARS)
    deep = "(" * 60 + "w" + ")" * 60  # parentheses leave no nodes; nest calls instead
    assert compile_word_rule(deep)("a") is True
    nested = "len(" * (MAX_WORD_DEPTH + 5) + "w" + ")" * (MAX_WORD_DEPTH + 5)
    with pytest.raises(GuessRejected, match="nested more than"):
        compile_word_rule(nested)
    wide = "len(w) in (" + ",".join(["1"] * 300) + ")"
    with pytest.raises(GuessRejected, match=f"more than {MAX_WORD_NODES} syntax nodes"):
        compile_word_rule(wide)
    with pytest.raises(GuessRejected):
        compile_word_rule("-" * 990 + "1")
    with pytest.raises(GuessRejected):
        compile_word_rule(5)  # type: ignore[arg-type]


BOUNDED = [
    "lambda w: 'a' * 10**9",
    "lambda w: len(w * 10**9) > 0",
    "lambda w: [w] * 10**6",
    "lambda w: (w * 500) + (w * 500) == w",
    "lambda w: 10**100 > 1",
    "lambda w: 2 ** 10**6 > 1",
    "lambda w: len(range(10**12)) > 1",
    "lambda w: any(i > 10**9 for i in range(10**10))",
    "lambda w: sum(1 for a in w for b in w for c in w) > 0",
    "lambda w: sum(1 for a in w * 40 for b in w * 40 for c in w * 40) > 0",
    "lambda w: sum(range(10**15, 10**15 + 999)) > 0",
    "lambda w: (w * 100).replace('', w * 100) == w",
    "lambda w: ','.join(w * 100 for _x in range(3)) == w",
    "lambda w: ','.join(w * 100 for x in range(100)) == w",
    "lambda w: len(set(str(i) for i in range(10**9))) > 0",
    "lambda w: sorted(w * 200) == w",
    "lambda w: 999999999999999 * 999999999999999 > 1",
    "lambda w: int('9' * 999) > 0",
    "lambda w: len([c for c in w for d in w for e in w]) > 0",
]


@pytest.mark.parametrize("text", BOUNDED)
def test_runaway_work_is_bounded(text: str) -> None:
    try:
        program = compile_word_rule(text)
    except GuessRejected:
        return  # refusing is also acceptable
    outcome = program.evaluate("abcdefghij" * 6)
    assert outcome.value is False
    assert outcome.limit is True
    assert outcome.error is not None


def test_step_budget_counts_iterations() -> None:
    program = compile_word_rule("sum(1 for a in w for b in w) > 0")
    assert program("a" * 100) is True  # 10,000 pairs, within budget
    outcome = program.evaluate("a" * 400)  # 160,000 pairs
    assert outcome.limit is True
    assert str(MAX_WORD_STEPS) in (outcome.error or "")


def test_printf_formatting_is_not_available() -> None:
    outcome = compile_word_rule("lambda w: ('%*d' % (10**9, 1)) == w").evaluate("x")
    assert outcome.value is False
    assert outcome.error is not None and "unsupported operand types for Mod" in outcome.error


def test_attribute_on_non_str_is_an_error_not_a_lookup() -> None:
    for text in ["len(w).lower() == 'a'", "[w].count(w) == 1", "set(w).isalpha()", "(1.5).upper()"]:
        outcome = compile_word_rule(text).evaluate("abc")
        assert outcome.value is False
        assert outcome.error is not None and "has no attribute" in outcome.error


def test_steps_are_counted_and_a_smaller_budget_can_be_given() -> None:
    program = compile_word_rule("sum(1 for a in w for b in w) > 0")
    full = program.evaluate("abcdefghij")
    assert full.value is True and 100 < full.steps < 1000
    short = program.evaluate("abcdefghij", max_steps=50)
    assert short.value is False and short.limit and "more than 50 steps" in (short.error or "")
    assert program.evaluate("abc", max_steps=10**9).steps == program.evaluate("abc").steps
