"""The module Inspect imports for the ``wason`` package (entry point group ``inspect_ai``): one task per
registered family (``wason/NAME``, plugins included), the solvers ``wason/protocol`` (the tasks' default),
``wason/solver`` and ``wason/human``, and the model provider ``wason/local``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser

from wason.core import registry
from wason.engine.runs import stored_config
from wason.inspect.play import human_player, protocol_player, reference_solver
from wason.inspect.provider import WasonModelAPI
from wason.inspect.scoring import verdict
from wason.inspect.tasks import TaskArgumentError, one_line_error, task_spec

__all__ = ["WasonModelAPI", "family_tasks", "human_player", "protocol_player", "reference_solver"]


def family_task(name: str, args: Mapping[str, Any]) -> Task:
    """The Inspect task of family ``name`` with task arguments ``args`` (:func:`wason.inspect.tasks.task_spec`).

    Raises:
        TaskArgumentError: an argument the family refuses (Inspect prints the line).
    """
    spec = task_spec(name, args)
    samples = [
        Sample(
            id=s.id,
            input=[
                ChatMessageSystem(content=text) if role == "system" else ChatMessageUser(content=text)
                for role, text in s.opening
            ]
            or s.id,
            target=s.target,
            metadata=s.metadata,
        )
        for s in spec.samples
    ]
    name = spec.family.name
    return Task(
        dataset=MemoryDataset(samples, name=name, shuffled=False),
        solver=protocol_player(),
        scorer=verdict(),
        epochs=spec.trials if spec.trials is not None and spec.trials > 1 else None,
        name=name,
        metadata={"wason": {"family": name, "config": stored_config(spec.config)}},
    )


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
