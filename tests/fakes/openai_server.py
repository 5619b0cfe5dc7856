"""A tiny OpenAI-compatible HTTP server for tests (standard library only).

It serves ``POST /v1/chat/completions`` (non-streaming, OpenAI response shape with usage), ``GET /v1/models``
and, for the Anthropic backend, ``POST /v1/messages`` (Messages API shape). It binds to 127.0.0.1 on a free
port, runs in a daemon thread, and can be told to fail requests:

* ``schedule``: a fixed list of outcomes for the first requests, e.g. ``[500, 429]`` fails the first request
  with 500 and the second with 429; ``"delay"`` holds the reply for ``delay`` seconds (longer than a client's
  timeout) and ``None`` answers normally.
* ``fail_share`` with ``fail_kinds`` and ``seed``: after the schedule, each request fails with probability
  ``fail_share``, with a kind drawn from ``fail_kinds``, using ``random.Random(seed)`` so a test replays the
  same failures.

Use :class:`FakeOpenAIServer` as a context manager, or the ``fake_openai`` pytest fixture.
"""

from __future__ import annotations

import json
import random
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

Message = dict[str, Any]
ReplyFn = Callable[[list[Message], dict[str, Any]], str | None]
Outcome = int | Literal["delay"] | None

MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_DELAY_SECONDS = 30.0
MAX_RECORDED_BODIES = 10_000


def echo_reply(messages: list[Message], body: dict[str, Any]) -> str:
    """Default reply: ``echo: `` and the content of the last user message."""
    last_user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    content = last_user.get("content", "") if last_user is not None else ""
    return f"echo: {content if isinstance(content, str) else json.dumps(content)}"


def count_words(text: str) -> int:
    """The fake's token count: whitespace-separated words, so tests can predict usage numbers."""
    return len(text.split())


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


class FakeOpenAIServer:
    """The fake server; start it with ``with FakeOpenAIServer(...) as server:``.

    Attributes:
        base_url: ``http://127.0.0.1:PORT/v1``, for OpenAI clients.
        root_url: ``http://127.0.0.1:PORT``, for Anthropic clients (which add ``/v1`` themselves).
        requests: chat or messages requests received (including failed ones).
        failed: requests answered with an injected failure (status or delay).
        bodies: the JSON bodies received, oldest first (at most the last 10,000).
        headers: the headers of the last request received.
    """

    def __init__(
        self,
        reply: ReplyFn = echo_reply,
        *,
        schedule: Sequence[Outcome] = (),
        fail_share: float = 0.0,
        fail_kinds: Sequence[int | Literal["delay"]] = (500, 429, 503),
        seed: int = 0,
        delay: float = 2.0,
        model_name: str = "fake-model",
        require_api_key: str | None = None,
    ) -> None:
        """Configure the server (it starts on ``__enter__``).

        Args:
            reply: decides the assistant text from the request's messages and whole body (``None`` sends
                ``"content": null``, or no content blocks in the Anthropic shape).
            schedule: outcomes for the first ``len(schedule)`` requests, in order.
            fail_share: after the schedule, the share of requests (0 to 1) that fail.
            fail_kinds: what a random failure is: an HTTP status or ``"delay"``.
            seed: seeds the random failures.
            delay: seconds a ``"delay"`` failure holds the reply (at most 30).
            model_name: the model name the server reports.
            require_api_key: if set, requests without ``Authorization: Bearer <this>`` get 401.
        """
        if not 0.0 <= fail_share <= 1.0:
            raise ValueError("fail_share must be between 0 and 1")
        if not 0.0 <= delay <= MAX_DELAY_SECONDS:
            raise ValueError(f"delay must be between 0 and {MAX_DELAY_SECONDS} seconds")
        if fail_share > 0 and not fail_kinds:
            raise ValueError("fail_kinds must not be empty when fail_share > 0")
        self.reply = reply
        self.schedule = list(schedule)
        self.fail_share = fail_share
        self.fail_kinds = list(fail_kinds)
        self.delay = delay
        self.model_name = model_name
        self.require_api_key = require_api_key
        self.requests = 0
        self.failed = 0
        self.bodies: deque[dict[str, Any]] = deque(maxlen=MAX_RECORDED_BODIES)
        self.headers: dict[str, str] = {}
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def succeeded(self) -> int:
        """Requests answered normally."""
        return self.requests - self.failed

    @property
    def root_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the server is not running")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        handler = type("_BoundHandler", (_Handler,), {"fake": self})
        self._httpd = _Server(("127.0.0.1", 0), handler)
        # A short poll interval: shutdown() waits for the serving loop's next poll.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving; requests held by a ``"delay"`` failure are released at once."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _next_outcome(self, body: dict[str, Any], headers: dict[str, str]) -> Outcome:
        # One lock around counting and drawing keeps the seeded sequence the same whatever the thread timing.
        with self._lock:
            index = self.requests
            self.requests += 1
            self.bodies.append(body)
            self.headers = headers
            if index < len(self.schedule):
                outcome = self.schedule[index]
            elif self.fail_share > 0 and self._rng.random() < self.fail_share:
                outcome = self._rng.choice(self.fail_kinds)
            else:
                outcome = None
            if outcome is not None:
                self.failed += 1
            return outcome

    def _hold(self) -> None:
        self._stopping.wait(self.delay)


class _Server(ThreadingHTTPServer):
    # The default listen backlog of 5 resets connections when a test fires a burst of concurrent requests.
    request_queue_size = 128
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up while its reply was held is expected here: do not print it.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAIServer
    # HTTP/1.1 keeps connections open the way the SDK's connection pool expects.
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send_json(
        self, status: int, payload: dict[str, Any], extra_headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (extra_headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (typically after its timeout during a "delay" failure): nothing to answer.
            self.close_connection = True

    def _send_error(self, status: int, message: str, anthropic_shape: bool) -> None:
        if anthropic_shape:
            kind = "overloaded_error" if status == 529 else "api_error"
            payload: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            payload = {"error": {"message": message, "type": "fake_error", "code": status}}
        # retry-after 0 so that no client waits on our account even if its own retries were left on.
        self._send_json(status, payload, {"retry-after": "0"} if status == 429 else None)

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            model = {"id": self.fake.model_name, "object": "model", "created": 0, "owned_by": "fake"}
            self._send_json(200, {"object": "list", "data": [model]})
        else:
            self._send_error(404, f"no route {self.path}", anthropic_shape=False)

    def do_POST(self) -> None:
        path = self.path.rstrip("/")
        anthropic_shape = path == "/v1/messages"
        if path not in ("/v1/chat/completions", "/v1/messages"):
            self._drain()
            self._send_error(404, f"no route {self.path}", anthropic_shape)
            return
        body = self._read_json()
        if body is None:
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        outcome = self.fake._next_outcome(body, headers)
        if outcome == "delay":
            self.fake._hold()
        elif outcome is not None:
            self._send_error(outcome, f"injected failure {outcome}", anthropic_shape)
            return
        if self.fake.require_api_key is not None and not self._authorised(headers):
            self._send_error(401, "invalid api key", anthropic_shape)
            return
        if anthropic_shape:
            self._answer_anthropic(body)
        else:
            self._answer_openai(body)

    def _authorised(self, headers: dict[str, str]) -> bool:
        key = self.fake.require_api_key
        return headers.get("authorization") == f"Bearer {key}" or headers.get("x-api-key") == key

    def _drain(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if 0 < length <= MAX_BODY_BYTES:
            self.rfile.read(length)

    def _read_json(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            self._send_error(413, "request body too large", anthropic_shape=False)
            return None
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._send_error(400, "body is not JSON", anthropic_shape=False)
            return None
        if not isinstance(body, dict):
            self._send_error(400, "body is not a JSON object", anthropic_shape=False)
            return None
        return body

    def _reply_words(self, messages: list[Message], body: dict[str, Any]) -> tuple[str | None, bool]:
        text = self.fake.reply(messages, body)
        if text is None:
            return None, False
        limit = body.get("max_tokens")
        words = text.split()
        if isinstance(limit, int) and len(words) > limit:
            return " ".join(words[:limit]), True
        return text, False

    def _answer_openai(self, body: dict[str, Any]) -> None:
        messages = body.get("messages") or []
        text, truncated = self._reply_words(messages, body)
        prompt_tokens = sum(count_words(_message_text(m.get("content"))) for m in messages)
        completion_tokens = count_words(text or "")
        self._send_json(
            200,
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": self.fake.model_name,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "length" if truncated else "stop",
                        "logprobs": None,
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
        )

    def _answer_anthropic(self, body: dict[str, Any]) -> None:
        messages = list(body.get("messages") or [])
        text, truncated = self._reply_words(messages, body)
        system = body.get("system")
        input_tokens = sum(count_words(_message_text(m.get("content"))) for m in messages)
        input_tokens += count_words(_message_text(system)) if system is not None else 0
        self._send_json(
            200,
            {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": self.fake.model_name,
                "content": [{"type": "text", "text": text}] if text is not None else [],
                "stop_reason": "max_tokens" if truncated else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": input_tokens, "output_tokens": count_words(text or "")},
            },
        )


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A running :class:`FakeOpenAIServer` with default settings (echo replies, no failures).

    For other settings, set attributes before the first request (``reply``, ``schedule``, ``fail_share``,
    ``fail_kinds``, ``delay``, ``require_api_key``) or use the class as a context manager.
    """
    with FakeOpenAIServer() as server:
        yield server
