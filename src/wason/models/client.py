"""Every model call goes through :class:`ModelClient`: a per-model connection limit, a per-call timeout,
retries with exponential backoff and jitter on transient failures, a cache of identical requests, and a record
of every call (messages, parameters, response, tokens, latency, errors) written as it happens.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from wason.models.base import CallContext, ChatMessage, GenerationParams, Model, ModelError, ModelResponse


class CallStore(Protocol):
    """Where calls are recorded and cached (implemented by :class:`wason.store.Store`)."""

    def record_call(self, record: dict[str, Any]) -> None: ...

    def cache_get(self, key: str) -> dict[str, Any] | None: ...

    def cache_put(self, key: str, response: dict[str, Any]) -> None: ...


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
    """The cache key: model spec, endpoint, messages, parameters and sample key, hashed."""
    payload = {
        "model": model.spec,
        "endpoint": model.endpoint,
        "messages": [m.model_dump() for m in messages],
        "params": params.model_dump(),
        "sample": sample,
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


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

    @property
    def semaphore(self) -> asyncio.Semaphore:
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(max(1, self.model.max_concurrency))
        return self._semaphore

    async def complete(
        self, messages: list[ChatMessage], params: GenerationParams, context: CallContext | None = None
    ) -> ModelResponse:
        """One reply for ``messages``; raises :class:`ModelError` once retries are exhausted."""
        ctx = context or CallContext()
        key = cache_key(self.model, messages, params, ctx.sample)
        base = {
            "run_id": ctx.run_id,
            "episode_id": ctx.episode_id,
            "turn": ctx.turn,
            "model": self.model.spec,
            "endpoint": self.model.endpoint,
            "messages": [m.model_dump() for m in messages],
            "params": params.model_dump(),
            "cache_key": key,
        }
        if self.use_cache and self.store is not None:
            hit = self.store.cache_get(key)
            if hit is not None:
                response = ModelResponse.model_validate(hit)
                self._record(base, response, latency=0.0, attempts=0, errors=[], cached=True)
                return response

        errors: list[str] = []
        started = time.perf_counter()
        for attempt in range(self.policy.retries + 1):
            try:
                # backends enforce the timeout themselves; this guard catches one that hangs anyway.
                # (asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation.)
                async with self.semaphore, asyncio.timeout(self.policy.timeout * 1.5):
                    response = await self.model.generate(messages, params, timeout=self.policy.timeout)
            except TimeoutError:
                exc: ModelError = ModelError(f"timed out after {self.policy.timeout:g}s", transient=True)
            except ModelError as err:
                exc = err
            else:
                latency = time.perf_counter() - started
                if self.store is not None and self.use_cache:
                    self.store.cache_put(key, response.model_dump())
                self._record(
                    base, response, latency=latency, attempts=attempt + 1, errors=errors, cached=False
                )
                return response
            errors.append(str(exc))
            if not exc.transient or attempt == self.policy.retries:
                self._record(
                    base,
                    None,
                    latency=time.perf_counter() - started,
                    attempts=attempt + 1,
                    errors=errors,
                    cached=False,
                )
                raise exc
            ceiling = min(self.policy.max_delay, self.policy.base_delay * 2**attempt)
            await self.sleep(self.rng.uniform(0, ceiling))
        raise AssertionError("unreachable")  # pragma: no cover

    def _record(
        self,
        base: dict[str, Any],
        response: ModelResponse | None,
        *,
        latency: float,
        attempts: int,
        errors: list[str],
        cached: bool,
    ) -> None:
        if self.store is None:
            return
        self.store.record_call(
            {
                **base,
                "response": response.text if response else None,
                "finish_reason": response.finish_reason if response else None,
                "input_tokens": response.input_tokens if response else None,
                "output_tokens": response.output_tokens if response else None,
                "latency_s": latency,
                "attempts": attempts,
                "errors": errors or None,
                "error": errors[-1] if response is None and errors else None,
                "cached": cached,
            }
        )

    async def aclose(self) -> None:
        await self.model.aclose()
