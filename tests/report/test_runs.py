"""`wason runs`: filters, the table within 80 columns, JSON with numbers as numbers, and `--delete`."""

from __future__ import annotations

import asyncio
import json
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from rich.console import Console

from tests.conftest import FakeModel
from tests.store.conftest import new_postgres_database, postgres_url  # noqa: F401 - fixtures
from wason.cli import main
from wason.engine import create_run, execute_run, llm_player_factory, run_baseline, solver_player_factory
from wason.models.base import GenerationParams
from wason.models.client import ModelClient
from wason.report.runs import RunFilter, delete_command, runs_json, runs_table
from wason.store import Store, StoreError
from wason.store.db import model_calls, new_owner
from wason.tasks.wilt import WiltRunConfig

LONG_MODEL = "fake:an-unusually-long-model-name/Qwen2.5-72B-Instruct-AWQ"


@dataclass
class Made:
    """A store with a solver run, a model run (temperature and token limit set) and its solver baseline."""

    store: Store
    url: str
    solver: int
    model: int
    baseline: int


def make_runs(url: str) -> Made:
    store = Store(url)
    solver_cfg = WiltRunConfig(player="solver", split="lite")
    solver = create_run(store, solver_cfg)
    asyncio.run(execute_run(store, solver, solver_player_factory(solver_cfg), concurrency=1))
    cfg = WiltRunConfig(
        model=LONG_MODEL, split="lite", params=GenerationParams(temperature=0.7, max_tokens=64), trials=2
    )
    model = create_run(store, cfg)
    client = ModelClient(model=FakeModel(spec=LONG_MODEL), store=store)
    asyncio.run(execute_run(store, model, llm_player_factory(client, cfg, model), concurrency=4))
    baseline = run_baseline(store, model)
    assert baseline is not None
    return Made(store, url, solver, model, baseline)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Made]:
    """The runs made once for the module (they take seconds); each test gets its own copy of the file."""
    path = tmp_path_factory.mktemp("runs") / "runs.db"
    made = make_runs(f"sqlite:///{path}")
    made.store.close()  # the last connection folds the write-ahead log into the file
    return path, made


@pytest.fixture
def made(template: tuple[Path, Made], tmp_path: Path) -> Made:
    source, runs = template
    copy = tmp_path / "runs.db"
    shutil.copyfile(source, copy)
    url = f"sqlite:///{copy}"
    return Made(Store(url), url, runs.solver, runs.model, runs.baseline)


def test_json_gives_numbers(made: Made) -> None:
    rows = {r["id"]: r for r in runs_json(made.store)}
    assert list(rows) == [made.solver, made.model, made.baseline]
    model = rows[made.model]
    episodes = made.store.list_episodes(made.model)
    wins = sum(bool(e.success) for e in episodes)
    assert model["accuracy"]["k"] == wins and model["accuracy"]["n"] == len(episodes) == 20
    assert model["accuracy"]["rate"] == pytest.approx(wins / 20)
    low, high = model["accuracy"]["interval"]
    assert 0 <= low <= wins / 20 <= high <= 1
    totals = made.store.call_totals(made.model)
    assert model["tokens"] == {"in": totals["input_tokens"], "out": totals["output_tokens"]}
    assert totals["input_tokens"] > 0 and model["calls"] == totals["calls"] + totals["cached_calls"] > 0
    assert model["params"] == {"temperature": 0.7, "max_tokens": 64, "trials": 2}
    assert model["family"] == "wilt" and model["split"] == "lite" and model["model"] == LONG_MODEL
    run = made.store.get_run(made.model)
    assert run.finished_at is not None
    assert model["duration_s"] == pytest.approx((run.finished_at - run.created_at).total_seconds())
    assert datetime.fromisoformat(model["created_at"]).tzinfo is not None
    # a solver is given no generation settings; its baseline names its run
    assert rows[made.solver]["params"] == {} and rows[made.solver]["tokens"] == {"in": 0, "out": 0}
    assert rows[made.baseline]["baseline_for"] == made.model and rows[made.baseline]["params"] == {
        "trials": 2
    }
    json.dumps(list(rows.values()))  # nothing but JSON types


def test_filters(made: Made) -> None:
    def ids(**flags: str) -> list[int]:
        return [r["id"] for r in runs_json(made.store, RunFilter.parse(**flags))]

    everything = [made.solver, made.model, made.baseline]
    assert ids() == everything
    assert ids(family="wilt") == everything and ids(family="aiw") == []
    assert ids(model="QWEN2.5") == [made.model]  # a part of the model, any case
    assert ids(model="solv") == [made.solver, made.baseline]  # or of the player
    assert ids(model="%") == []  # taken as text, not as a pattern
    assert ids(status="completed") == everything and ids(status="running") == []
    today = datetime.now(UTC).date()
    assert ids(since=today.isoformat()) == everything
    assert ids(since=(today + timedelta(days=1)).isoformat()) == []
    assert ids(until=today.isoformat()) == []
    assert ids(until=(today + timedelta(days=1)).isoformat() + "T00:00") == everything
    created = made.store.get_run(made.model).created_at
    moment = created.replace(tzinfo=None).isoformat()
    assert ids(since=moment) == [made.model, made.baseline]
    assert ids(until=moment) == [made.solver]


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        ({"family": "nope"}, ["--family 'nope'", "wilt", "aiw"]),
        ({"status": "done"}, ["--status 'done'", "completed", "interrupted"]),
        ({"since": "yesterday"}, ["--since 'yesterday'", "YYYY-MM-DD"]),
        ({"until": "2026-13-01"}, ["--until '2026-13-01'"]),
    ],
)
def test_bad_filters_are_one_line(flags: dict[str, str], words: list[str]) -> None:
    with pytest.raises(ValueError) as caught:
        RunFilter.parse(**flags)
    message = str(caught.value)
    assert "\n" not in message and all(w in message for w in words)


def test_the_table_fits_80_columns(made: Made) -> None:
    console = Console(width=80, record=True)
    console.print(runs_table(made.store))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:3] == ["id", "run", "by"])
    assert lines[header].split() == [
        "id",
        "run",
        "by",
        "status",
        "created",
        "took",
        "eps",
        "acc",
        "tok",
        "params",
    ]
    # the model's name, read down its column: wrapped onto several lines, not cut
    start, end = lines[header].index(" by ") + 1, lines[header].index(" status ")
    rows = lines[header + 2 :]
    first = next(i for i, line in enumerate(rows) if line.split()[0] == str(made.model))
    column = [rows[first][start:end].strip()]
    for line in rows[first + 1 :]:
        if line[:start].strip():
            break
        column.append(line[start:end].strip())
    assert "".join(column) == LONG_MODEL
    assert "wilt:lite" in text and "T=0.7" in text and "max=64" in text and "trials=2" in text
    printed = text.splitlines()
    at = next(i for i, line in enumerate(printed) if line.lstrip().startswith(f"{made.model} "))
    episodes = made.store.list_episodes(made.model)
    won = sum(bool(e.success) for e in episodes)
    # the accuracy as every rate is written (percent [interval]), its counts on the line under it
    assert "20/20" in printed[at] and f"{round(100 * won / 20)}% [" in printed[at]
    assert f"{won}/20" in printed[at + 1]
    assert "acc: successes of the episodes ended, percent [95% Wilson interval] over k/n" in " ".join(
        text.split()
    )  # the legend
    wide = Console(width=160, record=True)
    wide.print(runs_table(made.store))
    assert LONG_MODEL in wide.export_text()  # on one line when there is room


def test_the_table_says_when_nothing_matches(made: Made) -> None:
    console = Console(width=80, record=True)
    console.print(runs_table(made.store, RunFilter.parse(family="aiw")))
    assert "no runs match" in console.export_text()


def _counts(store: Store) -> dict[str, int]:
    with store.engine.connect() as c:
        return {
            t: int(c.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar_one())
            for t in ("runs", "episodes", "turns", "model_calls")
        }


def test_delete_a_model_run_and_its_baseline(made: Made) -> None:
    store = made.store
    keys = [c["cache_key"] for c in store.list_calls(run_id=made.model) if c["response"] is not None]
    assert keys and store.cache_get(keys[0]) is not None
    before = _counts(store)
    solver_turns = sum(len(store.list_turns(e.id)) for e in store.list_episodes(made.solver))
    lines: list[str] = []
    asked: list[str] = []

    def answer(question: str) -> str:
        asked.append(question)
        return "y"

    code = delete_command(store, [made.model], write=lines.append, read=answer, interactive=True)
    assert code == 0
    (question,) = asked
    calls = before["model_calls"]
    assert question.startswith(
        f"delete run {made.model} (wilt:lite by {LONG_MODEL}, 20 episodes, {calls} calls)"
    )
    assert f"and its baseline run {made.baseline}?" in question and question.endswith("[y/N] ")
    assert [line.split(":")[0] for line in lines] == [
        f"deleted run {made.model}",
        f"deleted run {made.baseline}",
    ]
    assert "cached replies" in lines[0]
    assert [r.id for r in store.list_runs()] == [made.solver]
    after = _counts(store)
    assert after == {"runs": 1, "episodes": 10, "turns": solver_turns, "model_calls": 0}
    assert store.cache_get(keys[0]) is None  # a deleted call's reply is no longer in the cache
    with pytest.raises(StoreError):
        store.get_run(made.model)


def test_delete_asks_and_no_keeps_everything(made: Made) -> None:
    before = _counts(made.store)
    lines: list[str] = []
    code = delete_command(made.store, [made.solver], write=lines.append, read=lambda q: "", interactive=True)
    assert code == 1 and lines == ["nothing was deleted"] and _counts(made.store) == before


def test_delete_without_a_terminal_needs_yes(made: Made) -> None:
    before = _counts(made.store)
    with pytest.raises(ValueError) as caught:
        delete_command(made.store, [made.model], interactive=False, read=lambda q: pytest.fail("asked"))
    message = str(caught.value)
    assert "--yes" in message and "nothing was deleted" in message and "\n" not in message
    assert f"baseline run {made.baseline}" in message
    assert _counts(made.store) == before


def test_an_unknown_run_deletes_nothing(made: Made, capsys: pytest.CaptureFixture[str]) -> None:
    before = _counts(made.store)
    assert main(["runs", "--db", made.url, "--delete", str(made.solver), "999", "--yes"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no run 999" in err
    assert _counts(made.store) == before


def test_a_run_a_live_process_holds_is_refused(made: Made, capsys: pytest.CaptureFixture[str]) -> None:
    made.store.acquire_lease(made.baseline, new_owner())  # this process is alive: the lease is held
    before = _counts(made.store)
    assert main(["runs", "--db", made.url, "--delete", str(made.model), "--yes"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"run {made.baseline} is being worked on" in err
    assert _counts(made.store) == before


def test_cli_delete_with_yes_and_list(made: Made, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", "--db", made.url, "--delete", str(made.solver), "--yes"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"deleted run {made.solver}: 10 episodes")
    assert main(["runs", "--db", made.url, "--json", "--model", "long-model"]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == [made.model]
    assert main(["runs", "--db", made.url, "--family", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("wason: error: --family 'nope': no such family")


def test_a_conversation_continued_in_another_run_stays_whole(made: Made) -> None:
    """A call of another run whose parent is deleted keeps its whole conversation (rare, but never lost)."""
    store = made.store
    calls = store.list_calls(run_id=made.model)
    parent = next(c for c in calls if c["parent_id"] is not None)
    whole = parent["messages"]
    child = store.record_call(
        {
            "run_id": made.solver,
            "episode_id": None,
            "turn": 0,
            "model": "fake:scripted",
            "endpoint": "memory",
            "messages": [{"role": "user", "content": "and then?"}],
            "parent_id": parent["id"],
            "params": {},
            "response": "ok",
            "attempts": 1,
            "cached": False,
        }
    )
    delete_command(store, [made.model], yes=True, write=lambda s: None)
    (kept,) = [c for c in store.list_calls(run_id=made.solver) if c["id"] == child]
    assert kept["parent_id"] is None
    assert kept["messages"] == [*whole, {"role": "user", "content": "and then?"}]


def test_delete_on_postgres(new_postgres_database: object) -> None:  # noqa: F811 - the fixture
    url = new_postgres_database()  # type: ignore[operator]
    made = make_runs(url)
    try:
        before = _counts(made.store)
        delete_command(made.store, [made.model], yes=True, write=lambda s: None)
        after = _counts(made.store)
        assert after["runs"] == 1 and after["episodes"] == 10 and after["model_calls"] == 0
        assert before["model_calls"] > 0 and after["turns"] < before["turns"]
        with made.store.engine.connect() as c:
            left = c.execute(sa.select(sa.func.count()).select_from(model_calls)).scalar_one()
        assert left == 0
        assert [r["id"] for r in runs_json(made.store, RunFilter.parse(model="SOLVER"))] == [made.solver]
    finally:
        made.store.close()


def test_long_names_break_after_their_separators_not_inside_a_word() -> None:
    # issue 49, item 14: `wason runs` printed `local:smo` / `llm2-135m`
    from wason.report.runs import _wrap_name

    assert _wrap_name("local:smollm2-135m", 12) == "local:\nsmollm2-135m"
    assert _wrap_name("openrouter:meta-llama/llama-3.1-8b", 14) == "openrouter:\nmeta-llama/\nllama-3.1-8b"
    assert _wrap_name("solver (baseline of 3)", 10) == "solver\n(baseline\nof 3)"
    assert _wrap_name("short", 12) == "short"
