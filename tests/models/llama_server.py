"""llama-cpp-python's own OpenAI-compatible server (``python -m llama_cpp.server``) serving the bundled model on
127.0.0.1, for the tests that play against a real server."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from wason.models.base import ModelConfigError

START_SECONDS = 300  # a busy machine loads the model slowly; the server is only waited for, never timed


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def llama_server_at(log_dir: Path, *, n_ctx: int = 2048) -> Iterator[str]:
    """The server's base URL (``http://127.0.0.1:PORT/v1``) while it runs; the model is named ``smollm2``."""
    from wason.models.local import find_embedded_gguf

    try:
        gguf = find_embedded_gguf()
    except ModelConfigError as exc:
        pytest.skip(f"the embedded model is not installed: {exc}")
    port = _free_port()
    log = log_dir / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", "smollm2",
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", "2"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                with urllib.request.urlopen(base_url + "/models", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not start:\n{log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.2)
        yield base_url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
