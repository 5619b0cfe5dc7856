"""Curricula: a controller that moves along a family's difficulty axes to hold a target success rate.

A family declares its difficulty axes as data beside its settings
(:attr:`~wason.core.family.RunSettings.difficulty_axes`: a configuration field to its values, easiest first: a
test budget, published levels, a world's difficulty). :class:`Curriculum` holds a position on
every axis, starting at the easiest; after each ``window`` episodes it compares their success rate with the target:
above ``target + margin`` one axis moves a step harder (the axis that is least far along, in declared order on a
tie), below ``target - margin`` one moves a step easier (the one furthest along). :class:`CurriculumEnv` is a text
environment whose every reset plays at the controller's current position and records it: ``info["curriculum"]``
holds the axes' values the item was drawn with and the controller's step.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from wason.core import registry
from wason.core.family import RunSettings
from wason.env.text import TextEnv

__all__ = ["MAX_AXIS_VALUES", "MAX_WINDOW", "Curriculum", "CurriculumEnv"]

MAX_WINDOW = 10_000
"""The most episodes a controller's window holds."""

MAX_AXIS_VALUES = 100
"""The most values one axis may have."""


class Curriculum:
    """The controller (see the module).

    Args:
        axes: a configuration field to its values, easiest first.
        target: the success rate to hold, from 0 to 1.
        window: the episodes between two decisions.
        margin: how far from the target the window's rate must be for a move (0 to 0.5).

    Raises:
        ValueError: no axis, an axis without values or with more than :data:`MAX_AXIS_VALUES`, or a bound.
    """

    def __init__(
        self,
        axes: Mapping[str, Sequence[Any]],
        *,
        target: float = 0.5,
        window: int = 32,
        margin: float = 0.1,
    ) -> None:
        if not axes:
            raise ValueError("axes: at least one difficulty axis (a field and its values, easiest first)")
        for name, values in axes.items():
            if not 1 <= len(values) <= MAX_AXIS_VALUES:
                raise ValueError(f"axes: {name} needs 1 to {MAX_AXIS_VALUES} values, not {len(values)}")
        if not 0.0 <= target <= 1.0:
            raise ValueError(f"target: a success rate from 0 to 1, not {target}")
        if not 1 <= window <= MAX_WINDOW:
            raise ValueError(f"window: from 1 to {MAX_WINDOW} episodes, not {window}")
        if not 0.0 <= margin <= 0.5:
            raise ValueError(f"margin: from 0 to 0.5, not {margin}")
        self.axes = {name: tuple(values) for name, values in axes.items()}
        self.target, self.window, self.margin = target, window, margin
        self.position = dict.fromkeys(self.axes, 0)
        self.step = 0
        self.moves: list[tuple[int, str, int]] = []  # (episodes seen, axis, +1 or -1)
        self._recent: deque[bool] = deque(maxlen=window)
        self._episodes = 0

    def settings(self) -> dict[str, Any]:
        """The configuration fields at the current position."""
        return {name: self.axes[name][i] for name, i in self.position.items()}

    def _progress(self, name: str) -> float:
        top = len(self.axes[name]) - 1
        return self.position[name] / top if top else 1.0

    def record(self, success: bool | None) -> None:
        """One finished episode (a cut-off one, ``None``, counts as lost); may move the position."""
        self._episodes += 1
        self._recent.append(bool(success))
        if len(self._recent) < self.window:
            return
        rate = sum(self._recent) / len(self._recent)
        if rate > self.target + self.margin:
            movable = [n for n in self.axes if self.position[n] < len(self.axes[n]) - 1]
            if movable:
                self._move(min(movable, key=self._progress), +1)
        elif rate < self.target - self.margin:
            movable = [n for n in self.axes if self.position[n] > 0]
            if movable:
                self._move(max(reversed(movable), key=self._progress), -1)
        self._recent.clear()

    def _move(self, name: str, by: int) -> None:
        self.position[name] += by
        self.step += 1
        self.moves.append((self._episodes, name, by))


class CurriculumEnv:
    """A text environment of one family at a :class:`Curriculum`'s position (Gymnasium's ``reset`` / ``step``
    over text, as :class:`~wason.env.text.TextEnv`): each finished episode is recorded with the controller.

    Args:
        family: the family's registered name.
        config: the fields of its configuration the axes do not set.
        axes: the difficulty axes (default: the family's declared ones).
        target, window, margin: the controller's (:class:`Curriculum`).
        kwargs: as :class:`~wason.env.text.TextEnv` (``max_turns``, ``shaping``, ``oracle``).

    Raises:
        ValueError: the family declares no axes and none are given, or an axis that is not a field of its
            configuration.
    """

    def __init__(
        self,
        family: str,
        config: Mapping[str, Any] | None = None,
        *,
        axes: Mapping[str, Sequence[Any]] | None = None,
        target: float = 0.5,
        window: int = 32,
        margin: float = 0.1,
        **kwargs: Any,
    ) -> None:
        fam = registry.get(family)
        config_type: type[RunSettings] = fam.config_type
        axes = dict(axes if axes is not None else config_type.difficulty_axes)
        if not axes:
            raise ValueError(f"{fam.name} declares no difficulty axes: give axes={{field: values, ...}}")
        unknown = sorted(set(axes) - set(config_type.model_fields))
        if unknown:
            raise ValueError(f"axes: {', '.join(unknown)} is not a field of {fam.name}'s configuration")
        self.name = fam.name
        self.base = dict(config or {})
        self.curriculum = Curriculum(axes, target=target, window=window, margin=margin)
        self._kwargs = kwargs
        self._envs: dict[str, TextEnv] = {}
        self._env: TextEnv | None = None
        self._where: dict[str, Any] = {}

    @property
    def messages(self) -> list[dict[str, str]]:
        return [] if self._env is None else self._env.messages

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        settings = self.curriculum.settings()
        key = repr(sorted(settings.items()))
        if key not in self._envs:  # one environment per position reached, kept for the next visit
            self._envs[key] = TextEnv(self.name, {**self.base, **settings}, **self._kwargs)
        self._env = self._envs[key]
        self._where = {**settings, "step": self.curriculum.step}
        observation, info = self._env.reset(seed=seed, options=options)
        return observation, {**info, "curriculum": dict(self._where)}

    def step(self, reply: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self._env is None:
            raise RuntimeError("reset() the environment before you step it")
        observation, reward, terminated, truncated, info = self._env.step(reply)
        info = {**info, "curriculum": dict(self._where)}
        if terminated or truncated:
            self.curriculum.record(info.get("success"))
        return observation, reward, terminated, truncated, info

    def close(self) -> None:
        for env in self._envs.values():
            env.close()
        self._envs.clear()
        self._env = None
