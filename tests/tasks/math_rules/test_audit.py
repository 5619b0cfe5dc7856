"""Math sequences' reward audit: the solver wins, and no degenerate guess or hack of the hidden rule is rewarded;
each hack is read as an expression and refuted by the code at a transition where it is wrong. The solver's moves
are written as the replies that make them, and their trajectories replay to their reward."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from wason.env import AsyncTextEnv
from wason.env.audit import audit
from wason.env.trajectories import replay, solver_trajectories
from wason.tasks.math_rules.audit import PLAYERS, hacks
from wason.tasks.math_rules.family import FAMILY, rule_from_item
from wason.tasks.math_rules.game import ExpressionAnswer, GiveUp, Guess, More, QuizAnswer
from wason.tasks.math_rules.protocol import (
    MathProtocol,
    parse_expression_reply,
    parse_quiz_reply,
    write_action,
)
from wason.tasks.math_rules.rules import transitions

HACKS = ("carve-out", "constant off by one", "range cap")
LEVELS = ("L1", "L2", "L3")


@pytest.mark.parametrize("level", LEVELS)
def test_the_audit_passes_with_every_player_and_hack(level: str) -> None:
    checks = {c.name: c for c in asyncio.run(audit("math", {"level": level}, games=3))}
    expected = {"solver", "format-breaking", "prompt's examples", *PLAYERS, *(f"hack {h}" for h in HACKS)}
    assert set(checks) == expected | {"leaks", "judges"}
    # no LLM judge runs without its model: the comparison is skipped
    assert {n: c.status for n, c in checks.items() if c.status != "ok"} == {"judges": "skip"}
    assert checks["solver"].detail.startswith("won 3 of 3")


async def _played(level: str, reply: str, seed: int) -> dict[str, Any]:
    env = AsyncTextEnv("math", {"level": level, "max_turns": 1})
    await env.reset(seed=seed)
    while not env.done:
        info = (await env.step(reply)).info
    await env.aclose()
    assert info["format_errors"] == 0  # read, not refused as unreadable
    return {"success": info["success"], **info["metrics"]}


@pytest.mark.parametrize("level", LEVELS)
def test_each_hack_is_read_as_an_expression_and_refuted_where_it_is_wrong(level: str) -> None:
    env = AsyncTextEnv("math", {"level": level})
    asyncio.run(env.reset(seed=1))
    assert env.record is not None
    item = env.record.item
    made = hacks(item)
    assert tuple(sorted(made)) == HACKS
    points = transitions(rule_from_item(item), level)
    shown = {(s[k], k) for s in item["examples"] for k in range(len(s) - 1)}
    for name, (reply,) in made.items():
        metrics = asyncio.run(_played(level, reply, 1))
        (guess,) = metrics["guesses"]
        verdict = guess["verdict"]
        assert (
            not metrics["success"] and guess["expression"] is not None and guess["decided_by"] == "expression"
        )
        assert verdict["rejection"] is None and not verdict["equivalent"], name
        assert verdict["points"] == len(points) and verdict["counterexamples"], name
        wrong = [(c["value"], c["index"]) for c in verdict["counterexamples"]]
        if name == "carve-out":  # the one transition changed, and only it
            assert len(wrong) == 1 and verdict["agreement"] == 1 - 1 / len(points)
        if name == "range cap":  # wrong only beyond the cap, which no shown value passes
            cap = int(reply.split("if v <= ")[1].split()[0])
            assert all(v > cap for v, _ in wrong) and all(v <= cap for v, _ in shown)


@pytest.mark.parametrize("name", ["identity", "always-True", "always-False"])
def test_the_degenerate_guesses_are_judged(name: str) -> None:
    metrics = asyncio.run(_played("L1", PLAYERS[name][0], 0))
    (guess,) = metrics["guesses"]
    assert guess["verdict"]["rejection"] is None and not guess["verdict"]["equivalent"]


def test_every_move_is_written_as_a_reply_read_back_as_itself() -> None:
    protocol = MathProtocol()
    guess = Guess("The sequence adds 3. lambda v, i: v + 3", "lambda v, i: v + 3")
    for action in (More(), guess, Guess("no rule fits", None), GiveUp()):
        text = write_action(action)
        assert text is not None and protocol.parse(text) == action, action
    answer = ExpressionAnswer("lambda v, i: v * 2")
    assert parse_expression_reply(str(write_action(answer))) == answer
    quiz = QuizAnswer(((12, 14, -16), None, (1,)))
    assert parse_quiz_reply(str(write_action(quiz)), 3) == quiz
    # moves no reply makes: a request with a count, a guess whose text does not give its expression
    assert write_action(More(3)) is None
    assert write_action(Guess("The sequence adds 3.", "lambda v, i: v + 3")) is None
    assert FAMILY.action_message({"type": "Nothing"}) is None


@pytest.mark.parametrize("level", LEVELS)
def test_the_solver_trajectories_replay_to_their_reward(level: str) -> None:
    for trajectory in asyncio.run(solver_trajectories("math", {"level": level}, n=3)):
        assert trajectory["success"] and trajectory["reward"] == 1.0
        reward, info = asyncio.run(replay(trajectory))
        assert reward == 1.0 and info["success"]
