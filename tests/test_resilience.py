"""Runs that survive the real world: a flaky OpenAI-compatible endpoint, and kill -9 then --resume.

Real HTTP through the official openai SDK against a loopback fake server (tests/fakes/openai_server.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import EVERY_FAULT, MALFORMED_KINDS, FakeOpenAIServer
from wason.cli import main
from wason.store import Store


def scripted_http_reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """Tests (n, n+1, n+2) for five turns, then guesses x < y < z (right for lite rule 2 only)."""
    turn = sum(m.get("role") == "assistant" for m in messages)
    if turn < 5:
        return f"Let me check ordering.\nTest Case: ```({turn}, {turn * 2}, {turn + 7})```"
    return "Final Guess: ```lambda x, y, z: x < y < z```"


def slow_reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    time.sleep(0.05)
    return scripted_http_reply(messages, body)


def eval_args(server: FakeOpenAIServer, db: str, *extra: str) -> list[str]:
    return ["eval", "wilt", "--split", "lite", "--model", "vllm:fake", "--base-url", server.base_url,
            "--db", db, "--temperature", "0", *extra]  # fmt: skip


def test_flaky_endpoint_run_completes_and_loses_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean_db, flaky_db = f"sqlite:///{tmp_path / 'clean.db'}", f"sqlite:///{tmp_path / 'flaky.db'}"
    with FakeOpenAIServer(scripted_http_reply) as clean:
        assert main(eval_args(clean, clean_db, "--json")) == 0
    expected = json.loads(capsys.readouterr().out)

    with FakeOpenAIServer(
        scripted_http_reply, fail_share=0.3, fail_kinds=(500, 429, 503, "delay"), delay=1.5, seed=11
    ) as flaky:
        assert (
            main(
                eval_args(
                    flaky, flaky_db, "--json", "--timeout", "0.5", "--retries", "10", "--retry-delay", "0.1"
                )
            )
            == 0
        )
        got = json.loads(capsys.readouterr().out)
        assert flaky.failed > 10  # the run really met failures

    assert got["status"] == "completed" and got["table"]["errored"] == 0
    assert got["table"] == expected["table"]
    assert [e["guess"] for e in got["episodes"]] == [e["guess"] for e in expected["episodes"]]
    store = Store(flaky_db)
    calls = store.list_calls(run_id=got["run"])
    # every turn of every episode has its answered call on record, with the failed attempts before it
    assert len(calls) == 10 * 6 and all(c["response"] for c in calls)
    retried = [c for c in calls if c["attempts"] > 1]
    assert retried and all(len(c["errors"]) == c["attempts"] - 1 for c in retried)
    errors = [str(e) for c in calls for e in (c["errors"] or ())]
    timeouts = [e for e in errors if "timed out" in e]
    # every injected failure is on record: none is lost. A reply the busy machine sent later than the 0.5 s
    # timeout (a normal one, or an injected status) is on record as a timeout, so there may be more errors than
    # injected failures, all of them timeouts, and never a status the server did not send (no wall-clock limit
    # decides the test)
    assert len(errors) >= flaky.failed
    assert len(errors) - len(timeouts) <= flaky.failed - flaky.fault_counts["delay"]


def full_split_args(server: FakeOpenAIServer, db: str, *extra: str) -> list[str]:
    return ["eval", "wilt", "--split", "full", "--model", "vllm:fake", "--base-url", server.base_url,
            "--db", db, "--temperature", "0", "--no-baseline", "--json", *extra]  # fmt: skip


# How each broken reply is named in the record.
MALFORMED_STARTS = {
    "not_json": "not JSON",
    "null_message": "choices.0.message: ",
    "bad_choices": "choices: ",
    "bad_usage": "usage.prompt_tokens: ",
    "truncated": "body cut off after ",
    "huge": "reply larger than ",
    "non_utf8": "not UTF-8",
}


def test_full_split_at_30_percent_faults_of_every_kind_prints_the_clean_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's acceptance run: 429, 500, 503, hangs and every broken 200 reply, three requests in ten."""
    clean_db, flaky_db = f"sqlite:///{tmp_path / 'clean.db'}", f"sqlite:///{tmp_path / 'flaky.db'}"
    with FakeOpenAIServer(scripted_http_reply) as clean:
        assert main(full_split_args(clean, clean_db, "--concurrency", "16")) == 0
    clean_out, clean_err = capsys.readouterr()
    expected = json.loads(clean_out)

    with FakeOpenAIServer(
        scripted_http_reply, fail_share=0.3, fail_kinds=EVERY_FAULT, delay=6.0, seed=10
    ) as flaky:
        # The timeout is generous because only the injected hangs may time out, so that every error can be
        # matched to its fault: the event loop still stalls for up to ~2 s while games are set up.
        code = main(
            full_split_args(
                flaky,
                flaky_db,
                "--timeout",
                "5",
                "--retries",
                "12",
                "--retry-delay",
                "0.2",
                "--concurrency",
                "16",
            )
        )
        out, err = capsys.readouterr()
        faults = dict(flaky.fault_counts)
        n_failed = flaky.failed
    assert code == 0, err
    for output in (clean_out, clean_err, out, err):
        assert "Traceback" not in output
    got = json.loads(out)
    assert set(faults) == {str(kind) for kind in EVERY_FAULT}  # the run met every kind of fault
    assert set(MALFORMED_STARTS) == set(MALFORMED_KINDS)

    assert expected["status"] == "completed" and expected["table"]["errored"] == 0
    assert got["status"] == "completed" and got["table"]["errored"] == 0
    assert got["table"] == expected["table"]
    assert len(got["episodes"]) == 50
    assert [e["guess"] for e in got["episodes"]] == [e["guess"] for e in expected["episodes"]]

    # every failed attempt is on record with its call, and says what went wrong
    calls = Store(flaky_db).list_calls(run_id=got["run"])
    assert len(calls) == 50 * 6 and all(c["response"] for c in calls)
    errors = [e for c in calls for e in c["errors"] or ()]
    assert all(len(c["errors"] or ()) == c["attempts"] - 1 for c in calls)
    assert len(errors) == n_failed
    malformed = [e.removeprefix("malformed reply: ") for e in errors if e.startswith("malformed reply: ")]
    assert len(malformed) == sum(faults[kind] for kind in MALFORMED_KINDS)
    for kind, start in MALFORMED_STARTS.items():
        assert sum(e.startswith(start) for e in malformed) == faults[kind], kind
    assert sum("timed out" in e for e in errors) == faults["delay"]
    assert sum(e.startswith("server error") for e in errors) == faults["429"] + faults["500"] + faults["503"]


def test_kill_9_then_resume(tmp_path: Path) -> None:
    db_path = tmp_path / "killed.db"
    db = f"sqlite:///{db_path}"
    env = {**os.environ, "COLUMNS": "120"}
    with FakeOpenAIServer(slow_reply) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "wason.cli", *eval_args(server, db, "--concurrency", "1")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        deadline = time.monotonic() + 60
        completed: list[Any] = []
        while time.monotonic() < deadline:
            time.sleep(0.05)
            if db_path.exists():
                try:
                    live = Store(db)
                    eps = live.list_episodes(1)
                    completed = [e for e in eps if e.status == "completed"]
                    running = [e for e in eps if e.status == "running"]
                    mid_episode = bool(running) and len(live.list_turns(running[0].id)) >= 2
                except Exception:  # the run is still creating its tables
                    continue
                # kill in the middle of an episode, after a few have finished
                if len(completed) >= 3 and mid_episode:
                    break
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert len(completed) >= 3, proc.stderr.read() if proc.stderr else ""

        store = Store(db)
        before = {e.index: e for e in store.list_episodes(1)}
        finished_before = {i for i, e in before.items() if e.status == "completed"}
        assert 3 <= len(finished_before) < 10
        calls_before = store.list_calls(run_id=1)
        answered_before = {c["cache_key"] for c in calls_before if c["response"]}
        turns_before = {i: store.list_turns(before[i].id) for i in finished_before}
        n_requests_before = server.requests

        resumed = subprocess.run(
            [sys.executable, "-m", "wason.cli", "eval", "--resume", "1", "--db", db, "--json"],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
        assert resumed.returncode == 0, resumed.stderr
        summary = json.loads(resumed.stdout)
        accuracy = summary["table"]["accuracy"]
        assert summary["status"] == "completed" and (accuracy["k"], accuracy["n"]) == (1, 10)

        calls_after = store.list_calls(run_id=1)[len(calls_before) :]
        # no call answered before the kill was sent again: the resumed run got each of them from the cache
        assert all(c["cached"] for c in calls_after if c["cache_key"] in answered_before)
        assert sum(c["cached"] for c in calls_after) >= 2  # the interrupted episode's answered turns
        # what reached the server after the kill is exactly the calls that were not answered before
        sent_after = [c for c in calls_after if not c["cached"]]
        assert server.requests - n_requests_before == len(sent_after)
        assert all(c["cache_key"] not in answered_before for c in sent_after)
        # finished episodes were not replayed: no call for them after the kill, their turns untouched
        finished_ids = {before[i].id for i in finished_before}
        assert not [c for c in calls_after if c["episode_id"] in finished_ids]
        after = {e.index: e for e in store.list_episodes(1)}
        for i in finished_before:
            assert after[i].metrics == before[i].metrics
            assert store.list_turns(after[i].id) == turns_before[i]
        # every episode is recorded once: 6 turns each, no duplicates
        assert all(len(store.list_turns(e.id)) == 6 for e in after.values())
