"""The fake OpenAI-compatible server itself: routes, failure injection, counters and shutdown."""

from __future__ import annotations

import http.client
import json
import threading
import time
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, fake_openai

__all__ = ["fake_openai"]  # the fixture, imported so pytest finds it


def request(
    server: FakeOpenAIServer, method: str, path: str, body: Any = None, timeout: float = 5
) -> tuple[int, Any]:
    host, port = server.root_url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def chat(server: FakeOpenAIServer, content: str = "hi") -> int:
    status, _ = request(
        server, "POST", "/v1/chat/completions", {"messages": [{"role": "user", "content": content}]}
    )
    return status


def test_models_route_and_loopback_base_url(fake_openai: FakeOpenAIServer) -> None:
    assert fake_openai.base_url.startswith("http://127.0.0.1:")
    assert fake_openai.base_url.endswith("/v1")
    status, body = request(fake_openai, "GET", "/v1/models")
    assert status == 200
    assert [m["id"] for m in body["data"]] == ["fake-model"]
    assert fake_openai.requests == 0  # only chat and messages requests are counted


def test_chat_completion_shape(fake_openai: FakeOpenAIServer) -> None:
    status, body = request(
        fake_openai, "POST", "/v1/chat/completions", {"messages": [{"role": "user", "content": "a b c"}]}
    )
    assert status == 200
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "echo: a b c"}
    assert body["usage"] == {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}


def test_unknown_route_is_404(fake_openai: FakeOpenAIServer) -> None:
    assert request(fake_openai, "POST", "/v1/embeddings", {"input": "x"})[0] == 404
    assert request(fake_openai, "GET", "/nothing")[0] == 404


def test_schedule_fails_the_first_requests_in_order() -> None:
    with FakeOpenAIServer(schedule=[503, None, 429]) as server:
        statuses = [chat(server) for _ in range(5)]
        assert statuses == [503, 200, 429, 200, 200]
        assert (server.requests, server.failed, server.succeeded) == (5, 2, 3)


def test_random_failures_are_seeded_and_near_the_share() -> None:
    def run(seed: int) -> list[int]:
        with FakeOpenAIServer(fail_share=0.3, fail_kinds=(500, 429), seed=seed) as server:
            statuses = [chat(server) for _ in range(100)]
            assert server.failed == sum(s != 200 for s in statuses)
            return statuses

    first, again, other = run(5), run(5), run(6)
    assert first == again
    assert first != other
    failures = sum(s != 200 for s in first)
    assert 10 <= failures <= 50  # 0.3 of 100 is 30; the bounds are over four standard deviations away
    assert {s for s in first if s != 200} == {500, 429}


def test_delay_holds_the_reply() -> None:
    # The hold is the behaviour under test, so its lower bound is checked; a slower machine only adds time.
    with FakeOpenAIServer(schedule=["delay"], delay=0.5) as server:
        start = time.monotonic()
        assert chat(server) == 200
        assert time.monotonic() - start >= 0.45
        assert server.failed == 1


def test_close_releases_held_requests_promptly() -> None:
    server = FakeOpenAIServer(schedule=["delay"], delay=30.0)
    server.__enter__()
    outcome: list[BaseException | int] = []

    def held_call() -> None:
        try:
            outcome.append(chat(server))
        except Exception as err:
            outcome.append(err)

    caller = threading.Thread(target=held_call)
    caller.start()
    while server.requests == 0:
        time.sleep(0.01)
    server.close()
    # A hang guard, not a speed check: a request close() failed to release would still be held after 10 s.
    caller.join(timeout=10)
    assert not caller.is_alive()
    assert outcome  # the held request got an answer or a closed connection, not a 30 s wait


def test_reply_function_sees_messages_and_body() -> None:
    seen: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        seen.append((messages, body))
        return f"{len(messages)} messages at temperature {body.get('temperature')}"

    with FakeOpenAIServer(reply) as server:
        status, body = request(
            server,
            "POST",
            "/v1/chat/completions",
            {
                "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
                "temperature": 0.5,
            },
        )
    assert status == 200
    assert body["choices"][0]["message"]["content"] == "2 messages at temperature 0.5"
    assert seen[0][0][1] == {"role": "user", "content": "u"}


def test_bad_settings_are_rejected() -> None:
    with pytest.raises(ValueError):
        FakeOpenAIServer(fail_share=1.5)
    with pytest.raises(ValueError):
        FakeOpenAIServer(delay=300)
