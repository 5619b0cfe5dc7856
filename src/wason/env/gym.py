"""The text environments as Gymnasium environments (``pip install 'wason[gym]'``): ``gymnasium.make("wason/NAME-v0",
**settings)`` for every registered family, plugins included, and ``gymnasium.utils.env_checker.check_env``
passes on each.

Gymnasium finds them through its ``gymnasium.envs`` entry point, which names :func:`register_envs`; the
observation and action spaces are :class:`TextSpace`: any text up to a length (Gymnasium's own ``Text`` space
holds an alphabet, and a protocol's text is not alphanumeric).
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

import gymnasium
from gymnasium import spaces

from wason.core import registry
from wason.env.text import MAX_REPLY, TextEnv

__all__ = ["MAX_TEXT", "TextSpace", "WasonEnv", "env_id", "register_envs"]

MAX_TEXT = MAX_REPLY
"""The longest observation or reply the spaces hold, in characters (an opening is a few thousand; a longer reply
is played unread, :data:`wason.env.text.MAX_REPLY`)."""

SAMPLED = string.ascii_letters + string.digits + string.punctuation + " \n"
"""The characters :meth:`TextSpace.sample` draws from (what a random player types)."""


class TextSpace(spaces.Text):
    """Any Python string of at most :data:`MAX_TEXT` characters; samples are drawn from :data:`SAMPLED`."""

    def __init__(
        self, max_length: int = MAX_TEXT, *, sample_length: int = 64, seed: int | None = None
    ) -> None:
        super().__init__(max_length=max_length, min_length=0, charset=SAMPLED, seed=seed)
        self.sample_length = sample_length

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        n = int(self.np_random.integers(0, self.sample_length + 1))
        picks = self.np_random.integers(0, len(SAMPLED), size=n)
        return "".join(SAMPLED[i] for i in picks)

    def __repr__(self) -> str:
        return f"TextSpace({self.max_length})"


class WasonEnv(gymnasium.Env[str, str]):
    """One family's text environment (:class:`wason.env.TextEnv`) as a Gymnasium environment.

    ``reset(seed=s)`` draws the item with ``s``; without a seed, with the environment's own generator, which the
    first seeded reset seeds (as Gymnasium asks).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012 - Gymnasium declares it so; a frame a step

    def __init__(self, family: str, render_mode: str | None = None, **kwargs: Any) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode: None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.text = TextEnv(family, **kwargs)
        self.observation_space = TextSpace()
        self.action_space = TextSpace()

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        drawn = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        return self.text.reset(seed=drawn, options=options)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        return self.text.step(action)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in self.text.messages)

    def close(self) -> None:
        self.text.close()


def env_id(family: str) -> str:
    """A family's Gymnasium id: ``wason/NAME-v0``."""
    return f"wason/{family}-v0"


def register_envs() -> None:
    """Register ``wason/NAME-v0`` for every family that loads (Gymnasium calls it through its entry point)."""
    for name in registry.names():
        if name in registry.broken() or env_id(name) in gymnasium.registry:
            continue
        gymnasium.register(id=env_id(name), entry_point="wason.env.gym:WasonEnv", kwargs={"family": name})
