"""AnthropicModel: message shaping (unit level) and the client against the fake server's Messages route."""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from wason.models.anthropic_backend import FIRST_USER_MESSAGE, AnthropicModel, to_anthropic_messages
from wason.models.base import ChatMessage, GenerationParams, ModelError


def msg(role: str, content: str) -> ChatMessage:
    return ChatMessage.model_validate({"role": role, "content": content})


def test_system_message_goes_to_system_and_conversation_is_kept() -> None:
    system, turns = to_anthropic_messages(
        [msg("system", "Rules here."), msg("user", "Hi"), msg("assistant", "Hello"), msg("user", "Go")]
    )
    assert system == "Rules here."
    assert turns == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"},
        {"role": "user", "content": "Go"},
    ]


def test_system_only_conversation_gets_a_first_user_message() -> None:
    system, turns = to_anthropic_messages([msg("system", "You are playing a game.")])
    assert system == "You are playing a game."
    assert turns == [{"role": "user", "content": FIRST_USER_MESSAGE}]
    assert FIRST_USER_MESSAGE == "Please begin."


def test_conversation_starting_with_assistant_gets_a_first_user_message() -> None:
    system, turns = to_anthropic_messages(
        [msg("system", "S"), msg("assistant", "Test Case: (1, 2, 3)"), msg("user", "True")]
    )
    assert system == "S"
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert turns[0]["content"] == FIRST_USER_MESSAGE


def test_several_system_messages_are_joined_in_order() -> None:
    system, turns = to_anthropic_messages([msg("system", "One."), msg("user", "Hi"), msg("system", "Two.")])
    assert system == "One.\n\nTwo."
    assert turns == [{"role": "user", "content": "Hi"}]


def test_no_system_message_means_no_system() -> None:
    system, turns = to_anthropic_messages([msg("user", "Hi")])
    assert system is None
    assert turns == [{"role": "user", "content": "Hi"}]


def test_empty_conversation_still_sends_one_user_message() -> None:
    assert to_anthropic_messages([]) == (None, [{"role": "user", "content": FIRST_USER_MESSAGE}])


def make_model(server: FakeOpenAIServer, api_key: str = "test-key") -> AnthropicModel:
    return AnthropicModel(
        spec="anthropic:fake-model", model="fake-model", api_key=api_key, base_url=server.root_url
    )


async def test_request_shape_defaults_and_seed_left_out() -> None:
    with FakeOpenAIServer() as server:
        model = make_model(server)
        try:
            response = await model.generate(
                [msg("system", "Be brief."), msg("assistant", "Ready."), msg("user", "Say hi")],
                GenerationParams(temperature=0.0, seed=7),
                timeout=10,
            )
        finally:
            await model.aclose()
        body = server.bodies[-1]
    assert body["system"] == "Be brief."
    assert body["messages"][0] == {"role": "user", "content": FIRST_USER_MESSAGE}
    assert body["max_tokens"] == 1024
    assert body["temperature"] == 0.0
    assert "seed" not in body and "top_p" not in body
    assert response.text == "echo: Say hi"
    assert response.finish_reason == "end_turn"
    # words of the system prompt, "Please begin.", "Ready." and "Say hi", as the fake counts tokens
    assert response.input_tokens == 2 + 2 + 1 + 2
    assert response.model == "fake-model"


async def test_params_that_are_set_are_sent() -> None:
    with FakeOpenAIServer() as server:
        model = make_model(server)
        try:
            response = await model.generate(
                [msg("user", "one two three four")],
                GenerationParams(temperature=0.5, top_p=0.8, max_tokens=2),
                timeout=10,
            )
        finally:
            await model.aclose()
        body = server.bodies[-1]
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.5, 0.8, 2)
    assert "system" not in body
    assert response.finish_reason == "max_tokens"
    assert response.text == "echo: one"


@pytest.mark.parametrize("status", [429, 500, 503, 529])
async def test_retryable_statuses_are_transient(status: int) -> None:
    with FakeOpenAIServer(schedule=[status]) as server:
        model = make_model(server)
        try:
            with pytest.raises(ModelError) as caught:
                await model.generate([msg("user", "Hi")], GenerationParams(), timeout=10)
        finally:
            await model.aclose()
        assert server.requests == 1  # no retries inside the SDK
    assert caught.value.transient is True
    assert caught.value.status == status


@pytest.mark.parametrize("status", [400, 403, 404])
async def test_client_errors_are_not_transient(status: int) -> None:
    with FakeOpenAIServer(schedule=[status]) as server:
        model = make_model(server)
        try:
            with pytest.raises(ModelError) as caught:
                await model.generate([msg("user", "Hi")], GenerationParams(), timeout=10)
        finally:
            await model.aclose()
    assert caught.value.transient is False
    assert caught.value.status == status


async def test_401_names_the_key_variable() -> None:
    with FakeOpenAIServer(require_api_key="right") as server:
        model = make_model(server, api_key="wrong")
        try:
            with pytest.raises(ModelError) as caught:
                await model.generate([msg("user", "Hi")], GenerationParams(), timeout=10)
        finally:
            await model.aclose()
    assert caught.value.transient is False
    assert "ANTHROPIC_API_KEY" in str(caught.value)


async def test_slow_reply_times_out_as_transient() -> None:
    with FakeOpenAIServer(schedule=["delay"], delay=5.0) as server:
        model = make_model(server)
        try:
            with pytest.raises(ModelError) as caught:
                await model.generate([msg("user", "Hi")], GenerationParams(), timeout=0.3)
        finally:
            await model.aclose()
    assert caught.value.transient is True
