"""OpenAICompatModel against the loopback fake server: real HTTP through the real openai SDK."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, count_words, fake_openai
from wason.models.base import ChatMessage, GenerationParams, ModelError
from wason.models.openai_compat import OpenAICompatModel

__all__ = ["fake_openai"]  # the fixture, imported so pytest finds it

CONVERSATION = [
    ChatMessage(role="system", content="You test rules."),
    ChatMessage(role="user", content="Propose a triple."),
    ChatMessage(role="assistant", content="Test Case: (1, 2, 3)"),
    ChatMessage(role="user", content="True. Next?"),
]


def make_model(server: FakeOpenAIServer, **kwargs: Any) -> OpenAICompatModel:
    return OpenAICompatModel(
        spec="vllm:fake-model",
        model="fake-model",
        base_url=server.base_url,
        api_key=kwargs.pop("api_key", "test-key"),
        api_key_env=kwargs.pop("api_key_env", "VLLM_API_KEY"),
        **kwargs,
    )


async def test_reply_usage_and_metadata_come_from_the_server(fake_openai: FakeOpenAIServer) -> None:
    model = make_model(fake_openai)
    try:
        response = await model.generate(CONVERSATION, GenerationParams(), timeout=10)
    finally:
        await model.aclose()
    assert response.text == "echo: True. Next?"
    assert response.input_tokens == sum(count_words(m.content) for m in CONVERSATION)
    assert response.output_tokens == count_words("echo: True. Next?")
    assert response.finish_reason == "stop"
    assert response.model == "fake-model"
    body = fake_openai.bodies[-1]
    assert body["model"] == "fake-model"
    assert body["messages"] == [{"role": m.role, "content": m.content} for m in CONVERSATION]
    assert fake_openai.headers["authorization"] == "Bearer test-key"


async def test_unset_params_are_not_sent(fake_openai: FakeOpenAIServer) -> None:
    model = make_model(fake_openai)
    try:
        await model.generate(CONVERSATION, GenerationParams(), timeout=10)
        await model.generate(CONVERSATION, GenerationParams(temperature=0.0), timeout=10)
    finally:
        await model.aclose()
    first, second = fake_openai.bodies
    for name in ("temperature", "max_tokens", "top_p", "seed"):
        assert name not in first
    assert second["temperature"] == 0.0
    assert not {"max_tokens", "top_p", "seed"} & set(second)


async def test_set_params_are_sent_as_given(fake_openai: FakeOpenAIServer) -> None:
    model = make_model(fake_openai)
    params = GenerationParams(temperature=0.7, max_tokens=2, top_p=0.9, seed=42)
    try:
        response = await model.generate(CONVERSATION, params, timeout=10)
    finally:
        await model.aclose()
    body = fake_openai.bodies[-1]
    assert (body["temperature"], body["max_tokens"], body["top_p"], body["seed"]) == (0.7, 2, 0.9, 42)
    # the fake cuts the reply at max_tokens words and reports it the way OpenAI does
    assert response.finish_reason == "length"
    assert response.text == "echo: True."


async def test_null_content_becomes_empty_text() -> None:
    with FakeOpenAIServer(lambda messages, body: None) as server:
        model = make_model(server)
        try:
            response = await model.generate(CONVERSATION, GenerationParams(), timeout=10)
        finally:
            await model.aclose()
    assert response.text == ""


@pytest.mark.parametrize("status", [500, 502, 503, 504, 429, 408])
async def test_retryable_statuses_are_transient(status: int) -> None:
    with FakeOpenAIServer(schedule=[status]) as server:
        model = make_model(server)
        try:
            with pytest.raises(ModelError) as caught:
                await model.generate(CONVERSATION, GenerationParams(), timeout=10)
            # the SDK must not retry on its own: exactly one request reached the server
            assert server.requests == 1
            # and the next request goes through
            assert (await model.generate(CONVERSATION, GenerationParams(), timeout=10)).text
        finally:
            await model.aclose()
    assert caught.value.transient is True
    assert caught.value.status == status


@pytest.mark.parametrize("status", [400, 403, 404, 422])
async def test_client_errors_are_not_transient(status: int) -> None:
    with FakeOpenAIServer(schedule=[status]) as server:
        model = make_model(server)
        try:
            with pytest.raises(ModelError) as caught:
                await model.generate(CONVERSATION, GenerationParams(), timeout=10)
        finally:
            await model.aclose()
        assert server.requests == 1
    assert caught.value.transient is False
    assert caught.value.status == status
    assert str(status) in str(caught.value)


async def test_401_names_the_key_variable() -> None:
    with FakeOpenAIServer(require_api_key="right-key") as server:
        model = make_model(server, api_key="wrong-key", api_key_env="OPENROUTER_API_KEY")
        try:
            with pytest.raises(ModelError) as caught:
                await model.generate(CONVERSATION, GenerationParams(), timeout=10)
        finally:
            await model.aclose()
    assert caught.value.transient is False
    assert caught.value.status == 401
    assert "OPENROUTER_API_KEY" in str(caught.value)


async def test_slow_reply_times_out_as_transient() -> None:
    with FakeOpenAIServer(schedule=["delay"], delay=5.0) as server:
        model = make_model(server)
        try:
            # the held reply would arrive (and succeed) after 5 s: an error means the 0.3 s timeout cut it off
            with pytest.raises(ModelError) as caught:
                await model.generate(CONVERSATION, GenerationParams(), timeout=0.3)
        finally:
            await model.aclose()
        assert server.requests == 1  # one attempt: the client does not retry behind the caller's back
    assert caught.value.transient is True
    assert "timed out" in str(caught.value)


async def test_refused_connection_is_transient() -> None:
    # A port that was free a moment ago and has nothing listening on it.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    model = OpenAICompatModel(
        spec="vllm:fake-model", model="fake-model", base_url=f"http://127.0.0.1:{port}/v1", api_key="k"
    )
    try:
        with pytest.raises(ModelError) as caught:
            await model.generate(CONVERSATION, GenerationParams(), timeout=5)
    finally:
        await model.aclose()
    assert caught.value.transient is True
    assert caught.value.status is None


async def test_concurrent_calls_each_get_their_own_reply(fake_openai: FakeOpenAIServer) -> None:
    model = make_model(fake_openai)
    questions = [f"question number {i}" for i in range(16)]
    try:
        responses = await asyncio.gather(
            *(
                model.generate([ChatMessage(role="user", content=q)], GenerationParams(), timeout=10)
                for q in questions
            )
        )
    finally:
        await model.aclose()
    assert [r.text for r in responses] == [f"echo: {q}" for q in questions]
    assert fake_openai.requests == 16 and fake_openai.failed == 0


async def test_endpoint_is_the_base_url_without_trailing_slash(fake_openai: FakeOpenAIServer) -> None:
    model = OpenAICompatModel(spec="vllm:m", model="m", base_url=fake_openai.base_url + "/", api_key="k")
    await model.aclose()
    assert model.endpoint == fake_openai.base_url
