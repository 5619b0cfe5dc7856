"""The published functions (history_L1.txt) and game-master replies, translated as text into the word language."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from tests.reference import reference
from wason.sandbox import compile_word_rule
from wason.tasks.code_functions.published import build_published_rules, published_data, published_rules
from wason.tasks.code_functions.translate import (
    published_history,
    published_translations,
    split_functions,
    translate_function,
)
from wason.tasks.code_functions.writer import check_code


def test_the_history_is_the_published_file_byte_for_byte() -> None:
    assert published_history() == reference("guess_the_rule", "code_functions", "history_L1.txt").read_text(
        encoding="utf-8"
    )


def test_the_published_functions_are_counted_and_translated() -> None:
    translations = published_translations()
    text = published_history()
    # 171 definitions: 170 start a line, one is glued to the previous "generated_fn = ..." line
    assert len(translations) == 171 == text.count("generated_fn =")
    assert sum(line.startswith("def ") for line in text.splitlines()) == 170
    translated = [t for t in translations if t.source is not None]
    assert len(translated) == 167
    refused = [t for t in translations if t.source is None]
    assert [t.name for t in refused] == [
        "is_prime_length",
        "is_length_prime_and_ends_with_vowel",
        "is_length_prime_and_odd_vowel_count",
        "is_unique_length_and_has_prime_letter_count",
    ]
    assert all(t.reason == "a nested function (is_prime) has no form in the word language" for t in refused)
    first = translations[0]
    assert (first.name, first.source) == ("is_vowel_start", "lambda w: w[0].lower() in 'aeiou'")
    glued = next(t for t in translations if t.name == "is_unique_consonant_count")
    assert glued.source == (
        "lambda w: len(set((char.lower() for char in w if char.lower() in 'bcdfghjklmnpqrstvwxyz'))) > 3"
    )
    half = next(t for t in translations if t.name == "is_first_half_contains_a")
    assert half.source == "lambda w: 'a' in w[:len(w) // 2].lower()"  # the local name is inlined


# What the first published functions mean, written here by hand (the published code itself is model-written
# text and is never run, not even in a test); each translation must agree with it.
MEANINGS = {
    "is_vowel_start": lambda w: w[0].lower() in "aeiou",
    "is_longer_than_five": lambda w: len(w) > 5,
    "is_even_length_and_contains_a": lambda w: len(w) % 2 == 0 and "a" in w.lower(),
    "is_unique_last_letter": lambda w: w[-1].lower() not in w[:-1].lower(),
    "is_unique_letter_count": lambda w: len(set(w.lower())) == len(w),
    "is_first_half_contains_a": lambda w: "a" in w[: len(w) // 2].lower(),
    "is_unique_second_letter": lambda w: len(w) > 1 and w[1].lower() not in w[2:].lower(),
    "is_even_length_and_contains_vowel": lambda w: len(w) % 2 == 0 and any(c in "aeiou" for c in w.lower()),
    "is_unique_consonant_count": lambda w: len({c for c in w.lower() if c in "bcdfghjklmnpqrstvwxyz"}) > 3,
    "is_unique_length_and_odd_consonant_count": lambda w: (
        len(w) == len(set(w.lower())) and sum(c in "bcdfghjklmnpqrstvwxyz" for c in w.lower()) % 2 == 1
    ),
}


def test_translations_mean_what_the_published_functions_say() -> None:
    words = [
        "apple",
        "tree",
        "strong",
        "level",
        "rhythm",
        "queue",
        "banana",
        "Tigrai",
        "seeded",
        "abcdefg",
        "a",
    ]
    found = {t.name: t for t in published_translations()}
    for name, meaning in MEANINGS.items():
        source = found[name].source
        assert source is not None, name
        program = compile_word_rule(source)
        for word in words:
            try:
                expected = bool(meaning(word))
            except IndexError:
                expected = False
            assert program(word) == expected, (name, word)


def test_the_precomputed_split_matches_the_translations() -> None:
    data = published_data()
    translated = [t for t in published_translations() if t.source is not None]
    assert [r["source"] for r in data["rules"]] == [t.source for t in translated]
    assert data["functions"] == 171 and len(data["untranslated"]) == 4
    balanced = published_rules(balanced_only=True)
    assert len(published_rules()) == 167 and len(balanced) == 156
    assert sum(r["balance"]["published_ok"] for r in data["rules"]) == 159
    assert len({r["extension"] for r in data["rules"]}) == 88
    assert all(r.level == "L1" and r.key.startswith("published:") for r in balanced)


@pytest.mark.slow
def test_the_precomputed_split_is_what_the_code_computes() -> None:
    assert build_published_rules() == published_data()


HOSTILE = {
    "def f(word):\n    import os\n    return True\n": "a Import statement has no form",
    "def f(word):\n    while True:\n        pass\n    return True\n": "a While statement has no form",
    "def f(word):\n    return __import__('os').system('touch PWNED')\n": "outside the word language",
    "def f(word):\n    return open('/etc/passwd').read() != ''\n": "outside the word language",
    "def f(word):\n    return eval('1')\n": "outside the word language",
    "def f(word):\n    return word.__class__ is str\n": "outside the word language",
    "def f(word):\n    return (lambda x: x)(word)\n": "outside the word language",
    "def f(word):\n    x = 1\n    return len(word) > x\n    return False\n": "must end with its only return",
    "def f(word, other):\n    return True\n": "exactly one argument",
    "def f(*word):\n    return True\n": "exactly one argument",
    "@decorate\ndef f(word):\n    return True\n": "decorators are not supported",
    "def f(word):\n    if word: return True\n    return False\n": "a If statement has no form",
    "def f(word):\n    word = 'x'\n    return True\n": "reassigns its argument",
    "def f(word):\n    pass\n": "returns nothing",
    "def f(word):\n    return len(word) >\n": "not valid Python",
    "def f(word):\n    a, b = 1, 2\n    return True\n": "one plain name",
    "def f(word):\n    return 'a' * 10**9 == word\n": "",  # accepted: bounded when evaluated
    "def f(word):\n    a = word\n"
    + "".join(f"    {x} = {p} + {p}\n" for p, x in itertools.pairwise("abcdefghijklmnopqrstuvwxyz"))
    + "    return len(z) > 0\n": "grows past 250 nodes once its names are inlined",
}


@pytest.mark.parametrize("code", sorted(HOSTILE))
def test_hostile_functions_are_refused_or_bounded_never_run(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    t = translate_function(code)
    if HOSTILE[code]:
        assert t.source is None and HOSTILE[code] in (t.reason or ""), t.reason
    else:
        assert t.source is not None and compile_word_rule(t.source)("abc") is False
    assert not (tmp_path / "PWNED").exists()


def test_a_game_masters_reply_is_translated_and_checked() -> None:
    reply = (
        "```python\ndef has_double(word):\n    return any(a == b for a, b in zip(word, word[1:]))\n"
        "generated_fn = has_double\npass\n```"
    )
    record = check_code(reply, "t")
    assert record["source"] == "lambda w: any((a == b for a, b in zip(w, w[1:])))"
    assert record["accepted"] is True and record["reason"] is None
    assert 0.1 <= record["balance"]["fraction"] <= 0.9
    never = check_code("def f(word):\n    return len(word) > 20\n", "t")
    assert never["accepted"] is False and "unbalanced: true for 0 of 50" in never["reason"]
    assert check_code("I cannot do that.", "t")["reason"] == "no function definition (def ...) in the reply"
    assert len(split_functions("def a(w):\n    def b(x):\n        return x\n    return b(w)\n")) == 1


def test_a_rules_file_round_trip(tmp_path: Path) -> None:
    from wason.tasks.code_functions.family import load_rules_file

    path = tmp_path / "r.jsonl"
    path.write_text(
        json.dumps({"source": "lambda w: w[0] == 's'", "text": "starts with s"}) + "\n", encoding="utf-8"
    )
    (rule,) = load_rules_file(str(path))
    assert rule.source == "lambda w: w[0] == 's'" and rule.key == "file:1"
    path.write_text('{"source": "__import__(\'os\')"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"r.jsonl:1: calling '__import__' is not allowed"):
        load_rules_file(str(path))
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(ValueError, match="not UTF-8"):
        load_rules_file(str(path))
    with pytest.raises(ValueError, match="cannot read"):
        load_rules_file(str(tmp_path / "missing.jsonl"))
