"""The judge on a corpus of range caps, carve-outs, boundary shifts, equivalent algebra and the sandbox's operators
(``data/judge_corpus.jsonl``, written for issue 48, each with the right verdict), the reference corpus and the
50 published rules against themselves: every verdict right, at least 95% of them by proof (proved or refuted)."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path

from tests.reference import reference
from wason.sandbox import Program, compile_rule
from wason.sandbox.exact import evaluate_exact, exact_point
from wason.tasks.wilt.judge import Verdict, judge
from wason.tasks.wilt.values import InvalidValue, parse_value

HERE = Path(__file__).parent
CORPUS = HERE / "data" / "judge_corpus.jsonl"
KINDS = {"cap", "cap-beyond", "carve", "boundary", "algebra", "operator", "unencoded"}


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@cache
def _verdict(rule: str, guess: str) -> Verdict:
    return judge(rule, guess)  # each pair once, for both tests


def _exactly(program: Program, point: tuple[float, float, float]) -> bool:
    return evaluate_exact(program.root, exact_point(*point))


def _accepted(point: tuple[float, float, float]) -> bool:
    try:
        return all(parse_value(repr(v)) == v for v in point)
    except InvalidValue:
        return False


def test_every_verdict_of_the_corpus_is_right_and_backed_by_a_test_one_can_type() -> None:
    rows = _rows(CORPUS)
    assert len(rows) >= 150 and {str(r["kind"]) for r in rows} == KINDS
    wrong = []
    for row in rows:
        rule, guess = str(row["rule"]), str(row["guess"])
        v = _verdict(rule, guess)
        if v.equivalent != row["correct"]:
            wrong.append((guess, v.method, v.evidence))
        r, g = compile_rule(rule), compile_rule(guess)
        for point, rule_value, guess_value in v.counterexamples:
            assert _accepted(point), (guess, point)
            assert (r(*point), g(*point)) == (rule_value, guess_value) and rule_value != guess_value
            assert _exactly(r, point) != _exactly(g, point)
    assert wrong == []


def test_at_least_95_percent_of_verdicts_are_proofs() -> None:
    pairs = [(str(r["rule"]), str(r["guess"])) for r in _rows(CORPUS)]
    pairs += [(str(r["rule"]), str(r["guess"])) for r in _rows(HERE / "reference_verdicts.jsonl")]
    published = json.loads(reference("wilt", "rules.json").read_text())["splits"]["full"]
    pairs += [(str(r["rule"]), str(r["rule"])) for r in published]
    methods: Counter[str] = Counter()
    for rule, guess in pairs:
        methods[_verdict(rule, guess).method or "rejected"] += 1
    judged = sum(n for m, n in methods.items() if m != "rejected")
    proofs = methods["proved"] + methods["refuted"]
    assert judged >= 400
    assert proofs >= 0.95 * judged, methods
