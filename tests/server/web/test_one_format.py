"""What a newcomer read differently in two places now reads the same everywhere: a run's accuracy over the games
that were played (the runs list, the home page and ``wason runs``), one format for a rate (the terminal's, on
the run page, the comparison and the papers), turns counted from 1 in the episode page's call table as in its
chat, verdicts in words (yes, no, -) rather than Python's, a game ended by replies cut off at the token limit
said so, each family's own solver legend (none where it declares no measured figure) and picnic's moves under
its limit on moves."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from tests.conftest import FakeModel
from wason.cli import main
from wason.core.labels import family_solver_legend, solver_legend
from wason.core.records import RunRow
from wason.engine import create_run, execute_run, llm_player_factory
from wason.models.base import ChatMessage, GenerationParams, ModelResponse
from wason.models.client import ModelClient
from wason.server import create_app
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig

RATE = re.compile(r"\d+% \[\d+-\d+\] \d+/\d+")
WILT_FIGURE = "1,802 of 2,195"


class _CutModel(FakeModel):
    """Every reply stops at the token limit: the game ends on its unreadable replies, none a format error."""

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        reply = await super().generate(messages, params, timeout=timeout)
        return reply.model_copy(update={"finish_reason": "length", "text": "Test Case: ```(1, 2"})


async def _model_run(store: Store, model: FakeModel, ids: list[int]) -> int:
    cfg = WiltRunConfig(model=model.spec, split="lite", ids=ids)
    rid = create_run(store, cfg)
    player = llm_player_factory(ModelClient(model=model, store=store), cfg, rid)
    await execute_run(store, rid, player, concurrency=2)
    return rid


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, int]]]:
    """A WILT model run (4 rules) and one cut off at the token limit, a picnic and a lab solver run, and a run
    of three episodes of which one was played (lost) and two are still to play."""
    url = f"sqlite:///{tmp_path_factory.mktemp('formats') / 'runs.db'}"
    store = Store(url)
    runs = {
        "wilt": asyncio.run(_model_run(store, FakeModel(spec="fake:scripted"), [1, 2, 3, 4])),
        "cut": asyncio.run(_model_run(store, _CutModel(spec="fake:cut"), [1])),
    }
    for family, args in (
        ("picnic", ["--level", "L1", "--n", "3", "--max-turns", "2"]),
        ("lab", ["--n", "2"]),
    ):
        assert main(["eval", family, "--player", "solver", *args, "--db", url]) == 0
        runs[family] = store.list_runs()[-1].id
    half = store.create_run(
        task="wilt",
        player="llm",
        model="fake:half",
        config={"split": "lite"},
        items=[
            (f"lite/{i}", {"split": "lite", "id": str(i), "rule": "lambda x, y, z: x < y"}) for i in (1, 2, 3)
        ],
    )
    first = store.list_episodes(half)[0]
    store.start_episode(first.id)
    store.finish_episode(first.id, status="completed", success=False, metrics={"correct": False})
    runs["half"] = half
    yield url, runs
    store.close()


@pytest.fixture(scope="module")
def web(db: tuple[str, dict[str, int]]) -> Iterator[TestClient]:
    with TestClient(create_app(Store(db[0])), base_url="http://127.0.0.1") as client:
        yield client


def _row(page: str, run: int) -> str:
    found = re.search(rf'<tr data-run="{run}">(.*?)</tr>', page, re.S)
    assert found, run
    return found.group(1)


# -- accuracy over the games played (item 11) -------------------------------------------------------------------
def test_the_runs_list_counts_accuracy_over_the_games_played(
    web: TestClient, db: tuple[str, dict[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    url, runs = db
    row = _row(web.get("/runs").text, runs["half"])
    assert "1/3" in row  # one of three episodes finished
    assert "0% [0-79] 0/1" in row and "0/3" not in row.replace("1/3", "")
    home = web.get("/").text
    assert "0% [0-79] 0/1" in home
    assert main(["runs", "--json", "--db", url]) == 0
    (listed,) = [r for r in json.loads(capsys.readouterr().out) if r["id"] == runs["half"]]
    assert (listed["accuracy"]["k"], listed["accuracy"]["n"]) == (0, 1)  # the CLI agrees


# -- one format for a rate (item 18) ---------------------------------------------------------------------------
def test_a_rate_reads_the_same_in_the_terminal_the_run_page_and_the_comparison(
    web: TestClient, db: tuple[str, dict[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    url, runs = db
    store = Store(url)
    won = sum(bool(e.success) for e in store.list_episodes(runs["wilt"]))
    from wason.core.records import Rate

    shown = Rate.of(won, 4).text()
    assert RATE.fullmatch(shown)
    assert main(["show", str(runs["wilt"]), "--db", url]) == 0
    terminal = capsys.readouterr().out
    assert shown.replace(f" {won}/4", "") in terminal and f"{won}/4" in terminal
    run_page = web.get(f"/runs/{runs['wilt']}").text
    assert shown in run_page
    assert "0.25 [" not in run_page and f"({won}/4)" not in run_page
    compare = web.get(f"/compare?runs={runs['wilt']},{runs['cut']}").text
    numbers = re.search(r'<table class="side" id="numbers">(.*?)</table>', compare, re.S)
    assert (
        numbers
        and shown in numbers.group(1)
        and "95% interval" not in numbers.group(1).split("Accuracy")[1][:200]
    )
    assert f"({won} of 4)" not in compare
    assert main(["show", str(runs["wilt"]), str(runs["cut"]), "--format", "markdown", "--db", url]) == 0
    assert shown in capsys.readouterr().out


# -- the episode page (item 18) --------------------------------------------------------------------------------
def test_the_call_table_counts_turns_as_the_chat_does(
    web: TestClient, db: tuple[str, dict[str, int]]
) -> None:
    _, runs = db
    page = web.get(f"/runs/{runs['wilt']}/episodes/0").text
    chat_turns = sorted({int(n) for n in re.findall(r"model, turn (\d+)", page)})
    calls = re.search(r'<table class="calls" id="calls">(.*?)</table>', page, re.S)
    assert calls is not None
    call_turns = sorted({int(n) for n in re.findall(r'<a href="#turn-\d+">(\d+)</a>', calls.group(1))})
    assert chat_turns[0] == 1 and call_turns == chat_turns


def test_verdicts_are_words_and_a_cut_off_game_says_why_it_ended(
    web: TestClient, db: tuple[str, dict[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    url, runs = db
    page = web.get(f"/runs/{runs['cut']}/episodes/0").text
    table = re.search(r'<table class="metrics">(.*?)</table>', page, re.S)
    assert table is not None
    cells = dict(re.findall(r"<tr><th>([^<]+)</th><td>([^<]*)</td></tr>", table.group(1)))
    assert not {"True", "False", "None"} & set(cells.values()), cells
    assert cells["correct"] == "no" and cells["truncated"] == "2" and cells["format_errors"] == "0"
    assert cells["end_reason"] == "unreadable replies (0 format errors, 2 cut off at the token limit)"
    # the transcript says the same, in the terminal and on the page
    assert main(["show", str(runs["cut"]), "--episode", "0", "--db", url]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "end: unreadable replies (0 format errors, 2 cut off at the token limit)" in said
    assert "end: format_errors" not in said and "guess: None" not in said
    assert "unreadable replies (0 format errors, 2 cut off at the token limit)" in page
    # the stored value is kept as it was, for exports and JSON
    (episode,) = Store(url).list_episodes(runs["cut"])
    assert episode.metrics is not None and episode.metrics["end_reason"] == "format_errors"


# -- each family's solver legend (item 15) ---------------------------------------------------------------------
def test_each_family_has_its_own_solver_legend(
    web: TestClient, db: tuple[str, dict[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    url, runs = db
    for family in ("picnic", "lab"):
        legend = family_solver_legend(family)
        assert legend is not None and legend.startswith("solver (reference): ")
        assert WILT_FIGURE not in legend
        assert main(["show", str(runs[family]), "--db", url]) == 0
        out = " ".join(capsys.readouterr().out.split())
        assert legend in out and WILT_FIGURE not in out
        page = " ".join(web.get(f"/runs/{runs[family]}").text.split())
        assert legend in page and WILT_FIGURE not in page
    assert WILT_FIGURE in (family_solver_legend("wilt") or "")
    # every family with a solver declares its own figure; one without (or not loaded) gets no line
    legends = {
        f: family_solver_legend(f) for f in ("wilt", "lists", "picnic", "math", "code-functions", "lab")
    }
    assert all(legends.values()) and len(set(legends.values())) == len(legends)
    now = datetime.now(UTC)
    rows = [RunRow(1, task, "solver", None, {}, "completed", now, now) for task in ("aiw", "no-such-family")]
    assert solver_legend(rows) == []


# -- picnic: moves under a limit on moves (item 18) -----------------------------------------------------------
def test_picnic_shows_moves_under_its_limit_on_moves(db: tuple[str, dict[str, int]]) -> None:
    from wason.core import registry

    url, runs = db
    store = Store(url)
    results = registry.get("picnic").results(store, [runs["picnic"]])
    took = next(t for t in results.tables if t.name == "took")
    names = [c.name for c in took.columns]
    assert names[:3] == ["Level", "Moves≤", "Moves"]
    for row in took.rows:
        limit, moves = row["limit"], row["moves"]
        assert isinstance(limit, int) and isinstance(moves, float) and moves <= limit
    metrics = [e.metrics or {} for e in store.list_episodes(runs["picnic"])]
    assert all(m["turns"] == m["moves"] + 1 for m in metrics)  # the stored published count is kept
