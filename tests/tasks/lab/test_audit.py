"""The lab's reward audit: the solver wins, no degenerate player nor hack is rewarded, each hack's answer is read
and judged wrong for its reason, and the solver's moves written as replies read back as themselves."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from wason.core.family import EpisodeContext
from wason.env import AsyncTextEnv
from wason.env.audit import audit, failed
from wason.env.trajectories import replay, solver_trajectories
from wason.tasks.lab.audit import PLAYERS, TEST_SIZE, _changes, _right, hacks
from wason.tasks.lab.family import FAMILY, LabRunConfig
from wason.tasks.lab.game import Answer, Finish, LabGame, Request, Step
from wason.tasks.lab.protocol import parse_reply, write_action
from wason.tasks.lab.world import BUDGETS


def test_the_audit_passes_every_check() -> None:
    checks = {c.name: c for c in asyncio.run(audit("lab", {}, games=3))}
    hack_names = ("one law off", "one value off", "pass-mark edge", "repeat-one-experiment")
    expected = {
        "solver",
        "format-breaking",
        "prompt's examples",
        *PLAYERS,
        *(f"hack {h}" for h in hack_names),
    }
    assert set(checks) == expected | {"leaks", "judges"}
    assert not failed(checks.values()), [c.line() for c in checks.values()]
    # no LLM judge runs without its model: the comparison is skipped
    assert {c.name: c.status for c in checks.values() if c.status != "ok"} == {"judges": "skip"}


async def _play(seed: int, replies: Sequence[str]) -> dict[str, Any]:
    """One game of the default configuration, ``replies`` sent in turn (the last repeated), as the audit sends
    them; the end's ``info``."""
    env = AsyncTextEnv("lab", {}, max_turns=200)
    await env.reset(seed=seed)
    info: dict[str, Any] = {}
    turn = 0
    while not env.done:
        info = (await env.step(replies[min(turn, len(replies) - 1)])).info
        turn += 1
    await env.aclose()
    return info


def _item(seed: int) -> dict[str, Any]:
    env = AsyncTextEnv("lab", {})
    asyncio.run(env.reset(seed=seed))
    assert env.record is not None
    return dict(env.record.item)


@pytest.mark.parametrize("seed", [0, 1])
def test_each_player_and_hack_is_read_and_judged_wrong(seed: int) -> None:
    item = _item(seed)
    config = LabRunConfig()
    made = hacks(item)
    assert set(made) == {"one law off", "one value off", "pass-mark edge", "repeat-one-experiment"}
    results = {name: asyncio.run(_play(seed, replies)) for name, replies in {**PLAYERS, **made}.items()}
    for name, info in results.items():
        assert info["format_errors"] == 0 and info["success"] is False, name
        assert info["episode_reward"] == 0.0 and info["metrics"]["test_size"] == TEST_SIZE, name
        assert info["metrics"]["answered"] is (name != "no-answer"), name
    m = {name: info["metrics"] for name, info in results.items()}
    assert m["leave-at-once"]["experiments"] == 0
    assert m["leave-at-once"]["prediction_accuracy"] == m["leave-at-once"]["null_accuracy"]
    assert m["repeat-one-experiment"]["experiments"] == BUDGETS[item["difficulty"]]
    assert m["repeat-one-experiment"]["invalid_requests"] == 0
    assert m["one value off"]["prediction_accuracy"] == 0.0
    # the fewest mistakes under the pass mark: one fewer and it would pass
    edge = m["pass-mark edge"]["prediction_accuracy"]
    assert edge < config.pass_mark <= edge + 1 / TEST_SIZE
    assert m["one law off"]["theory_equivalent"] is False
    assert m["one law off"]["prediction_accuracy"] < config.pass_mark


def test_the_true_outcomes_win_the_test_the_hacks_are_built_on() -> None:
    """The hacks' test is the game's: the true outcomes, written as they write theirs, are rewarded."""
    item = _item(0)
    game = FAMILY.game(LabRunConfig(), item, EpisodeContext())
    assert isinstance(game, LabGame)
    right = [_changes(t.things, t.outcome(game.domain.laws)) for t in game.test]
    info = asyncio.run(_play(0, [write_action(Finish()), write_action(Answer(tuple(right)))]))
    assert info["success"] is True and info["episode_reward"] == 1.0


@pytest.mark.parametrize(
    "action",
    [
        Request(
            (
                Step("experiment", op="splorficate", objects=("zorple-1",)),
                Step("experiment", op="wuzzle", objects=("zorple-2", "blick-1")),
                Step("reset", objects=("zorple-1",)),
                Step("create", type="zorple"),
            )
        ),
        Finish(),
        Answer(({"new-zorple-1": {"zibblosity": 14.5, "quizzleplistic": True}}, {}, None)),
        Answer(({},), theory="on splorficate(a): a.zibblosity = a.zibblosity * 2", report="it doubles"),
    ],
)
def test_a_written_action_reads_back_as_itself(action: Request | Finish | Answer) -> None:
    assert parse_reply(write_action(action)) == action
    assert FAMILY.action_message(FAMILY.actions.encode(action)) == write_action(action)


def test_a_move_of_no_lab_action_has_no_message() -> None:
    assert FAMILY.action_message({"type": "Teleport"}) is None


def test_the_solvers_trajectories_read_back_and_replay_to_their_reward() -> None:
    trajectories = asyncio.run(solver_trajectories("lab", {"difficulty": "medium", "curve": False}, n=2))
    for t in trajectories:
        assert t["success"] is True and t["reward"] == 1.0
        reward, info = asyncio.run(replay(t))
        assert reward == t["reward"] and info["success"] is True


NOTHING_DOMAINS = {"easy": range(1, 31), "medium": range(1, 31), "hard": (*range(1, 13), 78)}
"""The games of a seed-0 run whose "nothing changes" score is checked: hard domains take a second or more each
to draw, so fewer of them, with game 78 (whose test used to change 2 of its 20 experiments)."""


@pytest.mark.parametrize("difficulty", list(NOTHING_DOMAINS))
def test_nothing_changes_scores_under_the_pass_mark(difficulty: str) -> None:
    """Predicting "nothing changes" (what leaving at once answers) is scored directly on each game's test, as the
    verdict scores it: at most half right (the other half is drawn to change something), under the pass mark."""
    config = LabRunConfig(difficulty=difficulty, n=max(NOTHING_DOMAINS[difficulty]))
    scores: dict[str, float] = {}
    for k in NOTHING_DOMAINS[difficulty]:
        key, item = config.item_at(k - 1)
        game = FAMILY.game(config, item, EpisodeContext())
        assert isinstance(game, LabGame)
        test = game.test
        right = [_right(t.things, t.outcome(game.domain.laws), config.tolerance) for t in test]
        scores[key] = sum(right) / len(test)
    assert max(scores.values()) <= 0.5 < config.pass_mark, {k: s for k, s in scores.items() if s > 0.5}


@pytest.mark.slow
def test_leaving_at_once_is_never_rewarded_on_hard_domains() -> None:
    """The audit's game on hard|0|78, whose test used to change 2 of its 20 experiments (world.trials counted a
    law as acting where its condition could not hold): leaving at once scored the pass mark, and so did the hacks
    that predict "nothing changes" where it matters (one law off, repeating one experiment)."""
    checks = {
        c.name: c for c in asyncio.run(audit("lab", {"difficulty": "hard", "n": 100}, games=1, seed=147))
    }
    for name in ("leave-at-once", "hack one law off", "hack repeat-one-experiment"):
        assert checks[name].status == "ok", (name, checks[name].detail)
