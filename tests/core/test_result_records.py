"""The records results are written in: rates as numbers with their intervals, scores, folded prompts; and the
replies cut off at the token limit, told apart from format errors from the model player to the store."""

from __future__ import annotations

import pytest

from tests.conftest import FakeModel
from wason.core.game import Malformed
from wason.core.records import Rate, Score, calls_note, fold_text
from wason.engine import create_run, execute_run, llm_player_factory
from wason.metrics import wilson_interval
from wason.models.base import ChatMessage, GenerationParams, ModelResponse
from wason.models.client import ModelClient, RetryPolicy
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig


def test_a_rate_carries_its_counts_and_wilson_interval_as_numbers() -> None:
    r = Rate.of(7, 10)
    assert (r.k, r.n, r.rate) == (7, 10, 0.7)
    assert r.interval == pytest.approx(wilson_interval(7, 10))
    assert r.model_dump(mode="json") == {"k": 7, "n": 10, "rate": 0.7, "interval": list(r.interval)}
    assert str(r) == "7/10"


def test_a_rate_of_nothing_has_no_value_and_the_whole_interval() -> None:
    r = Rate.of(0, 0)
    assert r.rate is None and r.interval == (0.0, 1.0)


@pytest.mark.parametrize(("k", "n"), [(-1, 3), (4, 3), (0, -1)])
def test_an_impossible_rate_is_refused(k: int, n: int) -> None:
    with pytest.raises(ValueError, match="0 <= k <= n"):
        Rate.of(k, n)


def test_scores_of_each_kind() -> None:
    rate = Score.rate("Accuracy", "Acc", 3, 4, "rules found")
    assert (rate.kind, rate.value, rate.k, rate.n) == ("rate", 0.75, 3, 4)
    assert rate.interval == pytest.approx(wilson_interval(3, 4))
    mean = Score.mean("Avg. Guesses", "Guesses", 12.5, n=4, interval=(10.0, 15.0), higher_is_better=False)
    assert (mean.kind, mean.value, mean.n, mean.interval, mean.higher_is_better) == (
        "mean",
        12.5,
        4,
        (10.0, 15.0),
        False,
    )
    count = Score.count("Repeats", "Rep", 2)
    assert (count.kind, count.value, count.higher_is_better) == ("count", 2, False)


def test_a_long_prompt_is_folded_and_a_short_one_is_not() -> None:
    text = "\n".join(f"line {i}" for i in range(20))
    folded = fold_text(text, lines=6, hint="see --full")
    assert folded.splitlines()[:6] == [f"line {i}" for i in range(6)]
    assert folded.splitlines()[6] == "[... 14 more lines; see --full]"
    assert len(folded.splitlines()) == 7
    assert fold_text(text, lines=6, full=True) == text
    short = "a\nb\nc"
    assert fold_text(short, lines=6) == short


def test_the_calls_note_names_truncated_replies_only_when_there_are_some() -> None:
    calls = dict.fromkeys(
        (
            "calls",
            "cached_calls",
            "failed_calls",
            "attempts",
            "input_tokens",
            "output_tokens",
            "cached_input_tokens",
            "cached_output_tokens",
        ),
        0,
    )
    assert "token limit" not in calls_note({**calls, "truncated": 0})
    assert "3 replies cut off at the token limit" in calls_note({**calls, "truncated": 3})


class _CutModel(FakeModel):
    """Replies that stop mid-sentence on odd turns (finish reason ``length``), readable ones otherwise."""

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        turn = sum(m.role == "assistant" for m in messages)
        self.calls += 1
        if turn in (1, 3):
            return ModelResponse(text="Let me think about this carefully. The first", finish_reason="length")
        if turn == 5:  # unreadable, and the model stopped on its own: a format error
            return ModelResponse(text="I have no idea what to write.", finish_reason="stop")
        if turn < 7:
            return ModelResponse(
                text=f"Test Case: ```({turn}, {turn + 1}, {turn + 2})```", finish_reason="stop"
            )
        return ModelResponse(text="Final Guess: ```lambda x, y, z: x < y < z```", finish_reason="stop")


async def test_replies_cut_at_the_token_limit_are_counted_apart_from_format_errors(store: Store) -> None:
    cfg = WiltRunConfig(model="fake:cut", split="lite", ids=[1], format_error_limit=0)
    rid = create_run(store, cfg)
    client = ModelClient(model=_CutModel(), store=store, policy=RetryPolicy(retries=0, base_delay=0.0))
    await execute_run(store, rid, llm_player_factory(client, cfg, rid), concurrency=1)
    (episode,) = store.list_episodes(rid)
    actions = [t["action"] for t in store.list_turns(episode.id)]
    cut = [a for a in actions if a["type"] == "Malformed" and a["truncated"]]
    assert len(cut) == 2 and all("cut off at the token limit" in a["reason"] for a in cut)
    assert store.unreadable_counts(rid) == {"unreadable": 1, "truncated": 2}
    assert store.call_totals(rid)["truncated"] == 2
    reasons = store.finish_reasons(rid)
    assert reasons["length"] == 2 and reasons["stop"] == len(actions) - 2


def test_a_malformed_action_read_from_an_old_store_is_not_truncated() -> None:
    assert Malformed("no marker").truncated is False


def test_the_calls_note_names_retries_only_when_there_were_any() -> None:
    base = {"calls": 15, "failed_calls": 0, "cached_calls": 4, "input_tokens": 1200, "output_tokens": 300}
    replayed = {"cached_input_tokens": 80, "cached_output_tokens": 20}
    none = calls_note({**base, **replayed, "attempts": 15})
    assert none == (
        "model calls: 15 made, 0 failed, 4 replayed from the cache; tokens spent 1200 in, 300 out "
        "(replayed 80 in, 20 out)"
    )
    assert calls_note({**base, **replayed, "attempts": 16}).startswith(
        "model calls: 15 made (1 retry), 0 failed"
    )
    two = calls_note({**base, **replayed, "attempts": 17, "failed_calls": 1})
    assert two.startswith("model calls: 15 made (2 retries), 1 failed, 4 replayed")
