"""A toy task family, "find the hidden threshold": proof that a new family needs its package and nothing else.

The hidden rule is ``x >= t`` for an integer ``t`` in 1..100, drawn per item from the configuration's seed. The
player probes integers (``Probe(x)``, answered True or False) and ends the game with one ``Guess(t)``. A probe or
an unreadable move each use one of ``max_probes``; after the last one only a guess is accepted (as in WILT), and
any other move ends the game with no guess. The family imports only ``wason.core``, as a plugin would.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from wason.core.family import (
    EpisodeContext,
    Family,
    FormField,
    Item,
    RunSettings,
    form_number,
)
from wason.core.game import Malformed, Move, Outcome
from wason.core.moves import Command

GENERATOR = "toy.threshold"
GENERATOR_VERSION = 1
LOW, HIGH = 1, 100
# ASCII digits only, and few of them: int() of a huge or non-ASCII digit string is slow or surprising
_COMMAND = re.compile(r"^[ \t]*(PROBE|GUESS)[ \t]+(-?[0-9]{1,6})[ \t\r]*$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Probe:
    """Ask whether ``x`` satisfies the hidden rule."""

    x: int


@dataclass(frozen=True)
class Guess:
    """The one final guess of the threshold; it ends the game."""

    t: int


class ToyObservation(BaseModel):
    """What the player learns after a move; the threshold itself never appears."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["start", "answer", "format_error", "verdict", "ended"]
    remaining: int
    x: int | None = None
    result: bool | None = None
    reason: str | None = None
    correct: bool | None = None


class ToyRunConfig(RunSettings):
    """A toy run: ``n`` hidden thresholds drawn with ``seed``, at most ``max_probes`` probes each."""

    model_config = ConfigDict(frozen=True)

    # the fields that choose which items a run plays (hidden while a game of the run is on)
    item_fields: ClassVar[frozenset[str] | None] = frozenset({"seed", "n"})
    # `wason play` and `wason session start` take --seed to draw the game to play: the seed is --config-seed there
    play_flag_names: ClassVar[Mapping[str, str]] = {"seed": "config-seed"}

    task: Literal["toy"] = "toy"
    seed: int = Field(default=0, description="seed the hidden thresholds are drawn with")
    n: int = Field(default=5, description="hidden thresholds (episodes) in the run")
    max_probes: int = Field(default=10, description="probes before the guess is forced")

    @field_validator("n", "max_probes")
    @classmethod
    def _positive(cls, v: int) -> int:
        if v < 1:
            raise ValueError("must be at least 1")
        return v


class ToyGame:
    """One episode against a hidden threshold."""

    def __init__(self, threshold: int, max_probes: int) -> None:
        self.threshold = threshold
        self.max_probes = max_probes
        self.history: list[tuple[int, bool]] = []
        self.used = 0
        self.format_errors = 0
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
        remaining = self.max_probes - self.used
        if isinstance(action, Guess):
            self.guess, self.end_reason = action.t, "guess"
            return ToyObservation(kind="verdict", remaining=remaining, correct=action.t == self.threshold)
        if remaining <= 0:  # the probes are used up: only the guess was accepted
            self.end_reason = "no_guess"
            return ToyObservation(kind="ended", remaining=0, correct=False, reason="a guess was due")
        self.used += 1
        if isinstance(action, Malformed):
            self.format_errors += 1
            return ToyObservation(kind="format_error", remaining=remaining - 1, reason=action.reason)
        result = action.x >= self.threshold
        self.history.append((action.x, result))
        return ToyObservation(kind="answer", remaining=remaining - 1, x=action.x, result=result)

    def outcome(self) -> Outcome:
        correct = self.guess == self.threshold
        metrics = {
            "correct": correct,
            "guess": self.guess,
            "threshold": self.threshold,
            "probes": len(self.history),
            "format_errors": self.format_errors,
            "end_reason": self.end_reason,
            "history": [[x, r] for x, r in self.history],
        }
        return Outcome(success=correct, metrics=metrics)


class ToyProtocol:
    """Plain text: one command per reply, ``PROBE x`` or ``GUESS t``, on a line of its own."""

    name = "toy"

    def __init__(self, max_probes: int) -> None:
        self.max_probes = max_probes

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
        verb, number = found[0]
        return Probe(int(number)) if verb.upper() == "PROBE" else Guess(int(number))

    def feedback(self, observation: ToyObservation) -> str:
        o = observation
        if o.kind == "answer":
            return f"{o.x} >= t is {o.result}. Probes left: {o.remaining}."
        if o.kind == "format_error":
            return f"Unreadable reply: {o.reason}. Probes left: {o.remaining}."
        if o.kind == "verdict":
            return "Correct." if o.correct else "Wrong."
        if o.kind == "ended":
            return f"Game over: {o.reason}."
        return f"Probes left: {o.remaining}."


class ToySolver:
    """The ideal player: binary search over 1..100 (at most seven probes), then the guess."""

    def __init__(self) -> None:
        self.low, self.high = LOW, HIGH

    async def act(self, observation: ToyObservation) -> Move[Probe | Guess]:
        if observation.kind == "answer" and observation.x is not None:
            if observation.result:
                self.high = min(self.high, observation.x)
            else:
                self.low = max(self.low, observation.x + 1)
        if self.low >= self.high or observation.remaining <= 0:
            return Move(action=Guess(self.low))
        return Move(action=Probe((self.low + self.high) // 2))


class ToyFamily(Family[ToyRunConfig]):
    """Find the hidden threshold: probes answered True/False, then one guess."""

    name = "toy"
    title = "Toy threshold"
    summary = "find the hidden threshold t of x >= t: probes, then one guess"
    config_type = ToyRunConfig
    playable = True
    action_types = (Probe, Guess)

    def items(self, config: ToyRunConfig) -> list[Item]:
        rng = random.Random(config.seed)
        params = {"n": config.n, "low": LOW, "high": HIGH}
        provenance = {
            "generator": GENERATOR,
            "version": GENERATOR_VERSION,
            "seed": config.seed,
            "params": params,
        }
        return [
            (
                f"toy-{config.seed}-{i}",
                {"id": i, "threshold": rng.randint(LOW, HIGH), "provenance": provenance},
            )
            for i in range(1, config.n + 1)
        ]

    def game(self, config: ToyRunConfig, item: Mapping[str, Any], context: EpisodeContext) -> ToyGame:
        return ToyGame(int(item["threshold"]), config.max_probes)

    def protocol(self, config: ToyRunConfig, item: Mapping[str, Any]) -> ToyProtocol:
        return ToyProtocol(config.max_probes)

    def sample_key(self, config: ToyRunConfig, item: Mapping[str, Any]) -> str:
        return f"{item['provenance']['seed']}|{item['id']}"

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
