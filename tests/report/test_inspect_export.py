"""`wason export RUN... --format inspect`: one Inspect log per run, read back by inspect_ai itself with a sample per
episode, the same scores, the messages the model saw and the store's token totals; opened by `inspect view` in
Chromium with no network; without inspect_ai, one line saying what to install before any work."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FakeModel
from tests.inspect.view import inspect_view as serve_inspect_view
from tests.report.test_runs import Made, make_runs
from tests.server.web.conftest import browser_page, chromium  # noqa: F401 - fixtures
from wason.cli import main
from wason.core.records import TRUNCATED_FINISH_REASONS
from wason.engine import create_run, execute_run, llm_player_factory
from wason.models.base import ChatMessage, ModelError
from wason.models.client import ModelClient
from wason.tasks.aiw.family import AiwRunConfig

NO_INSPECT = (
    "INSPECT EXPORT TEST SKIPPED: inspect_ai is not installed (pip install 'wason[inspect]'; "
    "the dev extra installs it, so scripts/check.sh runs these tests)"
)


@pytest.fixture(scope="module")
def inspect_log() -> Any:
    """inspect_ai's log module, or the test skips saying why."""
    try:
        import inspect_ai.log
    except ImportError:
        pytest.skip(NO_INSPECT)
    return inspect_ai.log


def alice_reply(messages: list[ChatMessage]) -> str:
    """Right on variations with 1 sister, off by one elsewhere."""
    sisters = int(re.search(r"(\d+) sisters?", messages[0].content).group(1))  # type: ignore[union-attr]
    answer = sisters + 1 if sisters == 1 else sisters
    return f"Alice has {sisters} sisters, so her brother has **{answer}**.\n### Answer: {answer}"


def _fourth_call_fails(n: int) -> ModelError | None:
    return ModelError("the endpoint fell over", transient=False) if n == 3 else None


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Made, int]:
    """WILT: a solver run, a model run and its baseline; AIW: a model run with one errored episode."""
    url = f"sqlite:///{tmp_path_factory.mktemp('inspect') / 'runs.db'}"
    wilt = make_runs(url)
    cfg = AiwRunConfig(model="fake:alice", trials=2, retries=0)
    aiw = create_run(wilt.store, cfg)
    client = ModelClient(
        model=FakeModel(alice_reply, spec="fake:alice", fail=_fourth_call_fails), store=wilt.store
    )
    asyncio.run(execute_run(wilt.store, aiw, llm_player_factory(client, cfg, aiw), concurrency=2))
    return wilt, aiw


def _export(made: tuple[Made, int], runs: list[int], out: Path) -> list[Path]:
    wilt, _ = made
    args = ["export", *map(str, runs), "--to", str(out), "--format", "inspect", "--db", wilt.url]
    assert main(args) == 0
    return sorted(out.glob("*.eval"))


@pytest.fixture(scope="module")
def logs(
    made: tuple[Made, int], inspect_log: Any, tmp_path_factory: pytest.TempPathFactory
) -> dict[int, Any]:
    """Every run exported through the command line, each log read back by inspect_ai, by run id."""
    wilt, aiw = made
    runs = [wilt.solver, wilt.model, wilt.baseline, aiw]
    files = _export(made, runs, tmp_path_factory.mktemp("logs"))
    assert len(files) == len(runs)  # one log per run
    read = [inspect_log.read_eval_log(str(f)) for f in files]
    return {log.eval.metadata["wason_run"]: log for log in read}


def _fresh_tokens(calls: list[dict[str, Any]]) -> tuple[int, int]:
    fresh = [c for c in calls if not c["cached"]]
    return sum(c["input_tokens"] or 0 for c in fresh), sum(c["output_tokens"] or 0 for c in fresh)


def test_samples_scores_messages_and_usage_equal_the_store(
    made: tuple[Made, int], logs: dict[int, Any]
) -> None:
    wilt, aiw = made
    store = wilt.store
    assert sorted(logs) == sorted([wilt.solver, wilt.model, wilt.baseline, aiw])
    errored = 0
    for run_id, log in logs.items():
        run = store.get_run(run_id)
        episodes = store.list_episodes(run_id)
        assert log.eval.task == run.task and log.status == "success"
        assert log.eval.model == (run.model.replace(":", "/", 1) if run.model else f"wason/{run.player}")
        assert len(log.samples) == len(episodes) > 0
        calls = store.list_calls(run_id=run_id)
        for sample, e in zip(log.samples, episodes, strict=True):
            assert sample.id == e.index and sample.metadata["item_key"] == e.item_key
            assert sample.metadata["item"] == e.item  # the hidden item, as every export has it
            assert sample.metadata["truncated"] == sum(
                c["finish_reason"] in TRUNCATED_FINISH_REASONS for c in calls if c["episode_id"] == e.id
            )
            if e.success is None:
                errored += 1
                assert e.status == "errored" and sample.scores is None
                assert sample.error is not None and sample.error.message == e.error
            else:
                assert sample.error is None
                assert sample.scores["success"].value == ("C" if e.success else "I")
                metrics = sample.scores["metrics"].value
                assert metrics == {k: v for k, v in e.metrics.items() if not isinstance(v, list | dict)}
            mine = [c for c in calls if c["episode_id"] == e.id]
            if run.player == "llm" and mine:
                # the conversation as the model saw it: its last request, then its reply
                last = max(mine, key=lambda c: (len(c["messages"]), c["id"]))
                expected = [(m["role"], m["content"]) for m in last["messages"]]
                if last["response"] is not None:
                    expected.append(("assistant", last["response"]))
                assert [(m.role, m.text) for m in sample.messages] == expected
                assert len(sample.events) == len(mine)  # every call is a model event
            else:
                # a solver's game: its transcript, the moves as the assistant's, the game's answers as the user's
                roles = {m.role for m in sample.messages}
                assert {"assistant", "user"} <= roles, run.player
            usage = (
                sum((u.input_tokens for u in sample.model_usage.values()), 0),
                sum((u.output_tokens for u in sample.model_usage.values()), 0),
            )
            assert usage == _fresh_tokens(mine)
        totals = store.call_totals(run_id)
        spent = log.stats.model_usage
        assert sum(u.input_tokens for u in spent.values()) == totals["input_tokens"]
        assert sum(u.output_tokens for u in spent.values()) == totals["output_tokens"]
        scored = [e for e in episodes if e.success is not None]
        success = next(s for s in log.results.scores if s.name == "success")
        assert success.scored_samples == len(scored)
        assert success.metrics["accuracy"].value == pytest.approx(
            sum(bool(e.success) for e in scored) / len(scored)
        )
    assert errored == 1  # the AIW episode whose call failed
    assert store.call_totals(wilt.model)["input_tokens"] > 0 and store.call_totals(aiw)["output_tokens"] > 0


def test_a_model_run_names_its_model_and_settings(made: tuple[Made, int], logs: dict[int, Any]) -> None:
    wilt, aiw = made
    log = logs[wilt.model]
    config = log.eval.model_generate_config
    assert (config.temperature, config.max_tokens) == (0.7, 64)
    assert log.eval.task_args == wilt.store.get_run(wilt.model).config
    assert logs[wilt.baseline].eval.metadata["baseline_for"] == wilt.model
    assert logs[aiw].samples[0].target == str(wilt.store.list_episodes(aiw)[0].item["expected"])


def test_exporting_again_replaces_the_log(made: tuple[Made, int], inspect_log: Any, tmp_path: Path) -> None:
    wilt, aiw = made
    first = _export(made, [aiw], tmp_path)
    again = _export(made, [aiw, wilt.model], tmp_path)
    assert len(first) == 1 and len(again) == 2 and first[0] in again


def test_an_unknown_run_writes_nothing(
    made: tuple[Made, int], inspect_log: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wilt, _ = made
    out = tmp_path / "out"
    assert (
        main(["export", str(wilt.model), "77", "--to", str(out), "--format", "inspect", "--db", wilt.url])
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no run 77" in err and not out.exists()


def test_without_inspect_ai_one_line_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Runs whether or not inspect_ai is installed: an import of it fails as if it were not."""
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    db, out = tmp_path / "never.db", tmp_path / "out"
    assert main(["export", "1", "--to", str(out), "--format", "inspect", "--db", f"sqlite:///{db}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'wason[inspect]'" in err
    assert not out.exists() and not db.exists()  # not even the store was opened


# -- inspect view ------------------------------------------------------------------------------------------
@pytest.fixture
def inspect_view(made: tuple[Made, int], inspect_log: Any, tmp_path: Path) -> Iterator[str]:
    """`inspect view` over a folder holding the WILT model run's log, on 127.0.0.1; yields its URL."""
    wilt, _ = made
    logs = tmp_path / "logs"
    _export(made, [wilt.model], logs)
    with serve_inspect_view(logs, tmp_path) as url:
        yield url


def test_inspect_view_shows_the_log_offline(
    browser_page: Any,  # noqa: F811 - the web tests' fixture; first, so a missing Chromium skips at once
    inspect_view: str,
    made: tuple[Made, int],
) -> None:
    wilt, _ = made
    page = browser_page
    elsewhere: list[str] = []

    def local_only(route: Any) -> None:
        if route.request.url.startswith(inspect_view):
            route.continue_()
        else:  # no network: anything the viewer would fetch from elsewhere is refused, and noted
            elsewhere.append(route.request.url)
            route.abort()

    page.context.route("**/*", local_only)
    page.set_default_timeout(60_000)
    page.goto(inspect_view + "/")
    episodes = wilt.store.list_episodes(wilt.model)
    page.get_by_text(f"{len(episodes)} Samples").first.wait_for()
    body = page.inner_text("body")
    assert "wilt" in body and "fake/an-unusually-long-model-name" in body
    assert "success" in body  # the scorer
    # the first sample, listed by its input (the first game message that tells it apart), opens on its
    # messages: the model's first reply is there
    from wason.report.inspect_log import eval_log

    shown = str(eval_log(wilt.store, wilt.model).samples[0].input).splitlines()[0][:40]
    page.get_by_text(shown).first.click()
    first_reply = wilt.store.list_calls(run_id=wilt.model)[0]["response"].splitlines()[0]
    page.get_by_text(first_reply).first.wait_for()
    assert elsewhere == [], f"inspect view asked the network for {elsewhere}"
