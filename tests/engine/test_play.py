"""The one orchestration: what a caller's observer is told, and a finished run played again asks nothing."""

from __future__ import annotations

from pathlib import Path

from wason.core.runner import EpisodeResult
from wason.engine import RunObserver, baselines_of, play_run
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig


class Told(RunObserver):
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def started(self, run_id: int, n_todo: int, *, resumed: bool) -> None:
        self.events.append(("started", (run_id, n_todo, resumed)))

    def result(self, result: EpisodeResult) -> None:
        self.events.append(("result", result.status))

    def ended(self, run_id: int) -> None:
        self.events.append(("ended", run_id))


async def test_a_run_is_told_to_its_observer_and_a_finished_one_is_not_replayed(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'play.db'}")
    config = WiltRunConfig(ids=[1, 2], player="solver")
    told = Told()
    (run_id,) = await play_run(store, config, observer=told)
    assert told.events == [
        ("started", (run_id, 2, False)),
        ("result", "completed"),
        ("result", "completed"),
        ("ended", run_id),
    ]
    assert store.get_run(run_id).status == "completed"
    assert baselines_of(store, run_id) == []  # a solver run has no baseline of its own

    again = Told()
    assert await play_run(store, config, run_id=run_id, observer=again) == [run_id]
    assert again.events == [("started", (run_id, 0, True)), ("ended", run_id)]
