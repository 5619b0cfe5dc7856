"""The 167 translated published functions held to the original Python functions on every word of the vocabulary.

``data/original_truths.json`` holds what each of the 171 published functions (``history_L1.txt``) says about
every word of the game's vocabulary. ``scripts/make_code_function_truths.py`` made it by running the originals in
a limited child process; nothing here runs them. The translations are run through the word sandbox, as the game
runs a hidden rule (:func:`wason.tasks.code_functions.judge.truth_of_source`):

- in the default run, exactly on every word through the sandbox's stored truths: each translation is the source
  in ``published_rules.json`` whose ``extension`` (the digest of its sandbox truth on every word) must be its
  original's; and live, through the sandbox, on one word in :data:`STRIDE`;
- in the slow run (``pytest -m slow``), live through the sandbox on every word (about 30 seconds).
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from wason.sandbox import compile_word_rule
from wason.tasks.code_functions.judge import truth_of_source
from wason.tasks.code_functions.published import published_data
from wason.tasks.code_functions.translate import Translation, published_history, published_translations
from wason.tasks.code_functions.vocabulary import vocabulary, vocabulary_index

DATA = Path(__file__).parent / "data" / "original_truths.json"
REGENERATE = "regenerate it with `.venv-dev/bin/python scripts/make_code_function_truths.py`"
STRIDE = 25
"""The default run evaluates each translation live on words 0, STRIDE, 2*STRIDE, ... (425 of 10,608)."""


@cache
def originals() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


def digest(truth: npt.NDArray[np.bool_]) -> str:
    """The digest ``published_rules.json`` gives an extension (SHA-256 of one byte a word)."""
    return hashlib.sha256(truth.astype(bool).tobytes()).hexdigest()[:16]


def original_truth(index: int) -> npt.NDArray[np.bool_]:
    """What published function ``index`` (1-based, as in ``history_L1.txt``) says about every word."""
    data = originals()
    entry = data["functions"][index - 1]
    assert entry["index"] == index
    packed = np.frombuffer(base64.b64decode(data["truths"][entry["truth"]]), dtype=np.uint8)
    bits = np.unpackbits(packed)
    n = len(vocabulary())
    assert len(bits) == n + (-n % 8) and not bits[n:].any(), (
        f"function {index}: malformed truth; {REGENERATE}"
    )
    return bits[:n].astype(bool)


@cache
def translations() -> tuple[Translation, ...]:
    return tuple(published_translations())


def translated() -> list[Translation]:
    return [t for t in translations() if t.source is not None]


def disagreement(t: Translation, words: list[str], got: list[bool], want: list[bool]) -> str | None:
    wrong = [(w, o) for w, g, o in zip(words, got, want, strict=True) if g != o]
    if not wrong:
        return None
    shown = ", ".join(f"{w!r} (original {o}, translation {not o})" for w, o in wrong[:5])
    return f"{t.index} {t.name}: {len(wrong)} word(s), e.g. {shown}\n    {t.source}"


def test_the_truths_are_of_this_vocabulary_and_these_functions() -> None:
    data = originals()
    words = vocabulary()
    vocab = data["vocabulary"]
    assert (vocab["words"], vocab["sha256"]) == (
        len(words),
        hashlib.sha256("\n".join(words).encode("utf-8")).hexdigest(),
    ), f"the game's vocabulary changed since the truths were made; {REGENERATE}"
    assert data["history"]["sha256"] == hashlib.sha256(published_history().encode("utf-8")).hexdigest()
    # the script split the file on its own: it must find the same 171 functions, in the same order, as wason
    functions = data["functions"]
    assert [(f["index"], f["name"]) for f in functions] == [(t.index, t.name) for t in translations()]
    assert len(functions) == 171
    for f in functions:
        truth = original_truth(f["index"])
        assert digest(truth) == f["truth"] and int(truth.sum()) == f["true"], f["name"]
        # no original raises on a word of this vocabulary (4-7 letters), so no truth rests on an error
        assert f["raised"] == [], f["name"]
    # the stored truths are the originals' own: spot values a reader can check against the published code
    index = vocabulary_index()
    first = original_truth(1)  # is_vowel_start: word[0].lower() in 'aeiou'
    assert first[index["about"]] and not first[index["that"]]
    assert int(first.sum()) == sum(w[0] in "aeiou" for w in words)
    longer = original_truth(2)  # is_longer_than_five: len(word) > 5
    assert longer.tolist() == [len(w) > 5 for w in words]


def test_every_translation_agrees_with_its_original_on_every_word() -> None:
    """Exact on every word, through the sandbox truths stored in ``published_rules.json`` (a slow test in
    ``test_translate.py`` checks that file against the sandbox, and the slow test below does it live)."""
    rules = {r["index"]: r for r in published_data()["rules"]}
    functions = translated()
    assert len(functions) == 167 == len(rules)
    words = list(vocabulary())
    failures = []
    for t in functions:
        rule, want = rules[t.index], original_truth(t.index)
        if rule["source"] == t.source and rule["extension"] == digest(want):
            continue
        # the stored extension is only a digest: run this translation to say where it disagrees, if it does
        assert t.source is not None
        got, _ = truth_of_source(t.source)
        found = disagreement(t, words, got.tolist(), want.tolist())
        failures.append(
            found or f"{t.index} {t.name} agrees with its original, but published_rules.json is stale for it"
        )
    assert not failures, "translations that disagree with their originals:\n" + "\n".join(failures)


def test_every_translation_run_in_the_sandbox_agrees_with_its_original_on_sampled_words() -> None:
    words = list(vocabulary())
    sample = list(range(0, len(words), STRIDE))
    sampled = [words[i] for i in sample]
    failures = []
    truth_of: dict[str, list[bool]] = {}  # translations that are the same text are evaluated once
    for t in translated():
        assert t.source is not None
        if t.source not in truth_of:
            program = compile_word_rule(t.source)
            truth_of[t.source] = [program.evaluate(w).value for w in sampled]
        want = original_truth(t.index)[sample].tolist()
        failure = disagreement(t, sampled, truth_of[t.source], want)
        if failure:
            failures.append(failure)
    assert not failures, "translations that disagree with their originals:\n" + "\n".join(failures)


@pytest.mark.slow
def test_every_translation_run_in_the_sandbox_agrees_with_its_original_on_every_word() -> None:
    words = list(vocabulary())
    failures = []
    for t in translated():
        assert t.source is not None
        got, within = truth_of_source(t.source)  # exactly as the game computes a hidden rule's truth
        assert within, t.name
        failure = disagreement(t, words, got.tolist(), original_truth(t.index).tolist())
        if failure:
            failures.append(failure)
    assert not failures, "translations that disagree with their originals:\n" + "\n".join(failures)


SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "make_code_function_truths.py"
HOSTILE = {
    "memory": "def f(word):\n    return len(' ' * (2 * 1024**3)) > 0\ngenerated_fn = f\n",
    "file": (
        "def f(word):\n    with open('PWNED', 'w') as out:\n        out.write('x')\n    return True\n"
        "generated_fn = f\n"
    ),
    "fork": "def f(word):\n    import os\n    return os.fork() >= 0\ngenerated_fn = f\n",
    "ok": "def f(word):\n    return len(word) > 4\ngenerated_fn = f\n",
}


def test_the_script_runs_the_published_code_only_in_a_limited_child(tmp_path: Path) -> None:
    """The child of ``scripts/make_code_function_truths.py`` (run here on code written for this test, never on
    the published functions) is held to its limits: no memory past its address space, no file written, no
    process started; an ordinary function is answered."""
    answers: dict[str, tuple[int, Any]] = {}
    for name, source in HOSTILE.items():
        done = subprocess.run(
            [sys.executable, "-B", "-S", "-s", "-P", str(SCRIPT), "--child"],
            input=json.dumps({"functions": [source], "words": ["abcd", "abcde"]}),
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
            check=False,
        )
        answers[name] = (done.returncode, json.loads(done.stdout) if done.returncode == 0 else done.stderr)
    status, error = answers["memory"]
    assert status != 0 and "MemoryError" in error
    assert answers["file"] == (0, [{"name": "f", "bits": "00", "raised": ["abcd", "abcde"]}])
    assert not (tmp_path / "PWNED").exists() or (tmp_path / "PWNED").stat().st_size == 0
    assert answers["fork"] == (0, [{"name": "f", "bits": "00", "raised": ["abcd", "abcde"]}])
    assert answers["ok"] == (0, [{"name": "f", "bits": "01", "raised": []}])
