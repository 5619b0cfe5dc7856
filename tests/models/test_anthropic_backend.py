"""AnthropicModel: message shaping (unit level) and the client against the fake server's Messages route."""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import MALFORMED_KINDS, FakeOpenAIServer
from wason.models.anthropic_backend import (
    FIRST_USER_MESSAGE,
    AnthropicModel,
    MessagesReply,
    to_anthropic_messages,
)
from wason.models.base import ChatMessage, GenerationParams, ModelConfigError, ModelError
from wason.models.replies import MAX_REPLY_BYTES, validate


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


# -- broken replies -------------------------------------------------------------------------------------------

MALFORMED_REASONS = {
    "not_json": "malformed reply: not JSON (",
    "null_message": "malformed reply: content: Input should be a valid list",
    "bad_choices": "malformed reply: content: Input should be a valid list",
    "bad_usage": "malformed reply: usage.input_tokens: Input should be a valid integer (and 1 more)",
    "truncated": "malformed reply: body cut off after ",
    "huge": f"malformed reply: reply larger than {MAX_REPLY_BYTES} bytes",
    "non_utf8": "malformed reply: not UTF-8 (byte ",
}


@pytest.mark.parametrize("kind", MALFORMED_KINDS)
async def test_broken_reply_is_a_transient_error_and_the_next_one_works(kind: str) -> None:
    assert set(MALFORMED_REASONS) == set(MALFORMED_KINDS)
    with FakeOpenAIServer(schedule=[kind]) as server:
        model = make_model(server)
        try:
            with pytest.raises(ModelError) as caught:
                await model.generate([msg("user", "Hi")], GenerationParams(), timeout=10)
            again = await model.generate([msg("user", "Hi")], GenerationParams(), timeout=10)
        finally:
            await model.aclose()
        assert server.fault_counts == {kind: 1}
    assert caught.value.transient is True and caught.value.status is None
    assert str(caught.value).startswith(MALFORMED_REASONS[kind]) and "\n" not in str(caught.value)
    assert again.text == "echo: Hi"


def test_text_blocks_must_have_text_and_other_blocks_are_skipped() -> None:
    reply = validate(
        MessagesReply,
        {"content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "a"}], "usage": None},
    )
    assert [b.text for b in reply.content if b.type == "text"] == ["a"]
    with pytest.raises(ModelError, match=r"content\.0: Value error, a text block has no text"):
        validate(MessagesReply, {"content": [{"type": "text"}]})


# -- the pre-flight check -------------------------------------------------------------------------------------


async def checked(server: FakeOpenAIServer, name: str) -> str | None:
    model = AnthropicModel(spec=f"anthropic:{name}", model=name, api_key="k", base_url=server.root_url)
    try:
        await model.check()
    except ModelConfigError as err:
        assert "\n" not in str(err)
        return str(err)
    finally:
        await model.aclose()
    return None


async def test_check_known_model_sends_no_message() -> None:
    with FakeOpenAIServer() as server:
        assert await checked(server, "fake-model") is None
        assert server.requests == 0


async def test_check_unknown_model_fails_with_the_served_names() -> None:
    with FakeOpenAIServer() as server:
        url = server.root_url
        error = await checked(server, "claude-9")
        assert server.requests == 1 and server.bodies[-1]["max_tokens"] == 1
    assert (
        error == f"{url} does not serve model 'claude-9' (404: model: claude-9); it serves: fake-model, fake"
    )


async def test_check_without_a_models_route() -> None:
    with FakeOpenAIServer(models_route=False) as server:
        assert await checked(server, "fake") is None
        error = await checked(server, "claude-9")
        assert server.requests == 2
    assert error is not None and "does not serve model 'claude-9' (404: model: claude-9)" in error


async def test_check_rejected_key() -> None:
    with FakeOpenAIServer(require_api_key="right") as server:
        error = await checked(server, "fake")
    assert error is not None and "rejected the API key (check ANTHROPIC_API_KEY" in error
