"""How a comparison names its rows and which baselines it keeps: runs of one model with different settings are
told apart by those settings, and solver baselines made for them are one measurement, shown once."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from wason.core.records import RunRow, series_names
from wason.report.compare import comparison_runs
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig


def _row(run_id: int, model: str | None, params: dict[str, Any], **config: Any) -> RunRow:
    return RunRow(
        id=run_id,
        task="wilt",
        player="llm" if model else "solver",
        model=model,
        config={"params": params, **config},
        status="completed",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        finished_at=None,
    )


def test_runs_of_one_model_are_named_by_the_settings_that_differ() -> None:
    runs = [
        _row(1, "openai:m", {"temperature": None, "seed": None, "max_tokens": 256}),
        _row(2, "openai:m", {"temperature": 0.8, "seed": 3, "max_tokens": 256}),
        _row(3, "openai:other", {"temperature": 0.8}),
        _row(4, None, {}, baseline_for=1),
    ]
    assert series_names(runs) == ["openai:m", "openai:m T=0.8 seed=3", "openai:other", "solver (reference)"]


def test_runs_alike_in_every_setting_fall_back_to_their_ids() -> None:
    runs = [_row(1, "openai:m", {"temperature": 0.5}), _row(2, "openai:m", {"temperature": 0.5})]
    assert series_names(runs) == ["openai:m (run 1)", "openai:m (run 2)"]


def test_baselines_of_runs_with_different_model_settings_are_shown_once(tmp_path: Any) -> None:
    store = Store(f"sqlite:///{tmp_path / 'c.db'}")
    ids = []
    for temperature in (None, 0.8):
        model_config = WiltRunConfig(model="openai:m", ids=[1], params={"temperature": temperature})  # type: ignore[arg-type]
        run = store.create_run(
            task="wilt", player="llm", model="openai:m", config=model_config.model_dump(mode="json")
        )
        # a baseline copies the model run's settings, which the solver never uses
        baseline = model_config.model_copy(update={"player": "solver", "model": None, "baseline_for": run})
        base = store.create_run(
            task="wilt", player="solver", model=None, config=baseline.model_dump(mode="json")
        )
        for r in (run, base):
            store.set_run_status(r, "completed")
        ids.append((run, base))
    (first, first_base), (second, _) = ids
    assert comparison_runs(store, [first, second], baselines=True) == [first, second, first_base]
