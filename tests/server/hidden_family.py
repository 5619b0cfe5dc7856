"""A small guess-the-rule test family with a game API: find the hidden ``x % k == r`` over the numbers 1..60.

The server's tests play it through ``wason.games`` and every route; it stands in for the real games until they
land (the route tests also run over every registered family with a game API). It can also ask for a model
(``needs_model``, to test the refusal when none is attached) and hold a step in ``settle`` (``GATES``, to test
two requests on one game).
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from wason.core.family import ActionCodec, EpisodeContext, Family, GameApi, Item, RunReader, RunSettings
from wason.core.game import ExternalFailure, Malformed, Outcome
from wason.core.records import RunReport, RunRow, run_header

NAME = "hidden_mod"
GAME_NAME = "hidden_mod_game"
CLASS_NAME = "HiddenModuloGame"
UNIVERSE = tuple(range(1, 61))
MODULI = {"L1": (2, 3), "L2": (4, 5), "L3": (6, 7)}
MAX_WRONG = 2
# a step of session (episode) id N waits in settle for GATES[N], which it takes: the next step is not held
GATES: dict[int, asyncio.Event] = {}


async def held(episode_id: int, within: float = 60.0) -> None:
    """Wait until a step of the session has taken its gate (it now waits in settle); fail after ``within`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while episode_id in GATES:
        if loop.time() > deadline:
            raise AssertionError(f"no step of session {episode_id} reached settle")
        await asyncio.sleep(0.001)


@dataclass(frozen=True)
class More:
    n: int


@dataclass(frozen=True)
class Guess:
    text: str


class ModObservation(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Literal["start", "examples", "verdict"]
    positives: list[int] = Field(default_factory=list)
    negatives: list[int] = Field(default_factory=list)
    available: int = 0
    correct: bool | None = None
    over: bool = False
    message: str = ""


class ModConfig(RunSettings):
    model_config = ConfigDict(frozen=True)

    # the fields that choose which items a run plays; `wason play` takes --seed to draw the game: --config-seed there
    item_fields: ClassVar[frozenset[str] | None] = frozenset({"seed", "n"})

    task: Literal["hidden_mod"] = "hidden_mod"
    seed: int = Field(default=0, description="seed of the hidden rules")
    n: int = Field(default=3, description="rules in the run")
    level: Literal["L1", "L2", "L3"] = Field(default="L1", description="level")
    init: int = Field(default=2, description="initial examples of each kind")
    needs_model: bool = Field(default=False, description="guesses ask a model (none is ever attached)")

    @field_validator("n", "init")
    @classmethod
    def _positive(cls, v: int) -> int:
        if v < 1:
            raise ValueError("must be at least 1")
        return v


def members(k: int, r: int) -> list[int]:
    return [x for x in UNIVERSE if x % k == r]


_GUESS = re.compile(r"x\s*%\s*(\d{1,3})\s*==\s*(\d{1,3})")


class ModGame:
    def __init__(self, item: Mapping[str, Any], config: ModConfig, episode_id: int | None) -> None:
        self.k, self.r = int(item["k"]), int(item["r"])
        self.config = config
        self.episode_id = episode_id
        self.rng = random.Random(int(item["seed"]))
        pos = members(self.k, self.r)
        self.pos = self.rng.sample(pos, len(pos))
        neg = [x for x in UNIVERSE if x not in pos]
        self.neg = self.rng.sample(neg, len(neg))
        self.shown = 0
        self.wrong = 0
        self.won: bool | None = None
        self.guesses: list[str] = []

    @property
    def done(self) -> bool:
        return self.won is not None

    def _deal(self, n: int) -> tuple[list[int], list[int]]:
        pos = self.pos[self.shown : self.shown + n]
        neg = self.neg[self.shown : self.shown + n]
        self.shown += n
        return pos, neg

    def available(self) -> int:
        return max(0, len(self.pos) - self.shown)

    def start(self) -> ModObservation:
        pos, neg = self._deal(self.config.init)
        return ModObservation(
            kind="start", positives=pos, negatives=neg, available=self.available(), message="Find x % k == r."
        )

    async def settle(self, action: Any) -> dict[str, Any] | None:
        gate = GATES.pop(self.episode_id, None) if self.episode_id is not None else None
        if gate is not None:  # hold this one step (only this one) until the test releases it
            # polled, not awaited: the step may run in a move worker's own event loop, the test sets it in its own
            while not gate.is_set():
                await asyncio.sleep(0.001)
        if self.config.needs_model and isinstance(action, Guess):
            raise ExternalFailure("the guess needs the LLM judge, and no model is attached")
        return None

    def settled(self, action: Any, record: dict[str, Any]) -> None:
        return None

    def step(self, action: More | Guess | Malformed) -> ModObservation:
        if self.done:
            raise RuntimeError("the game is over")
        if isinstance(action, More):
            pos, neg = self._deal(action.n)
            return ModObservation(
                kind="examples", positives=pos, negatives=neg, available=self.available(), message="More."
            )
        if isinstance(action, Malformed):
            return ModObservation(kind="verdict", correct=False, message=f"Unreadable: {action.reason}")
        self.guesses.append(action.text)
        if action.text.strip().lower() == "give up":
            self.won = False
            return ModObservation(kind="verdict", correct=False, over=True, message="You gave up.")
        found = _GUESS.search(action.text)
        right = found is not None and members(int(found[1]), int(found[2])) == members(self.k, self.r)
        if right:
            self.won = True
        else:
            self.wrong += 1
            if self.wrong >= MAX_WRONG:
                self.won = False
        message = "Correct." if right else "Wrong."
        return ModObservation(kind="verdict", correct=right, over=self.done, message=message)

    def outcome(self) -> Outcome:
        return Outcome(success=bool(self.won), metrics={"guesses": self.guesses, "shown": self.shown})


class ModProtocol:
    name = "hidden_mod"

    def system_prompt(self) -> str:
        return "Find the rule x % k == r. Reply `MORE n` or `GUESS x % k == r` or `GIVE UP`."

    def parse(self, reply: str) -> More | Guess | Malformed:
        text = reply.strip()
        more = re.fullmatch(r"(?i)more\s+(\d{1,4})", text)
        if more:
            return More(int(more[1]))
        if text.lower() == "give up":
            return Guess("give up")
        if text.upper().startswith("GUESS "):
            return Guess(text[6:])
        return Malformed("write MORE n, GUESS x % k == r or GIVE UP")

    def feedback(self, observation: ModObservation) -> str:
        return f"{observation.message} +{observation.positives} -{observation.negatives}"


class ModApi(GameApi):
    game_name = GAME_NAME
    class_name = CLASS_NAME
    domain = "test"
    game_gen_type = "static"

    def __init__(self, family: ModFamily) -> None:
        self.family = family

    def create(self, difficulty: str, num_init_examples: int, seed: int | None) -> tuple[RunSettings, Item]:
        if difficulty not in self.levels:
            raise ValueError(f"difficulty must be one of {self.levels}")
        if num_init_examples < 1 or num_init_examples > 20:
            raise ValueError("num_init_examples must be from 1 to 20")
        config = ModConfig(seed=seed or 0, n=1, level=difficulty, init=num_init_examples)  # type: ignore[arg-type]
        return config, self.family.items(config)[0]

    def more(self, n: int) -> More:
        if not 1 <= n <= 60:
            raise ValueError("n_examples must be from 1 to 60")
        return More(n)

    def guess(self, text: str) -> Guess:
        return Guess(text)

    def view(self, observation: Any, done: bool) -> dict[str, Any]:
        o: ModObservation = observation
        return {
            "system_message": o.message,
            "positive_examples": [str(x) for x in o.positives],
            "negative_examples": [str(x) for x in o.negatives],
            "total_examples_available": o.available if o.kind != "verdict" else None,
            "guess_result": o.correct if o.kind == "verdict" else None,
        }

    def rule_text(self, item: Mapping[str, Any]) -> str:
        return f"x % {item['k']} == {item['r']}"


class ModReport(RunReport):
    successes: int


class ModFamily(Family[ModConfig]):
    name = NAME
    title = "Hidden modulus (server tests)"
    summary = "find x % k == r"
    config_type = ModConfig
    _codec = ActionCodec(More, Guess)

    @property
    def actions(self) -> ActionCodec:
        return self._codec

    def items(self, config: ModConfig) -> list[Item]:
        rng = random.Random(config.seed)
        out: list[Item] = []
        for i in range(config.n):
            k = rng.choice(MODULI[config.level])
            item = {
                "id": i,
                "level": config.level,
                "k": k,
                "r": rng.randrange(k),
                "seed": rng.randrange(2**31),
            }
            item["provenance"] = {"generator": "hidden_mod", "version": 1, "seed": config.seed}
            out.append((f"mod-{config.seed}-{i}", item))
        return out

    def game(self, config: ModConfig, item: Mapping[str, Any], context: EpisodeContext) -> ModGame:
        return ModGame(item, config, context.episode_id)

    def protocol(self, config: ModConfig, item: Mapping[str, Any]) -> ModProtocol:
        return ModProtocol()

    def sample_key(self, config: ModConfig, item: Mapping[str, Any]) -> str:
        return f"{config.seed}|{item['id']}"

    def sample_actions(self, config: ModConfig, item: Mapping[str, Any]) -> list[Any]:
        return [More(2), Guess(f"x % {item['k']} == {item['r']}")]

    def public(self, item: Mapping[str, Any]) -> list[str]:
        return ["level"]

    def game_api(self) -> ModApi:
        return ModApi(self)

    def describe(self, config: ModConfig, n_episodes: int, n_todo: int, who: str) -> str:
        return f"hidden modulus with {who}"

    def report_json(self, store: RunReader, run_ids: Sequence[int]) -> ModReport:
        run = store.get_run(run_ids[0])
        wins = sum(bool(e.success) for e in store.list_episodes(run.id))
        return ModReport(**run_header(run), successes=wins)

    def report(self, store: RunReader, run_ids: Sequence[int]) -> list[Any]:
        return [str(self.report_json(store, run_ids).successes)]

    def transcript(self, data: dict[str, Any], run: RunRow) -> Any:
        return str(len(data["turns"]))


FAMILY = ModFamily()
