"""What anyone but the operator may see of a game before it is over: one allow-list, applied by every surface.

A game is over once its episode is completed or errored (:data:`GAME_OVER`; an errored episode of a model run
may be replayed by ``wason eval --resume``, by its model, which reads none of this). Until then, nothing shown
names its rule:

- of its item, only the keys its family names in :meth:`~wason.core.family.Family.public`;
- its item key is hidden (it names the item);
- of its run's configuration (while any of the run's games is not over), only the run settings (who plays,
  how a model is called) and the family's own fields its configuration lists in
  :attr:`~wason.core.family.RunSettings.public_fields`: never a seed, a split, the ids or counts that draw the
  items, nor any field a family adds later until it is named there.

Pages, event streams, the sessions API and the published routes show runs and episodes only through these
functions (and :class:`wason.server.web.browse.PublicReader`, which applies them for reports), so a family
decides what is public in one place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from wason.core.family import Family, RunSettings
from wason.core.records import EpisodeRow, RunRow

GAME_OVER = frozenset({"completed", "errored"})
"""Episode statuses of a game that is over: its whole item, and its run's whole configuration once every game of
the run is over, may be shown."""

HIDDEN = "(hidden until the game ends)"
"""What is shown instead of a hidden item key."""

RUN_SETTINGS_SHOWN = frozenset({"task", "baseline_for"})
"""Fields of every run shown beside the run settings: the family's name, and the run a baseline belongs to."""


def is_over(status: str) -> bool:
    """Whether an episode with this status is a game that is over."""
    return status in GAME_OVER


def public_item(family: Family[Any] | None, item: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of ``item`` a player may see before the game ends (none for a family that cannot be loaded)."""
    keys = family.public(item) if family is not None else []
    return {k: item[k] for k in keys if k in item}


def public_episode(episode: EpisodeRow, family: Family[Any] | None) -> EpisodeRow:
    """The episode as anyone may see it: whole once its game is over, else its item's public keys, its item
    key hidden."""
    if is_over(episode.status):
        return episode
    return dataclasses.replace(episode, item=public_item(family, episode.item), item_key=HIDDEN)


def public_config(family: Family[Any] | None, config: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a run's stored configuration that may be shown while one of its games is not over."""
    shown = set(RunSettings.model_fields) | RUN_SETTINGS_SHOWN
    if family is not None:
        shown |= family.config_type.public_fields
    return {k: v for k, v in config.items() if k in shown}


def public_run(run: RunRow, family: Family[Any] | None, *, over: bool) -> RunRow:
    """The run as anyone may see it: whole once ``over`` (every game of it is over), else with its configuration
    reduced to :func:`public_config`."""
    if over:
        return run
    return dataclasses.replace(run, config=public_config(family, run.config))


__all__ = [
    "GAME_OVER",
    "HIDDEN",
    "is_over",
    "public_config",
    "public_episode",
    "public_item",
    "public_run",
]
