"""Every model call goes through :class:`ModelClient`: a per-model connection limit, a per-call timeout,
retries with exponential backoff and jitter on transient failures, a cache of identical requests, and a record
of every call (messages, parameters, response, tokens, latency, errors) written as it happens.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import random
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

from wason.models.base import CallContext, ChatMessage, GenerationParams, Model, ModelError, ModelResponse
from wason.redaction import redact, redact_url


class CallStore(Protocol):
    """Where calls are recorded and cached (implemented by :class:`wason.store.Store`)."""

    def record_call(self, record: dict[str, Any]) -> object:
        """Record a call; returns what a later call of the conversation names as ``parent_id`` (its id, or a
        reference to a record not yet written)."""
        ...

    def cache_get(self, key: str) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter: wait ``uniform(0, min(max_delay, base * 2**attempt))``.

    Attributes:
        retries: retries after the first attempt (so ``retries + 1`` attempts in all).
        base_delay: seconds, the first backoff ceiling.
        max_delay: seconds, the largest backoff ceiling.
        timeout: seconds allowed for one attempt.
    """

    retries: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    timeout: float = 120.0

    def __post_init__(self) -> None:
        if self.retries < 0:
            raise ValueError("retries must be 0 or more")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("delays must be 0 or more")
        if self.timeout <= 0:
            raise ValueError("timeout must be positive")


def cache_key(model: Model, messages: list[ChatMessage], params: GenerationParams, sample: str) -> str:
    """The cache key: model spec, endpoint, messages, parameters and sample key, hashed.

    It is the SHA-256 of ``json.dumps({"model": ..., "endpoint": ..., "messages": [...], "params":
    key_params(params), "sample": ...}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``, hashed
    piece by piece in that text's order, so that a conversation's hash state up to its last message can be kept
    and extended by the next call's new messages (:class:`ModelClient` does) instead of dumping every message
    again.
    """
    return _key(_messages_hashed(_key_start(model), 0, messages), model, params, sample)


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _key_start(model: Model) -> Any:
    # the keys in sorted order: endpoint, messages, model, params, sample
    return hashlib.sha256(('{"endpoint":' + _dumps(model.endpoint) + ',"messages":[').encode())


def _messages_hashed(state: Any, count: int, messages: list[ChatMessage]) -> Any:
    """``state`` (already over ``count`` messages) extended by ``messages``, in place."""
    for i, m in enumerate(messages):
        state.update(("," if count + i else "").encode() + _dumps(m.model_dump()).encode())
    return state


KEYED_ALWAYS = ("temperature", "max_tokens", "top_p", "seed")
"""The parameters of the first release: always in the cache key, as ``null`` when unset. Parameters added since
(stop, reasoning_effort, extra_body) enter it only when set, so a request made before they existed keeps its key
and a resumed old run still finds its replies in the cache."""


def key_params(params: GenerationParams) -> dict[str, Any]:
    """The parameters as the cache key holds them (see :data:`KEYED_ALWAYS`)."""
    return {k: v for k, v in params.model_dump().items() if k in KEYED_ALWAYS or v is not None}


def _key(state: Any, model: Model, params: GenerationParams, sample: str) -> str:
    tail = '],"model":' + _dumps(model.spec) + ',"params":' + _dumps(key_params(params))
    final = state.copy()
    final.update((tail + ',"sample":' + _dumps(sample) + "}").encode())
    return str(final.hexdigest())


THREADS_KEPT = 4096
"""Conversations whose last call the client remembers, to store the next call as what is new since it."""


@dataclass
class _Thread:
    call_id: object  # what the store returned for the call (see CallStore.record_call)
    messages: list[ChatMessage]
    hashed: Any  # the cache key's hash state over these messages (see cache_key)


@dataclass
class ModelClient:
    """A model with the run-time policies every backend shares."""

    model: Model
    store: CallStore | None = None
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    use_cache: bool = True
    rng: random.Random = field(default_factory=random.Random)
    sleep: Any = asyncio.sleep
    _semaphore: asyncio.Semaphore | None = field(default=None, init=False, repr=False)
    # the last recorded call of each conversation, oldest first (a bounded LRU)
    _threads: OrderedDict[tuple[Any, ...], _Thread] = field(
        default_factory=OrderedDict, init=False, repr=False
    )

    @property
    def semaphore(self) -> asyncio.Semaphore:
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(max(1, self.model.max_concurrency))
        return self._semaphore

    @property
    def _guard(self) -> float | None:
        """The client's own limit on one attempt: half again the backend's timeout, or none for a backend
        bounded by tokens rather than wall time."""
        return self.policy.timeout * 1.5 if getattr(self.model, "wall_clock", True) else None

    async def complete(
        self, messages: list[ChatMessage], params: GenerationParams, context: CallContext | None = None
    ) -> ModelResponse:
        """One reply for ``messages``; raises :class:`ModelError` once retries are exhausted.

        Every attempt's failure is kept in the call's record; a reply that could not be read (a malformed body)
        is a failed attempt like a 500, retried the same way.
        """
        ctx = context or CallContext()
        thread = (ctx.run_id, ctx.episode_id, ctx.sample, messages[0] if messages else None)
        parent = self._parent(thread, messages)
        hashed = self._hashed(parent, messages)
        key = _key(hashed, self.model, params, ctx.sample)
        base = {
            "run_id": ctx.run_id,
            "episode_id": ctx.episode_id,
            "turn": ctx.turn,
            "model": self.model.spec,
            "endpoint": redact_url(self.model.endpoint),
            "params": params.model_dump(),
            "cache_key": key,
        }
        record = functools.partial(self._record, base, thread, parent, messages, hashed)
        if self.use_cache and self.store is not None:
            hit = self.store.cache_get(key)
            if hit is not None:
                response = ModelResponse.model_validate(hit)
                record(response, latency=0.0, attempts=0, errors=[], cached=True)
                return response

        errors: list[str] = []
        started = time.perf_counter()
        for attempt in range(self.policy.retries + 1):
            try:
                # Backends enforce the timeout themselves; this guard catches one that hangs anyway. It starts
                # once the call may go (waiting for a slot is no part of an attempt), and a backend bounded by
                # tokens rather than wall time (the embedded model: ``wall_clock = False``) gets none.
                # (asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation.)
                async with self.semaphore, asyncio.timeout(self._guard):
                    response = await self.model.generate(messages, params, timeout=self.policy.timeout)
            except TimeoutError:
                exc: ModelError = ModelError(f"timed out after {self.policy.timeout:g}s", transient=True)
            except ModelError as err:
                exc = err
            except Exception as err:  # a backend's defect must not lose the call's record
                exc = ModelError(f"unexpected {type(err).__name__} from the backend: {err}", transient=False)
            else:
                latency = time.perf_counter() - started
                # the call's record is also its cache entry (looked up by its cache_key)
                record(response, latency=latency, attempts=attempt + 1, errors=errors, cached=False)
                return response
            errors.append(_one_line(redact(str(exc))))
            if not exc.transient or attempt == self.policy.retries:
                latency = time.perf_counter() - started
                record(None, latency=latency, attempts=attempt + 1, errors=errors, cached=False)
                if len(errors) > 1:
                    raise ModelError(
                        f"{errors[-1]} (after {len(errors)} attempts)",
                        transient=exc.transient,
                        status=exc.status,
                    ) from exc
                raise exc
            ceiling = min(self.policy.max_delay, self.policy.base_delay * 2**attempt)
            await self.sleep(self.rng.uniform(0, ceiling))
        raise AssertionError("unreachable")  # pragma: no cover

    def _record(
        self,
        base: dict[str, Any],
        thread: tuple[Any, ...],
        parent: _Thread | None,
        messages: list[ChatMessage],
        hashed: Any,
        response: ModelResponse | None,
        *,
        latency: float,
        attempts: int,
        errors: list[str],
        cached: bool,
    ) -> None:
        if self.store is None:
            return
        # The next turn of a conversation repeats every earlier message: store only what is new since the
        # conversation's last recorded call, and point at it.
        new = messages[len(parent.messages) :] if parent is not None else messages
        call_id = self.store.record_call(
            {
                **base,
                "parent_id": parent.call_id if parent is not None else None,
                "messages": [m.model_dump() for m in new],
                "response": response.text if response else None,
                "finish_reason": response.finish_reason if response else None,
                "served_model": response.model if response else None,
                "input_tokens": response.input_tokens if response else None,
                "output_tokens": response.output_tokens if response else None,
                "latency_s": latency,
                "attempts": attempts,
                "errors": errors or None,
                "error": errors[-1] if response is None and errors else None,
                "cached": cached,
            }
        )
        self._threads[thread] = _Thread(call_id, list(messages), hashed)
        self._threads.move_to_end(thread)
        while len(self._threads) > THREADS_KEPT:
            self._threads.popitem(last=False)

    def _parent(self, thread: tuple[Any, ...], messages: list[ChatMessage]) -> _Thread | None:
        """The conversation's last recorded call, if ``messages`` continue its request (they usually do)."""
        last = self._threads.get(thread)
        if last is None:
            return None
        n = len(last.messages)
        return last if n <= len(messages) and messages[:n] == last.messages else None

    def _hashed(self, parent: _Thread | None, messages: list[ChatMessage]) -> Any:
        """The cache key's hash state over ``messages``: the parent call's, extended by what is new since (every
        message is hashed once, not again with every later turn)."""
        if parent is not None:
            n = len(parent.messages)
            return _messages_hashed(parent.hashed.copy(), n, messages[n:])
        return _messages_hashed(_key_start(self.model), 0, messages)

    async def aclose(self) -> None:
        await self.model.aclose()


def _one_line(text: str, limit: int = 500) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
