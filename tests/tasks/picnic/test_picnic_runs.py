"""`wason eval picnic` end to end over real HTTP: the published conversation, the code judge with the LLM judge
beside it, the solver baseline, reports and transcripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tests.fakes.openai_server import FakeOpenAIServer
from wason.cli import main
from wason.report.render import results_terminal
from wason.store import Store
from wason.tasks.picnic.family import FAMILY
from wason.tasks.picnic.protocol import load_text

SEEN: list[list[dict[str, Any]]] = []


def player(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """A lenient judge (says yes to anything) and a player that asks once for more, then says 'animal'."""
    if messages[0]["content"] == load_text("judge_system.txt"):
        return "Yes."
    SEEN.append(messages)
    if not any(m["role"] == "assistant" for m in messages):
        return "more 3"
    return "Items from the category 'animal'"


def test_a_model_run_with_the_llm_judge_beside_the_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    SEEN.clear()
    db = f"sqlite:///{tmp_path / 'picnic.db'}"
    args = ["--level", "L1", "--n", "4", "--max-turns", "3", "--json"]
    with FakeOpenAIServer(player) as server:
        code = main(
            ["eval", "picnic", "--model", "vllm:fake", "--base-url", server.base_url, "--db", db, *args]
        )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    summary = data["summary"]
    assert summary["games"] == 4 and summary["errored"] == 0
    # each game's time, from its episode's start to its end (several model calls each, over HTTP)
    assert summary["seconds"] is not None and summary["seconds"] > 0
    # the lenient judge says yes every time; the code says yes only where the rule is 'animal'
    assert summary["llm_judge"]["k"] == 4
    animal = [e for e in data["episodes"] if e["rule"] == "Items from the category 'animal'"]
    assert summary["wins"]["k"] == summary["code_judge"]["k"] == len(animal) < 4
    for e in data["episodes"]:
        assert e["judges"]["llm"] is True and e["decided_by"] == "code"
        assert e["turns"] == (3 if e["success"] else 4)
    # the player's conversation: the published system message, its own replies kept, turn 2 after "more 3"
    last = SEEN[-1]
    assert last[0] == {"role": "system", "content": load_text("player_system.txt")}
    assert any(m["role"] == "assistant" and m["content"] == "more 3" for m in last)
    assert any(m["role"] == "user" and m["content"].startswith("Turn 2\nI can bring: ") for m in last)
    (baseline,) = data["baselines"]
    assert baseline["player"] == "solver" and baseline["summary"]["wins"]["k"] == 4

    assert main(["show", "1", "--db", db]) == 0
    shown = capsys.readouterr().out
    assert "SP L1" in shown and "Wilson" in shown
    assert main(["show", "1", "--episode", "0", "--db", db]) == 0
    transcript = capsys.readouterr().out
    assert "more 3" in transcript and "LLM judge: yes" in " ".join(transcript.split())  # a verdict in words
    # the system prompt first, after its label (piped output is 100 columns wide: its long lines wrap)
    assert transcript.count("[system]\n") == 1
    first_line = " ".join(load_text("player_system.txt").splitlines()[0].split())
    assert "[system] " + first_line in " ".join(transcript.split())

    # the tables of the run and its baseline fit an 80-column terminal without cutting a word
    store = Store(db)
    console = Console(width=80, record=True)
    for part in results_terminal(FAMILY.results(store, [1, 2])):
        console.print(part)
    text = console.export_text()
    # the baseline won all 4 (100% with its Wilson interval); no column cropped
    assert (
        "SP L1" in text and "100% [51-100]" in text and "4/4" in text and "Agree" in text and "Limit" in text
    )
    assert all(len(line) <= 80 for line in text.splitlines()) and "…" not in text
    # the comparison's columns: the win rate first (Wilson), what the games took, the judges' agreement apart
    scores = FAMILY.scores(store, 1)
    assert [s.short for s in scores] == ["Win", "Turns", "Examples", "Agree"]
    win, turns, _, agree = scores
    assert (win.k, win.n) == (len(animal), 4) and win.interval is not None
    assert turns.value == sum(e["turns"] for e in data["episodes"]) / 4 and turns.interval is not None
    assert (agree.k, agree.n) == (len(animal), 4)  # the lenient judge agrees with the code only on 'animal'
    baseline_win = FAMILY.scores(store, 2)[0]
    assert (baseline_win.short, baseline_win.k) == ("Win", 4)
    store.close()
