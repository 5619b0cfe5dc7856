"""verifiers (0.3.1, the classic multi-turn API): every family, the test plugin too, as ``vf.load_environment("wason",
family=...)``; rollouts against the fake OpenAI server complete, read exactly wason's conversation, and are paid
the code verdict (a replay of the same replies through wason's own environment gives the same reward and
verdict); ``vf-eval wason`` runs them from the command line."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

vf = pytest.importorskip(
    "verifiers", reason="verifiers is not installed (the dev and verifiers extras have it)"
)

from tests.env.test_text_env import CODE_JUDGED  # noqa: E402
from tests.fakes.openai_server import FakeOpenAIServer  # noqa: E402
from tests.families.toy import FAMILY  # noqa: E402
from tests.inspect.scripted import reply as scripted_reply  # noqa: E402
from wason.core import registry  # noqa: E402
from wason.env import AsyncTextEnv  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KEY_VAR = "WASON_TEST_FAKE_KEY"


@pytest.fixture
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(reply=scripted_reply, model_name=None) as server:
        yield server


@pytest.fixture
def toy() -> Iterator[None]:
    registry.register(FAMILY, replace=True)
    yield
    registry.unregister(FAMILY.name)


async def _replayed(
    family: str, config: dict[str, Any], seed: int, replies: list[str], max_turns: int | None = None
) -> dict[str, Any]:
    """The same replies through wason's own text environment: its reward and last info."""
    env = AsyncTextEnv(family, config, max_turns=max_turns)
    await env.reset(seed=seed)
    info: dict[str, Any] = {}
    reward = 0.0
    prompts = []
    for reply in replies:
        if env.done:
            break
        prompts.append(tuple((m["role"], m["content"]) for m in env.messages))
        step = await env.step(reply)
        reward += step.reward
        info = step.info
    await env.aclose()
    return {"reward": reward, "success": bool(info.get("success")), "prompts": prompts}


def _evaluate(server: FakeOpenAIServer, family: str, config: dict[str, Any], games: int) -> list[Any]:
    import wason

    env = vf.load_environment("wason", family=family, config=config, games=games, max_turns=40)
    assert type(env) is type(wason.load_environment(family=family, config=config, games=1))
    os.environ[KEY_VAR] = "sk-fake"
    client = vf.ClientConfig(api_key_var=KEY_VAR, api_base_url=server.base_url, max_retries=0)
    done = asyncio.run(
        env.evaluate(client=client, model="fake-model", num_examples=games, rollouts_per_example=1)
    )
    return list(done["outputs"])


def _content(message: Any) -> str:
    return str(message["content"] if isinstance(message, dict) else message.content)


@pytest.mark.parametrize("family", [*CODE_JUDGED, "dynamic-picnic", "toy"])
def test_a_rollout_of_every_family_is_paid_its_code_verdict(
    family: str, fake: FakeOpenAIServer, toy: None
) -> None:
    config = {"ids": [1, 2]} if family == "wilt" else {}
    outputs = _evaluate(fake, family, config, games=2)
    assert len(outputs) == 2
    for out in outputs:
        seed = int(out["info"]["seed"])
        assert not out.get("error"), out.get("error")
        replies = [_content(m) for m in out["completion"] if _role(m) == "assistant"]
        assert replies, f"{family}: the model was never asked"
        again = asyncio.run(_replayed(family, config, seed, replies))
        assert out["reward"] == pytest.approx(again["reward"]), f"{family} seed {seed}"
        assert out["metrics"]["success"] == (1.0 if again["success"] else 0.0)
        # the model read exactly wason's conversation: each request is the prompt wason's environment made for
        # that reply (remade each turn where the protocol remakes it)
        asked = {tuple((m["role"], _content(m)) for m in body["messages"]) for body in fake.bodies}
        missing = [p for p in again["prompts"] if p not in asked]
        assert not missing, f"{family} seed {seed}: a prompt wason makes was not sent: {missing[0][-1]}"
    if family == "wilt":  # the scripted guess is lite/2's rule: one game won, one lost
        assert sorted(o["reward"] for o in outputs) == [0.0, 1.0]


def _role(message: Any) -> str:
    return str(message["role"] if isinstance(message, dict) else message.role)


def test_vf_eval_runs_wason_from_the_command_line(fake: FakeOpenAIServer, tmp_path: Path) -> None:
    args = {"family": "wilt", "ids": [1, 2], "games": 2}
    env = {**os.environ, KEY_VAR: "sk-fake", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [str(Path(sys.executable).parent / "vf-eval"), "wason", "-a", json.dumps(args), "-m", "fake-model",
         "-b", fake.base_url, "-k", KEY_VAR, "-n", "2", "-r", "2", "--disable-tui", "-s", "-o", str(tmp_path),
         "--disable-env-server"],
        env=env, capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    results = list(tmp_path.rglob("results.jsonl"))
    assert results, f"vf-eval saved nothing under {tmp_path}"
    rows = [json.loads(line) for line in results[0].read_text().splitlines() if line.strip()]
    assert sorted(r["reward"] for r in rows) == [0.0, 0.0, 1.0, 1.0]  # two rollouts of each game
    assert len(fake.bodies) == 4 * 5  # four tests and the guess per rollout


def test_bad_arguments_are_one_line() -> None:
    for kwargs, said in [
        ({"family": "nope"}, "nope"),
        ({"family": "wilt", "games": 0}, "games: from 1 to"),
        ({"family": "wilt", "max_tests": 0}, "max_tests"),
        ({"family": "aiw", "shaping": {"repeat": -1}}, "aiw counts no repeat experiments"),
    ]:
        with pytest.raises(RuntimeError) as exc:  # verifiers wraps what the environment raises, message kept
            vf.load_environment("wason", **kwargs)
        assert said in str(exc.value) and "\n" not in str(exc.value), str(exc.value)


@pytest.mark.slow
@pytest.mark.parametrize("family", [*CODE_JUDGED, "dynamic-picnic", "toy"])
def test_a_rollout_of_every_family_against_llama_cpp_server(
    family: str, toy: None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The bundled model behind llama-cpp-python's own server: each family's rollout completes, and is paid what
    wason's environment pays the same replies (a game cut off after three replies is paid its verdict, none)."""
    pytest.importorskip("llama_cpp.server.app", reason="llama-cpp-python[server] is not installed")
    from tests.models.llama_server import llama_server_at

    config = {"ids": [1, 2]} if family == "wilt" else {}
    with llama_server_at(tmp_path_factory.mktemp("llama"), n_ctx=8192) as base_url:
        env = vf.load_environment("wason", family=family, config=config, games=1, max_turns=3)
        os.environ[KEY_VAR] = "none"
        from wason.env.verifiers_env import ChatClient

        config_ = vf.ClientConfig(api_key_var=KEY_VAR, api_base_url=base_url, max_retries=0)
        done = asyncio.run(
            env.evaluate(
                client=ChatClient(
                    config_
                ),  # verifiers' own sends "tool_calls": null, which the server refuses
                model="smollm2",
                num_examples=1,
                rollouts_per_example=1,
                sampling_args={"max_tokens": 48, "temperature": 0.0},
            )
        )
    (out,) = done["outputs"]
    assert not out.get("error"), out.get("error")
    replies = [_content(m) for m in out["completion"] if _role(m) == "assistant"]
    assert replies, f"{family}: the model was never asked"
    again = asyncio.run(_replayed(family, config, 0, replies, max_turns=3))
    assert out["reward"] == pytest.approx(again["reward"])
    assert out["metrics"]["success"] == (1.0 if again["success"] else 0.0)


def test_the_chat_client_sends_no_null_fields() -> None:
    from wason.env.verifiers_env import ChatClient

    messages = [
        vf.UserMessage(content="hi"),
        vf.AssistantMessage(content="hello"),
        vf.UserMessage(content="?"),
    ]
    config = vf.ClientConfig(api_key_var=KEY_VAR, api_base_url="http://127.0.0.1:9/v1")
    os.environ[KEY_VAR] = "none"
    plain, _ = asyncio.run(vf.clients.OpenAIChatCompletionsClient(config).to_native_prompt(messages))
    assert "tool_calls" in plain[1] and plain[1]["tool_calls"] is None  # what llama.cpp's server refuses
    ours, _ = asyncio.run(ChatClient(config).to_native_prompt(messages))
    assert ours == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "?"},
    ]


def test_the_chat_client_sends_the_token_limit_llama_cpp_reads(fake: FakeOpenAIServer) -> None:
    from wason.env.verifiers_env import ChatClient

    env = vf.load_environment("wason", family="wilt", games=1, max_turns=1)
    os.environ[KEY_VAR] = "sk-fake"
    config = vf.ClientConfig(api_key_var=KEY_VAR, api_base_url=fake.base_url, max_retries=0)
    args = {"max_tokens": 48, "temperature": 0.0}
    for client in (config, ChatClient(config)):
        asyncio.run(
            env.evaluate(client=client, model="m", num_examples=1, rollouts_per_example=1, sampling_args=args)
        )
    plain, ours = fake.bodies[0], fake.bodies[-1]
    assert (
        plain["max_completion_tokens"] == 48 and "max_tokens" not in plain
    )  # what llama.cpp's server ignores
    assert ours["max_tokens"] == 48
