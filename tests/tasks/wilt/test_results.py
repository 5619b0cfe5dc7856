"""WILT results a researcher can use: trials (each its own sample), pooled accuracy with its Wilson interval,
the paper's columns as scores, truncated replies apart from format errors, folded prompts, 80-column tables."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from rich.console import Console

from tests.conftest import FakeModel, wilt_script_reply
from wason.cli import main
from wason.engine import create_run, execute_run, llm_player_factory, run_baseline
from wason.metrics import wilson_interval
from wason.models.base import ChatMessage, GenerationParams, ModelResponse
from wason.models.client import ModelClient, RetryPolicy
from wason.report.render import transcript_terminal
from wason.report.tables import report_tables
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig
from wason.tasks.wilt.family import FAMILY
from wason.tasks.wilt.protocol import load_instruction
from wason.tasks.wilt.report import run_json
from wason.tasks.wilt.rules import get_rule


def _model_run(store: Store, config: WiltRunConfig, model: object) -> int:
    rid = create_run(store, config)
    client = ModelClient(model=model, store=store, policy=RetryPolicy(retries=0, base_delay=0.0))  # type: ignore[arg-type]
    asyncio.run(execute_run(store, rid, llm_player_factory(client, config, rid), concurrency=2))
    return rid


@pytest.fixture(scope="module")
def trial_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, int, int, FakeModel]:
    """A model run of two rules x three trials, and its solver baseline."""
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('wilt') / 'wason.db'}")
    model = FakeModel()
    rid = _model_run(store, WiltRunConfig(model="fake:scripted", ids=[1, 2], trials=3), model)
    baseline = run_baseline(store, rid)
    assert baseline is not None
    return store, rid, baseline, model


def test_three_trials_are_three_episodes_per_rule_each_its_own_sample(
    trial_runs: tuple[Store, int, int, FakeModel],
) -> None:
    store, rid, _, model = trial_runs
    eps = store.list_episodes(rid)
    assert [(e.item["id"], e.item["trial"]) for e in eps] == [(r, t) for r in (1, 2) for t in (1, 2, 3)]
    config = WiltRunConfig(model="fake:scripted", ids=[1, 2], trials=3)
    keys = [FAMILY.sample_key(config, e.item) for e in eps]
    assert len(set(keys)) == 6
    # trial 1 keeps the key of a run without trials, so older runs resume against their cached replies
    assert keys[0] == get_rule("lite", 1).sample_key == FAMILY.sample_key(config.model_copy(), eps[0].item)
    one = WiltRunConfig(model="fake:scripted", ids=[1, 2])
    assert [FAMILY.sample_key(one, item) for _, item in one.items()] == [keys[0], keys[3]]
    # no trial replayed another's replies from the cache: the script takes five replies per episode
    assert model.calls == 6 * 5
    assert store.call_totals(rid)["cached_calls"] == 0


def test_pooled_accuracy_over_all_trials_with_a_per_rule_line(
    trial_runs: tuple[Store, int, int, FakeModel],
) -> None:
    store, rid, baseline, _ = trial_runs
    report = run_json(store, rid)
    # the script always guesses x < y < z: right for rule 2 (x < y < z), wrong for rule 1 (x > y > z)
    assert (report.table.accuracy.k, report.table.accuracy.n) == (3, 6)
    assert report.table.accuracy.interval == pytest.approx(wilson_interval(3, 6))
    assert [(r.rule, r.correct.k, r.trials) for r in report.rules] == [("lite/1", 0, 3), ("lite/2", 3, 3)]
    data = json.loads(FAMILY.report_json(store, [rid, baseline]).model_dump_json())
    assert data["table"]["accuracy"]["rate"] == 0.5 and len(data["table"]["accuracy"]["interval"]) == 2
    # the deterministic solver plays every trial the model played
    assert (
        data["baselines"][0]["table"]["accuracy"]["k"] == data["baselines"][0]["table"]["accuracy"]["n"] == 6
    )
    console = Console(width=80, record=True)
    for part in report_tables(store, [rid, baseline]):
        console.print(part)
    text = console.export_text()
    assert "Per rule" in text and "lite/1" in text and "0/3" in text and "3/3" in text
    low, high = wilson_interval(3, 6)
    assert "3/6" in text and f"50% [{100 * low:.0f}-{100 * high:.0f}]" in text


def test_the_tables_fit_80_columns_without_cutting_text(
    trial_runs: tuple[Store, int, int, FakeModel],
) -> None:
    store, rid, baseline, _ = trial_runs
    console = Console(width=80, record=True)
    for part in report_tables(store, [rid, baseline]):
        console.print(part)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    assert f"Run {rid}: wilt:lite by fake:scripted [completed]" in text
    assert "fake:scripted" in text and "solver (reference)" in text


def test_scores_are_the_paper_table_1_columns_in_order(trial_runs: tuple[Store, int, int, FakeModel]) -> None:
    store, rid, baseline, _ = trial_runs
    scores = FAMILY.scores(store, rid)
    assert [s.name for s in scores] == [
        "Accuracy",
        "Approx. Correct",
        "Avg. Guesses",
        "Repeats",
        "Invalid tests",
        "Proved",
        "Refuted",
        "Sampled",
        "Median operators",
        "Median length",
        "Median set inclusion",
    ]
    assert all(len(s.short) <= 8 and s.legend for s in scores)
    acc, approx, guesses, repeats, invalid = scores[:5]
    assert (acc.kind, acc.k, acc.n) == ("rate", 3, 6) and acc.interval == pytest.approx(wilson_interval(3, 6))
    assert (approx.kind, approx.n) == ("rate", 6)
    # the script tests four triples, then guesses: four attempts in every episode
    assert (guesses.kind, guesses.value, guesses.n, guesses.higher_is_better) == ("mean", 4.0, 6, False)
    assert (repeats.kind, invalid.kind) == ("count", "count")
    # every accepted guess's verdict is one of the three; the correct ones are not refuted
    proved, refuted, sampled = scores[5:8]
    assert proved.value is not None and refuted.value is not None and sampled.value is not None
    assert proved.value + refuted.value + sampled.value == 6
    assert proved.value + sampled.value == acc.k
    solver = FAMILY.scores(store, baseline)
    assert (solver[0].k, solver[0].n) == (6, 6)


def test_trials_must_be_at_least_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="trials"):
        WiltRunConfig(trials=0)
    db = f"sqlite:///{tmp_path / 'w.db'}"
    assert main(["eval", "wilt", "--player", "solver", "--trials", "0", "--db", db]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("wason: error:") and "trials" in err and len(err.splitlines()) == 1


def test_a_given_model_seed_moves_on_with_the_trial() -> None:
    config = WiltRunConfig(
        model="fake:x", ids=[1], trials=3, params=GenerationParams(seed=7, temperature=1.0)
    )
    seeds = [FAMILY.generation_params(config, item).seed for _, item in config.items()]
    assert seeds == [7, 8, 9]
    assert FAMILY.generation_params(config, config.items()[0][1]) == config.params
    unseeded = WiltRunConfig(model="fake:x", ids=[1], trials=2)
    assert {FAMILY.generation_params(unseeded, item).seed for _, item in unseeded.items()} == {None}


def test_one_trial_keeps_the_items_of_runs_before_trials() -> None:
    items = WiltRunConfig(ids=[1, 2]).items()
    assert [key for key, _ in items] == ["lite/1", "lite/2"] and all("trial" not in item for _, item in items)
    keys = [key for key, _ in WiltRunConfig(ids=[1], trials=2).items()]
    assert keys == ["lite/1|1", "lite/1|2"]


class _CutModel:
    """Replies cut off at the token limit twice in a row (the episode ends as after two unreadable replies)."""

    spec = "fake:cut"
    endpoint = "memory"
    max_concurrency = 1

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        turn = sum(m.role == "assistant" for m in messages)
        if turn == 0:
            return ModelResponse(text=wilt_script_reply(messages), finish_reason="stop")
        return ModelResponse(text="Let me think about this carefully. The", finish_reason="length")

    async def aclose(self) -> None:
        return None


def test_truncated_replies_are_counted_apart_and_cost_what_format_errors_cost(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'cut.db'}")
    rid = _model_run(store, WiltRunConfig(model="fake:cut", ids=[1]), _CutModel())
    (episode,) = store.list_episodes(rid)
    m = episode.metrics or {}
    # one test, then two cut-off replies: the second ends the episode as two format errors would
    assert (m["truncated"], m["format_errors"], m["attempts"], m["end_reason"]) == (2, 0, 3, "format_errors")
    report = run_json(store, rid)
    assert (report.table.truncated, report.table.format_errors) == (2, 0)
    console = Console(width=80, record=True)
    for part in report_tables(store, [rid]):
        console.print(part)
    text = " ".join(console.export_text().split())
    assert "Format errors: 0 unreadable replies; Truncated: 2 replies cut off at the token limit" in text


def test_the_transcript_folds_the_published_prompt_unless_full(
    trial_runs: tuple[Store, int, int, FakeModel],
) -> None:
    store, rid, _, _ = trial_runs
    run = store.get_run(rid)
    episode = store.list_episodes(rid)[4]
    data = {
        "run": rid,
        "index": episode.index,
        "rule": episode.item_key,
        "rule_text": episode.item["rule"],
        "item": episode.item,
        "status": episode.status,
        "error": episode.error,
        "metrics": episode.metrics,
        "turns": store.list_turns(episode.id),
    }
    hint = f"the whole prompt: wason show {rid} --episode 4 --full"  # as wason show adds it
    folded, full = (
        _text(transcript_terminal(FAMILY.messages(data, run), full=f, hint=hint)) for f in (False, True)
    )
    assert f"the whole prompt: wason show {rid} --episode 4 --full" in folded
    assert load_instruction().splitlines()[-1].strip() not in folded
    assert load_instruction().splitlines()[-1].strip() in full and "--full]" not in full
    assert "(trial 2)" in folded


def _text(renderable: object) -> str:
    console = Console(width=200, record=True)
    console.print(renderable)
    return console.export_text()


def test_episodes_not_played_yet_are_in_no_rate(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'pending.db'}")
    rid = create_run(store, WiltRunConfig(model="fake:scripted", ids=[1, 2], trials=2))
    report = run_json(store, rid)
    assert report.summary.pending == 4 and (report.table.accuracy.k, report.table.accuracy.n) == (0, 0)
    assert report.table.accuracy.rate is None and [r.correct.n for r in report.rules] == [0, 0]
    assert FAMILY.scores(store, rid)[0].n == 0


def test_each_trial_samples_with_its_own_seed(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'seed.db'}")
    model = FakeModel()
    config = WiltRunConfig(model="fake:scripted", ids=[1], trials=3, params=GenerationParams(seed=7))
    _model_run(store, config, model)
    # trial t samples with seed 7 + t - 1: trial 1 sends what a run without trials sends
    assert sorted({p.seed for p in model.params}) == [7, 8, 9]
    assert all(
        c["params"]["seed"] == 7 + e.item["trial"] - 1
        for e in store.list_episodes(1)
        for c in store.list_calls(episode_id=e.id)
    )
