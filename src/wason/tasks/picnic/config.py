"""Static Picnic's run configuration and its items: what the family, its game API and its tools build games from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from wason.core.family import (
    JUDGE_FIELDS,
    MAX_SEED,
    Item,
    LlmJudgedSettings,
    check_episodes,
)
from wason.tasks.picnic.catalog import (
    DRAW_VERSION,
    LEVELS,
    Level,
    PicnicRule,
    derive_seed,
    draw_rule,
    get_rule,
    pool,
)
from wason.tasks.picnic.game import MAX_REQUEST, MAX_TURNS, PicnicConfig

GENERATOR = "wason-picnic-items"


Judge = Literal["code", "llm"]
JUDGES: tuple[Judge, ...] = ("code", "llm")
"""The judges of a guess: code (decides) and the published LLM judge (reported beside)."""


MAX_N = 10_000
"""The most games per level and turn limit (or per rule): the server's bound on a count (docs/server.md)."""

MAX_TURN_LIMITS = 20
"""The most turn limits a run compares."""


class PicnicRunConfig(LlmJudgedSettings):
    """Everything that defines a Static Picnic run: levels, pool, draws, turn limits, examples and judges.

    Games of one level share their rules and example seeds across the turn limits (a paired design): game ``g``
    of level ``L`` draws its rule with ``derive_seed("picnic-rule", seed, pool, L, g)``.
    """

    # the level and the pool are public: each holds many rules, and the level is the run's label
    item_fields: ClassVar[frozenset[str] | None] = frozenset({"draw", "n", "seed"})
    public_fields: ClassVar[frozenset[str]] = JUDGE_FIELDS | {
        "level",
        "pool",
        "max_turns",
        "init_examples",
        "negatives",
        "examples_each_turn",
    }

    not_in_play: ClassVar[frozenset[str]] = JUDGE_FIELDS | {"n", "draw"}
    # the published LLM protocol's host hands out examples after a wrong guess; a person's game keeps the default
    model_only: ClassVar[frozenset[str]] = frozenset({"examples_each_turn"})
    # a person is drawn one game from many rules
    play_defaults: ClassVar[Mapping[str, Any]] = {"n": 100}
    audit_module: ClassVar[str | None] = "wason.tasks.picnic.audit"
    difficulty_axes: ClassVar[Mapping[str, tuple[Any, ...]]] = {"level": (["L1"], ["L2"], ["L3"])}

    label_fields: ClassVar[tuple[str, ...]] = ("level",)
    task: Literal["picnic"] = "picnic"
    level: list[Annotated[str, Field(max_length=2)]] = Field(
        default_factory=lambda: [str(lv) for lv in LEVELS],
        max_length=len(LEVELS),
        description="levels to play, comma-separated (L1,L2,L3)",
    )
    pool: Literal["distinct", "published"] = Field(
        default="distinct",
        description="rule pool: distinct (one rule per set of items: L1 31, L2 39, L3 27) or published "
        "(the 115 published definitions: L1 31, L2 44, L3 40, drawn kind first as published)",
    )
    draw: Literal["sample", "all"] = Field(
        default="sample", description="sample: seeded draws of rules; all: every rule of the pool"
    )
    n: int = Field(
        default=10,
        ge=1,
        le=MAX_N,
        description="games per level and turn limit (sample), or per rule (all)",
    )
    seed: int = Field(default=0, ge=0, le=MAX_SEED, description="seed of the rule draws and of the examples")
    max_turns: list[Annotated[int, Field(ge=1, le=MAX_TURNS)]] = Field(
        default_factory=lambda: [10],
        max_length=MAX_TURN_LIMITS,
        description="moves allowed per game, comma-separated (published options: 1,3,5,7,10,15)",
    )
    init_examples: int = Field(
        default=2,
        ge=1,
        le=MAX_REQUEST,
        description="positives (and as many negatives) shown first (published experiments: 2)",
    )
    negatives: Literal["random", "informative"] = Field(
        default="random",
        description="negatives drawn at random (published) or near misses of the rule first (informative)",
    )
    examples_each_turn: bool = Field(
        default=True,
        description="after a wrong guess the host hands out the last requested number of examples again "
        "(the published LLM protocol)",
    )
    judges: list[Judge] = Field(
        default_factory=lambda: list(JUDGES),
        max_length=len(JUDGES),
        description="which judges run, comma-separated: code (the guess's categories by extension; decides), "
        "llm (the published judge, 3 votes, reported beside the code; left out when no model plays)",
    )

    @model_validator(mode="after")
    def _check(self) -> PicnicRunConfig:
        if not self.level or any(lv not in LEVELS for lv in self.level):
            raise ValueError(f"level: name one or more of {', '.join(LEVELS)}, comma-separated")
        if len(set(self.level)) != len(self.level):
            raise ValueError("level: a level is named twice")
        if not self.max_turns:
            raise ValueError("max_turns: name one limit or more")
        if len(set(self.max_turns)) != len(self.max_turns):
            raise ValueError("max_turns: a limit is named twice")
        if "code" not in self.judges or len(set(self.judges)) != len(self.judges):
            raise ValueError(
                "judges: the code judge decides and runs always; name each judge once (code,llm)"
            )
        check_episodes(self.item_count(), "n")
        return self

    def game_config(self, item: Mapping[str, Any]) -> PicnicConfig:
        mt = item.get("max_turns")
        return PicnicConfig(
            num_init_examples=int(item.get("num_init_examples", self.init_examples)),
            max_turns=int(mt) if mt is not None else None,
            negatives=self.negatives,
            examples_each_turn=self.examples_each_turn,
            llm_judge=self.llm_judge,
        )

    def items(self) -> list[Item]:
        out: list[Item] = []
        for name in self.level:
            level = next(lv for lv in LEVELS if lv == name)
            if self.draw == "sample":
                for g in range(self.n):
                    out += self._games(level, None, g)
            else:
                for rule in pool(level, self.pool):
                    for g in range(self.n):
                        out += self._games(level, rule, g)
        return out

    def item_count(self) -> int:
        return self._rules() * self.n * len(self.max_turns)

    def item_at(self, index: int) -> Item:
        """``items()[index]`` alone (items go by level, then rule with ``draw`` all, then game, then turn limit)."""
        per_game = len(self.max_turns)
        for name in self.level:
            level = next(lv for lv in LEVELS if lv == name)
            rules = [None] if self.draw == "sample" else list(pool(level, self.pool))
            size = len(rules) * self.n * per_game
            if index < size:
                rule, rest = divmod(index, self.n * per_game)
                g, mt = divmod(rest, per_game)
                return self._games(level, rules[rule], g, only=self.max_turns[mt])[0]
            index -= size
        raise IndexError("item index out of range")

    def _rules(self) -> int:
        """Rules per game number: a level's draw each (sample), or every rule of the level's pool (all)."""
        levels = [lv for lv in LEVELS if lv in self.level]
        return len(levels) if self.draw == "sample" else sum(len(pool(lv, self.pool)) for lv in levels)

    def _games(self, level: Level, rule: PicnicRule | None, g: int, only: int | None = None) -> list[Item]:
        """Game ``g`` of ``level`` (of ``rule`` with ``draw`` all), one item per turn limit (or just ``only``)."""
        draw_seed: int | None = None
        if rule is None:
            drawn = derive_seed("picnic-rule", self.seed, self.pool, level, g)
            rule, draw_seed = draw_rule(level, self.pool, drawn), drawn
            seed = derive_seed("picnic-examples", self.seed, level, g)
        else:
            seed = derive_seed("picnic-examples", self.seed, level, rule.id, g)
        limits = self.max_turns if only is None else [only]
        return [self._item(rule, level, mt, g, seed, draw_seed) for mt in limits]

    def _item(
        self, rule: PicnicRule, level: Level, max_turns: int, game: int, seed: int, draw_seed: int | None
    ) -> Item:
        item = make_item(rule, max_turns, self.init_examples, seed, game)
        item["provenance"] = {
            "generator": GENERATOR,
            "version": DRAW_VERSION,
            "seed": self.seed,
            "pool": self.pool,
            "draw": self.draw,
            "level": level,
            "game": game,
            "draw_seed": draw_seed,
        }
        key = (
            f"{level}|{rule.id}|t{max_turns}|g{game}"
            if self.draw == "all"
            else f"{level}|t{max_turns}|g{game}"
        )
        return key, item


def make_item(
    rule: PicnicRule, max_turns: int | None, num_init_examples: int, seed: int, game: int
) -> dict[str, Any]:
    """One game's item: the rule (hidden until the end), the turn limit, the first examples' count, the seed."""
    return {
        "level": rule.level,
        "max_turns": max_turns,
        "num_init_examples": num_init_examples,
        "game": game,
        "seed": seed,
        "rule": rule.as_json(),
    }


def rule_from_item(item: Mapping[str, Any]) -> PicnicRule:
    """The hidden rule of an item, checked against the stored categories."""
    ref = item["rule"]
    rule = get_rule(ref["pool"], ref["level"], int(ref["id"]))
    if list(rule.categories) != list(ref["categories"]):
        raise ValueError(f"rule {rule.key} is no longer {ref['categories']} (now {list(rule.categories)})")
    return rule
