"""Every family as a text environment: Gymnasium's checker passes on each, the model reads exactly what
``wason eval``'s player sends for the same replies, an unreadable reply is the protocol's feedback and a counted
format error, and one seed is one game, byte for byte, in any process."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FakeModel
from tests.families.toy import FAMILY
from tests.inspect.scripted import reply as scripted_reply
from tests.tasks.dynamic_picnic.scripted import ScriptedOracle
from tests.tasks.dynamic_picnic.test_runs import master
from wason.core import registry
from wason.core.family import EpisodeContext
from wason.core.memory import EpisodeRecord
from wason.core.session import Session, pick_item
from wason.env import AsyncTextEnv, TextEnv, VectorTextEnv, make
from wason.models.client import ModelClient, RetryPolicy
from wason.players.llm import LLMPlayer

ROOT = Path(__file__).resolve().parents[2]
CODE_JUDGED = ["wilt", "lists", "aiw", "picnic", "code-functions", "math", "lab"]
"""The built-in families whose games need no model beside the player's (dynamic picnic's game master is one)."""


@pytest.fixture
def toy() -> Any:
    registry.register(FAMILY)
    yield FAMILY
    registry.unregister(FAMILY.name)


def _env_kwargs(name: str) -> dict[str, Any]:
    if name == "dynamic-picnic":  # its game master is a model: the scripted one
        return {"judge_model": "scripted", "oracle": ScriptedOracle(master())}
    return {}


def _reply(messages: list[dict[str, Any]]) -> str:
    return scripted_reply(messages, {})


# -- Gymnasium ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [*CODE_JUDGED, "dynamic-picnic", FAMILY.name])
def test_gymnasium_checker_passes(name: str, toy: Any) -> None:
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    from wason.env.gym import env_id, register_envs

    register_envs()  # the plugin registered after wason.env was imported
    env = gymnasium.make(env_id(name), **_env_kwargs(name))
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in said] == []
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["turn"] == 0
    sampled = env.action_space.sample()
    assert env.action_space.contains(sampled)
    _, reward, terminated, truncated, info = env.step(sampled)  # a random reply: played, never raised
    assert reward in (0.0, 1.0) and isinstance(terminated, bool) and isinstance(truncated, bool)
    env.close()


def test_gymnasium_make_without_importing_wason_first() -> None:
    """``gymnasium.make("wason.env.gym:wason/wilt-v0")``: Gymnasium imports the module, which registers every
    family."""
    pytest.importorskip("gymnasium")
    code = (
        "import gymnasium\n"
        "env = gymnasium.make('wason.env.gym:wason/wilt-v0', split='full')\n"
        "obs, info = env.reset(seed=1)\n"
        "print(info['family'], len(env.unwrapped.text.env.config.items()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["wilt", "50"]


# -- the messages are wason eval's ---------------------------------------------------------------------------
async def _played_by_llm_player(name: str, seed: int) -> list[list[dict[str, str]]]:
    """Every request the LLM player of ``wason eval`` sends for the scripted replies, on the item ``seed`` draws."""
    env = AsyncTextEnv(name, **_env_kwargs(name))  # the configuration the environment plays
    family, config = env.family, env.config
    key, item = pick_item(family, config, seed=seed)
    model = FakeModel(lambda msgs: _reply([{"role": m.role, "content": m.content} for m in msgs]))
    client = ModelClient(
        model=model, store=EpisodeRecord(name, key, item, {}, "llm"), policy=RetryPolicy(retries=0)
    )
    kwargs = _env_kwargs(name)
    oracle = kwargs.get("oracle")
    game = family.game(config, item, EpisodeContext(run_id=None, episode_id=0, oracle=oracle))
    protocol = family.protocol(config, item)
    session = Session.begin(game, EpisodeRecord(name, key, item, {}, "llm"), 0, feedback=protocol.feedback)
    player = LLMPlayer(
        client, protocol, family.generation_params(config, item), system_as_user=config.system_as_user
    )
    while not session.done:
        await session.play_turn(player)
    return [[{"role": m.role, "content": m.content} for m in seen] for seen in model.seen]


async def _played_by_env(name: str, seed: int) -> tuple[list[list[dict[str, str]]], dict[str, Any], float]:
    env = AsyncTextEnv(name, **_env_kwargs(name))
    obs, info = await env.reset(seed=seed)
    assert info["turn"] == 0 and "success" not in info
    assert obs == "\n\n".join(m["content"] for m in env.messages)  # the opening, as one text
    sent = []
    while True:
        sent.append(env.messages)
        result = await env.step(_reply(env.messages))
        if result.terminated or result.truncated:
            return sent, result.info, result.reward
        assert result.observation == env.messages[-1]["content"]  # the protocol's answer to the reply


@pytest.mark.parametrize("name", [*CODE_JUDGED, "dynamic-picnic", FAMILY.name])
def test_the_model_reads_what_wason_eval_sends(name: str, toy: Any) -> None:
    for seed in (0, 1):
        ours, info, reward = asyncio.run(_played_by_env(name, seed))
        theirs = asyncio.run(_played_by_llm_player(name, seed))
        assert ours == theirs
        assert info["success"] is not None and reward == (1.0 if info["success"] else 0.0)
        assert "metrics" in info and info["replies"] == len(ours)


# -- replies that cannot be read -------------------------------------------------------------------------------
def test_an_unreadable_reply_is_feedback_and_a_counted_format_error() -> None:
    env = make("wilt")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("I would rather not say.")
    assert "format specified" in obs and (reward, terminated, truncated) == (0.0, False, False)
    assert info["format_errors"] == 1 and info["observation"]["kind"] == "format_error"
    obs, *_, info = env.step("")
    # the published protocol ends a game after 2 consecutive unreadable replies
    assert info["format_errors"] == 2 and info["success"] is False
    with pytest.raises(RuntimeError, match="over"):
        env.step("Test Case: ```(1, 2, 3)```")
    env.close()


def test_a_reply_over_the_bound_is_played_unread() -> None:
    from wason.env.text import MAX_REPLY

    env = make("wilt")
    env.reset(seed=0)
    obs, _, terminated, _, info = env.step("Test Case: ```(1, 2, 3)``` " + "x" * MAX_REPLY)
    assert "format specified" in obs
    assert info["format_errors"] == 1 and info["observation"]["kind"] == "format_error" and not terminated
    assert "longer than the 1,000,000 characters" in info["observation"]["reason"]
    env.close()


def test_misuse_is_one_clear_error() -> None:
    env = make("wilt")
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step("Test Case: ```(1, 2, 3)```")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="text"):
        env.step(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_turns"):
        make("wilt", max_turns=0)
    with pytest.raises(ValueError, match="split"):
        make("wilt", split="nope")
    env.close()


def test_max_turns_truncates() -> None:
    env = make("wilt", max_turns=2)
    env.reset(seed=0)
    assert env.step("Test Case: ```(1, 2, 3)```")[3] is False
    _, reward, terminated, truncated, info = env.step("Test Case: ```(2, 3, 4)```")
    assert (reward, terminated, truncated) == (0.0, False, True) and "success" not in info
    env.close()


# -- one seed, one game ----------------------------------------------------------------------------------------
def _digest(name: str, seed: int) -> str:
    """The whole episode played with the scripted replies, hashed: its texts, rewards and infos."""
    env = make(name, **_env_kwargs(name))
    obs, info = env.reset(seed=seed)
    seen: list[Any] = [obs, info]
    while True:
        step = env.step(_reply(env.messages))
        seen.append(step)
        if step[2] or step[3]:
            break
    env.close()
    return hashlib.sha256(json.dumps(seen, sort_keys=True, default=str).encode()).hexdigest()


DIGEST = """
import sys
from tests.env.test_text_env import _digest
print(" ".join(_digest(name, 7) for name in sys.argv[1:]))
"""


def test_one_seed_is_one_game_in_any_process() -> None:
    here = [_digest(name, 7) for name in CODE_JUDGED]
    for hashseed in ("0", "12345"):  # another process, another string hashing
        done = subprocess.run(
            [sys.executable, "-c", DIGEST, *CODE_JUDGED],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={"PYTHONHASHSEED": hashseed, "PATH": "/usr/bin:/bin"},
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.split() == here
    assert len({_digest("lists", s) for s in (1, 2, 3)}) > 1  # other seeds, other games


def test_a_group_of_one_seed_is_identical_games() -> None:
    group = VectorTextEnv("lists", 4)
    obs, infos = group.reset(seed=[5, 5, 5, 5])
    assert len(set(obs)) == 1
    keys = set()
    while True:
        replies = [_reply(env.messages) for env in group.envs]
        assert len(set(replies)) == 1
        obs, rewards, terminated, truncated, infos = group.step(replies)
        assert len(set(obs)) == 1 and len(set(rewards)) == 1 and not any(truncated)
        if all(terminated):
            keys = {i["item_key"] for i in infos}
            break
    assert len(keys) == 1
    spread = VectorTextEnv("wilt", 3, split="full")
    obs, infos = spread.reset(seed=10)  # seeds 10, 11, 12
    assert len({e.record.key for e in spread.envs if e.record}) > 1
    group.close()
    spread.close()


def test_the_chat_form_is_openai_messages() -> None:
    env = make("wilt")
    env.reset(seed=0)
    env.step("Test Case: ```(1, 2, 3)```")
    messages = env.messages
    assert [m["role"] for m in messages] == ["system", "assistant", "user"]
    assert all(set(m) == {"role", "content"} and isinstance(m["content"], str) for m in messages)
    env.step("Final Guess: ```lambda x, y, z: x < y < z```")
    assert env.messages[-1] == {
        "role": "assistant",
        "content": "Final Guess: ```lambda x, y, z: x < y < z```",
    }
    env.close()


def test_the_sync_env_works_inside_a_running_loop() -> None:
    """A notebook or an async trainer calls the plain methods from inside an event loop: they still work."""

    async def inside() -> str:
        env = TextEnv("wilt")
        obs, _ = env.reset(seed=0)
        env.close()
        return obs

    assert asyncio.run(inside()).startswith("You are an AI tasked")


# -- rewards ---------------------------------------------------------------------------------------------------
def test_the_default_reward_is_the_code_verdict() -> None:
    env = make("wilt")
    env.reset(seed=0)
    rewards = [env.step("Test Case: ```(1, 2, 3)```")[1]]
    *_, info = step = env.step("Final Guess: ```lambda x, y, z: x < y < z```")
    rewards.append(step[1])
    assert rewards == [0.0, 1.0 if info["success"] else 0.0]
    assert info["reward_components"] == {"win": rewards[-1]} and info["episode_reward"] == rewards[-1]
    env.close()


def test_shaping_pays_what_its_formula_says() -> None:
    weights = {"win": 2.0, "format_error": -0.1, "invalid": -0.2, "repeat": -0.05, "information": 0.5}
    env = make("wilt", shaping=weights)
    env.reset(seed=0)
    paid = [
        env.step(reply)[1]
        for reply in (
            "Test Case: ```(1, 2, 3)```",
            "no idea",
            "Test Case: ```(1, 2, 3)```",
            "Test Case: ```(1, 1000, 3)```",
        )
    ]
    assert paid[1] == pytest.approx(-0.1) and paid[0] == paid[2] == paid[3] == 0.0  # unreadable: paid at once
    _, last, terminated, _, info = env.step("Final Guess: ```lambda x, y, z: x + y + z > 0```")
    assert terminated
    m = info["metrics"]
    assert (m["format_errors"], m["repeats"], m["invalid_tests"]) == (1, 1, 1)
    expected = {
        "win": 2.0 * bool(info["success"]),
        "format_error": -0.1,
        "invalid": -0.2,
        "repeat": -0.05,
        "information": 0.5 * m["reduction"][-1],
    }
    assert info["reward_components"] == pytest.approx(expected)
    assert last == pytest.approx(sum(v for k, v in expected.items() if k != "format_error"))
    assert info["episode_reward"] == pytest.approx(sum(paid) + last) == pytest.approx(sum(expected.values()))
    assert 0 < m["reduction"][-1] <= 1
    env.close()


@pytest.mark.parametrize(
    ("family", "shaping", "said"),
    [
        ("aiw", {"repeat": -1}, "aiw counts no repeat experiments (its counts: none)"),
        ("lists", {"invalid": -1}, "lists counts no invalid experiments (its counts: repeat)"),
        ("picnic", {"information": 1}, "picnic declares no hypothesis space"),
        ("wilt", {"win": 1000}, "less than or equal to 100"),
        ("wilt", {"bonus": 1}, "bonus"),
    ],
)
def test_a_weight_the_family_cannot_pay_is_refused(family: str, shaping: dict[str, float], said: str) -> None:
    with pytest.raises(ValueError, match=re.escape(said)):
        make(family, shaping=shaping)


def test_an_oracle_the_caller_gave_stays_open() -> None:
    """The environment closes the clients it made, never one it was given (the caller may share it)."""
    closed: list[bool] = []

    class Oracle(ScriptedOracle):
        async def aclose(self) -> None:
            closed.append(True)

    env = make("dynamic-picnic", judge_model="scripted", oracle=Oracle(master()))
    env.reset(seed=0)
    env.close()
    assert closed == []
