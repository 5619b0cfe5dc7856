"""The OpenAI-compatible backend against a real server nobody here wrote: llama-cpp-python's own
OpenAI-compatible server (``python -m llama_cpp.server``, from ``llama-cpp-python[server]``) serving the bundled
SmolLM2 GGUF on 127.0.0.1."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.models.llama_server import llama_server_at
from wason.cli import main
from wason.models.base import ChatMessage, GenerationParams
from wason.models.openai_compat import OpenAICompatModel
from wason.tasks.wilt.grammar import reply_format

pytest.importorskip(
    "llama_cpp.server.app", reason="llama-cpp-python[server] is not installed (the dev extra has it)"
)


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # the model's own context (8,192 tokens): a WILT episode of 30 tests outgrows 2,048, and whether one ends
    # before then depends on the replies, which a server that reuses its prompt cache may vary
    with llama_server_at(tmp_path_factory.mktemp("llama-server"), n_ctx=8192) as base_url:
        yield base_url


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
