"""Rewards of the text environments: the code verdict, and optional shaping declared as data.

The reward of an episode is

    R = win * success + format_error * F + invalid * I + repeat * P + information * H

with ``success`` the family's code verdict (1 or 0), ``F`` the replies the protocol could not read, ``I`` and ``P``
the invalid and repeated experiments the family counts, and ``H`` the share of the family's hypothesis space the
episode's experiments ruled out (0 to 1). By default only ``win`` is set (1): the reward is the verdict.

A family declares what it counts beside its settings, as data on its run configuration
(:attr:`~wason.core.family.RunSettings.reward_counts`: a component's name to the episode metric that counts it;
:attr:`~wason.core.family.RunSettings.reward_information`: the metric holding its hypothesis-space curve); a
weight set for a component the family does not count is refused, naming what it counts. ``F`` needs nothing from
a family: the environment counts the replies it could not read. The format-error term is paid at the step of
the reply; the rest at the end, when the game has counted them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from wason.core.family import RunSettings

__all__ = ["COMPONENTS", "MAX_WEIGHT", "Shaping", "terminal_components"]

MAX_WEIGHT = 100.0
"""The largest weight a component may have, either sign."""

COMPONENTS = ("win", "format_error", "invalid", "repeat", "information")
"""The reward's components, in the formula's order."""


class Shaping(BaseModel):
    """The weights of the reward's components (see the module)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    win: float = Field(default=1.0, ge=-MAX_WEIGHT, le=MAX_WEIGHT, description="weight of the code verdict")
    format_error: float = Field(
        default=0.0, ge=-MAX_WEIGHT, le=MAX_WEIGHT, description="per unreadable reply"
    )
    invalid: float = Field(default=0.0, ge=-MAX_WEIGHT, le=MAX_WEIGHT, description="per invalid experiment")
    repeat: float = Field(default=0.0, ge=-MAX_WEIGHT, le=MAX_WEIGHT, description="per repeated experiment")
    information: float = Field(
        default=0.0, ge=-MAX_WEIGHT, le=MAX_WEIGHT, description="times the share of hypotheses ruled out"
    )

    def check(self, family: str, config: RunSettings) -> None:
        """Refuse a weight the family cannot pay: a count or a hypothesis space it does not declare.

        Raises:
            ValueError: one line naming the component and what the family declares.
        """
        counts = dict(type(config).reward_counts)
        for name in ("invalid", "repeat"):
            if getattr(self, name) and name not in counts:
                declared = ", ".join(sorted(counts)) or "none"
                raise ValueError(
                    f"shaping {name}: {family} counts no {name} experiments (its counts: {declared})"
                )
        if self.information and type(config).reward_information is None:
            raise ValueError(f"shaping information: {family} declares no hypothesis space to measure it on")


def _count(metrics: Mapping[str, Any], key: str) -> float:
    value = metrics.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0.0
    return float(value)


def _information(metrics: Mapping[str, Any], key: str | None) -> float:
    """The share of hypotheses ruled out by the episode's last test: the curve's last value (0 without one)."""
    if key is None:
        return 0.0
    curve = metrics.get(key)
    if isinstance(curve, Sequence) and not isinstance(curve, str) and curve:
        return _count({"v": curve[-1]}, "v")
    return _count(metrics, key)


def terminal_components(
    shaping: Shaping, config: RunSettings, success: bool | None, metrics: Mapping[str, Any]
) -> dict[str, float]:
    """The components paid at the end: the verdict, the counted experiments and the information gained."""
    counts = type(config).reward_counts
    out = {"win": shaping.win * (1.0 if success else 0.0)}
    for name in ("invalid", "repeat"):
        if getattr(shaping, name):
            out[name] = getattr(shaping, name) * _count(metrics, counts[name])
    if shaping.information:
        out["information"] = shaping.information * _information(metrics, type(config).reward_information)
    return out
