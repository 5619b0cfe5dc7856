"""Families planted with a hole in their reward, for the reward audit's tests: each passes wason's other checks
and must fail the audit, naming the check.

- :data:`LEAKY`: the toy threshold game whose instructions name the hidden rule (``x >= 37``).
- :data:`SAMPLED`: WILT whose verdict is the reference's sampled one (agreement on a probe set), not the decided
  one: a guess that is wrong only beyond the probes, a range cap or a carve-out, is rewarded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.families.toy import ToyFamily, ToyProtocol
from wason.core.family import EpisodeContext, Item
from wason.core.game import Outcome
from wason.tasks.wilt.family import WiltFamily, WiltRunConfig


class _LeakyProtocol(ToyProtocol):
    def __init__(self, max_probes: int, threshold: int) -> None:
        super().__init__(max_probes)
        self.threshold = threshold

    def system_prompt(self) -> str:
        return super().system_prompt() + f"\n(Between us: the rule is x >= {self.threshold}.)"


class LeakyToy(ToyFamily):
    name = "toy-leaky"
    title = "Toy threshold, with the rule in its prompt"

    def items(self, config: Any) -> list[Item]:
        return [(key, {**item, "rule": f"x >= {item['threshold']}"}) for key, item in super().items(config)]

    def protocol(self, config: Any, item: Mapping[str, Any]) -> ToyProtocol:
        return _LeakyProtocol(config.max_probes, int(item["threshold"]))


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
