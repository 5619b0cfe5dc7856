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
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from rich.console import RenderableType
from rich.table import Table

from wason.core.family import ActionCodec, EpisodeContext, Family, Item, PlayIO, RunReader, RunSettings
from wason.core.game import Malformed, Move, Outcome, PlayerLeft
from wason.core.records import RunReport, RunRow, run_header

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


class ToyHuman:
    """A person typing the protocol's commands."""

    def __init__(self, protocol: ToyProtocol, io: PlayIO) -> None:
        self.protocol, self.io = protocol, io

    async def act(self, observation: ToyObservation) -> Move[Probe | Guess]:
        if observation.kind == "start":
            self.io.write(self.protocol.system_prompt())
        else:
            self.io.write(self.protocol.feedback(observation))
        try:
            text = self.io.read("> ")
        except EOFError:
            raise PlayerLeft("the input closed") from None
        return Move(action=self.protocol.parse(text), reply=text)


class ToyEpisodeRow(BaseModel):
    """One episode of a report; the threshold and the guess are None until the episode is over."""

    index: int
    item: str
    status: str
    success: bool | None
    threshold: int | None
    guess: int | None
    probes: int | None


class ToyRunReport(RunReport):
    """``wason show RUN --json`` of a toy run: how many thresholds were found, every episode, the baselines."""

    successes: int
    episodes: list[ToyEpisodeRow]
    baselines: list[ToyRunReport] = Field(default_factory=list)


def _run_report(store: RunReader, run_id: int) -> ToyRunReport:
    rows = []
    for e in store.list_episodes(run_id):
        m = e.metrics or {}
        rows.append(
            ToyEpisodeRow(
                index=e.index,
                item=e.item_key,
                status=e.status,
                success=e.success,
                threshold=m.get("threshold"),
                guess=m.get("guess"),
                probes=m.get("probes"),
            )
        )
    successes = sum(bool(r.success) for r in rows)
    return ToyRunReport(**run_header(store.get_run(run_id)), successes=successes, episodes=rows)


class ToyFamily(Family[ToyRunConfig]):
    """Find the hidden threshold: probes answered True/False, then one guess."""

    name = "toy"
    title = "Toy threshold"
    summary = "find the hidden threshold t of x >= t: probes, then one guess"
    config_type = ToyRunConfig
    players = ("llm", "solver")
    playable = True

    _codec = ActionCodec(Probe, Guess)

    @property
    def actions(self) -> ActionCodec:
        return self._codec

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

    def human(self, config: ToyRunConfig, item: Mapping[str, Any], io: PlayIO) -> ToyHuman:
        return ToyHuman(self.protocol(config, item), io)

    def item_id(self, item: Mapping[str, Any]) -> int | None:
        return int(item["id"])

    def public(self, item: Mapping[str, Any]) -> list[str]:
        return ["id"]

    def ending(self, item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
        verdict = "" if metrics is None else (" You found it." if metrics["correct"] else " Not found.")
        return [f"The threshold was {item['threshold']}.{verdict}"]

    def describe(self, config: ToyRunConfig, n_episodes: int, n_todo: int, who: str) -> str:
        return (
            f"toy thresholds, seed {config.seed} ({n_episodes} items, {n_todo} to play) with {who}; "
            f"{config.max_probes} probes then one guess"
        )

    def report_json(self, store: RunReader, run_ids: Sequence[int]) -> ToyRunReport:
        report = _run_report(store, run_ids[0])
        report.baselines = [_run_report(store, r) for r in run_ids[1:]]
        return report

    def report(self, store: RunReader, run_ids: Sequence[int]) -> list[RenderableType]:
        table = Table(title=f"Toy thresholds in {store.url}")
        for col in ("run", "player", "episode", "threshold", "guess", "probes", "correct"):
            table.add_column(col)
        runs = [_run_report(store, run_id) for run_id in run_ids]
        for run in runs:
            for row in run.episodes:
                cells = (row.index, row.threshold or "?", row.guess, row.probes, row.success)
                table.add_row(str(run.run), run.player, *map(str, cells))
        first = runs[0]
        return [table, f"run id: {first.run}   ({first.successes}/{len(first.episodes)} correct)"]

    def transcript(self, data: dict[str, Any], run: RunRow, *, full: bool = False) -> RenderableType:
        # the threshold is shown only once the game is over: a transcript of a running session must not leak it
        hidden = data["item"]["threshold"] if data["status"] == "completed" else "hidden"
        table = Table(title=f"Toy run {run.id}, episode {data['index']} (threshold {hidden})")
        for col in ("turn", "action", "feedback"):
            table.add_column(col)
        for turn in data["turns"]:
            action = " ".join(f"{k}={v}" for k, v in turn["action"].items())
            table.add_row(str(turn["index"]), action, turn["feedback"] or "")
        return table


FAMILY = ToyFamily()
