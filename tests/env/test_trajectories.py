"""``wason trajectories``: the solver's games and stored model episodes as chat JSON lines in exactly the messages
a model sees; replaying a trajectory through the environment gives its reward again."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.report.test_runs import Made, make_runs
from wason.cli import main
from wason.core import registry
from wason.env.trajectories import replay


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_list_solver_games_are_read_back_as_its_moves(tmp_path: Path) -> None:
    """The list rules' solver writes rounds, its final rule, its predicate and its quiz answers in the pilot's
    format; the environment reads each back as the solver's move (else the command fails) and replays them."""
    out = tmp_path / "lists.jsonl"
    assert main(["trajectories", "lists", "--games", "3", "--to", str(out)]) == 0
    for t in _lines(out):
        assert t["messages"][1]["content"].startswith("<response>\n{")
        reward, info = asyncio.run(replay(t))
        assert (reward, info["success"]) == (t["reward"], t["success"])


def test_solver_games_in_the_protocols_words_replay_to_their_reward(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "solver.jsonl"
    assert (
        main(
            ["trajectories", "wilt", "--split", "full", "--games", "4", "--first-seed", "3", "--to", str(out)]
        )
        == 0
    )
    assert "4 trajectories" in capsys.readouterr().out
    trajectories = _lines(out)
    assert [t["seed"] for t in trajectories] == [3, 4, 5, 6]
    for t in trajectories:
        roles = [m["role"] for m in t["messages"]]
        assert roles[0] == "system" and roles[1::2] == ["assistant"] * len(roles[1::2])
        assert t["messages"][-1]["content"].startswith("Final Guess: ```lambda x, y, z:")
        reward, info = asyncio.run(replay(t))
        assert reward == t["reward"] and info["success"] == t["success"] and info["item_key"] == t["item_key"]
    assert sum(t["success"] for t in trajectories) >= 3  # the solver wins nearly every rule of the full split


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    return make_runs(f"sqlite:///{tmp_path_factory.mktemp('traj') / 'runs.db'}")


def test_stored_model_episodes_replay_to_their_verdict(made: Made, tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "model.jsonl"
    assert main(["trajectories", "--from-runs", str(made.model), "--to", str(out), "--db", made.url]) == 0
    trajectories = _lines(out)
    episodes = [e for e in made.store.list_episodes(made.model) if e.status == "completed"]
    assert len(trajectories) == len(episodes) > 0
    calls = made.store.list_calls(run_id=made.model)
    for t, e in zip(trajectories, episodes, strict=True):
        assert (t["run"], t["episode"], t["item_key"], t["success"]) == (
            made.model,
            e.index,
            e.item_key,
            e.success,
        )
        # the messages the model saw at its last call, then its last reply: what the store recorded
        last = max((c for c in calls if c["episode_id"] == e.id), key=lambda c: (len(c["messages"]), c["id"]))
        expected = [{"role": m["role"], "content": m["content"]} for m in last["messages"]]
        expected.append({"role": "assistant", "content": last["response"].strip()})
        assert t["messages"] == expected
        reward, info = asyncio.run(replay(t))
        assert info["success"] == e.success and reward == t["reward"] == float(bool(e.success))
    won = tmp_path / "won.jsonl"
    assert (
        main(
            [
                "trajectories",
                "--from-runs",
                str(made.model),
                "--success-only",
                "--to",
                str(won),
                "--db",
                made.url,
            ]
        )
        == 0
    )
    assert [t["item_key"] for t in _lines(won)] == [e.item_key for e in episodes if e.success]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["toy", "--games", "1"], "the solver's move Probe has no message in the protocol's text"),
        (["aiw", "--games", "1"], "AIW has no reference solver"),
        (["wilt", "--games", "0"], "--games: from 1 to 100,000, not 0"),
        (["wilt", "--split", "nope", "--games", "1"], "split: unknown WILT split 'nope'"),
    ],
)
def test_what_cannot_be_written_is_one_line(args: list[str], said: str, tmp_path: Path, capsys: Any) -> None:
    from tests.families.toy import FAMILY  # a plugin whose moves have no text form

    out = tmp_path / "t.jsonl"
    registry.register(FAMILY, replace=True)
    try:
        assert main(["trajectories", *args, "--to", str(out)]) == 2
    finally:
        registry.unregister(FAMILY.name)
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and not out.exists()


def test_a_run_no_model_played_is_refused(made: Made, tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "t.jsonl"
    assert main(["trajectories", "--from-runs", str(made.solver), "--to", str(out), "--db", made.url]) == 2
    assert "was played by solver, not a model" in capsys.readouterr().err and not out.exists()
