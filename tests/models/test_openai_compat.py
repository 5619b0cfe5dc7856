"""OpenAICompatModel against the loopback fake server: real HTTP through the real openai SDK."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import MALFORMED_KINDS, FakeOpenAIServer, count_words, fake_openai
from wason.cli import main
from wason.models.base import ChatMessage, GenerationParams, ModelConfigError, ModelError
from wason.models.client import ModelClient, RetryPolicy
from wason.models.openai_compat import OpenAICompatModel
from wason.models.replies import MAX_REPLY_BYTES
from wason.store import Store

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


# -- broken replies -------------------------------------------------------------------------------------------

MALFORMED_REASONS = {
    "not_json": "malformed reply: not JSON (JSONDecodeError: Expecting value: line 1 column 1 (char 0)); it "
                "starts '<html>",
    "null_message": "malformed reply: choices.0.message: Input should be a valid dictionary",
    "bad_choices": "malformed reply: choices: Input should be a valid list",
    "bad_usage": "malformed reply: usage.prompt_tokens: Input should be a valid integer (and 1 more)",
    "truncated": "malformed reply: body cut off after ",
    "huge": f"malformed reply: reply larger than {MAX_REPLY_BYTES} bytes",
    "non_utf8": "malformed reply: not UTF-8 (byte ",
}  # fmt: skip


@pytest.mark.parametrize("kind", MALFORMED_KINDS)
async def test_broken_reply_is_a_transient_error_and_the_next_one_works(kind: str) -> None:
    assert set(MALFORMED_REASONS) == set(MALFORMED_KINDS)
    with FakeOpenAIServer(schedule=[kind]) as server:
        model = make_model(server)
        try:
            with pytest.raises(ModelError) as caught:
                await model.generate(CONVERSATION, GenerationParams(), timeout=10)
            again = await model.generate(CONVERSATION, GenerationParams(), timeout=10)
        finally:
            await model.aclose()
        assert server.requests == 2 and server.fault_counts == {kind: 1}
    assert caught.value.transient is True and caught.value.status is None
    message = str(caught.value)
    assert message.startswith(MALFORMED_REASONS[kind]) and "\n" not in message
    assert again.text == "echo: True. Next?"


async def test_huge_reply_is_read_no_further_than_the_cap() -> None:
    # 20 MiB arrive with no Content-Length; the reader must stop just past 8 MiB, not hold the whole reply
    # (which grew a process to 2.7 GB once the SDK parsed it). The fake writes in 64 KiB chunks, so what is
    # traced here is the client's memory.
    with FakeOpenAIServer(schedule=["huge"], huge_bytes=20 * 1024 * 1024) as server:
        model = make_model(server)
        tracemalloc.start()
        try:
            with pytest.raises(ModelError, match="reply larger than"):
                await model.generate(CONVERSATION, GenerationParams(), timeout=30)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
            await model.aclose()
    assert peak < 3 * MAX_REPLY_BYTES


async def test_reply_cap_is_a_setting() -> None:
    with FakeOpenAIServer(schedule=["huge"], huge_bytes=5000) as server:
        model = make_model(server, max_reply_bytes=1000)
        try:
            with pytest.raises(ModelError, match=r"reply larger than 1000 bytes$"):
                await model.generate(CONVERSATION, GenerationParams(), timeout=10)
            # an ordinary reply says how long it is: refused before reading
            with pytest.raises(ModelError, match=r"reply larger than 1000 bytes \(Content-Length \d+\)"):
                await model.generate(
                    [ChatMessage(role="user", content="x " * 600)], GenerationParams(), timeout=10
                )
        finally:
            await model.aclose()
    with pytest.raises(ValueError, match="max_reply_bytes"):
        OpenAICompatModel(spec="vllm:m", model="m", base_url=None, api_key="k", max_reply_bytes=0)


async def test_lone_surrogate_in_the_text_is_a_broken_reply() -> None:
    # JSON can spell a lone surrogate; Python decodes it, but no UTF-8 store can keep it
    with FakeOpenAIServer(lambda messages, body: "half a pair: \ud83d") as server:
        model = make_model(server)
        try:
            with pytest.raises(ModelError, match="lone surrogate") as caught:
                await model.generate(CONVERSATION, GenerationParams(), timeout=10)
        finally:
            await model.aclose()
    assert caught.value.transient is True


class MemoryStore:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def record_call(self, record: dict[str, Any]) -> None:
        self.calls.append(record)

    def cache_get(self, key: str) -> dict[str, Any] | None:
        return None

    def cache_put(self, key: str, response: dict[str, Any]) -> None:
        pass


async def test_client_retries_broken_replies_and_records_every_attempt() -> None:
    schedule = ["not_json", "truncated", "bad_usage", None]
    with FakeOpenAIServer(schedule=schedule) as server:
        store = MemoryStore()
        client = ModelClient(
            make_model(server), store=store, policy=RetryPolicy(retries=5, base_delay=0, timeout=10)
        )
        try:
            response = await client.complete(CONVERSATION, GenerationParams())
        finally:
            await client.aclose()
    assert response.text == "echo: True. Next?"
    [call] = store.calls
    assert call["attempts"] == 4 and call["response"] == "echo: True. Next?"
    assert [e.split(":")[0] for e in call["errors"]] == ["malformed reply"] * 3
    assert "not JSON" in call["errors"][0] and "cut off" in call["errors"][1] and "usage" in call["errors"][2]


# -- the pre-flight check -------------------------------------------------------------------------------------


async def checked(server: FakeOpenAIServer, model_name: str, base_url: str | None = None) -> str | None:
    """Run check() for ``model_name``; the one-line error, or None if it passed."""
    model = OpenAICompatModel(
        spec=f"vllm:{model_name}",
        model=model_name,
        base_url=base_url or server.base_url,
        api_key="k",
        api_key_env="VLLM_API_KEY",
    )
    try:
        await model.check()
    except ModelConfigError as err:
        assert "\n" not in str(err)
        return str(err)
    finally:
        await model.aclose()
    return None


async def test_listed_model_passes_without_a_chat_request(fake_openai: FakeOpenAIServer) -> None:
    assert await checked(fake_openai, "fake") is None
    assert fake_openai.requests == 0


async def test_unknown_model_fails_and_names_what_is_served(fake_openai: FakeOpenAIServer) -> None:
    error = await checked(fake_openai, "gpt-9")
    assert error == (
        f"{fake_openai.base_url} does not serve model 'gpt-9' (404: The model `gpt-9` does not exist or you "
        "do not have access to it.); it serves: fake-model, fake"
    )
    assert fake_openai.requests == 1  # the one-token confirmation
    assert fake_openai.bodies[-1]["max_tokens"] == 1


async def test_long_model_lists_are_cut_to_ten_names() -> None:
    names = [f"model-{i}" for i in range(25)]
    with FakeOpenAIServer(model_name=names) as server:
        error = await checked(server, "model-99")
    assert error is not None and error.endswith("; it serves: " + ", ".join(names[:10]) + " and 15 more")


async def test_unlisted_name_the_server_accepts_passes() -> None:
    # aggregators and aliases: the list does not name it, but a request for it is answered
    with FakeOpenAIServer(model_name="listed", reject_unknown_models=False) as server:
        assert await checked(server, "an-alias") is None
        assert server.requests == 1


async def test_without_a_models_route_a_request_decides() -> None:
    with FakeOpenAIServer(models_route=False) as server:
        url = server.base_url
        assert await checked(server, "fake") is None
        error = await checked(server, "nosuch")
        assert server.requests == 2
    assert error is not None and error.startswith(f"{url} does not serve model 'nosuch' (404: ")
    assert "it serves" not in error


@pytest.mark.parametrize("outcome", [500, 429, 503, 400])
async def test_only_a_definite_rejection_fails(outcome: int) -> None:
    # a busy endpoint, or a 400 that does not name the model (e.g. about max_tokens), is left to the run:
    # the name may well be fine (the fake sends injected statuses before it looks at the name)
    with FakeOpenAIServer(schedule=[outcome], model_name="listed") as server:
        assert await checked(server, "unlisted") is None


async def test_a_base_url_without_v1_is_named() -> None:
    with FakeOpenAIServer() as server:
        error = await checked(server, "fake", base_url=server.root_url)
    assert error is not None and "answered a chat request with 404" in error and "ends in /v1" in error


async def test_a_rejected_key_is_named_at_the_check() -> None:
    with FakeOpenAIServer(require_api_key="right") as server:
        url = server.base_url
        error = await checked(server, "fake")
    assert error == f"{url} rejected the API key (check VLLM_API_KEY or pass --api-key)"


def test_cli_refuses_an_unknown_model_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer() as server:
        argv = ["eval", "wilt", "--split", "lite", "--model", "vllm:nosuch", "--base-url", server.base_url,
                "--db", db, "--no-baseline"]  # fmt: skip
        assert main(argv) == 2
        assert server.requests == 1  # the check's one token; no episode was played
    err = capsys.readouterr().err.strip()
    assert err.startswith("wason: error: ") and "does not serve model 'nosuch'" in err
    assert "it serves: fake-model, fake" in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert Store(db).list_runs() == []  # nothing was created


def test_cli_runs_against_a_server_without_a_models_route(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(models_route=False) as server:
        argv = ["eval", "wilt", "--split", "lite", "--ids", "1", "--model", "vllm:fake", "--base-url",
                server.base_url, "--db", db, "--no-baseline", "--json"]  # fmt: skip
        assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["status"] == "completed" and summary["table"]["errored"] == 0


def read_request(conn: socket.socket) -> None:
    """Read one whole HTTP request (head and Content-Length body) from a raw connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += conn.recv(65536)


async def test_error_status_whose_body_breaks_off_is_transient() -> None:
    # An error reply's body is read for its message; a body cut short there must still come out as a transient
    # ModelError (a network failure), not as the HTTP layer's exception or a rejection of the request.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]

        def serve_one() -> None:
            conn, _ = listener.accept()
            with conn:
                # read the whole request first: closing on unread bytes would reset the connection, and the
                # client would see a reset instead of a body that breaks off
                read_request(conn)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 500\r\n\r\n{\"error\": {\"mess")  # fmt: skip
                conn.shutdown(socket.SHUT_WR)  # the body ends here, 485 bytes short

        server = threading.Thread(target=serve_one, daemon=True)
        server.start()
        model = OpenAICompatModel(
            spec="vllm:m", model="m", base_url=f"http://127.0.0.1:{port}/v1", api_key="k"
        )
        try:
            with pytest.raises(ModelError) as caught:
                await model.generate(CONVERSATION, GenerationParams(), timeout=10)
        finally:
            await model.aclose()
        server.join(timeout=5)
    assert caught.value.transient is True
    assert str(caught.value).startswith("connection failed: ClientPayloadError") and "\n" not in str(
        caught.value
    )
    assert caught.value.status is None


# -- the lean HTTP path ---------------------------------------------------------------------------------------


async def test_the_proxy_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fake server stands in for a forward proxy: a proxied request names the whole URL in its request line.
    with FakeOpenAIServer() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url.removesuffix("/v1"))
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        model = OpenAICompatModel(
            spec="vllm:m", model="m", base_url="http://wason-proxied.invalid/v1", api_key="k"
        )
        try:
            with pytest.raises(ModelError) as caught:  # the fake answers a proxied request with 404
                await model.generate(CONVERSATION, GenerationParams(), timeout=10)
        finally:
            await model.aclose()
        assert proxy.seen[-1] == "POST http://wason-proxied.invalid/v1/chat/completions"
    assert caught.value.status == 404 and not caught.value.transient
    # NO_PROXY names the host: the request goes there directly (and finds no such host)
    monkeypatch.setenv("NO_PROXY", "wason-proxied.invalid")
    model = OpenAICompatModel(
        spec="vllm:m", model="m", base_url="http://wason-proxied.invalid/v1", api_key="k"
    )
    try:
        with pytest.raises(ModelError, match=r"^connection failed") as caught:
            await model.generate(CONVERSATION, GenerationParams(), timeout=10)
    finally:
        await model.aclose()
    assert caught.value.transient


async def test_a_call_stays_on_the_event_loop(
    fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # aiohttp reading the proxy settings and ~/.netrc for every request sent each call through two worker
    # threads, which cost more than the rest of the call; they are read once
    model = make_model(fake_openai)
    try:
        await model.generate(CONVERSATION, GenerationParams(), timeout=10)  # the pool is made here
        hops: list[object] = []
        loop = asyncio.get_running_loop()
        original = loop.run_in_executor

        def counted(*args: Any) -> Any:
            hops.append(args[1])
            return original(*args)

        monkeypatch.setattr(loop, "run_in_executor", counted)
        for _ in range(3):
            await model.generate(CONVERSATION, GenerationParams(), timeout=10)
    finally:
        await model.aclose()
    assert hops == []


async def test_a_kept_alive_connection_the_server_closed_is_replaced_not_failed() -> None:
    # A server may close an idle kept-alive connection at any moment, saying so only by closing it; a request
    # that meets such a connection is sent again on a new one instead of failing (and waiting a retry's backoff).
    reply = json.dumps(
        {"choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}
    ).encode()
    answer = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
        len(reply),
        reply,
    )

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(2)
        port = listener.getsockname()[1]
        connections: list[int] = []

        def serve() -> None:
            first, _ = listener.accept()
            connections.append(1)
            with first:
                read_request(first)
                first.sendall(answer)
                first.recv(1)  # the second request arrives on the kept-alive connection: close it unanswered
            second, _ = listener.accept()
            connections.append(2)
            with second:
                read_request(second)
                second.sendall(answer)

        server = threading.Thread(target=serve, daemon=True)
        server.start()
        model = OpenAICompatModel(
            spec="vllm:m", model="m", base_url=f"http://127.0.0.1:{port}/v1", api_key="k"
        )
        try:
            first = await model.generate(CONVERSATION, GenerationParams(), timeout=10)
            second = await model.generate(CONVERSATION, GenerationParams(), timeout=10)
        finally:
            await model.aclose()
        server.join(timeout=10)
    assert first.text == second.text == "hi"
    assert connections == [1, 2]
