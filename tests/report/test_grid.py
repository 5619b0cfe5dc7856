"""The table across families (a row per player, a column per family and level), on a real store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tests.families.toy import FAMILY as TOY
from wason.core import registry
from wason.core.game import VOID
from wason.report.grid import grid_json, grid_table
from wason.store import Store


@pytest.fixture()
def store(tmp_path: Path) -> Any:
    known = TOY.name in registry.names()
    registry.register(TOY, replace=True)
    s = Store(f"sqlite:///{tmp_path / 'w.db'}")
    yield s
    s.close()
    if not known:  # other tests read the registry: leave it as it was
        registry.unregister(TOY.name)


def _run(store: Store, who: str, outcomes: list[str]) -> int:
    """A toy run of ``len(outcomes)`` episodes finished as ``won``, ``lost`` or ``errored``."""
    config = TOY.config_type().model_dump(mode="json")
    items = TOY.items(TOY.config_type())[: len(outcomes)]
    player, model = ("llm", who) if ":" in who else (who, None)
    run_id = store.create_run(task="toy", player=player, model=model, config=config, items=items)
    for episode, outcome in zip(store.list_episodes(run_id), outcomes, strict=True):
        store.start_episode(episode.id)
        if outcome == "errored":
            store.finish_episode(episode.id, status="errored", error="endpoint down")
        elif outcome == "void":
            store.finish_episode(episode.id, status="completed", success=False, metrics={VOID: "no items"})
        else:
            store.finish_episode(episode.id, status="completed", success=outcome == "won", metrics={})
    return run_id


def test_runs_of_one_player_and_column_are_pooled(store: Store) -> None:
    a = _run(store, "openai:m1", ["won", "lost", "won"])
    b = _run(store, "openai:m1", ["won", "errored", "void"])
    c = _run(store, "solver", ["won", "won"])
    data = grid_json(store, [a, b, c])
    assert data["columns"] == [TOY.title]
    rows = {r["player"]: r["cells"][TOY.title] for r in data["rows"]}
    m1 = rows["openai:m1"]
    assert (m1["wins"], m1["games"], m1["errored"], m1["void"]) == (3, 4, 1, 1)
    assert rows["openai:m1"]["runs"] == [a, b]
    low, high = rows["openai:m1"]["interval"]
    assert low < 0.75 < high
    assert rows["solver"]["rate"] == 1.0
    console = Console(width=120, record=True)
    console.print(grid_table(store, [a, b, c]))
    text = " ".join(console.export_text().split())
    assert "75% [" in text and "3/4" in text and "1 errored episodes are not counted" in text
    assert "1 items rejected before play (no game) are not counted" in text


def test_wason_grid_puts_games_and_levels_in_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wason.cli import main

    db = f"sqlite:///{tmp_path / 'g.db'}"
    picnic = ["eval", "picnic", "--player", "solver", "--n", "2", "--level", "L1,L2", "--db", db]
    assert main(picnic) == 0
    assert main(["eval", "math", "--player", "solver", "--n", "3", "--level", "L3", "--db", db]) == 0
    capsys.readouterr()
    assert main(["grid", "1", "2", "--db", db, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["columns"] == ["SP L1", "SP L2", "Math L3"]  # one picnic run fills two columns
    (row,) = data["rows"]
    assert row["player"] == "solver"
    assert [(row["cells"][c]["games"], row["cells"][c]["runs"]) for c in data["columns"]] == [
        (2, [1]),
        (2, [1]),
        (3, [2]),
    ]
    assert main(["grid", "1", "99", "--db", db]) == 2  # an unknown run: one line, nothing printed
    assert "no run 99" in capsys.readouterr().err
