"""How runs are named where their family is known only by name: the run's label, what it played, the solver's
legend. Each looks the family up in the registry (:mod:`wason.core.registry`), so this module sits above it; the
records and the family contract below name runs by the settings they are given
(:func:`wason.core.records.label_of`, :func:`wason.core.results.run_title`)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from wason.core.records import SOLVER_LABEL, SOLVER_LEGEND, RunRow, label_of, label_settings
from wason.core.registry import FamilyLoadError, UnknownFamily, get
from wason.core.results import run_title

__all__ = [
    "family_solver_legend",
    "label_fields",
    "played",
    "played_settings",
    "results_title",
    "run_label",
    "solver_legend",
]


def label_fields(task: str) -> Sequence[str] | None:
    """The configuration fields that name what a run of family ``task`` played (its
    ``RunSettings.label_fields``), or None where the family cannot be loaded."""
    try:
        fields: Sequence[str] = get(task).config_type.label_fields
    except (UnknownFamily, FamilyLoadError):
        return None
    return fields


def played_settings(run: RunRow) -> list[tuple[str, str]]:
    """The settings that name what ``run`` played, as ``(field, text)``: its family's
    ``RunSettings.label_fields`` the configuration holds (a field hidden while a game is on is left out)."""
    return label_settings(run, label_fields(run.task))


def played(run: RunRow) -> str:
    """What ``run`` played, as its label names it (``L3``, ``L1,L2,L3``, ``generated:L1``); empty when not
    known or not shown."""
    return ":".join(text for _, text in played_settings(run))


def run_label(run: RunRow) -> str:
    """``task:what by who``, the title of a run's tables (:func:`played`; ``task by who`` where what it played
    is not known, or not shown while a game is on)."""
    return label_of(run, label_fields(run.task))


def results_title(run: RunRow) -> str:
    """The line every run's results open with: ``Run 3: game:L1 by gpt-4o [completed]``."""
    return run_title(run, label_fields(run.task))


def family_solver_legend(task: str) -> str | None:
    """The legend line of family ``task``'s solver, ``solver (reference): ...`` (:data:`SOLVER_LEGEND`), or None
    where the family declares none (or cannot be loaded)."""
    try:
        modules = get(task).reports
    except (UnknownFamily, FamilyLoadError):
        return None
    for name in modules:
        try:
            text = getattr(importlib.import_module(name), SOLVER_LEGEND, None)
        except ImportError:
            continue
        if isinstance(text, str) and text.strip():
            return f"{SOLVER_LABEL}: {text.strip()}"
    return None


def solver_legend(runs: Sequence[RunRow]) -> list[str]:
    """The legend lines a table showing ``runs`` adds: for each family whose solver plays one of them, the
    family's own legend (:func:`family_solver_legend`), where it declares one; else none."""
    tasks = dict.fromkeys(r.task for r in runs if r.player == "solver")
    return [line for task in tasks if (line := family_solver_legend(task)) is not None]
