"""Families planted with a hole in their reward, for the reward audit's tests: each passes wason's other checks
and must fail the audit, naming the check.

- :data:`LEAKY`: the toy threshold game whose instructions name the hidden rule (``x >= 37``).
- :data:`TOLD`: the toy whose first observation says "the rule is x >= 37" (the contract's leak check fails it).
- :data:`TOLD_LATER`: the toy whose feedback to a probe says the rule, and nothing else does (the contract's leak
  check fails it too).
- :data:`SAMPLED`: WILT whose verdict is the reference's sampled one (agreement on a probe set), not the decided
  one: a guess that is wrong only beyond the probes, a range cap or a carve-out, is rewarded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from tests.families.toy import ToyFamily, ToyGame, ToyObservation, ToyProtocol, ToyRunConfig
from wason.core.family import EpisodeContext, Item
from wason.core.game import Outcome
from wason.tasks.wilt.family import WiltFamily, WiltRunConfig


class _LeakyProtocol(ToyProtocol):
    def __init__(self, max_probes: int, threshold: int) -> None:
        super().__init__(max_probes)
        self.threshold = threshold

    def system_prompt(self) -> str:
        return super().system_prompt() + f"\n(Between us: the rule is x >= {self.threshold}.)"


class LeakyConfig(ToyRunConfig):
    task: Literal["toy-leaky"] = "toy-leaky"  # type: ignore[assignment]


class LeakyToy(ToyFamily):
    name = "toy-leaky"
    title = "Toy threshold, with the rule in its prompt"
    config_type = LeakyConfig

    def items(self, config: Any) -> list[Item]:
        return _with_rule(super().items(config))

    def protocol(self, config: Any, item: Mapping[str, Any]) -> ToyProtocol:
        return _LeakyProtocol(config.max_probes, int(item["threshold"]))


def _with_rule(items: list[Item]) -> list[Item]:
    """The toy's items with the hidden rule spelt out (as a published family's item holds its rule's text)."""
    return [(key, {**item, "rule": f"x >= {item['threshold']}"}) for key, item in items]


class _ToldGame(ToyGame):
    def start(self) -> ToyObservation:
        return ToyObservation(
            kind="start", remaining=self.max_probes, reason=f"the rule is x >= {self.threshold}"
        )


class ToldConfig(ToyRunConfig):
    task: Literal["toy-told"] = "toy-told"  # type: ignore[assignment]


class ToldToy(ToyFamily):
    """The toy whose first observation names its hidden rule: a session's view and the play page show it."""

    name = "toy-told"
    title = "Toy threshold, with the rule in its first observation"
    config_type = ToldConfig

    def items(self, config: Any) -> list[Item]:
        return _with_rule(super().items(config))

    def game(self, config: Any, item: Mapping[str, Any], context: EpisodeContext) -> ToyGame:
        return _ToldGame(int(item["threshold"]), config.max_probes)


class _TellingProtocol(ToyProtocol):
    def __init__(self, max_probes: int, threshold: int) -> None:
        super().__init__(max_probes)
        self.threshold = threshold

    def feedback(self, observation: ToyObservation) -> str:
        text = super().feedback(observation)
        return text + f" (The rule is x >= {self.threshold}.)" if observation.kind == "answer" else text


class ToldLaterConfig(ToyRunConfig):
    task: Literal["toy-told-later"] = "toy-told-later"  # type: ignore[assignment]


class ToldLaterToy(ToyFamily):
    """The toy whose answer to a probe names the hidden rule: only the feedback a player reads shows it."""

    name = "toy-told-later"
    title = "Toy threshold, with the rule in its feedback"
    config_type = ToldLaterConfig

    def items(self, config: Any) -> list[Item]:
        return _with_rule(super().items(config))

    def protocol(self, config: Any, item: Mapping[str, Any]) -> ToyProtocol:
        return _TellingProtocol(config.max_probes, int(item["threshold"]))


class _SampledVerdict:
    """A WILT game whose success is the reference's sampled verdict: correct, or ``approximately_correct`` (it
    agrees with the rule on the probe set; the metric is set only where the guess is not correct)."""

    def __init__(self, game: Any) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def outcome(self) -> Outcome:
        outcome: Outcome = self._game.outcome()
        m = outcome.metrics
        return Outcome(success=bool(m.get("correct") or m.get("approximately_correct")), metrics=m)


class SampledWilt(WiltFamily):
    name = "wilt-sampled"
    title = "WILT judged on samples"

    def game(self, config: WiltRunConfig, item: Mapping[str, Any], context: EpisodeContext) -> Any:
        return _SampledVerdict(super().game(config, item, context))


LEAKY = LeakyToy()
SAMPLED = SampledWilt()
TOLD = ToldToy()
TOLD_LATER = ToldLaterToy()
