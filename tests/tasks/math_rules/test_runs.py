"""`wason eval math` end to end over real HTTP: the published conversation, the LLM judge beside the code, the
solver baseline, reports and transcripts; `wason play math` at the terminal."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tests.fakes.openai_server import FakeOpenAIServer
from wason.cli import main
from wason.report.render import results_terminal
from wason.store import Store
from wason.tasks.math_rules.family import FAMILY

JUDGE_OPENING = "\nEvaluate whether a user's guessed rule"


FIRST_CALLS: list[list[dict[str, Any]]] = []


def player(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """A scripted model: guesses "add d" from the sequences it has seen, in words first, then as a lambda."""
    if messages[0]["content"].startswith(JUDGE_OPENING):
        return "True."  # a judge that accepts everything (and writes the reference's "wrong" True.)
    if len(messages) == 2:
        FIRST_CALLS.append(messages)
    last = messages[-1]["content"]
    if last.startswith("Write the rule you guessed"):
        seen = [m for m in messages if m["role"] == "user" and m["content"].startswith("[[")]
        first = ast.literal_eval(seen[0]["content"])[0]
        return f"```python\nlambda v, i: v + {first[1] - first[0]}\n```"
    if last.startswith("Here are the first terms"):
        lines = re.findall(r"^(\d+): (.*), \.\.\.$", last, re.MULTILINE)
        out = []
        for k, terms in lines:
            values = [int(t) for t in terms.split(", ")]
            d = values[1] - values[0]
            out.append(f"{k}: " + ", ".join(str(values[-1] + d * j) for j in range(1, 6)))
        return "\n".join(out)
    sequences = [m for m in messages if m["role"] == "user" and m["content"].startswith("[[")]
    if not sequences:
        return "More"
    first = ast.literal_eval(sequences[0]["content"])[0]
    return f"Looking at it.\nMy Guess is: each term adds {first[1] - first[0]} to the one before"


def test_a_model_run_with_its_judges_and_its_solver_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'math.db'}"
    with FakeOpenAIServer(player) as server:
        args = ["eval", "math", "--model", "vllm:fake", "--base-url", server.base_url, "--db", db]
        assert main([*args, "--level", "L1", "--n", "4", "--seed", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["task"] == "math" and data["summary"]["episodes"] == 4
    # the published first turn: the system prompt, then str() of the first five sequences
    system = (
        Path(__file__).parents[3] / "src/wason/tasks/math_rules/data/test_llm_sys_prompt.txt"
    ).read_text()
    assert len(FIRST_CALLS) == 4 and all(m[0] == {"role": "system", "content": system} for m in FIRST_CALLS)
    assert all(len(ast.literal_eval(m[1]["content"])) == 5 for m in FIRST_CALLS)
    rules = [e["rule"] for e in data["episodes"]]
    adds = sum("adds" in r or "subtracts" in r for r in rules)
    # the model is right exactly on the rules that add a constant; the lenient judge says yes to everything
    assert data["summary"]["wins"]["k"] == data["summary"]["judges"]["expression"]["k"] == adds
    assert data["summary"]["judges"]["llm"]["k"] == 4
    # every guess of a lost game (the model keeps guessing "add d" until its turns run out) is a disagreement
    assert 0 < adds < 4 and data["summary"]["llm_disagreements"] == data["summary"]["guesses"] - adds
    assert data["summary"]["guesses_without_expression"] == data["summary"]["guesses"]
    assert data["summary"]["seconds"] >= 0.0  # the lost games took several turns
    (baseline,) = data["baselines"]
    assert baseline["player"] == "solver" and baseline["summary"]["wins"]["k"] == 4
    assert main(["show", "1", "--db", db]) == 0
    text = capsys.readouterr().out
    assert "Wins" in text and "solver (reference)" in text
    assert main(["show", "1", "--db", db, "--episode", "0"]) == 0
    transcript = capsys.readouterr().out
    assert "My Guess is" in transcript
    # the system prompt the model read: short, so it is not folded
    assert " ".join(("[system] " + system).split()) in " ".join(transcript.split())
    assert "more lines; the whole prompt" not in transcript

    # the tables of the run and its baseline fit an 80-column terminal without cutting a word
    store = Store(db)
    console = Console(width=80, record=True)
    for part in results_terminal(FAMILY.results(store, [1, baseline["run"]])):
        console.print(part)
    shown = console.export_text()
    # the baseline's row: 4 of 4 won, 100% with its Wilson interval
    assert "Wins" in shown and "100% [51-100]" in shown and "4/4" in shown and "Quiz acc." in shown
    assert "Seconds" in shown and "up to 10 turns" in " ".join(shown.split())  # no column or word cropped
    assert all(len(line) <= 80 for line in shown.splitlines()) and "…" not in shown
    # the comparison's columns: the code's win rate (Wilson), what the games took, the LLM judge apart
    scores = FAMILY.scores(store, 1)
    assert [s.short for s in scores] == ["Win", "Turns", "Seqs", "Agree"]
    assert (scores[0].k, scores[0].n) == (adds, 4) and scores[1].interval is not None
    assert (scores[3].k, scores[3].n) == (adds, 4)  # the lenient judge agrees with the code on the wins only
    store.close()


def test_a_person_plays_at_the_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from wason.tasks.math_rules.family import MathRunConfig, rule_from_item

    (_, item), *_ = MathRunConfig(level="L2", n=3, seed=0).items()
    rule = rule_from_item(item)
    lines = iter(
        ["hello", "more x", "more 2", "guess it goes down", "lambda v, i: v", f"guess {rule.expression()}"]
    )
    quiz_lines = iter(["1 2 3 4 5"] * 3)

    def read(prompt: str) -> str:
        return next(quiz_lines) if prompt[0].isdigit() else next(lines)

    import builtins

    monkey = pytest.MonkeyPatch()
    monkey.setattr(builtins, "input", read)
    try:
        code = main(
            ["play", "math", "--level", "L2", "--rule", "1", "--db", f"sqlite:///{tmp_path / 'p.db'}"]
        )
    finally:
        monkey.undo()
    out = capsys.readouterr().out
    assert code == 0, out
    # the typos cost nothing (one line each, nothing played); the wrong guess let the game go on to a third turn
    assert "'hello' is not a move here" in out and "n: a whole number, not 'x'. Nothing was played." in out
    assert "3 turns, 12 sequences seen." in out and f"The rule was: {rule.text()}" in out
    assert "Your expression is the rule" in out


def test_games_not_played_yet_are_in_no_rate(tmp_path: Path) -> None:
    from wason.engine import create_run
    from wason.tasks.math_rules.family import MathRunConfig

    store = Store(f"sqlite:///{tmp_path / 'pending.db'}")
    rid = create_run(store, MathRunConfig(player="solver", n=2))
    win = FAMILY.scores(store, rid)[0]
    assert (win.short, win.k, win.n, win.value) == ("Win", 0, 0, None)
    summary = FAMILY.report_json(store, [rid]).model_dump()["summary"]
    assert summary["episodes"] == 2 and summary["wins"]["n"] == 0
    store.close()
