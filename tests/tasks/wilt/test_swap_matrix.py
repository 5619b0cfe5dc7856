"""The test-swap matrix (paper A.2, Figure 2): guessing models x test sources, from a set of test-swap runs, in
every output of ``wason show RUN...`` and as a figure."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.conftest import FakeModel, wilt_script_reply
from wason.cli import main
from wason.core.records import Score
from wason.engine import create_run, execute_run, llm_player_factory
from wason.models.base import ChatMessage
from wason.models.client import ModelClient, RetryPolicy
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig
from wason.tasks.wilt.family import FAMILY
from wason.tasks.wilt.swap import swap_matrix

IDS = [1, 2, 8]


def _ordering_guess(messages: list[ChatMessage]) -> str:
    return "Final Guess: ```lambda x, y, z: x < y < z```"


def _model_run(store: Store, config: WiltRunConfig, reply: object) -> int:
    config = FAMILY.prepare(config, store)
    rid = create_run(store, config, FAMILY.items(config))
    model = FakeModel(reply=reply, spec=config.model or "fake:m")  # type: ignore[arg-type]
    client = ModelClient(model=model, store=store, policy=RetryPolicy(retries=0, base_delay=0.0))
    asyncio.run(execute_run(store, rid, llm_player_factory(client, config, rid), concurrency=1))
    return rid


def _solver(db: str, capsys: pytest.CaptureFixture[str], *argv: str) -> int:
    assert main(["eval", "wilt", "--player", "solver", *argv, "--db", db, "--json"]) == 0
    return int(json.loads(capsys.readouterr().out)["run"])


@pytest.fixture
def runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, dict[str, int]]:
    """Two sources (the solver and a scripted model that tests (n, n+1, n+2) four times), and a guesser
    (a model that always guesses x < y < z, and the solver) on each of them."""
    db = f"sqlite:///{tmp_path / 'm.db'}"
    store = Store(db)
    ids = ",".join(map(str, IDS))
    src_solver = _solver(db, capsys, "--ids", ids)
    src_model = _model_run(store, WiltRunConfig(model="fake:tester", ids=IDS), wilt_script_reply)
    out = {"src_solver": src_solver, "src_model": src_model}
    for name, source in (("solver", src_solver), ("model", src_model)):
        config = WiltRunConfig(model="fake:guesser", protocol="testswap", tests_from=source)
        out[f"fake_on_{name}"] = _model_run(store, config, _ordering_guess)
        out[f"solver_on_{name}"] = _solver(db, capsys, "--protocol", "testswap", "--tests-from", str(source))
    return db, out


def _rate(score: Score | None) -> tuple[int | None, int | None]:
    assert score is not None
    return score.k, score.n


def test_the_matrix_has_a_row_per_guesser_and_a_column_per_source(runs: tuple[str, dict[str, int]]) -> None:
    db, r = runs
    store = Store(db)
    swaps = [r["fake_on_solver"], r["fake_on_model"], r["solver_on_solver"], r["solver_on_model"]]
    matrix = swap_matrix(store, swaps)
    assert matrix is not None
    assert matrix.rows == ["fake:guesser", "solver (reference)"]
    assert matrix.columns == [
        f"solver (reference) (run {r['src_solver']})",
        f"fake:tester (run {r['src_model']})",
    ]
    # the guess x < y < z is right on lite/2 alone, whatever the tests
    assert _rate(matrix.cell("fake:guesser", matrix.columns[0])) == (1, 3)
    assert _rate(matrix.cell("fake:guesser", matrix.columns[1])) == (1, 3)
    # the solver reads its own tests right on every rule; four ordered triples do not pin the other rules
    assert _rate(matrix.cell("solver (reference)", matrix.columns[0])) == (3, 3)
    k, n = _rate(matrix.cell("solver (reference)", matrix.columns[1]))
    assert n == 3 and k is not None and k < 3
    # each cell is that run's own accuracy
    for rid, (row, col) in (
        (r["fake_on_model"], ("fake:guesser", 1)),
        (r["solver_on_model"], ("solver (reference)", 1)),
    ):
        acc = FAMILY.scores(store, rid)[0]
        assert (acc.k, acc.n) == _rate(matrix.cell(row, matrix.columns[col]))


def test_runs_without_a_test_swap_have_no_matrix(runs: tuple[str, dict[str, int]]) -> None:
    db, r = runs
    assert swap_matrix(Store(db), [r["src_solver"], r["src_model"]]) is None
    assert FAMILY.matrices(Store(db), [r["src_solver"]]) == []


def test_two_runs_of_one_guesser_on_one_source_are_pooled(
    runs: tuple[str, dict[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    db, r = runs
    again = _solver(db, capsys, "--protocol", "testswap", "--tests-from", str(r["src_solver"]))
    matrix = swap_matrix(Store(db), [r["solver_on_solver"], again])
    assert matrix is not None and matrix.rows == ["solver (reference)"]
    assert _rate(matrix.cells[0][0]) == (6, 6)
    assert matrix.notes == [
        f"solver (reference) on the tests of run {r['src_solver']}: runs {r['solver_on_solver']}, {again} pooled"
    ]


def test_show_prints_the_matrix_in_every_format(
    runs: tuple[str, dict[str, int]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db, r = runs
    ids = [str(r[k]) for k in ("fake_on_solver", "fake_on_model", "solver_on_solver", "solver_on_model")]
    capsys.readouterr()
    assert main(["show", *ids, "--format", "markdown", "--db", db]) == 0
    md = capsys.readouterr().out
    assert "WILT test swap (appendix A.2)" in md
    header = f"| Guessing model | solver (reference) (run {r['src_solver']}) | fake:tester (run {r['src_model']}) |"
    assert header in md
    assert "| fake:guesser | 33% [6-79] 1/3 | 33% [6-79] 1/3 |" in md  # one format for a rate everywhere
    assert "| solver (reference) | 100% [44-100] 3/3 |" in md

    assert main(["show", *ids, "--format", "latex", "--db", db]) == 0
    latex = capsys.readouterr().out
    assert "Guessing model & solver (reference) (run" in latex and latex.count(r"\begin{tabular}") >= 2

    assert main(["show", *ids, "--json", "--db", db]) == 0
    data = json.loads(capsys.readouterr().out)
    (matrix,) = data["matrices"]
    assert matrix["rows"] == ["fake:guesser", "solver (reference)"] and matrix["cells"][0][0]["k"] == 1

    assert main(["show", *ids, "--db", db]) == 0
    table = capsys.readouterr().out
    assert "Guessing model" in table and "fake:guesser" in table and "33%" in table

    plots = tmp_path / "plots"
    assert main(["show", *ids, "--plots", str(plots), "--format", "csv", "--db", db]) == 0
    assert (plots / "testswap.png").stat().st_size > 0 and (plots / "testswap.svg").exists()
    svg = (plots / "testswap.svg").read_text(encoding="utf-8")
    assert "fake:tester" in svg and "1/3" in svg and "3/3" in svg


def test_the_web_comparison_carries_the_matrix(runs: tuple[str, dict[str, int]]) -> None:
    from wason.report.compare import build_comparison, comparison_view

    db, r = runs
    view = comparison_view(build_comparison(Store(db), [r["fake_on_solver"], r["solver_on_solver"]]))
    (matrix,) = view.matrices
    assert matrix.headers == ["Guessing model", f"solver (reference) (run {r['src_solver']})"]
    assert matrix.rows == [
        ["fake:guesser", "33% [6-79] 1/3"],
        ["solver (reference)", "100% [44-100] 3/3"],
    ]


def test_a_constrained_guesser_is_a_row_of_its_own() -> None:
    from datetime import UTC, datetime

    from wason.core.records import RunRow
    from wason.tasks.wilt.swap import _guesser_key

    def run(rid: int, **config: object) -> RunRow:
        base = {"protocol": "testswap", "tests_from": 1, "params": {"temperature": 0.0}}
        return RunRow(rid, "wilt", "llm", "vllm:m", {**base, **config}, "completed", datetime.now(UTC), None)

    assert _guesser_key(run(2)) == _guesser_key(run(3))  # the same guesser: pooled
    assert _guesser_key(run(2)) != _guesser_key(run(4, constrain=True))
    assert _guesser_key(run(2)) != _guesser_key(run(5, params={"temperature": 0.7}))
