"""Sessions: a game advanced one action at a time, stored before each step returns, restored from the store.

The acceptance check of the session API: a WILT game played one step per process invocation, with a process
killed with SIGKILL in between, ends as the same game played in one go.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.tasks.lists.test_lists_runs import scientist
from wason.cli import main
from wason.core import session
from wason.core.game import Move
from wason.core.records import TurnConflict
from wason.engine import create_run, execute_run
from wason.players.scripted import ScriptedPlayer
from wason.store import Store
from wason.tasks.wilt import FinalGuess, ProposeTest, WiltRunConfig

# a short game: four tests (one repeated, one invalid: sent as action JSON, as a model's reply may hold one; a
# person's terminal refuses it before it is played), then the guess
ACTIONS = [
    ProposeTest(("1", "2", "3")),
    ProposeTest(("3", "2", "1")),
    ProposeTest(("1", "2", "3")),
    ProposeTest(("1000", "1", "1")),
    FinalGuess("lambda x, y, z: x < y and y < z"),
]


def _turns(store: Store, episode_id: int) -> list[tuple[Any, ...]]:
    return [(t["index"], t["action"], t["observation"], t["feedback"]) for t in store.list_turns(episode_id)]


async def _one_go(db: str) -> tuple[Store, int]:
    """The reference: the same actions played in one go by the run engine."""
    store = Store(db)
    config = WiltRunConfig(split="full", ids=[2], player="scripted")
    run_id = create_run(store, config)
    await execute_run(store, run_id, lambda *_: ScriptedPlayer(ACTIONS), concurrency=1)
    (episode,) = store.list_episodes(run_id)
    return store, episode.id


def _wason(*args: str, db: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wason.cli", *args, "--db", db],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _json_action(action: Any) -> str:
    return json.dumps(session.to_json(action))


async def test_a_game_played_one_step_per_process_with_a_kill_in_between_is_the_game_played_in_one_go(
    tmp_path: Path,
) -> None:
    reference, ref_episode = await _one_go(f"sqlite:///{tmp_path / 'one-go.db'}")
    db = f"sqlite:///{tmp_path / 'steps.db'}"

    started = _wason("session", "start", "wilt", "--split", "full", "--rule", "2", db=db)
    assert started.returncode == 0, started.stderr
    view = json.loads(started.stdout)
    sid = view["session"]
    assert view["turn"] == 0 and "rule" not in view["item"]  # the hidden rule stays hidden

    for action in ACTIONS[:2]:
        done = _wason("session", "step", str(sid), _json_action(action), db=db)
        assert done.returncode == 0, done.stderr

    # a person goes on with the game in the terminal, and that process is killed with SIGKILL mid-game
    person = subprocess.Popen(
        [sys.executable, "-m", "wason.cli", "play", "--session", str(sid), "--db", db],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert person.stdin is not None and person.stdout is not None
    first = person.stdout.readline()
    assert f"Going on with session {sid}" in first
    # a value the game cannot test is refused at the terminal (nothing stored); then the third action
    person.stdin.write("1000 1 1\n1 2 3\n")
    person.stdin.flush()
    store = Store(db)
    deadline = time.monotonic() + 60  # a hang guard, not a timing claim
    while len(store.list_turns(sid)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(person.pid, signal.SIGKILL)
    person.wait(timeout=30)
    assert person.returncode == -signal.SIGKILL

    # a step process killed at once: its step either landed whole or not at all
    victim = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "wason.cli",
            "session",
            "step",
            str(sid),
            _json_action(ACTIONS[3]),
            "--db",
            db,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(timeout=30)

    seen = _wason("session", "view", str(sid), db=db)
    assert seen.returncode == 0, seen.stderr
    turn = json.loads(seen.stdout)["turn"]
    assert turn in (3, 4)
    for action in ACTIONS[turn:]:
        done = _wason("session", "step", str(sid), _json_action(action), db=db)
        assert done.returncode == 0, done.stderr

    assert _turns(store, sid) == _turns(reference, ref_episode)
    summary = json.loads(_wason("session", "summary", str(sid), db=db).stdout)
    (expected,) = reference.list_episodes(reference.list_runs()[0].id)
    assert (
        summary["done"] and summary["success"] == expected.success and summary["metrics"] == expected.metrics
    )
    assert summary["item"]["rule"] == "lambda x, y, z: x < y < z"  # revealed once the game is over
    over = _wason("session", "step", str(sid), _json_action(ACTIONS[0]), db=db)
    assert over.returncode == 2 and "is over" in over.stderr and len(over.stderr.strip().splitlines()) == 1


async def test_the_api_restores_a_session_and_refuses_what_is_not_an_action(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    sid = session.start(store, "wilt", {"split": "full", "ids": [2]}, index=0)
    view = await session.step(store, sid, session.to_json(ACTIONS[0]))
    assert view["observation"]["kind"] == "result" and view["feedback"].startswith(
        "Result for input (1.0, 2.0"
    )
    with pytest.raises(session.SessionError, match="unknown action type 'Nonsense'"):
        await session.step(store, sid, {"type": "Nonsense"})
    with pytest.raises(session.SessionError, match="not a wilt action"):
        await session.step(store, sid, {"type": "ProposeTest", "values": 7})
    assert len(store.list_turns(sid)) == 1  # nothing was stored for the refused actions
    _, _, _, restored = await session.load(store, sid)
    assert restored.turn == 1 and restored.observation.values == (1.0, 2.0, 3.0)


def test_a_session_whose_stored_game_no_longer_replays_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = Store(f"sqlite:///{db}")
    sid = session.start(store, "wilt", {"split": "full", "ids": [2]}, index=0)
    asyncio.run(session.step(store, sid, ACTIONS[0]))
    import sqlite3

    with sqlite3.connect(db) as c:  # as if the game had changed since the turn was stored
        c.execute("UPDATE turns SET observation = json_set(observation, '$.result', json('false'))")
    with pytest.raises(session.SessionDiverged, match="another observation"):
        asyncio.run(session.view(store, sid))
    assert main(["session", "view", str(sid), "--db", f"sqlite:///{db}"]) == 2


def test_session_mistakes_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    assert main(["session", "start", "wilt", "--split", "full", "--rule", "2", "--db", db]) == 0
    sid = json.loads(capsys.readouterr().out)["session"]
    for argv, message in [
        (["session", "step", str(sid), "{not json", "--db", db], "not JSON"),
        (["session", "step", str(sid), "[1, 2]", "--db", db], "a JSON object"),
        (["session", "step", str(sid), "--text", "I think it is even.", "--db", db], "cannot be read"),
        (["session", "step", str(sid), "--db", db], "one of them"),
        (["session", "view", "999", "--db", db], "no session or episode 999"),
        (["session", "start", "nosuchgame", "--db", db], "invalid choice: 'nosuchgame'"),
        (["session", "start", "wilt", "--rule", "99", "--db", db], "has no rule 99"),
    ]:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, (argv, err)
    # a reply written as a model would is read by the family's protocol
    assert main(["session", "step", str(sid), "--text", "Test Case: ```(2, 4, 6)```", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["observation"]["values"] == [2.0, 4.0, 6.0]
    assert Store(db).list_turns(sid)[-1]["reply"] == "Test Case: ```(2, 4, 6)```"  # kept for the transcript


def test_a_game_with_an_llm_labeller_is_restored_from_its_stored_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The labeller's answers are stored with the turn: restoring asks no model (the server is gone)."""
    db = f"sqlite:///{tmp_path / 'labels.db'}"
    with FakeOpenAIServer(scientist) as server:
        argv = ["eval", "lists", "--model", "vllm:fake", "--base-url", server.base_url, "--db", db]
        argv += ["--ids", "1", "--labeller", "llm", "--judges", "predicate,llm", "--no-baseline", "--json"]
        assert main(argv) == 0
    run = json.loads(capsys.readouterr().out)["run"]
    store = Store(db)
    (episode,) = store.list_episodes(run)
    first = store.list_turns(episode.id)[0]
    assert first["oracle"] == {"llm_labels": [True] * 5}  # the careless labeller's Yes for every list
    # the code's labels differ from the labeller's: a restore that asked the code would diverge
    assert first["observation"]["labels"] == [True] * 5

    _, _, _, restored = asyncio.run(session.load(store, episode.id))
    assert restored.done and restored.turn == len(store.list_turns(episode.id))
    outcome = restored.outcome()
    assert (
        outcome is not None
        and outcome.metrics["label_disagreements"] == episode.metrics["label_disagreements"]
    )


async def test_a_session_stepped_from_two_places_at_once_keeps_one_step(tmp_path: Path) -> None:
    """Two requests restore the same game and step it at once: the store keeps the first step, and the second
    is told the session moved on (nothing is stored twice, and the game still replays)."""
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    sid = session.start(store, "wilt", {"split": "full", "ids": [2]}, index=0)
    _, _, _, first = await session.load(store, sid)
    _, _, _, second = await session.load(store, sid)
    await first.step(Move(action=ACTIONS[0]))
    with pytest.raises(TurnConflict):
        await second.step(Move(action=ACTIONS[1]))
    assert [t["action"]["values"] for t in store.list_turns(sid)] == [["1", "2", "3"]]

    # through the API: another process stores its step between this request's restore and its insert
    class Racing(Store):
        raced = False

        def add_turn(self, episode_id: int, index: int, **record: Any) -> None:
            if not self.raced:
                self.raced = True
                super().add_turn(episode_id, index, **record)  # the other process's step lands first
            super().add_turn(episode_id, index, **record)

    racing = Racing(store.connect_url)
    with pytest.raises(session.SessionError, match=f"session {sid} moved on"):
        await session.step(racing, sid, ACTIONS[1])
    assert len(store.list_turns(sid)) == 2  # the first of the two steps, once
    view = await session.step(store, sid, ACTIONS[2])  # the loser reads the game again and goes on
    assert view["turn"] == 3


def test_a_list_game_played_with_model_replies_one_command_at_a_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Text replies are read by the protocol at the point the game has reached: test lists, the final rule,
    then (once asked) the predicate and the quiz, each in its own `wason session step --text`."""
    db = f"sqlite:///{tmp_path / 'lists.db'}"
    assert main(["session", "start", "lists", "--rule", "1", "--db", db]) == 0
    sid = json.loads(capsys.readouterr().out)["session"]
    tests = {"leading_hypothesis": "increasing", "test_cases": [[1, 2, 3], [3, 2, 1], [5, 5, 6]]}
    replies = [
        "<response>\n" + json.dumps(tests),
        '<response>\n{"final_hypothesis": "The items are strictly increasing."}',
        '<response>\n{"predicate": "lambda xs: all(a < b for a, b in zip(xs, xs[1:]))"}',
    ]
    kinds = []
    for reply in replies:
        assert main(["session", "step", str(sid), "--text", reply, "--db", db]) == 0
        kinds.append(json.loads(capsys.readouterr().out)["observation"]["kind"])
    assert kinds == ["labels", "ask_predicate", "ask_quiz"]
    quiz = Store(db).list_turns(sid)[-1]["observation"]["quiz"]
    answers = "\n".join(f"{i}. {'Yes' if list(q) == sorted(set(q)) else 'No'}" for i, q in enumerate(quiz, 1))
    assert main(["session", "step", str(sid), "--text", "<response>\n" + answers, "--db", db]) == 0
    capsys.readouterr()
    assert main(["session", "summary", str(sid), "--db", db]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["done"] and summary["metrics"]["judges"] == {"predicate": True, "quiz": True}
    assert summary["item"]["rule"]["text"] == "List items must be in strictly increasing order"
