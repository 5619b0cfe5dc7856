"""wason's WILT judge against the reference's own checker, on a stored corpus of (rule, guess) pairs.

``reference_verdicts.jsonl`` holds, for each pair, what the reference harness (RiotGames/WILT at 6344f04) answered
when its own path ran once, by hand, on this machine: ``LLMReasoningHarness._handle_final_guess`` on the reply
``Final Guess: ```GUESS````, which ``eval``s the guess and calls ``calculate_rule_correctness_points`` on its probes
(``random.seed(0)`` before each pair, since the reference seeds nothing; 120 s per pair). Its verdict is
``correct`` (1000 points), ``wrong``, ``invalid`` ("Invalid lambda function.", 0 points) or ``timeout``. The
reference is never run here: its ``eval`` is the defect (docs/fidelity.md, "WILT").

Every pair where wason and the reference differ must be one listed below, with the reason the reference is wrong;
any other difference fails, as does a listed one that no longer differs.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from wason.tasks.wilt.judge import is_lambda, judge

CORPUS = Path(__file__).with_name("reference_verdicts.jsonl")
KINDS = {"same", "equivalent", "float", "sandbox", "bigint", "bare", "wrong", "reference-wrong"}

REFERENCE_WRONG: dict[tuple[str, str], str] = {
    # (rule body, guess): why the reference is wrong and wason right
    (
        "x > y > z",
        "self.rule",
    ): "the reference evals the guess inside the harness: the text returns the hidden rule",
    ("x > y > z", "lambda x, y, z: __import__('os').getpid() > 0 and x > y > z"): (
        "the reference runs any code a model writes; wason refuses calls outside the language"
    ),
    ("x < y < z", "lambda x, y, z: x < y < z and z < 500"): (
        "the reference never probes beyond |200|, though (1, 2, 600) is a valid test"
    ),
    ("x > 0 and y > 0 and z > 0", "lambda x, y, z: x > 0 and y > 0 and z > 0 and x < 300"): (
        "the reference never probes beyond |200|, though (300, 1, 1) is a valid test"
    ),
    ("0 < x % 1 < y % 1 < z % 1 < 1", "lambda x, y, z: x % 1 < y % 1 < z % 1"): (
        "the reference's probes never pair an integer with two fractions ((1, 1.5, 1.7) is a valid test)"
    ),
    ("x > y > z", "lambda x, y, z: x > y > z or 10**10**10 < 0"): "the reference hangs evaluating 10**10**10",
    ("x + y == z", "lambda x, y, z: round(x + y, 9) == round(z, 9)"): (
        "float artifact: at (0.1, 0.2, 0.3) the reference's rule is False in binary floating point"
    ),
    ("x + y == z", "lambda x, y, z: x + y == z or (x == 0.1 and y == 0.2 and z == 0.3)"): (
        "float artifact: at (0.1, 0.2, 0.3) the reference's rule is False in binary floating point"
    ),
    ("x > y > z", "lambda x, y, z: x + 10**17 > y + 10**17 > z + 10**17"): (
        "float artifact: adding 10**17 to a float rounds it away; in arithmetic the guess is the rule"
    ),
}


def _corpus() -> list[dict[str, str]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def _wason(rule: str, guess: str) -> str:
    """wason's verdict on a model's final guess, as play gives it: a bare expression is invalid (the reference's
    "Invalid lambda function."), else the judge's."""
    if not is_lambda(guess):
        return "invalid"
    verdict = judge(rule, guess)
    if not verdict.accepted:
        return "invalid"
    return "correct" if verdict.equivalent else "wrong"


def _body(rule: str) -> str:
    return rule.split(":", 1)[1].strip()


def test_the_corpus_covers_every_kind() -> None:
    pairs = _corpus()
    assert len(pairs) >= 150
    counts = Counter(p["kind"] for p in pairs)
    assert set(counts) == KINDS, counts
    assert all(counts[k] >= 5 for k in KINDS), counts
    assert {p["reference"] for p in pairs} == {"correct", "wrong", "invalid", "timeout"}


@pytest.fixture(scope="module")
def verdicts() -> list[tuple[dict[str, str], str]]:
    return [(p, _wason(p["rule"], p["guess"])) for p in _corpus()]


def test_every_disagreement_is_one_where_the_reference_is_wrong(
    verdicts: list[tuple[dict[str, str], str]],
) -> None:
    differ = {
        (_body(p["rule"]), p["guess"]): (p["reference"], ours)
        for p, ours in verdicts
        if (p["reference"] == "correct") != (ours == "correct")
    }
    unexplained = {pair: v for pair, v in differ.items() if pair not in REFERENCE_WRONG}
    assert unexplained == {}
    assert set(differ) == set(REFERENCE_WRONG)  # each listed pair still differs
    for p, _ in verdicts:
        if p["kind"] == "reference-wrong":
            assert (_body(p["rule"]), p["guess"]) in REFERENCE_WRONG


def test_the_issues_cases(verdicts: list[tuple[dict[str, str], str]]) -> None:
    by_pair = {(_body(p["rule"]), p["guess"]): ours for p, ours in verdicts}
    assert by_pair[("x + y == z", "lambda x, y, z: z - x == y")] == "correct"
    assert by_pair[("x <= y <= z", "lambda x, y, z: sorted([x, y, z]) == [x, y, z]")] == "correct"
    assert by_pair[("x > y > z", "x > y > z")] == "invalid"  # a bare expression, as the reference
    assert by_pair[("x > y > z", "self.rule")] == "invalid"
    assert by_pair[("x < y < z", "lambda x, y, z: x < y < z and z < 500")] == "wrong"
    wrong = [ours for p, ours in verdicts if p["kind"] == "wrong"]
    assert wrong and all(v == "wrong" for v in wrong)  # the near misses stay wrong


def test_pure_python_the_reference_accepts_is_judged(verdicts: list[tuple[dict[str, str], str]]) -> None:
    refused = {
        (_body(p["rule"]), p["guess"]) for p, ours in verdicts if p["kind"] == "sandbox" and ours != "correct"
    }
    assert refused == set()
