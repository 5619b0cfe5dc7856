"""AIW's reward audit: the sample game (the right answer) wins, and no answer that states nothing, no number of
the prompt, no answer off by one and no hedge is rewarded; each is read as an answer and judged wrong. The
answers the sample game plays have messages, read back as the same moves and replayed to their reward."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from wason.core.session import to_json
from wason.env import AsyncTextEnv
from wason.env.audit import audit
from wason.env.trajectories import replay
from wason.tasks.aiw.answers import answer_kind
from wason.tasks.aiw.audit import PLAYERS, PROMPT_NUMBERS, hacks, prompt_numbers
from wason.tasks.aiw.family import FAMILY

HACKS = {
    "answer plus one",
    "answer minus one",
    "hedge",
    *(f"prompt number {k:02d}" for k in range(1, PROMPT_NUMBERS + 1)),
}
EXPECTED = {
    "sample game",
    "format-breaking",
    "prompt's examples",
    *PLAYERS,
    *(f"hack {h}" for h in HACKS),
    "leaks",
    "judges",
}


@pytest.mark.parametrize(
    "config",
    [
        {},  # the paper's AIW variations 1-6
        # base models' prompts end with the answer heading: a reply that restates it is read after it
        {"prompt_types": ["BASE", "ICL"], "trials": 1},
        {"families": ["AIW Light attribute control"], "prompt_types": ["STANDARD", "THINKING_V2_SEX_CODE"]},
    ],
)
def test_the_audit_passes_with_every_player_and_hack(config: dict[str, Any]) -> None:
    checks = {c.name: c for c in asyncio.run(audit("aiw", config, games=4))}
    assert set(checks) == EXPECTED
    assert checks.pop("judges").status == "skip"  # AIW is judged by code alone: no LLM judge to compare
    assert {n: c.line() for n, c in checks.items() if c.status != "ok"} == {}


async def _judged(config: dict[str, Any], seed: int, reply: str) -> dict[str, Any]:
    env = AsyncTextEnv("aiw", config)
    await env.reset(seed=seed)
    step = await env.step(reply)
    await env.aclose()
    assert step.terminated and step.info["format_errors"] == 0
    return {"success": step.info["success"], **step.info["metrics"]}


def test_each_hack_is_read_as_an_answer_and_judged_wrong() -> None:
    config = {"families": ["aiw.bs", "aiw.sb", "AIW-Param", "AIW Light attribute control"], "trials": 1}
    kinds = set()
    for seed in range(8):
        env = AsyncTextEnv("aiw", config)
        asyncio.run(env.reset(seed=seed))
        assert env.record is not None
        item = env.record.item
        kind = answer_kind(str(item["expected"]))
        kinds.add(kind)
        assert str(item["expected"]) not in prompt_numbers(item)
        for name, (reply,) in hacks(item).items():
            metrics = asyncio.run(_judged(config, seed, reply))
            stated = reply.split(": ", 1)[1]
            if name == "hedge":  # two answers (numbers or expressions): ambiguous, or naming both sexes
                assert metrics["status"] == ("unparseable" if kind == "sex" else "ambiguous"), reply
            else:  # read as the answer it states
                assert metrics["status"] == "ok", (name, reply)
                if kind != "symbolic":
                    assert metrics["answer"] == stated, (name, reply)
            assert not metrics["correct"] and not metrics["success"], (item["variation"], name, reply)
    assert kinds == {"number", "symbolic", "sex"}


def test_a_symbolic_hedge_is_not_rewarded() -> None:
    # "### Answer: (M) - 1 or M" names two different expressions: ambiguous, as "6 or 7" is, never right
    config = {"families": ["AIW-Param"], "trials": 1}
    checks = {c.name: c for c in asyncio.run(audit("aiw", config, games=6))}
    assert checks["hack hedge"].status == "ok", checks["hack hedge"].line()
    assert checks["hack hedge"].detail == "never rewarded (6 games, reward 0)"


def test_the_sample_games_messages_are_its_moves_and_replay_to_their_reward() -> None:
    async def played(seed: int) -> tuple[dict[str, Any], float]:
        config = {"self_verify": "review", "trials": 1}
        env = AsyncTextEnv("aiw", config)
        await env.reset(seed=seed)
        assert env.record is not None
        for action in env.family.sample_actions(env.config, env.record.item) or []:
            text = env.family.action_message(to_json(action))
            assert text is not None
            before = len(env.record.turns)
            step = await env.step(text)
            assert env.record.turns[before]["action"] == to_json(action)  # read back as the same move
        assert step.info["success"] and step.info["replies"] == 3  # the answer, then two reviews
        trajectory = {
            "family": "aiw",
            "seed": seed,
            "messages": env.messages,
            "config": env.config.model_dump(mode="json", exclude={"player", "model"}),
        }
        await env.aclose()
        return trajectory, float(step.info["episode_reward"])

    assert FAMILY.action_message({"type": "Other"}) is None  # no move of AIW
    for seed in range(3):
        trajectory, reward = asyncio.run(played(seed))
        again, info = asyncio.run(replay(trajectory))
        assert again == reward == 1.0 and info["success"]
