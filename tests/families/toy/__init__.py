"""A toy task family, "find the hidden threshold" t of x >= t (1 to 100): probes answered True or False, then one
guess. Proof that a new family needs its package and nothing else; it imports only ``wason.core``, as a plugin."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from wason.core.family import EpisodeContext, Family, FormField, Item, RunSettings, form_number
from wason.core.game import Malformed, Move, Outcome
from wason.core.moves import Command

GENERATOR, GENERATOR_VERSION, LOW, HIGH = "toy.threshold", 1, 1, 100
# ASCII digits only, and few of them: int() of a huge or non-ASCII digit string is slow or surprising
_COMMAND = re.compile(r"^[ \t]*(PROBE|GUESS)[ \t]+(-?[0-9]{1,6})[ \t\r]*$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Probe:
    x: int


@dataclass(frozen=True)
class Guess:
    t: int  # the one final guess: it ends the game


class ToyObservation(BaseModel):  # what the player learns after a move; never the threshold
    model_config = ConfigDict(frozen=True)
    kind: Literal["start", "answer", "format_error", "verdict", "ended"]
    remaining: int
    x: int | None = None
    result: bool | None = None
    reason: str | None = None
    correct: bool | None = None


class ToyRunConfig(RunSettings):
    item_fields: ClassVar[frozenset[str] | None] = frozenset({"seed", "n"})  # draw the items: hidden in play
    task: Literal["toy"] = "toy"
    seed: int = Field(default=0, ge=0, le=2**31, description="seed the hidden thresholds are drawn with")
    n: int = Field(default=5, ge=1, le=10_000, description="hidden thresholds (episodes) in the run")
    max_probes: int = Field(default=10, ge=1, le=1_000, description="probes before the guess is forced")


class ToyGame:  # a probe or an unreadable move costs one of max_probes; after the last one only a guess is taken
    def __init__(self, threshold: int, max_probes: int) -> None:
        self.threshold, self.max_probes, self.used, self.format_errors = threshold, max_probes, 0, 0
        self.history: list[tuple[int, bool]] = []
        self.guess: int | None = None
        self.end_reason: Literal["guess", "no_guess"] | None = None

    @property
    def done(self) -> bool:
        return self.end_reason is not None

    def start(self) -> ToyObservation:
        return ToyObservation(kind="start", remaining=self.max_probes)

    def step(self, action: Probe | Guess | Malformed) -> ToyObservation:
        if self.done:
            raise RuntimeError("the episode has ended")
        left = self.max_probes - self.used
        if isinstance(action, Guess):
            self.guess, self.end_reason = action.t, "guess"
            return ToyObservation(kind="verdict", remaining=left, correct=action.t == self.threshold)
        if left <= 0:
            self.end_reason = "no_guess"
            return ToyObservation(kind="ended", remaining=0, correct=False, reason="a guess was due")
        self.used += 1
        if isinstance(action, Malformed):
            self.format_errors += 1
            return ToyObservation(kind="format_error", remaining=left - 1, reason=action.reason)
        self.history.append((action.x, action.x >= self.threshold))
        return ToyObservation(kind="answer", remaining=left - 1, x=action.x, result=self.history[-1][1])

    def outcome(self) -> Outcome:
        metrics = {"correct": self.guess == self.threshold, "guess": self.guess, "threshold": self.threshold}
        metrics |= {"probes": len(self.history), "format_errors": self.format_errors}
        metrics |= {"end_reason": self.end_reason, "history": [list(h) for h in self.history]}
        return Outcome(success=self.guess == self.threshold, metrics=metrics)


@dataclass
class ToyProtocol:  # one command per reply, PROBE x or GUESS t, on a line of its own
    max_probes: int
    name = "toy"

    def system_prompt(self) -> str:
        return (
            f"I am thinking of an integer t between {LOW} and {HIGH}. A number x satisfies my rule when x >= t.\n"
            f"You may probe up to {self.max_probes} numbers: write `PROBE x` and I answer True or False. Then "
            "write `GUESS t` with your answer; the guess ends the game. Put exactly one command on a line of "
            "its own in each reply."
        )

    def parse(self, reply: str) -> Probe | Guess | Malformed:
        found = _COMMAND.findall(reply)
        if len(found) != 1:
            what = "no command" if not found else f"{len(found)} commands"
            return Malformed(f"{what}; write exactly one line `PROBE x` or `GUESS t`")
        return Probe(int(found[0][1])) if found[0][0].upper() == "PROBE" else Guess(int(found[0][1]))

    def feedback(self, o: ToyObservation) -> str:
        return {
            "answer": f"{o.x} >= t is {o.result}. Probes left: {o.remaining}.",
            "format_error": f"Unreadable reply: {o.reason}. Probes left: {o.remaining}.",
            "verdict": "Correct." if o.correct else "Wrong.",
            "ended": f"Game over: {o.reason}.",
        }.get(o.kind, f"Probes left: {o.remaining}.")


class ToySolver:  # the ideal player: binary search over 1..100 (at most seven probes), then the guess
    def __init__(self) -> None:
        self.low, self.high = LOW, HIGH

    async def act(self, o: ToyObservation) -> Move[Probe | Guess]:
        if o.kind == "answer" and o.x is not None:  # its own probe, low <= x < high: halve the range
            self.high, self.low = (o.x, self.low) if o.result else (self.high, o.x + 1)
        if self.low >= self.high or o.remaining <= 0:
            return Move(action=Guess(self.low))
        return Move(action=Probe((self.low + self.high) // 2))


class ToyFamily(Family[ToyRunConfig]):
    name, title, config_type, playable = "toy", "Toy threshold", ToyRunConfig, True
    summary, action_types = "find the hidden threshold t of x >= t: probes, then one guess", (Probe, Guess)

    def items(self, config: ToyRunConfig) -> list[Item]:
        s, rng, params = config.seed, random.Random(config.seed), {"n": config.n, "low": LOW, "high": HIGH}
        prov = {"generator": GENERATOR, "version": GENERATOR_VERSION, "seed": s, "params": params}
        drawn = enumerate((rng.randint(LOW, HIGH) for _ in range(config.n)), 1)
        return [(f"toy-{s}-{i}", {"id": i, "threshold": t, "provenance": prov}) for i, t in drawn]

    def game(self, config: ToyRunConfig, item: Mapping[str, Any], context: EpisodeContext) -> ToyGame:
        return ToyGame(int(item["threshold"]), config.max_probes)

    def protocol(self, config: ToyRunConfig, item: Mapping[str, Any]) -> ToyProtocol:
        return ToyProtocol(config.max_probes)

    def solver(self, config: ToyRunConfig, item: Mapping[str, Any]) -> ToySolver:
        return ToySolver()

    def moves(self, config: ToyRunConfig, item: Mapping[str, Any], observation: Any) -> Sequence[Command]:
        x, t = FormField("x", "x", kind="number", placeholder="50"), FormField("t", "t", kind="number")
        return (
            Command(name="probe", label="Probe", make=lambda v: Probe(form_number(v, "x")), fields=(x,)),
            Command(name="guess", label="Guess", make=lambda v: Guess(form_number(v, "t")), fields=(t,)),
        )

    def item_id(self, item: Mapping[str, Any]) -> int | None:
        return int(item["id"])

    def public(self, item: Mapping[str, Any]) -> list[str]:
        return ["id"]

    def ending(self, item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
        verdict = "" if metrics is None else (" You found it." if metrics["correct"] else " Not found.")
        return [f"The threshold was {item['threshold']}.{verdict}"]


FAMILY = ToyFamily()
