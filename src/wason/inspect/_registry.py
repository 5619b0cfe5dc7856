"""The module Inspect imports for the ``wason`` package (entry point group ``inspect_ai``): one task per
registered family (``wason/NAME``, plugins included), the solvers ``wason/protocol`` (the tasks' default),
``wason/solver`` and ``wason/human``, and the model provider ``wason/local``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspect_ai import Task, task

from wason.core import registry
from wason.inspect.play import human_player, protocol_player, reference_solver
from wason.inspect.provider import WasonModelAPI
from wason.inspect.tasks import TaskArgumentError, family_task, one_line_error

__all__ = ["WasonModelAPI", "family_tasks", "human_player", "protocol_player", "reference_solver"]


def _task_of(name: str) -> Callable[..., Task]:
    def make(**args: Any) -> Task:
        try:
            made: Task = family_task(name, args)
        except TaskArgumentError as exc:
            raise one_line_error(str(exc)) from None
        return made

    make.__name__ = make.__qualname__ = name.replace("-", "_")
    make.__doc__ = (
        f"The wason family {name!r} as an Inspect task (docs/inspect.md); -T its run configuration."
    )
    return task(name=name)(make)


def family_tasks() -> dict[str, Callable[..., Task]]:
    """One Inspect task per registered family that loads, by name."""
    return {name: _task_of(name) for name in registry.names() if name not in registry.broken()}


TASKS = family_tasks()
