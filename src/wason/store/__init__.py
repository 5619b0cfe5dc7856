"""Runs, episodes, turns and model calls, written as they happen; the model-call cache."""

from wason.core.records import EpisodeRow, RunRow
from wason.store.db import DEFAULT_URL, MAX_ID, CellTaken, RunBusy, Store, StoreError, resolve_url

__all__ = [
    "DEFAULT_URL",
    "MAX_ID",
    "CellTaken",
    "EpisodeRow",
    "RunBusy",
    "RunRow",
    "Store",
    "StoreError",
    "resolve_url",
]
