"""One table across families: a row per player, a column per family (and level), the win rate in each cell.

The guess-the-rule paper's Table 2 is this shape (models x game and level). Each family names the column each
episode fills (:meth:`wason.core.Family.column`: a run may play several levels); a cell is the share of the
finished episodes that succeeded, with its Wilson interval. Episodes of the same player and column are pooled
across runs (several trials, several seeds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from wason.core import registry
from wason.core.family import RunReader
from wason.core.game import VOID
from wason.core.records import rate_text
from wason.metrics.rates import wilson_interval


@dataclass
class _Cell:
    wins: int = 0
    games: int = 0
    errored: int = 0
    void: int = 0
    runs: list[int] = field(default_factory=list)


def _player(run: Any) -> str:
    return str(run.model) if run.player == "llm" and run.model else str(run.player)


def grid_json(store: RunReader, run_ids: Sequence[int]) -> dict[str, Any]:
    """The table as JSON: ``columns`` in the order first seen, and per ``rows`` entry the player and its cells
    (``wins``, ``games``, ``rate``, ``interval``, ``errored``, ``void``: rejected before play, ``runs``); a
    cell a player has no run for is absent.

    Raises:
        KeyError: a run id that is not in the store (the store's own error).
    """
    columns: list[str] = []
    rows: dict[str, dict[str, _Cell]] = {}
    for run_id in run_ids:
        run = store.get_run(run_id)
        fam = registry.get(run.task)
        config = fam.config_type.model_validate(run.config)
        for episode in store.list_episodes(run.id):
            column = fam.column(config, episode.item)
            if column not in columns:
                columns.append(column)
            cell = rows.setdefault(_player(run), {}).setdefault(column, _Cell())
            if run.id not in cell.runs:
                cell.runs.append(run.id)
            if episode.status == "completed" and (episode.metrics or {}).get(VOID):
                cell.void += 1
            elif episode.status == "completed":
                cell.games += 1
                cell.wins += bool(episode.success)
            elif episode.status == "errored":
                cell.errored += 1
    out_rows = []
    for player, cells in rows.items():
        out_cells = {}
        for column, cell in cells.items():
            low, high = wilson_interval(cell.wins, cell.games) if cell.games else (0.0, 1.0)
            out_cells[column] = {
                "wins": cell.wins,
                "games": cell.games,
                "rate": cell.wins / cell.games if cell.games else None,
                "interval": [low, high],
                "errored": cell.errored,
                "void": cell.void,
                "runs": cell.runs,
            }
        out_rows.append({"player": player, "cells": out_cells})
    return {"columns": columns, "rows": out_rows}


def grid_table(store: RunReader, run_ids: Sequence[int]) -> Table:
    """The table for the terminal: each cell's win rate as every report writes a rate (``67% [21-94]`` over
    ``2/3``: percent, its 95% Wilson interval, wins of the finished games)."""
    data = grid_json(store, run_ids)
    table = Table(title="Win rate by player, game and level")
    table.add_column("player")
    for column in data["columns"]:
        table.add_column(column, justify="right")
    errored = void = 0
    for row in data["rows"]:
        cells = []
        for column in data["columns"]:
            cell = row["cells"].get(column)
            if cell is None or not cell["games"]:
                cells.append("-")
                continue
            low, high = cell["interval"]
            cells.append(rate_text(cell["rate"], (low, high), cell["wins"], cell["games"], sep="\n"))
            errored += cell["errored"]
            void += cell["void"]
        table.add_row(row["player"], *cells)
    table.caption = "each cell: win rate in percent [95% Wilson interval] over wins/finished games"
    if errored:
        table.caption += f"; {errored} errored episodes are not counted"
    if void:
        table.caption += f"; {void} items rejected before play (no game) are not counted"
    return table


__all__ = ["grid_json", "grid_table"]
