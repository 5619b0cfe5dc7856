"""The OpenAI-compatible backend against a real server nobody here wrote: llama-cpp-python's own
OpenAI-compatible server (``python -m llama_cpp.server``, from ``llama-cpp-python[server]``) serving the bundled
SmolLM2 GGUF on 127.0.0.1."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from wason.cli import main
from wason.models.base import ChatMessage, GenerationParams, ModelConfigError
from wason.models.openai_compat import OpenAICompatModel
from wason.tasks.wilt.grammar import reply_format

pytest.importorskip(
    "llama_cpp.server.app", reason="llama-cpp-python[server] is not installed (the dev extra has it)"
)

START_SECONDS = 300  # a busy machine loads the model slowly; the server is only waited for, never timed


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from wason.models.local import find_embedded_gguf

    try:
        gguf = find_embedded_gguf()
    except ModelConfigError as exc:
        pytest.skip(f"the embedded model is not installed: {exc}")
    port = _free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", "smollm2",
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2"],
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


def _model(base_url: str, name: str = "smollm2") -> OpenAICompatModel:
    return OpenAICompatModel(spec=f"llamacpp:{name}", model=name, base_url=base_url, api_key="none")


async def test_check_chat_and_grammar_against_llama_cpp_server(llama_server: str) -> None:
    model = _model(llama_server)
    try:
        await model.check()  # the model list names it
        plain = await model.generate(
            [ChatMessage(role="user", content="Say hello.")],
            GenerationParams(max_tokens=8, temperature=0.0),
            timeout=300,
        )
        grammar = reply_format().grammar
        constrained = await model.generate(
            [
                ChatMessage(role="system", content="Find the rule. Propose a test case."),
                ChatMessage(role="user", content="Your first test?"),
            ],
            GenerationParams(max_tokens=96, temperature=0.0, grammar=grammar),
            timeout=300,
        )
    finally:
        await model.aclose()
    assert plain.text and plain.output_tokens is not None and 0 < plain.output_tokens <= 8
    assert plain.input_tokens and plain.finish_reason in ("stop", "length")
    # the server held the reply to WILT's grammar: a test case or a final guess in the protocol's form
    assert re.search(r"(Test Case: ```\(.*\)```|Final Guess: ```.*```)", constrained.text), constrained.text


def test_wason_eval_plays_against_llama_cpp_server(
    llama_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'real.db'}"
    argv = ["eval", "wilt", "--split", "lite", "--ids", "1", "--model", "llamacpp:smollm2", "--base-url",
            llama_server, "--db", db, "--no-baseline", "--json", "--constrain", "--max-tokens", "48",
            "--temperature", "0"]  # fmt: skip
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["status"] == "completed"
    assert summary["table"]["errored"] == 0
