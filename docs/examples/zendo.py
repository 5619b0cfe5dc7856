"""A Zendo-like family written from docs/families.md alone: rows of coloured shapes, tests, a guess from a menu."""

import itertools
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from pydantic import Field

from wason.core import Family, Item, Malformed, Move, Outcome, RunSettings

COLOURS, SHAPES = ("red", "blue", "green"), ("circle", "square", "triangle")
Row = tuple[tuple[str, str], ...]  # (colour, shape) pieces
RULES = {  # the menu: a rule's name, and whether a row follows it
    "has a red piece": lambda row: any(c == "red" for c, _ in row),
    "all one colour": lambda row: len({c for c, _ in row}) == 1,
    "has a triangle": lambda row: any(s == "triangle" for _, s in row),
    "no blue piece": lambda row: all(c != "blue" for c, _ in row),
    "at least three pieces": lambda row: len(row) >= 3,
    "two pieces alike": lambda row: len(set(row)) < len(row),
}
MENU, FOLLOWS = list(RULES), list(RULES.values())  # FOLLOWS[rule - 1](row): a rule by its number, from 1
PIECES = [(c, s) for c in COLOURS for s in SHAPES]
ROWS = [row for n in (1, 2, 3) for row in itertools.product(PIECES, repeat=n)]  # the rows a solver may test
PIECE = re.compile(rf"({'|'.join(COLOURS)})\s+({'|'.join(SHAPES)})", re.I)


@dataclass(frozen=True)
class Test:
    row: Row


@dataclass(frozen=True)
class Guess:
    rule: int


@dataclass(frozen=True)
class Seen:
    tests_left: int
    row: Row | None = None
    follows: bool | None = None
    correct: bool | None = None


class ZendoConfig(RunSettings):
    task: Literal["zendo"] = "zendo"
    seed: int = Field(default=0, ge=0, le=2**31, description="seed the hidden rules are drawn with")
    n: int = Field(default=8, ge=1, le=10_000, description="games in the run")
    max_tests: int = Field(default=10, ge=1, le=50, description="tests before the guess is due")


class ZendoGame:
    def __init__(self, rule: int, max_tests: int) -> None:
        self.rule, self.left, self.done, self.won = rule, max_tests, False, False

    def start(self) -> Seen:
        return Seen(self.left)

    def step(self, action: Test | Guess | Malformed) -> Seen:
        if isinstance(action, Guess) or self.left == 0:
            self.done, self.won = True, isinstance(action, Guess) and action.rule == self.rule
            return Seen(self.left, correct=self.won)
        self.left -= 1
        row = None if isinstance(action, Malformed) else action.row
        return Seen(self.left, row=row, follows=None if row is None else FOLLOWS[self.rule - 1](row))

    def outcome(self) -> Outcome:
        return Outcome(success=self.won, metrics={"tests_left": self.left})


class ZendoProtocol(NamedTuple):  # with no moves declared, a person types these commands too
    max_tests: int

    def system_prompt(self) -> str:
        menu = "\n".join(f"{i}. {name}" for i, name in enumerate(MENU, 1))
        return (
            f"A row is 1 to 6 pieces, each a colour ({', '.join(COLOURS)}) and a shape ({', '.join(SHAPES)}). "
            f"One rule of this menu says which rows follow it:\n{menu}\nTest up to {self.max_tests} rows "
            "(TEST red circle, blue square), then name the rule (GUESS 3). One command per reply."
        )

    def parse(self, reply: str) -> Test | Guess | Malformed:
        if found := re.search(r"^\s*GUESS\s+([1-9])\s*$", reply, re.I | re.M):
            return Guess(int(found[1])) if int(found[1]) <= len(MENU) else Malformed("no such rule")
        if not (found := re.search(r"^\s*TEST\s+(.+)$", reply, re.I | re.M)):
            return Malformed("no line TEST ... or GUESS N")
        row = tuple((c.lower(), s.lower()) for c, s in PIECE.findall(found[1]))
        if not 1 <= len(row) <= 6:
            return Malformed("row: 1 to 6 pieces such as 'red circle, blue square'")
        return Test(row)

    def feedback(self, seen: Seen) -> str:
        if seen.correct is not None:
            return "Correct!" if seen.correct else "Wrong."
        said = f"That row {'follows' if seen.follows else 'breaks'} the rule" if seen.row else "Unreadable"
        return f"{said}. Tests left: {seen.tests_left}."


class ZendoSolver:  # tests the row that splits the rules still possible most evenly; guesses when one is left
    def __init__(self) -> None:
        self.alive = list(range(1, len(MENU) + 1))

    async def act(self, seen: Seen) -> Move[Test | Guess]:
        if seen.row is not None:
            self.alive = [r for r in self.alive if FOLLOWS[r - 1](seen.row) == seen.follows]
        if len(self.alive) == 1 or seen.tests_left == 0:
            return Move(action=Guess(self.alive[0]))
        split = min(ROWS, key=lambda row: abs(sum(FOLLOWS[r - 1](row) * 2 - 1 for r in self.alive)))
        return Move(action=Test(split))


class ZendoFamily(Family[ZendoConfig]):
    name, title, summary = "zendo", "Zendo", "find which rule of a menu the rows of coloured shapes follow"
    config_type, action_types, playable = ZendoConfig, (Test, Guess), True

    def items(self, config: ZendoConfig) -> list[Item]:
        rng = random.Random(config.seed)
        return [(f"{config.seed}-{i}", {"id": i, "rule": rng.randint(1, len(MENU))}) for i in range(config.n)]

    def game(self, config: ZendoConfig, item: Mapping[str, Any], context: Any) -> ZendoGame:
        return ZendoGame(item["rule"], config.max_tests)

    def protocol(self, config: ZendoConfig, item: Mapping[str, Any]) -> ZendoProtocol:
        return ZendoProtocol(config.max_tests)

    def solver(self, config: ZendoConfig, item: Mapping[str, Any]) -> ZendoSolver:
        return ZendoSolver()


FAMILY = ZendoFamily()
