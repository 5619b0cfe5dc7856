"""A fast fake OpenAI-compatible endpoint for benchmarks: fixed latency, scripted WILT replies.

It answers ``POST /v1/chat/completions`` after a fixed latency with a scripted WILT player's reply: the k-th
reply of a conversation (k = the number of assistant messages in the request) proposes test k (30 distinct
small-integer triples), and the 31st is a final guess; ``GET /v1/models`` lists one model; ``GET /stats`` gives
the number of chat requests served. It is an asyncio HTTP/1.1 server (keep-alive, no pipelining needed) in its
own process, bound to 127.0.0.1, that never parses more of a request than the role keys it counts, so it serves
thousands of requests a second and is not the bottleneck of what it measures (``--selftest`` prints its
ceiling on this machine).

This is a benchmark fixture only; the tests' fake server (tests/fakes/openai_server.py) injects faults instead.

    python bench/fake_endpoint.py --latency 0.1            # prints "port N", then serves until killed
    python bench/fake_endpoint.py --selftest               # requests/s it sustains with zero latency
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Self

TESTS_PER_EPISODE = 30
CALLS_PER_EPISODE = TESTS_PER_EPISODE + 1
# 30 distinct triples of small integers: every one is a valid, typeable WILT test
TRIPLES = [(a, b, c) for a in (1, 2, 3) for b in (-1, 0, 4, 5, 7) for c in (2, 9)]
assert len(set(TRIPLES)) == TESTS_PER_EPISODE
GUESS = "lambda x, y, z: x < y < z"
MODEL = "fake"

# A role key of the request body, never text inside a message (whose quotes JSON escapes as \").
_ASSISTANT = re.compile(rb'"role"\s*:\s*"assistant"')
_HEADER_END = b"\r\n\r\n"


def scripted_reply(n_assistant: int) -> str:
    """The reply to a conversation holding ``n_assistant`` earlier replies: a test, then the final guess."""
    if n_assistant < TESTS_PER_EPISODE:
        a, b, c = TRIPLES[n_assistant]
        return f"Next I check another ordering.\nTest Case: ```({a}, {b}, {c})```"
    return f"I am confident now.\nFinal Guess: ```{GUESS}```"


def _response(status: str, body: bytes) -> bytes:
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        "connection: keep-alive\r\n\r\n"
    )
    return head.encode() + body


def _completion(text: str, prompt_bytes: int) -> bytes:
    body = {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_bytes // 4,
            "completion_tokens": len(text) // 4,
            "total_tokens": prompt_bytes // 4 + len(text) // 4,
        },
    }
    return _response("200 OK", json.dumps(body).encode())


_MODELS = _response(
    "200 OK", json.dumps({"object": "list", "data": [{"id": MODEL, "object": "model"}]}).encode()
)
_NOT_FOUND = _response("404 Not Found", b'{"error": {"message": "not found"}}')


class _Stats:
    chat_requests = 0


class _Connection(asyncio.Protocol):
    def __init__(self, latency: float, stats: _Stats) -> None:
        self.latency = latency
        self.stats = stats
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.loop = asyncio.get_running_loop()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(_HEADER_END)
            if end < 0:
                return
            head = bytes(self.buffer[:end]).decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            start = end + len(_HEADER_END)
            if len(self.buffer) < start + length:
                return
            body = bytes(self.buffer[start : start + length])
            del self.buffer[: start + length]
            self._answer(head.split(" ", 2), body)

    def _answer(self, request_line: list[str], body: bytes) -> None:
        method, path = request_line[0], request_line[1] if len(request_line) > 1 else ""
        if method == "POST" and path.endswith("/chat/completions"):
            self.stats.chat_requests += 1
            reply = _completion(scripted_reply(len(_ASSISTANT.findall(body))), len(body))
            self.loop.call_later(self.latency, self._send, reply)
        elif method == "GET" and path.endswith("/models"):
            self._send(_MODELS)
        elif method == "GET" and path.endswith("/stats"):
            self._send(_response("200 OK", json.dumps({"chat_requests": self.stats.chat_requests}).encode()))
        else:
            self._send(_NOT_FOUND)

    def _send(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)


async def serve(host: str, port: int, latency: float) -> None:
    """Serve until cancelled, printing ``port N`` once listening."""
    stats = _Stats()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Connection(latency, stats), host, port, backlog=4096)
    print(f"port {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


class FakeEndpoint:
    """The endpoint in a child process, for ``with FakeEndpoint(latency=0.1) as ep: ep.base_url``."""

    def __init__(self, latency: float = 0.1) -> None:
        self.latency = latency
        self.process: subprocess.Popen[str] | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def argv(self) -> list[str]:
        """The child's command line (a bench serving other replies names its own script)."""
        return [sys.executable, str(Path(__file__).resolve()), "--latency", str(self.latency)]

    def __enter__(self) -> Self:
        self.process = subprocess.Popen(
            self.argv(),
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.startswith("port "):
            self.process.kill()
            raise RuntimeError(f"the fake endpoint did not start: {line!r}")
        self.port = int(line.split()[1])
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def chat_requests(self) -> int:
        """Chat requests the endpoint has served so far."""
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=10) as reply:
            return int(json.loads(reply.read())["chat_requests"])


async def _selftest(base_url: str, connections: int, seconds: float) -> float:
    """Requests/s the endpoint answers at zero latency to raw keep-alive connections (a cheap client)."""
    host, port = base_url.split("//")[1].split("/")[0].split(":")
    body = json.dumps({"model": MODEL, "messages": [{"role": "user", "content": "x" * 2000}]}).encode()
    request = (
        f"POST /v1/chat/completions HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    ).encode() + body
    done = 0
    deadline = time.perf_counter() + seconds

    async def one() -> None:
        nonlocal done
        reader, writer = await asyncio.open_connection(host, int(port))
        while time.perf_counter() < deadline:
            writer.write(request)
            head = await reader.readuntil(_HEADER_END)
            length = int(re.search(rb"content-length: (\d+)", head).group(1))  # type: ignore[union-attr]
            await reader.readexactly(length)
            done += 1
        writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(connections)))
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds before each chat reply")
    parser.add_argument("--selftest", action="store_true", help="measure the requests/s it can serve")
    args = parser.parse_args()
    if args.selftest:
        with FakeEndpoint(latency=0.0) as ep:
            rate = asyncio.run(_selftest(ep.base_url, connections=64, seconds=3.0))
        print(f"fake endpoint, zero latency, 64 raw keep-alive connections: {rate:,.0f} requests/s")
        return
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.host, args.port, args.latency))


if __name__ == "__main__":
    main()
