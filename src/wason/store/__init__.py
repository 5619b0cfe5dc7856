"""Runs, episodes, turns and model calls, written as they happen; the model-call cache."""

from wason.core.records import EpisodeRow, RunRow
from wason.store.db import DEFAULT_URL, CellTaken, RunBusy, Store, StoreError, resolve_url

__all__ = [
    "DEFAULT_URL",
    "CellTaken",
    "EpisodeRow",
    "RunBusy",
    "RunRow",
    "Store",
    "StoreError",
    "resolve_url",
]
