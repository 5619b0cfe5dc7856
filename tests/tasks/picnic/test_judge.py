"""The published LLM judge beside the code: exact messages, majority of three, and when it decides."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.reference import reference
from wason import ChatMessage, GenerationParams
from wason.core.records import CallContext
from wason.tasks.picnic.catalog import get_rule, pool
from wason.tasks.picnic.game import Guess, PicnicConfig, PicnicGame
from wason.tasks.picnic.judge import judge_messages, llm_verdict, read_yes_no


@dataclass
class _Spec:
    spec: str = "scripted:judge"


@dataclass
class Response:
    text: str


@dataclass
class ScriptedOracle:
    """A judge model whose replies are given in order; it records what it was asked."""

    replies: list[str]
    asked: list[list[ChatMessage]] = field(default_factory=list)
    samples: list[str | None] = field(default_factory=list)

    @property
    def model(self) -> Any:
        return _Spec()

    async def complete(
        self, messages: list[ChatMessage], params: GenerationParams, context: CallContext | None = None
    ) -> Response:
        self.asked.append(messages)
        self.samples.append(context.sample if context else None)
        return Response(self.replies[len(self.asked) - 1])


def test_the_judge_messages_are_the_published_ones() -> None:
    messages = judge_messages("mammals", "Items from the category 'mammal'", ["dog", "cat"])
    assert messages[0].role == "system"
    assert messages[0].content == reference("guess_the_rule", "static_picnic", "judge_system.txt").read_text(
        "utf-8"
    )
    template = reference("guess_the_rule", "static_picnic", "judge.txt").read_text("utf-8")
    expected = (
        template.replace("{guess}", "mammals")
        .replace("{rule}", "Items from the category 'mammal'")
        .replace("{positive_examples}", "['dog', 'cat']")
    )
    assert messages[1].role == "user" and messages[1].content == expected
    assert expected.startswith("\n        Determine") and expected.endswith("'no'.\n        ")


@pytest.mark.parametrize(
    ("reply", "vote"),
    [
        ("yes", True),
        ("Yes.", True),
        ("**YES**", True),
        ("no", False),
        ("No!", False),
        ("'no'", False),
        ("maybe", None),
        ("", None),
        ("yes and no and more words here", None),
        ("The answer is yes", None),
    ],
)
def test_votes_are_read_forgivingly(reply: str, vote: bool | None) -> None:
    assert read_yes_no(reply) is vote


def test_majority_of_three_votes_each_its_own_sample() -> None:
    oracle = ScriptedOracle(["yes", "no", "Yes."])
    verdict = asyncio.run(llm_verdict(oracle, GenerationParams(), CallContext(sample="s"), "g", "r", ["a"]))
    assert verdict["verdict"] is True and verdict["votes"] == [True, False, True]
    assert len(set(oracle.samples)) == 3


def _game(oracle: ScriptedOracle, rule_id: int = 1) -> PicnicGame:
    async def judge(guess: str, rule: str, positives: list[str]) -> dict[str, Any]:
        return await llm_verdict(oracle, GenerationParams(), CallContext(sample="t"), guess, rule, positives)

    return PicnicGame(get_rule("distinct", "L1", rule_id), 3, PicnicConfig(llm_judge=True), judge=judge)


def test_the_code_decides_and_the_llm_is_reported_beside() -> None:
    oracle = ScriptedOracle(["yes", "yes", "yes"])  # a lenient judge says yes to a wrong guess
    g = _game(oracle)
    g.start()
    wrong = Guess("Items from the category 'weapon'")
    record = asyncio.run(g.settle(wrong))
    assert record and record["llm_judgement"]["verdict"] is True
    obs = g.step(wrong)
    assert obs.kind == "wrong_guess"
    m = g.outcome().metrics
    assert m["history"][0]["decided_by"] == "code" and m["history"][0]["llm"]["verdict"] is True
    assert m["judges"] == {"code": False, "llm": True}
    # the judge saw the positives shown so far
    assert repr(g.seen_pos[:2]) in oracle.asked[0][1].content


def test_a_guess_naming_no_category_is_decided_by_the_llm_and_flagged() -> None:
    oracle = ScriptedOracle(["yes", "yes", "no"])
    g = _game(oracle)
    g.start()
    guess = Guess("things with fur that people keep")
    g.settled(guess, {"llm_judgement": {"verdict": True, "votes": [True, True, False]}})
    obs = g.step(guess)
    assert obs.end_reason == "correct"
    m = g.outcome().metrics
    assert m["decided_by"] == "llm" and m["llm_decided"] and m["judges"]["code"] is False
    assert oracle.asked == []  # restored from the record: no model asked again


def test_settle_asks_nothing_when_the_judge_is_off() -> None:
    g = PicnicGame(pool("L1", "distinct")[0], 0, PicnicConfig())
    g.start()
    assert asyncio.run(g.settle(Guess("fruit"))) is None
