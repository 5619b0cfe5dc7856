"""Hello, wason: a task family in one module. Its hidden rule: x is a multiple of a secret k from 2 to 9."""

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from pydantic import Field

from wason.core import EpisodeContext, Family, Item, Malformed, Move, Outcome, RunSettings


@dataclass(frozen=True)
class Test:  # an action: one dataclass per kind of move
    x: int


@dataclass(frozen=True)
class Guess:
    k: int


@dataclass(frozen=True)
class Seen:  # an observation: what the game tells the player after a move (never the secret)
    tests_left: int
    x: int | None = None
    yes: bool | None = None
    correct: bool | None = None


class HelloConfig(RunSettings):  # a run's settings: each field is a flag of `wason eval hello`
    task: Literal["hello"] = "hello"
    seed: int = Field(default=0, ge=0, le=2**31, description="seed the secrets are drawn with")
    n: int = Field(default=5, ge=1, le=10_000, description="games in the run")
    max_tests: int = Field(default=8, ge=1, le=100, description="tests before the guess is due")


class HelloGame:  # one game: pure and deterministic, it never sees text
    def __init__(self, secret: int, max_tests: int) -> None:
        self.secret, self.left, self.done, self.won = secret, max_tests, False, False

    def start(self) -> Seen:
        return Seen(self.left)

    def step(self, action: Test | Guess | Malformed) -> Seen:
        if isinstance(action, Guess) or self.left == 0:  # a guess, or anything once the tests are used up
            self.done, self.won = True, isinstance(action, Guess) and action.k == self.secret
            return Seen(self.left, correct=self.won)
        self.left -= 1  # a test, or a reply the protocol could not read (Malformed): either costs a test
        x = None if isinstance(action, Malformed) else action.x
        return Seen(self.left, x=x, yes=None if x is None else x % self.secret == 0)

    def outcome(self) -> Outcome:  # success, and the metrics the reports read
        return Outcome(success=self.won, metrics={"tests_left": self.left})


class HelloProtocol(NamedTuple):  # the game as text for a language model
    max_tests: int

    def system_prompt(self) -> str:
        return f"My rule: x is a multiple of a secret k in 2..9. Write TEST x ({self.max_tests} tests), then GUESS k."

    def parse(self, reply: str) -> Test | Guess | Malformed:
        if (found := re.search(r"^\s*(TEST|GUESS)\s+(-?\d{1,9})\s*$", reply, re.I | re.M)) is None:
            return Malformed("no line TEST x or GUESS k")
        return Test(int(found[2])) if found[1].upper() == "TEST" else Guess(int(found[2]))

    def feedback(self, seen: Seen) -> str:
        if seen.correct is not None:
            return "Correct!" if seen.correct else "Wrong."
        said = f"{seen.x} is a multiple of k: {seen.yes}" if seen.x is not None else "Write TEST x or GUESS k"
        return f"{said}. Tests left: {seen.tests_left}."


class HelloSolver:  # the ideal player: of 2, 3, ..., 9 the first multiple of k is k itself
    async def act(self, seen: Seen) -> Move[Test | Guess]:
        x = 2 if seen.x is None else seen.x if seen.yes else seen.x + 1
        return Move(action=Guess(x) if seen.yes or seen.tests_left == 0 else Test(x))


class HelloFamily(Family[HelloConfig]):
    name, title, summary = "hello", "Hello, wason", "find the secret k of 'x is a multiple of k'"
    config_type, action_types = HelloConfig, (Test, Guess)

    def items(self, config: HelloConfig) -> list[Item]:  # a run's games: (key, JSON item) from its seed
        rng = random.Random(config.seed)
        return [(f"{config.seed}-{i}", {"id": i, "secret": rng.randint(2, 9)}) for i in range(config.n)]

    def game(self, config: HelloConfig, item: Mapping[str, Any], context: EpisodeContext) -> HelloGame:
        return HelloGame(item["secret"], config.max_tests)

    def protocol(self, config: HelloConfig, item: Mapping[str, Any]) -> HelloProtocol:
        return HelloProtocol(config.max_tests)

    def solver(self, config: HelloConfig, item: Mapping[str, Any]) -> HelloSolver:
        return HelloSolver()


FAMILY = HelloFamily()
