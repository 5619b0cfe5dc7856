"""A run's label names what was played (``picnic:L1,L2,L3 by solver``), for every registered family: never a
Python list or a placeholder, in the run's tables, ``wason runs`` and the web pages alike."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from wason.core import registry
from wason.core.labels import played, run_label
from wason.core.records import RunRow
from wason.report.runs import key_setting


def _run(task: str, config: dict[str, Any], player: str = "solver") -> RunRow:
    return RunRow(
        id=1,
        task=task,
        player=player,
        model=None,
        config=config,
        status="completed",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        finished_at=None,
    )


@pytest.mark.parametrize("name", registry.names())
def test_every_familys_label_names_what_was_played_readably(name: str) -> None:
    family = registry.get(name)
    kind = family.config_type
    assert set(kind.label_fields) <= set(kind.model_fields), sorted(
        set(kind.label_fields) - set(kind.model_fields)
    )
    config = kind.model_validate({"player": "solver", "model": None}).model_dump(mode="json")
    run = _run(name, config)
    label = run_label(run)
    assert label.startswith(f"{name}:") and label.endswith(" by solver"), label
    assert not {"[", "'", "?", '"'} & set(label), label
    setting, value = key_setting(run)
    assert setting and value == played(run) and not {"[", "'"} & set(value), (setting, value)


def test_a_list_is_joined_with_commas_and_fields_with_colons() -> None:
    # a family that cannot be loaded: the first usual field its configuration holds, still readable
    run = _run("not-installed", {"level": ["L1", "L2", "L3"], "source": "x"})
    assert run_label(run) == "not-installed:L1,L2,L3 by solver"
    assert key_setting(run) == ("level", "L1,L2,L3")


def test_a_field_hidden_while_a_game_is_on_leaves_the_family_alone() -> None:
    name = registry.names()[0]
    assert run_label(_run(name, {}, player="human:ann")) == f"{name} by human:ann"
    assert key_setting(_run(name, {})) == (None, None)
