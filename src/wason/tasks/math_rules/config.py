"""Math rules' run configuration and its items: what the family, its game API and its tools build games from."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from wason.core.family import (
    JUDGE_FIELDS,
    MAX_SEED,
    Item,
    LlmJudgedSettings,
    Name,
)
from wason.tasks.math_rules.game import (
    JUDGES,
    MAX_MORE,
    MAX_QUIZ,
    MAX_TURNS,
    MathConfig,
)
from wason.tasks.math_rules.rules import (
    GENERATOR,
    GENERATOR_VERSION,
    MathRule,
    draw_rule,
    draw_sequences,
)

MAX_RULE_FILE = 100_000
"""Characters read from a rule file."""

PUBLISHED_MAX_TURNS = {"L1": 10, "L2": 15, "L3": 20}
"""The published harness's turn limits (exp.py ``max_turn_dict``)."""


MAX_N = 10_000
"""The most games of a run: drawing an item (a rule and its first sequences) takes about 0.4 ms."""


class MathRunConfig(LlmJudgedSettings):
    """Everything that defines a math-sequence run: the level, the rules, the protocol and the judges.

    Game ``k`` (1..n) of a run plays the rule drawn with seed ``"{seed}|{k}"`` at the run's level.
    """

    # the level is public (not in item_fields): it holds many rules, and is the run's label
    item_fields: ClassVar[frozenset[str] | None] = frozenset({"n", "seed"})
    public_fields: ClassVar[frozenset[str]] = JUDGE_FIELDS | {
        "level",
        "init_examples",
        "per_turn",
        "max_turns",
        "refill",
        "ask_expression",
        "ask_lambda",
        "quiz_size",
    }

    not_in_play: ClassVar[frozenset[str]] = JUDGE_FIELDS | {"n"}
    model_only: ClassVar[frozenset[str]] = frozenset({"ask_lambda"})
    play_defaults: ClassVar[Mapping[str, Any]] = {"judges": ["expression", "quiz"]}
    audit_module: ClassVar[str | None] = "wason.tasks.math_rules.audit"
    difficulty_axes: ClassVar[Mapping[str, tuple[Any, ...]]] = {"level": ("L1", "L2", "L3")}

    label_fields: ClassVar[tuple[str, ...]] = ("level",)
    task: Literal["math"] = "math"
    level: Literal["L1", "L2", "L3"] = Field(
        default="L1",
        description="L1 one operation with a constant, L2 the same with negative values, L3 one operation "
        "for even indices and another for odd ones",
    )
    n: int = Field(default=10, ge=1, le=MAX_N, description="games, each with its own rule")
    seed: int = Field(default=0, ge=0, le=MAX_SEED, description="seed of the rules and the sequences")
    init_examples: int = Field(
        default=5, ge=1, le=MAX_MORE, description="sequences shown at the start (published: 5)"
    )
    per_turn: int = Field(
        default=5, ge=1, le=MAX_MORE, description="sequences each further turn brings (published: 5)"
    )
    max_turns: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TURNS,
        description="turns per game (default: the published L1 10, L2 15, L3 20)",
    )
    refill: bool = Field(
        default=True,
        description="every turn brings new sequences, a guess's too, as the published harness did "
        "(--no-refill: only More brings them)",
    )
    judges: list[Name] = Field(
        default_factory=lambda: ["expression", "quiz", "llm"],
        max_length=len(JUDGES),
        description="comma-separated: expression (the guess as lambda v, i: ..., judged by code; decides), "
        "quiz (the player continues fresh sequences), llm (the published judge, 3 votes)",
    )
    ask_expression: bool = Field(
        default=True,
        description="after a guess in words, ask once for its expression (--no-ask-expression: the LLM judge "
        "alone reads words, flagged)",
    )
    ask_lambda: bool = Field(
        default=False,
        description="the system prompt also asks for the guess as lambda v, i: ... (not published)",
    )
    quiz_size: int = Field(
        default=3, ge=0, le=MAX_QUIZ, description="sequences from fresh starts the player continues"
    )

    @model_validator(mode="after")
    def _check(self) -> MathRunConfig:
        unknown = [j for j in self.judges if j not in JUDGES]
        if unknown:
            raise ValueError(f"judges: unknown judge(s) {unknown}; choose from {', '.join(JUDGES)}")
        self.game_config("0")  # validates the rest
        return self

    @property
    def turns(self) -> int:
        return self.max_turns if self.max_turns is not None else PUBLISHED_MAX_TURNS[self.level]

    def game_config(self, seed: str) -> MathConfig:
        try:
            return MathConfig(
                max_turns=self.turns,
                per_turn=self.per_turn,
                refill=self.refill,
                judges=tuple(self.judges),
                ask_expression=self.ask_expression,
                quiz_size=self.quiz_size,
                seed=seed,
            )
        except ValueError as exc:
            raise ValueError(str(exc)) from None

    def items(self) -> list[Item]:
        return [make_item(self.level, self.seed, k, self.init_examples) for k in range(1, self.n + 1)]


def make_item(level: str, seed: int, index: int, init_examples: int) -> Item:
    """Game ``index`` of a run: its rule (with provenance) and its first sequences, all from ``seed``."""
    drawn = draw_rule(level, f"{seed}|{index}")
    rule = drawn.rule
    examples = draw_sequences(
        rule, level, random.Random(f"math_rules.examples|{seed}|{index}"), init_examples
    )
    item = {
        "level": level,
        "index": index,
        "seed": seed,
        "n_init": init_examples,
        "examples": examples,
        "rule": {
            "text": rule.text(),
            "expression": rule.expression(),
            "code": rule.code(),
            "ops": rule.as_json(),
            "generator": GENERATOR,
            "version": GENERATOR_VERSION,
            "rejected": [[text, reason] for text, reason in drawn.rejected],
        },
    }
    return f"{level}|{seed}|{index}", item


def rule_from_item(item: Mapping[str, Any]) -> MathRule:
    """The hidden rule of an item (checked against its text, so a changed grammar never scores another rule)."""
    rule = MathRule.from_json(item["rule"]["ops"])
    if rule.text() != item["rule"]["text"]:
        raise ValueError(f"rule: {item['rule']['text']!r} is no longer the rule {rule.text()!r}")
    return rule
