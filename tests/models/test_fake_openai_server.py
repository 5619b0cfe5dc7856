"""The fake OpenAI-compatible server itself: routes, failure injection, counters and shutdown."""

from __future__ import annotations

import http.client
import json
import threading
import time
from typing import Any

import pytest

from tests.fakes.openai_server import (
    EVERY_FAULT,
    MALFORMED_KINDS,
    NOT_JSON_PAGE,
    FakeOpenAIServer,
    fake_openai,
)

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
    # both names the project's tests ask for (vllm:fake-model and vllm:fake) are served, so listed
    assert [m["id"] for m in body["data"]] == ["fake-model", "fake"]
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


# -- broken replies -------------------------------------------------------------------------------------------


def raw_post(
    server: FakeOpenAIServer, path: str = "/v1/chat/completions", body: Any = None
) -> tuple[int, dict[str, str], bytes]:
    """One POST, returning the status, headers and whatever body arrived (a cut-off body as far as it got)."""
    host, port = server.root_url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        payload = json.dumps(body or {"model": "fake", "messages": [{"role": "user", "content": "a b"}]})
        conn.request("POST", path, body=payload.encode(), headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        headers = {k.lower(): v for k, v in response.getheaders()}
        try:
            data = response.read()
        except http.client.IncompleteRead as cut:
            data = b"CUT:" + cut.partial
        return response.status, headers, data
    finally:
        conn.close()


def test_not_json_is_a_200_html_page() -> None:
    with FakeOpenAIServer(schedule=["not_json"]) as server:
        status, headers, data = raw_post(server)
    assert status == 200 and headers["content-type"] == "text/html"
    assert data == NOT_JSON_PAGE
    with pytest.raises(json.JSONDecodeError):
        json.loads(data)


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
def test_broken_fields_in_each_shape(path: str) -> None:
    kinds = ["null_message", "bad_choices", "bad_usage"]
    with FakeOpenAIServer(schedule=kinds) as server:
        replies = [json.loads(raw_post(server, path)[2]) for _ in kinds]
        assert server.fault_counts == {kind: 1 for kind in kinds}
    null_message, bad_choices, bad_usage = replies
    if path == "/v1/messages":
        assert null_message["content"] is None
        assert bad_choices["content"] == "nope"
        assert bad_usage["usage"] == {"input_tokens": "many", "output_tokens": -1}
        assert bad_usage["content"] == [{"type": "text", "text": "echo: a b"}]  # the rest is intact
    else:
        assert null_message["choices"][0]["message"] is None
        assert bad_choices["choices"] == "nope"
        assert bad_usage["usage"] == {"prompt_tokens": "many", "completion_tokens": -1}
        assert bad_usage["choices"][0]["message"]["content"] == "echo: a b"


def test_truncated_reply_promises_more_than_it_sends() -> None:
    with FakeOpenAIServer(schedule=["truncated"]) as server:
        status, headers, data = raw_post(server)
        # the connection closed after the half; the server still answers new connections
        assert raw_post(server)[0] == 200
    assert status == 200 and data.startswith(b"CUT:")
    sent = len(data) - len(b"CUT:")
    assert 0 < sent < int(headers["content-length"])


def test_non_utf8_reply() -> None:
    with FakeOpenAIServer(schedule=["non_utf8"]) as server:
        status, _, data = raw_post(server)
    assert status == 200 and b"caf\xe9" in data
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    json.loads(data.decode("latin-1"))  # valid JSON otherwise: only the encoding is broken


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
def test_huge_reply_is_valid_and_sent_without_a_length(path: str) -> None:
    with FakeOpenAIServer(schedule=["huge"], huge_bytes=300_000) as server:
        status, headers, data = raw_post(server, path)
    assert status == 200
    assert "content-length" not in headers and headers["transfer-encoding"] == "chunked"
    reply = json.loads(data)
    text = (
        reply["content"][0]["text"] if path == "/v1/messages" else reply["choices"][0]["message"]["content"]
    )
    assert text == "a" * 300_000


def test_mixed_faults_are_seeded_and_each_kind_occurs() -> None:
    def run(seed: int) -> tuple[list[int], dict[str, int]]:
        kinds = [k for k in EVERY_FAULT if k not in ("delay", "huge")]  # both slow a 300-request test
        with FakeOpenAIServer(fail_share=0.5, fail_kinds=kinds, seed=seed, huge_bytes=1000) as server:
            statuses = [raw_post(server)[0] for _ in range(300)]
            assert server.failed == sum(server.fault_counts.values())
            return statuses, dict(server.fault_counts)

    first, again = run(3), run(3)
    assert first == again
    assert set(first[1]) == {str(k) for k in EVERY_FAULT if k not in ("delay", "huge")}
    assert run(4) != first


@pytest.mark.parametrize(
    "bad", [[600], ["slow"], [True], ["NOT_JSON"]], ids=["status-600", "unknown-word", "bool", "wrong-case"]
)
def test_unknown_outcomes_are_refused(bad: list[Any]) -> None:
    with pytest.raises(ValueError, match="schedule: unknown outcome"):
        FakeOpenAIServer(schedule=bad)
    with pytest.raises(ValueError, match="fail_kinds: unknown outcome"):
        FakeOpenAIServer(fail_share=0.1, fail_kinds=bad)
    assert set(MALFORMED_KINDS) <= set(EVERY_FAULT)


# -- model names ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
def test_unknown_model_is_404_as_the_service_words_it(path: str) -> None:
    with FakeOpenAIServer() as server:
        status, _, data = raw_post(server, path, {"model": "gpt-9", "messages": []})
        assert (server.requests, server.failed, server.rejected, server.succeeded) == (1, 0, 1, 0)
    assert status == 404
    error = json.loads(data)["error"]
    if path == "/v1/messages":
        assert error == {"type": "not_found_error", "message": "model: gpt-9"}
    else:
        assert error["code"] == "model_not_found" and "`gpt-9` does not exist" in error["message"]


def test_served_model_is_reported_and_the_check_can_be_switched_off() -> None:
    with FakeOpenAIServer(model_name=["a", "b"]) as server:
        assert json.loads(raw_post(server, body={"model": "b", "messages": []})[2])["model"] == "b"
        assert raw_post(server, body={"model": "c", "messages": []})[0] == 404
        assert [m["id"] for m in request(server, "GET", "/v1/models")[1]["data"]] == ["a", "b"]
        status, entry = request(server, "GET", "/v1/models/b")
        assert (status, entry["id"], entry["object"]) == (200, "b", "model")
        assert request(server, "GET", "/v1/models/c")[0] == 404
    with FakeOpenAIServer(model_name="a", reject_unknown_models=False) as server:
        assert raw_post(server, body={"model": "c", "messages": []})[0] == 200


def test_any_name_when_unset() -> None:
    with FakeOpenAIServer(model_name=None) as server:
        reply = json.loads(raw_post(server, body={"model": "whatever/7b", "messages": []})[2])
        assert reply["model"] == "whatever/7b"
        assert request(server, "GET", "/v1/models") == (200, {"object": "list", "data": []})


def test_without_a_models_route() -> None:
    with FakeOpenAIServer(models_route=False) as server:
        assert request(server, "GET", "/v1/models")[0] == 404
        assert request(server, "GET", "/v1/models/fake")[0] == 404
        assert chat(server) == 200
