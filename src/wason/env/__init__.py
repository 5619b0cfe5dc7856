"""Every family as a multi-turn text environment, for training and evaluating models on it (docs/training.md).

``wason.env.make(NAME, **settings)`` gives a :class:`TextEnv`: ``obs, info = env.reset(seed=s)``, then
``obs, reward, terminated, truncated, info = env.step(reply)`` with the model's whole reply, until the game is
over. :class:`AsyncTextEnv` is the same with ``async`` methods, :class:`VectorTextEnv` steps N games together.
With gymnasium installed (``pip install 'wason[gym]'``), importing this package registers ``wason/NAME-v0`` for
every family (:mod:`wason.env.gym`), so ``gymnasium.make("wason/NAME-v0")`` works after ``import wason.env``.
"""

from __future__ import annotations

from wason.env.text import MAX_TURNS, AsyncTextEnv, StepResult, TextEnv, VectorTextEnv, make

__all__ = ["MAX_TURNS", "AsyncTextEnv", "StepResult", "TextEnv", "VectorTextEnv", "make"]

try:
    import gymnasium  # noqa: F401 - an optional extra: registered only where it is installed
except ImportError:
    pass
else:
    from wason.env.gym import register_envs

    register_envs()
