"""`wason eval code-functions` end to end over real HTTP (the project's fake endpoint): a model player with the
published judge beside the code, its solver baseline, reports; a game master writing rules; the family's
commands."""

from __future__ import annotations

import itertools
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
from wason.tasks.code_functions.family import FAMILY
from wason.tasks.code_functions.protocol import PREDICATE_REQUEST, load_text

JUDGE_SYSTEM = load_text("validate_sysprompt.txt")
GUESS = "Items from the category 'words with five letters'"


def player_and_judge(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """A scripted model: a lenient judge (its verdict ends "YES.", which crashed the reference), and a player
    who first says "at least five letters" (wrong), then "five letters"."""
    first, last = messages[0]["content"], messages[-1]["content"]
    if first == JUDGE_SYSTEM:
        return "The guess describes the length.\nYES." if "five" in last else "NO"
    if last == PREDICATE_REQUEST:
        guesses = sum(m["role"] == "assistant" and m["content"].startswith("Items") for m in messages)
        return "lambda w: len(w) >= 5" if guesses == 1 else "```\nlambda w: len(w) == 5\n```"
    if last.startswith("The game is over."):
        words = re.findall(r"^\d+\. (\w+)$", last, re.MULTILINE)
        return "\n".join(f"{i}. {'Yes' if len(w) == 5 else 'No'}" for i, w in enumerate(words, 1))
    return GUESS


def _rules_file(tmp_path: Path) -> str:
    path = tmp_path / "rules.jsonl"
    path.write_text(
        json.dumps({"source": "lambda w: len(w) == 5", "text": "five letters", "key": "five"}) + "\n"
    )
    return str(path)


def test_a_model_run_with_the_published_judge_and_the_solver_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'cf.db'}"
    with FakeOpenAIServer(player_and_judge) as server:
        args = ["eval", "code-functions", "--model", "vllm:fake", "--base-url", server.base_url, "--db", db]
        args += [
            "--split",
            "file",
            "--rules",
            _rules_file(tmp_path),
            "--trials",
            "2",
            "--max-turns",
            "3",
            "--json",
        ]
        assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    summary = data["summary"]
    assert summary["episodes"] == 2 and summary["won"]["k"] == 2 and summary["turns"] == 2
    assert summary["judges"]["llm"]["k"] == 2 and summary["judges"]["quiz"]["k"] == 2
    assert summary["positives_seen"] == 3 and summary["negatives_seen"] == 3  # 2 pairs, then 1 after the miss
    (baseline,) = data["baselines"]
    assert baseline["player"] == "solver" and "llm" not in baseline["config"]["judges"]

    store = Store(db)
    calls = store.list_calls(run_id=data["run"])
    judge_calls = [c for c in calls if c["messages"][0]["content"] == JUDGE_SYSTEM]
    assert len(judge_calls) == 2 * 2 * 3  # two guesses per episode, three votes each
    user = judge_calls[0]["messages"][1]["content"]
    assert user == load_text("judge_user.txt").replace("{rule_code}", "lambda w: len(w) == 5").replace(
        "{guess}", GUESS
    )
    player = [c for c in calls if c not in judge_calls]
    assert all(c["messages"][0]["content"] == load_text("player_system.txt") for c in player)
    # the first turn is the system message and the published prompt with the first two pairs, byte for byte
    for episode in store.list_episodes(data["run"]):
        first = store.list_calls(episode_id=episode.id)[0]["messages"]
        shown = (episode.metrics or {})["positives"][:2], (episode.metrics or {})["negatives"][:2]
        assert first == [
            {"role": "system", "content": load_text("player_system.txt")},
            {
                "role": "user",
                "content": load_text("player_guess_as_run_c7cb4c96.txt")
                .replace("{examples[0]}", ", ".join(shown[0]))
                .replace("{examples[1]}", ", ".join(shown[1])),
            },
        ]
    # after the wrong guess the published prompt comes again, with the new pair among the examples
    second = next(c for c in player if sum(m["role"] == "assistant" for m in c["messages"]) == 2)
    prompt = second["messages"][-1]["content"]
    assert (
        prompt.startswith("You are playing a game called 'Going on a Picnic'.") and "I can bring: " in prompt
    )
    metrics = store.list_episodes(data["run"])[0].metrics or {}
    history = metrics["history"]
    assert [h["predicate"] for h in history] == ["lambda w: len(w) >= 5", "lambda w: len(w) == 5"]
    assert [h["llm"]["verdict"] for h in history] == [True, True]  # lenient: the code said no to the first
    assert metrics["llm_won_at"] == 1 and metrics["status"] == "won"

    assert main(["show", str(data["run"]), "--db", db]) == 0
    out = capsys.readouterr().out
    # the baseline won both games: 2/2, 100% with its Wilson interval
    assert (
        "Code *" in out
        and "LLM judge" in out
        and "solver (reference)" in out
        and "100% [34-100]" in out
        and "2/2" in out
    )
    assert main(["show", str(data["run"]), "--db", db, "--episode", "0"]) == 0
    shown = capsys.readouterr().out
    out = " ".join(shown.split())
    assert "predicate 'lambda w: len(w) >= 5' accuracy 0.4" in out and "LLM judge yes" in out
    # the system prompt first, after its label (piped output is 100 columns wide: its long lines wrap)
    assert shown.count("[system]\n") == 1
    first_line = " ".join(load_text("player_system.txt").splitlines()[0].split())
    assert "[system] " + first_line in " ".join(shown.split())

    # the tables of the run and its baseline fit an 80-column terminal without cutting a word
    console = Console(width=80, record=True)
    for part in results_terminal(FAMILY.results(store, [data["run"], baseline["run"]])):
        console.print(part)
    text = console.export_text()
    assert "Won in" in text and "vllm:fake" in text and "solver (reference)" in text
    assert all(len(line) <= 80 for line in text.splitlines()) and "…" not in text
    # the comparison's columns: the code's win rate (Wilson), what the games took, the LLM judge apart
    scores = FAMILY.scores(store, data["run"])
    assert [s.short for s in scores] == ["Win", "Turns", "Examples", "Acc", "Agree"]
    assert (scores[0].k, scores[0].n, scores[1].value) == (2, 2, 2.0)
    # the lenient judge said yes to both guesses of each game: it agreed with the code on the last
    assert (scores[4].k, scores[4].n) == (2, 2)


def test_a_game_master_writes_rules_that_the_sandbox_accepts_or_rejects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replies = itertools.cycle(
        [
            "```python\ndef has_double_letter(word):\n    return any(a == b for a, b in zip(word, word[1:]))\n"
            "generated_fn = has_double_letter\npass\n```",
            "def is_long(word):\n    return len(word) > 12\ngenerated_fn = is_long\n",
            "import os\ndef evil(word):\n    return os.system('touch PWNED') == 0\ngenerated_fn = evil\n",
        ]
    )
    seen: list[list[dict[str, Any]]] = []

    def game_master(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        seen.append(messages)
        return next(replies)

    db = f"sqlite:///{tmp_path / 'gm.db'}"
    with FakeOpenAIServer(game_master) as server:
        args = ["eval", "code-functions", "--split", "write-rules", "--n", "3", "--model", "vllm:fake"]
        assert main([*args, "--base-url", server.base_url, "--db", db, "--json", "--concurrency", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["accepted"] == 1 and data["rejected"] == 2
    (rule,) = data["rules"]
    assert rule["source"] == "lambda w: any((a == b for a, b in zip(w, w[1:])))"
    reasons = sorted(r["reason"] for r in data["rejections"])
    assert reasons[0] == "outside the word language: method 'system' is not allowed"
    assert reasons[1].startswith("unbalanced: true for 0 of 50 sampled words")
    assert seen[0][0]["content"] == load_text("rule_generator_system_L1.txt")
    assert not (tmp_path / "PWNED").exists() and not Path("PWNED").exists()

    assert main(["show", str(data["run"]), "--db", db]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "1 accepted, 2 rejected" in out and "method 'system' is not allowed" in out
    assert main(["show", str(data["run"]), "--db", db, "--episode", "0"]) == 0
    transcript = capsys.readouterr().out
    assert "has_double_letter" in transcript and "episode 0: a rule written for level L1" in transcript
    assert "rule None" not in transcript
    store = Store(db)
    (accepted,) = FAMILY.scores(store, data["run"])
    assert (accepted.short, accepted.k, accepted.n) == ("Accepted", 1, 3)
    store.close()

    report = tmp_path / "gm.json"
    report.write_text(json.dumps(data))
    out_file = tmp_path / "rules.jsonl"
    assert main(["code-functions", "check", str(report), "-o", str(out_file)]) == 0
    assert "1 of 1 accepted" in capsys.readouterr().out
    (line,) = out_file.read_text().splitlines()
    assert json.loads(line)["source"] == rule["source"]


def test_the_family_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["code-functions", "published"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "history_L1.txt: 171 functions; 167 translated into the word language, 4 not; 159 pass"
    )
    assert "is_prime_length: a nested function (is_prime)" in out
    assert main(["code-functions", "rules", "--level", "L2", "--n", "3", "--seed", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(line.startswith("L2:") and "lambda w:" in line for line in lines)
    replies = tmp_path / "replies.txt"
    replies.write_text(
        "def a(word):\n    return word[0] in 'aeiou'\ngenerated_fn = a\ndef b(word):\n    while True: pass\n"
    )
    assert main(["code-functions", "check", str(replies)]) == 0
    out = capsys.readouterr().out
    assert "#1 a: accepted  lambda w: w[0] in 'aeiou'" in out and "#2 b: rejected: a While statement" in out
    assert main(["code-functions", "check", str(tmp_path / "nope.txt")]) != 0
    err = capsys.readouterr().err
    assert "cannot read" in err and "Traceback" not in err


def test_games_not_played_yet_are_in_no_rate(tmp_path: Path) -> None:
    from wason.engine import create_run
    from wason.tasks.code_functions.family import CodeFunctionsConfig

    store = Store(f"sqlite:///{tmp_path / 'pending.db'}")
    rid = create_run(
        store, CodeFunctionsConfig(player="solver", split="file", rules_file=_rules_file(tmp_path))
    )
    win = FAMILY.scores(store, rid)[0]
    assert (win.short, win.k, win.n, win.value) == ("Win", 0, 0, None)
    summary = FAMILY.report_json(store, [rid]).model_dump()["summary"]
    assert summary["episodes"] == 1 and summary["won"]["n"] == 0
    store.close()
