"""A tiny OpenAI-compatible HTTP server for tests (standard library only).

It serves ``POST /v1/chat/completions`` (non-streaming, OpenAI response shape with usage), ``POST
/v1/completions`` (raw completions: the reply function sees the prompt as one user message), ``GET /v1/models``
and ``GET /v1/models/{name}`` and, for the Anthropic backend, ``POST /v1/messages`` (Messages API shape; the model
routes answer in Anthropic's shape when the request carries an ``anthropic-version`` header). It binds to
127.0.0.1 on a free port, runs in a daemon thread, and can be told to fail requests:

* ``schedule``: a fixed list of outcomes for the first requests, e.g. ``[500, "not_json"]`` fails the first
  request with 500 and the second with a body that is not JSON; ``None`` answers normally.
* ``fail_share`` with ``fail_kinds`` and ``seed``: after the schedule, each request fails with probability
  ``fail_share``, with a kind drawn from ``fail_kinds``, using ``random.Random(seed)`` so a test replays the
  same sequence of outcomes (which request meets which outcome follows the order requests arrive in).

An outcome is one of:

* an HTTP status (``429``, ``500``, ``503``, ...): an error reply in the route's shape (429 with
  ``retry-after: 0``);
* ``"delay"``: the normal reply, held for ``delay`` seconds (longer than a client's timeout);
* a broken 200 reply (:data:`MALFORMED_KINDS`): ``"not_json"`` (an HTML page), ``"null_message"``
  (``"message": null``; ``"content": null`` for Messages), ``"bad_choices"`` (``"choices": "nope"``;
  ``"content": "nope"``), ``"bad_usage"`` (a token count that is a string, another negative),
  ``"truncated"`` (a ``Content-Length`` larger than what is sent, then the connection closes),
  ``"huge"`` (a valid reply of ``huge_bytes``, 20 MiB by default, sent chunked so no length warns the
  client), ``"non_utf8"`` (a body with Latin-1 bytes in it).

Model names: the server serves the names in ``model_name`` (by default ``fake-model`` and ``fake``), lists them
at ``/v1/models`` and reports the requested one in replies; a request for another name gets a 404 the way OpenAI
(or Anthropic) words it, unless ``reject_unknown_models`` is off; one that names no model is answered as the
first. ``model_name=None`` serves any name and lists
none. ``models_route=False`` makes the model routes answer 404, like servers that have none.

Injected statuses and delays come before the server looks at the key and the model name; a broken reply
replaces the answer of a request that would have been answered.

Use :class:`FakeOpenAIServer` as a context manager, or the ``fake_openai`` pytest fixture.
"""

from __future__ import annotations

import json
import random
import sys
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, get_args

import pytest

Message = dict[str, Any]
ReplyFn = Callable[[list[Message], dict[str, Any]], str | None]
Malformed = Literal["not_json", "null_message", "bad_choices", "bad_usage", "truncated", "huge", "non_utf8"]
FailKind = int | Literal["delay"] | Malformed
Outcome = FailKind | None

MALFORMED_KINDS: tuple[Malformed, ...] = get_args(Malformed)
"""The broken 200 replies the server can send, in the order the module docstring describes them."""

EVERY_FAULT: tuple[FailKind, ...] = (429, 500, 503, "delay", *MALFORMED_KINDS)
"""One of every kind of fault: statuses a client retries, a hang, and every broken reply."""

DEFAULT_MODELS = ("fake-model", "fake")
MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_DELAY_SECONDS = 30.0
MAX_RECORDED_BODIES = 10_000
HUGE_CHUNK = 64 * 1024
NOT_JSON_PAGE = b"<html><head><title>502 Bad Gateway</title></head><body>upstream went away</body></html>\n"


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
        failed: requests answered with an injected failure (a status, a delay or a broken reply).
        rejected: requests refused for what they asked (a wrong key, an unknown model), not by injection.
        fault_counts: injected failures by kind (``"500"``, ``"delay"``, ``"truncated"``, ...).
        bodies: the JSON bodies received, oldest first (at most the last 10,000).
        seen: every request received, model listings included, as ``"GET /v1/models"`` (the last 10,000).
        headers: the headers of the last request received.
        model_names: the model names served, or ``None`` for any.
    """

    def __init__(
        self,
        reply: ReplyFn = echo_reply,
        *,
        schedule: Sequence[Outcome] = (),
        fail_share: float = 0.0,
        fail_kinds: Sequence[FailKind] = (500, 429, 503),
        seed: int = 0,
        delay: float = 2.0,
        model_name: str | Sequence[str] | None = DEFAULT_MODELS,
        reject_unknown_models: bool = True,
        models_route: bool = True,
        huge_bytes: int = 20 * 1024 * 1024,
        require_api_key: str | None = None,
    ) -> None:
        """Configure the server (it starts on ``__enter__``).

        Args:
            reply: decides the assistant text from the request's messages and whole body (``None`` sends
                ``"content": null``, or no content blocks in the Anthropic shape).
            schedule: outcomes for the first ``len(schedule)`` requests, in order.
            fail_share: after the schedule, the share of requests (0 to 1) that fail.
            fail_kinds: what a random failure is: an HTTP status, ``"delay"`` or one of
                :data:`MALFORMED_KINDS`.
            seed: seeds the random failures.
            delay: seconds a ``"delay"`` failure holds the reply (at most 30).
            model_name: the model name(s) served and listed, the first one reported when a request names
                none; ``None`` serves any name.
            reject_unknown_models: answer a request for a name not served with 404, as OpenAI does.
            models_route: serve ``/v1/models``; without it those routes answer 404.
            huge_bytes: the size of a ``"huge"`` reply's body.
            require_api_key: if set, requests without ``Authorization: Bearer <this>`` get 401.

        Raises:
            ValueError: a setting out of range, naming it.
        """
        if not 0.0 <= fail_share <= 1.0:
            raise ValueError("fail_share must be between 0 and 1")
        if not 0.0 <= delay <= MAX_DELAY_SECONDS:
            raise ValueError(f"delay must be between 0 and {MAX_DELAY_SECONDS} seconds")
        if fail_share > 0 and not fail_kinds:
            raise ValueError("fail_kinds must not be empty when fail_share > 0")
        for name, outcomes in (("schedule", schedule), ("fail_kinds", fail_kinds)):
            for outcome in outcomes:
                if not _known_outcome(outcome):
                    raise ValueError(
                        f"{name}: unknown outcome {outcome!r} (an HTTP status 400-599, 'delay', or one of "
                        f"{', '.join(MALFORMED_KINDS)})"
                    )
        if huge_bytes < 1:
            raise ValueError("huge_bytes must be at least 1")
        self.reply = reply
        self.schedule = list(schedule)
        self.fail_share = fail_share
        self.fail_kinds = list(fail_kinds)
        self.delay = delay
        if isinstance(model_name, str):
            model_name = (model_name,)
        self.model_names: tuple[str, ...] | None = tuple(model_name) if model_name is not None else None
        self.reject_unknown_models = reject_unknown_models
        self.models_route = models_route
        self.huge_bytes = huge_bytes
        self.require_api_key = require_api_key
        self.requests = 0
        self.failed = 0
        self.rejected = 0
        self.fault_counts: Counter[str] = Counter()
        self.bodies: deque[dict[str, Any]] = deque(maxlen=MAX_RECORDED_BODIES)
        # every request that reached the server, model listings included: "GET /v1/models", ...
        self.seen: deque[str] = deque(maxlen=MAX_RECORDED_BODIES)
        self.headers: dict[str, str] = {}
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def succeeded(self) -> int:
        """Requests answered normally."""
        return self.requests - self.failed - self.rejected

    def serves(self, model: object) -> bool:
        """Whether a request for ``model`` is answered (rather than rejected with 404)."""
        if not self.reject_unknown_models or self.model_names is None:
            return True
        return model in self.model_names

    def reported_model(self, body: dict[str, Any]) -> str:
        """The model name a reply reports: the one asked for, as OpenAI and vLLM do."""
        asked = body.get("model")
        if isinstance(asked, str) and self.serves(asked):
            return asked
        return self.model_names[0] if self.model_names else "fake-model"

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
                self.fault_counts[str(outcome)] += 1
            return outcome

    def _reject(self) -> None:
        with self._lock:
            self.rejected += 1

    def _hold(self) -> None:
        self._stopping.wait(self.delay)


def _known_outcome(outcome: object) -> bool:
    if outcome is None or outcome == "delay" or outcome in MALFORMED_KINDS:
        return True
    return isinstance(outcome, int) and not isinstance(outcome, bool) and 400 <= outcome <= 599


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

    def _send_bytes(
        self,
        status: int,
        data: bytes,
        content_type: str = "application/json",
        extra_headers: dict[str, str] | None = None,
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for key, value in (extra_headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (typically after its timeout during a "delay" failure): nothing to answer.
            self.close_connection = True

    def _send_json(
        self, status: int, payload: dict[str, Any], extra_headers: dict[str, str] | None = None
    ) -> None:
        self._send_bytes(status, json.dumps(payload).encode(), extra_headers=extra_headers)

    def _send_error(self, status: int, message: str, anthropic_shape: bool) -> None:
        if anthropic_shape:
            kind = "overloaded_error" if status == 529 else "api_error"
            payload: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            payload = {"error": {"message": message, "type": "fake_error", "code": status}}
        # retry-after 0 so that no client waits on our account even if its own retries were left on.
        self._send_json(status, payload, {"retry-after": "0"} if status == 429 else None)

    def _send_unknown_model(self, model: object, anthropic_shape: bool) -> None:
        # Worded as the real services word it, so the client's handling is tested against the real shape.
        if anthropic_shape:
            payload: dict[str, Any] = {
                "type": "error",
                "error": {"type": "not_found_error", "message": f"model: {model}"},
            }
        else:
            payload = {
                "error": {
                    "message": f"The model `{model}` does not exist or you do not have access to it.",
                    "type": "invalid_request_error",
                    "param": None,
                    "code": "model_not_found",
                }
            }
        self._send_json(404, payload)

    def do_GET(self) -> None:
        self.fake.seen.append(f"GET {self.path}")
        path = self.path.split("?", 1)[0].rstrip("/")
        anthropic_shape = "anthropic-version" in {k.lower() for k in self.headers}
        if not self.fake.models_route or not (path == "/v1/models" or path.startswith("/v1/models/")):
            self._send_error(404, f"no route {self.path}", anthropic_shape)
            return
        if self.fake.require_api_key is not None and not self._authorised(
            {k.lower(): v for k, v in self.headers.items()}
        ):
            self._send_error(401, "invalid api key", anthropic_shape)
            return
        names = self.fake.model_names or ()
        if path == "/v1/models":
            entries = [self._model_entry(name, anthropic_shape) for name in names]
            if anthropic_shape:
                first, last = (names[0], names[-1]) if names else (None, None)
                self._send_json(200, {"data": entries, "has_more": False, "first_id": first, "last_id": last})
            else:
                self._send_json(200, {"object": "list", "data": entries})
            return
        name = path.removeprefix("/v1/models/")
        if self.fake.serves(name):
            self._send_json(200, self._model_entry(name, anthropic_shape))
        else:
            self._send_unknown_model(name, anthropic_shape)

    @staticmethod
    def _model_entry(name: str, anthropic_shape: bool) -> dict[str, Any]:
        if anthropic_shape:
            return {"type": "model", "id": name, "display_name": name, "created_at": "2025-01-01T00:00:00Z"}
        return {"id": name, "object": "model", "created": 0, "owned_by": "fake"}

    def do_POST(self) -> None:
        self.fake.seen.append(f"POST {self.path}")
        path = self.path.rstrip("/")
        anthropic_shape = path == "/v1/messages"
        if path not in ("/v1/chat/completions", "/v1/messages", "/v1/completions"):
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
        elif isinstance(outcome, int):
            self._send_error(outcome, f"injected failure {outcome}", anthropic_shape)
            return
        if self.fake.require_api_key is not None and not self._authorised(headers):
            self.fake._reject()
            self._send_error(401, "invalid api key", anthropic_shape)
            return
        # a request that names no model gets the first one served (the SDKs always name one)
        if "model" in body and not self.fake.serves(body["model"]):
            self.fake._reject()
            self._send_unknown_model(body.get("model"), anthropic_shape)
            return
        if anthropic_shape:
            payload = self._anthropic_payload(body)
        elif path == "/v1/completions":
            payload = self._completion_payload(body)
        else:
            payload = self._openai_payload(body)
        if outcome is None or outcome == "delay":
            self._send_json(200, payload)
        else:
            self._send_malformed(outcome, payload, anthropic_shape)

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

    def _openai_payload(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or []
        text, truncated = self._reply_words(messages, body)
        prompt_tokens = sum(count_words(_message_text(m.get("content"))) for m in messages)
        completion_tokens = count_words(text or "")
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": self.fake.reported_model(body),
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
        }

    def _completion_payload(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = body.get("prompt")
        text, truncated = self._reply_words([{"role": "user", "content": prompt}], body)
        prompt_tokens = count_words(prompt if isinstance(prompt, str) else "")
        return {
            "id": "cmpl-fake",
            "object": "text_completion",
            "created": 0,
            "model": self.fake.reported_model(body),
            "choices": [
                {
                    "index": 0,
                    "text": text,
                    "finish_reason": "length" if truncated else "stop",
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": count_words(text or ""),
                "total_tokens": prompt_tokens + count_words(text or ""),
            },
        }

    def _anthropic_payload(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = list(body.get("messages") or [])
        text, truncated = self._reply_words(messages, body)
        system = body.get("system")
        input_tokens = sum(count_words(_message_text(m.get("content"))) for m in messages)
        input_tokens += count_words(_message_text(system)) if system is not None else 0
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": self.fake.reported_model(body),
            "content": [{"type": "text", "text": text}] if text is not None else [],
            "stop_reason": "max_tokens" if truncated else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": count_words(text or "")},
        }

    def _send_malformed(self, kind: Malformed, payload: dict[str, Any], anthropic_shape: bool) -> None:
        """Answer 200 with a reply broken in the way ``kind`` names (see the module docstring)."""
        if kind == "not_json":
            self._send_bytes(200, NOT_JSON_PAGE, content_type="text/html")
        elif kind == "null_message":
            if anthropic_shape:
                payload["content"] = None
            else:
                payload["choices"][0]["message"] = None
            self._send_json(200, payload)
        elif kind == "bad_choices":
            payload["content" if anthropic_shape else "choices"] = "nope"
            self._send_json(200, payload)
        elif kind == "bad_usage":
            names = (
                ("input_tokens", "output_tokens")
                if anthropic_shape
                else ("prompt_tokens", "completion_tokens")
            )
            payload["usage"] = {names[0]: "many", names[1]: -1}
            self._send_json(200, payload)
        elif kind == "non_utf8":
            # "café" as Latin-1 would send it, inside an otherwise valid reply
            payload["id"] = "NOT-UTF-8"
            data = json.dumps(payload).encode().replace(b"NOT-UTF-8", b"caf\xe9", 1)
            self._send_bytes(200, data)
        elif kind == "truncated":
            self._send_truncated(json.dumps(payload).encode())
        elif kind == "huge":
            self._send_huge(payload, anthropic_shape)
        else:  # pragma: no cover - the constructor accepts only known kinds
            raise AssertionError(kind)

    def _send_truncated(self, data: bytes) -> None:
        # The header promises the whole reply; half of it is sent before the connection closes.
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _send_huge(self, payload: dict[str, Any], anthropic_shape: bool) -> None:
        # A valid reply whose text is huge_bytes of padding, written in chunks (never held whole here, so a
        # test measuring the client's memory in this process measures the client), with no Content-Length:
        # only reading it tells how large it is.
        marker = "HUGE-PADDING"
        if anthropic_shape:
            payload["content"] = [{"type": "text", "text": marker}]
        else:
            payload["choices"][0]["message"] = {"role": "assistant", "content": marker}
        head, tail = json.dumps(payload).encode().split(marker.encode(), 1)
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self._write_chunk(head)
            padding = b"a" * HUGE_CHUNK
            left = self.fake.huge_bytes
            while left > 0:
                self._write_chunk(padding[:left])
                left -= len(padding)
            self._write_chunk(tail)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading at its cap, as it should

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A running :class:`FakeOpenAIServer` with default settings (echo replies, no failures).

    For other settings, set attributes before the first request (``reply``, ``schedule``, ``fail_share``,
    ``fail_kinds``, ``delay``, ``require_api_key``, ``models_route``, ...) or use the class as a context manager.
    """
    with FakeOpenAIServer() as server:
        yield server
