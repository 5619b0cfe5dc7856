"""The client extends each conversation's cache-key hash instead of dumping every message again; the keys are
the same as hashing the whole request's canonical JSON."""

from __future__ import annotations

import hashlib
import json

from tests.conftest import FakeModel
from wason.models.base import ChatMessage, GenerationParams
from wason.models.client import CallContext, ModelClient, cache_key
from wason.store import Store


def whole_request_key(
    model: FakeModel, messages: list[ChatMessage], params: GenerationParams, sample: str
) -> str:
    payload = {
        "model": model.spec,
        "endpoint": model.endpoint,
        "messages": [m.model_dump() for m in messages],
        # the first release's four parameters always (null when unset), later ones only when set
        "params": {
            k: v
            for k, v in params.model_dump().items()
            if k in ("temperature", "max_tokens", "top_p", "seed") or v is not None
        },
        "sample": sample,
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def test_cache_key_is_the_hash_of_the_whole_request() -> None:
    model = FakeModel()
    texts = ["", "plain", 'quotes " and \\ backslash', "unicode é ✓ \u2028 and \n newline", "x" * 5000]
    for n in range(len(texts) + 1):
        messages = [
            ChatMessage(role="user" if i % 2 else "system", content=t) for i, t in enumerate(texts[:n])
        ]
        for sample in ("", "full/3|lambda x, y, z: x < y", "ü"):
            for params in (
                GenerationParams(temperature=0.5, seed=3),
                GenerationParams(stop=["END"], reasoning_effort="low", extra_body={"top_k": 20, "é": [1]}),
            ):
                assert cache_key(model, messages, params, sample) == whole_request_key(
                    model, messages, params, sample
                )


async def test_a_growing_conversation_gets_the_keys_of_its_whole_requests(store: Store) -> None:
    model = FakeModel()
    client = ModelClient(model=model, store=store)
    params = GenerationParams()
    messages = [ChatMessage(role="system", content="rules")]
    expected = []
    for turn in range(6):
        ctx = CallContext(run_id=1, episode_id=2, turn=turn, sample="s")
        reply = await client.complete(list(messages), params, ctx)
        expected.append(whole_request_key(model, messages, params, "s"))
        messages += [
            ChatMessage(role="assistant", content=reply.text),
            ChatMessage(role="user", content=f"feedback é {turn}"),
        ]
    # a conversation that does not continue the last one (rewritten history) is hashed from its start
    branch = [*messages[:3], ChatMessage(role="user", content="another answer")]
    await client.complete(branch, params, CallContext(run_id=1, episode_id=2, turn=9, sample="s"))
    expected.append(whole_request_key(model, branch, params, "s"))
    assert [c["cache_key"] for c in store.list_calls(run_id=1)] == expected
