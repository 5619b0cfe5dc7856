"""Live progress: what ``wason eval`` prints while a run plays when its output is not a terminal (one line per
episode, a summary every 30 s), for a run of every family against a model, and for the solver."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from wason.cli import main
from wason.cli.eval import _Progress
from wason.core import registry
from wason.core.runner import EpisodeResult
from wason.engine import play_run
from wason.engine.progress import Standing, Tracker, duration
from wason.store import Store
from wason.store.db import CALL_TOTALS

CHEAP: dict[str, dict[str, Any]] = {"wilt": {"ids": [1, 2]}, "lists": {"ids": [1, 2]}, "aiw": {"trials": 1}}


def _calls(**given: int) -> dict[str, int]:
    return {**dict.fromkeys(CALL_TOTALS, 0), **given}


def test_a_standing_says_turns_tokens_pace_and_eta() -> None:
    calls = _calls(
        calls=50, attempts=52, failed_calls=1, cached_calls=4, input_tokens=12300, output_tokens=1100
    )
    s = Standing(todo=10, done=3, correct=2, errored=0, running=1, turns=45, calls=calls, elapsed=290.0)
    line = s.summary()
    assert line.startswith("3/10 episodes (2 correct, 0 errored), 1 running; 45 turns; ")
    assert "model calls 50 (2 retries, 1 failed, 4 replayed); tokens 12,300 in, 1,100 out" in line
    # 3 episodes in 290 s: 7 more take 7 x 96.7 s
    assert "0.62 episodes/min" in line and "4 min 50 s elapsed" in line and "ETA 11 min" in line


def test_before_the_first_episode_there_is_no_eta_and_retries_are_named_only_when_made() -> None:
    s = Standing(
        todo=4, done=0, correct=0, errored=0, running=1, turns=7, calls=_calls(calls=7, attempts=7), elapsed=9
    )
    assert s.eta is None and "ETA after the first episode" in s.summary()
    assert "retr" not in s.summary() and "model calls 7; tokens 0 in, 0 out" in s.summary()
    done = Standing(
        todo=4, done=4, correct=4, errored=0, running=0, turns=9, calls=_calls(), elapsed=3, model=False
    )
    assert done.eta == 0 and "ETA" not in done.summary() and "no model calls" in done.summary()


@pytest.mark.parametrize(
    ("seconds", "text"), [(0.4, "0 s"), (42, "42 s"), (185, "3 min 5 s"), (4320, "1 h 12 min")]
)
def test_durations_read_as_a_person_says_them(seconds: float, text: str) -> None:
    assert duration(seconds) == text


def _lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("run ")]


@pytest.mark.parametrize("name", registry.names())
def test_every_family_shows_turns_tokens_and_eta_in_a_log(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two episodes of each family against a model that answers nonsense (episodes end on its format errors,
    or error on a judge that cannot read it): a line per episode, each with the run's turns and tokens, and an
    ETA while episodes are left."""
    from tests.fakes.openai_server import FakeOpenAIServer

    family = registry.get(name)
    store = Store(f"sqlite:///{tmp_path / 'p.db'}")
    with FakeOpenAIServer(lambda messages, body: "I am not sure; maybe something.") as server:
        config = family.config_type(
            **CHEAP.get(name, {}), player="llm", model="vllm:fake", base_url=server.base_url, retries=0
        )
        config = family.prepare(config, store)
        items = family.items(config)[:2]
        observer = _Progress(Console(file=io.StringIO()), store, quiet=False)
        (run_id,) = asyncio.run(play_run(store, config, items=items, observer=observer))
    lines = _lines(capsys.readouterr().err)
    episodes = [line for line in lines if f"run {run_id}: episode " in line]
    assert len(episodes) == 2, lines
    for line in episodes:
        assert " turns;" in line and "tokens " in line and " in, " in line and "model calls " in line, line
    assert "ETA " in episodes[0], episodes[0]
    assert lines[-1].startswith(f"run {run_id} played: 2/2 episodes"), lines[-1]
    turns = int(lines[-1].split(" turns;")[0].rsplit(" ", 1)[1].replace(",", ""))
    assert turns == sum(len(store.list_turns(e.id)) for e in store.list_episodes(run_id)) > 0


def test_the_command_line_shows_the_solver_baseline_and_quiet_keeps_only_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'q.db'}"
    assert main(["eval", "wilt", "--split", "lite", "--ids", "1,2", "--player", "solver", "--db", db]) == 0
    captured = capsys.readouterr()
    lines = _lines(captured.err)
    assert [line.split(":")[0] for line in lines[:2]] == ["run 1", "run 1"]
    assert "no model calls" in lines[0] and " turns;" in lines[0]
    assert "Running run 1" in captured.out
    assert (
        main(["eval", "wilt", "--split", "lite", "--ids", "1,2", "--player", "solver", "--db", db, "-q"]) == 0
    )
    quiet = capsys.readouterr()
    assert quiet.err == "" and "Running run" not in quiet.out and "solver" in quiet.out


def test_the_baseline_after_a_model_run_has_its_own_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fakes.openai_server import FakeOpenAIServer

    db = f"sqlite:///{tmp_path / 'b.db'}"
    with FakeOpenAIServer(lambda messages, body: "Final Guess: ```x < y < z```") as server:
        argv = ["eval", "wilt", "--split", "lite", "--ids", "1,2", "--model", "vllm:fake", "--db", db]
        assert main([*argv, "--base-url", server.base_url]) == 0
    err = capsys.readouterr().err.splitlines()
    model = [line for line in err if line.startswith("run 1: episode ")]
    assert len(model) == 2 and all("1 turns | " in line for line in model), model
    assert any(line.startswith("run 1 played: 2/2 episodes") and "model calls 2;" in line for line in err), (
        err
    )
    baseline = [line for line in err if line.startswith("solver baseline run 2")]
    assert len(baseline) == 3 and baseline[-1].startswith("solver baseline run 2 played: 2/2 episodes"), (
        baseline
    )
    assert all("no model calls" in line for line in baseline), baseline


def test_a_tracker_counts_what_its_observer_is_told(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 't.db'}")
    tracker = Tracker(store, run_id=1, todo=3)
    tracker.finished(EpisodeResult(episode_id=1, index=0, status="errored", outcome=None, error="boom\nmore"))
    assert (tracker.done, tracker.errored, tracker.correct) == (1, 1, 0)
    assert tracker.episode_line(
        EpisodeResult(episode_id=1, index=0, status="errored", outcome=None, error="boom\nmore")
    ).startswith("episode 0 errored: boom | 1/3 episodes (0 correct, 1 errored), 0 running; 0 turns")
