"""Through the command line: one process per run, failures that say so, and no password printed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from wason.cli import main
from wason.store import Store


def slow_reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    time.sleep(0.05)
    turn = sum(m.get("role") == "assistant" for m in messages)
    if turn < 5:
        return f"Test Case: ```({turn}, {turn * 2}, {turn + 7})```"
    return "Final Guess: ```lambda x, y, z: x < y < z```"


def _eval(server: FakeOpenAIServer, db: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "wason.cli", "eval", "wilt", "--split", "lite", "--model", "vllm:fake",
            "--base-url", server.base_url, "--db", db, "--no-baseline", *extra]  # fmt: skip


def test_two_resumes_at_once_one_plays_the_other_is_refused(tmp_path: Path) -> None:
    db_path = tmp_path / "two.db"
    db = f"sqlite:///{db_path}"
    env = {**os.environ, "COLUMNS": "120"}
    with FakeOpenAIServer(slow_reply) as server:
        first = subprocess.Popen(_eval(server, db, "--concurrency", "2"), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, env=env)  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.05)
            try:
                if sum(e.status == "completed" for e in Store(db).list_episodes(1)) >= 2:
                    break
            except Exception:  # the run is still creating its tables
                continue
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        store = Store(db)
        assert store.get_run(1).status == "interrupted"  # its process is gone: not shown as running
        bodies_before = len(server.bodies)
        calls_before = len(store.list_calls(run_id=1))

        resume = [sys.executable, "-m", "wason.cli", "eval", "--resume", "1", "--db", db, "--no-baseline"]
        a = subprocess.Popen(resume, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        b = subprocess.Popen(resume, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        (_, err_a), (_, err_b) = a.communicate(timeout=120), b.communicate(timeout=120)
        codes = sorted([a.returncode, b.returncode])
        assert codes == [0, 2], (err_a, err_b)
        refusal = err_a if a.returncode == 2 else err_b
        assert refusal.count("\n") == 1 and "Traceback" not in refusal
        assert "run 1 is being worked on by process" in refusal

        calls_after = store.list_calls(run_id=1)[calls_before:]
        sent = [c for c in calls_after if not c["cached"]]
        # every turn request the server saw is recorded once (the pre-flight checks' one-token probes aside)
        turns_seen = [b for b in list(server.bodies)[bodies_before:] if b.get("max_tokens") != 1]
        assert len(turns_seen) == len(sent)
        answered = [c["cache_key"] for c in store.list_calls(run_id=1) if c["response"] and not c["cached"]]
        assert len(answered) == len(set(answered)) == 10 * 6  # no request was paid twice
        assert all(len(store.list_turns(e.id)) == 6 for e in store.list_episodes(1))
        assert store.get_run(1).status == "completed"


def test_a_run_where_every_episode_errored_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'bad.db'}"
    with FakeOpenAIServer(slow_reply, fail_share=1.0, fail_kinds=(400,)) as server:
        args = _eval(server, db, "--ids", "1,2")[3:]
        assert main(args) == 1
    err = capsys.readouterr().err
    assert "every episode of run 1 errored" in err and "request rejected (400)" in err
    assert "wason eval --resume 1" in err


def test_no_password_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", "--db", "postgresql://alice:hunter2@127.0.0.1:1/nothing"]) == 2
    err = capsys.readouterr().err
    assert "hunter2" not in err and "alice:***@127.0.0.1" in err and err.count("\n") == 1


# store URLs whose password is written the way people write it, and where it goes wrong: unencoded '@' and ':',
# no user name, '@' in the query string, percent-encoded (right), a password as a query parameter
HOSTILE_STORES = [
    ("postgresql+psycopg://user:pA@sS:w0Rd@127.0.0.1:5/db", "pA@sS:w0Rd"),
    ("postgresql+psycopg://user:pA@sS@127.0.0.1:5/db", "pA@sS"),
    ("postgresql+psycopg://user:pA@sS:99@127.0.0.1/db", "pA@sS:99"),
    ("postgresql+psycopg://:pA@sS@127.0.0.1:5/db", "pA@sS"),
    ("postgresql+psycopg://user:pA/sS?x@127.0.0.1:5/db", "pA/sS?x"),
    ("postgresql+psycopg://user:pA%40sS%3Aw0Rd@127.0.0.1:5/db", "pA%40sS%3Aw0Rd"),
    ("postgresql+psycopg://user:pA sS@127.0.0.1:5/db", "pA sS"),
    ("postgresql+psycopg://user@127.0.0.1:5/db?password=pA:sS", "pA:sS"),
    ("postgresql+psycopg://127.0.0.1:5/db?user=u&password=pA@sS&sslmode=disable", "pA@sS"),
    ("postgresql+psycopg://user@127.0.0.1:5/db?password=pA@sS", "pA@sS"),
]


def _pieces(password: str) -> list[str]:
    # the parts of a password a misreading parser shows on their own
    return [p for p in password.replace("%40", "@").replace("%3A", ":").split("@") for p in p.split(":")
            for p in p.replace("/", " ").replace("?", " ").split() if len(p) >= 2]  # fmt: skip


@pytest.mark.parametrize(("url", "password"), HOSTILE_STORES)
def test_no_part_of_a_store_password_is_printed(
    url: str, password: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["runs", "--db", url]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "***" in err
    for piece in _pieces(password):
        assert piece not in err, (piece, err)


@pytest.mark.parametrize(
    ("url", "password"),
    [
        ("http://user:pA@sS:w0Rd@127.0.0.1:9/v1", "pA@sS:w0Rd"),
        ("http://user:pA/sS@127.0.0.1:9/v1", "pA/sS"),
        ("http://user:pA#sS@127.0.0.1:9/v1", "pA#sS"),
        ("http://:pA@sS@127.0.0.1:9/v1", "pA@sS"),
        ("http://127.0.0.1:9/v1?api_key=pA-sS", "pA-sS"),
    ],
)
def test_no_part_of_an_endpoint_password_is_printed(
    url: str, password: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'endpoint.db'}"
    argv = ["eval", "wilt", "--ids", "1", "--model", "vllm:fake", "--base-url", url, "--retries", "0",
            "--db", db]  # fmt: skip
    assert main(argv) == 2  # nothing listens on port 9, or the URL cannot be read
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "***" in err
    for piece in _pieces(password.replace("#", " ")):
        assert piece not in err, (piece, err)


def test_a_corrupt_or_foreign_database_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(bytes(range(256)) * 40)
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE users (id INTEGER)")
    for path, reason in ((corrupt, "file is not a database"), (foreign, "it is not a wason store")):
        assert main(["runs", "--db", str(path)]) == 2
        err = capsys.readouterr().err
        assert reason in err and err.count("\n") == 1 and "Traceback" not in err
    with sqlite3.connect(foreign) as db:  # nothing was added to someone else's database
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["users"]


def test_a_password_in_the_endpoint_is_never_stored_and_resume_asks_for_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "secret.db"
    db = f"sqlite:///{path}"
    with FakeOpenAIServer(slow_reply, fail_share=1.0, fail_kinds=(400,)) as server:
        secret_url = server.base_url.replace("http://", "http://alice:s3cret@")
        args = ["eval", "wilt", "--ids", "1", "--model", "vllm:fake", "--base-url", secret_url, "--db", db,
                "--no-baseline", "--json"]  # fmt: skip
        assert main(args) == 1  # its one episode errored: the endpoint refused every request
        first = capsys.readouterr()
        assert main(["eval", "--resume", "1", "--db", db]) == 2
        assert "give it again with --base-url" in capsys.readouterr().err
        server.fail_share = 0.0
        assert main(["eval", "--resume", "1", "--db", db, "--base-url", secret_url, "--no-baseline"]) == 0
        resumed = capsys.readouterr()
    store = Store(db)
    assert store.get_run(1).status == "completed"
    assert store.get_run(1).config["base_url"].startswith("http://alice:***@127.0.0.1")
    for text in (first.out, first.err, resumed.out, resumed.err):
        assert "s3cret" not in text
    store.close()
    for file in tmp_path.glob("secret.db*"):  # the database and its write-ahead log
        assert b"s3cret" not in file.read_bytes()


def test_a_resume_holds_the_run_before_its_first_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from wason.engine import play

    db = f"sqlite:///{tmp_path / 'held.db'}"
    with FakeOpenAIServer(slow_reply, fail_share=1.0, fail_kinds=(400,)) as server:
        assert main(_eval(server, db, "--ids", "1", "--retries", "0")[3:]) == 1  # its one episode errored
        server.fail_share = 0.0
        holders: list[str | None] = []
        checked = play.preflight

        async def watched(client: Any) -> None:
            holders.append(Store(db).get_run(1).owner)  # who holds the run when the first request goes out
            await checked(client)

        monkeypatch.setattr(play, "preflight", watched)
        assert main(["eval", "--resume", "1", "--db", db]) == 0
    capsys.readouterr()
    # this process: so a second resume starting now is refused before it sends anything, however close the race
    assert holders and all(h is not None and h.startswith(f"process {os.getpid()} on ") for h in holders)
    assert Store(db).get_run(1).owner is None  # and gave it up at the end


def test_a_resume_refused_for_a_busy_run_or_baseline_sends_no_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wason.core import registry
    from wason.engine import create_run
    from wason.store.db import new_owner
    from wason.tasks.wilt import WiltRunConfig

    db = f"sqlite:///{tmp_path / 'busy.db'}"
    store = Store(db)
    with FakeOpenAIServer(slow_reply) as server:
        config = WiltRunConfig(ids=[1, 2], model="vllm:fake", base_url=server.base_url, retries=0)
        run = create_run(store, config)
        items = [(e.item_key, e.item) for e in store.list_episodes(run)]
        baseline = create_run(store, registry.get("wilt").baseline(config, run), items)
        for busy, named in ((run, f"run {run} is"), (baseline, f"solver baseline (run {baseline}) is")):
            owner = new_owner()  # another live process (this one) plays the run, then its baseline
            store.acquire_lease(busy, owner)
            assert main(["eval", "--resume", str(run), "--db", db]) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and named in err and "being worked on by process" in err
            assert f"`wason eval --resume {run}`" in err
            assert list(server.seen) == []  # not even the endpoint's pre-flight check
            store.release_lease(busy, owner)
    assert all(e.status == "pending" for r in (run, baseline) for e in store.list_episodes(r))


def test_a_run_started_without_its_baseline_is_resumed_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wason.engine import baselines_of

    db = f"sqlite:///{tmp_path / 'nobase.db'}"
    with FakeOpenAIServer(slow_reply, fail_share=1.0, fail_kinds=(400,)) as server:
        # the second run plays another rule, so that none of its replies comes from the first run's cache
        for rule, extra in (("1", ["--no-baseline"]), ("2", [])):
            argv = [a for a in _eval(server, db, "--ids", rule, "--retries", "0")[3:] if a != "--no-baseline"]
            server.fail_share = 1.0
            assert main([*argv, *extra]) == 1  # its one episode errored
            capsys.readouterr()
            server.fail_share = 0.0
            run = max(r.id for r in Store(db).list_runs() if r.player == "llm")
            assert main(["eval", "--resume", str(run), "--db", db, "--json"]) == 0
            shown = json.loads(capsys.readouterr().out)
            store = Store(db)
            assert store.get_run(run).status == "completed"
            if extra:  # stored with the run: the resume played no solver baseline, and showed none
                assert store.get_run(run).config["no_baseline"] is True
                assert baselines_of(store, run) == [] and shown["baselines"] == []
            else:
                assert "no_baseline" not in store.get_run(run).config
                assert len(baselines_of(store, run, completed_only=True)) == 1
