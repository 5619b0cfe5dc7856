"""The shared parts a family's report composes: the tally of its episodes, its comparison scores, its columns,
its transcript's turns and the model calls' note."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from wason.core import columns as col
from wason.core.records import EpisodeRow, Rate, RunRow
from wason.core.results import Column, Moves, calls_notes, describe_move, turn_messages
from wason.core.tally import WIN_LEGEND, MeanScore, Tally, group_by, judged_scores


def _episode(
    index: int, status: str, metrics: dict[str, Any] | None = None, success: bool | None = None
) -> EpisodeRow:
    return EpisodeRow(
        id=index,
        run_id=1,
        index=index,
        item_key=f"k{index}",
        item={"level": "L1" if index % 2 else "L2"},
        status=status,
        success=success,
        metrics=metrics,
        error=None,
    )


EPISODES = [
    _episode(
        0,
        "completed",
        {"status": "won", "turns": 2, "format_errors": 1, "judges": {"code": True, "llm": True}},
        True,
    ),
    _episode(1, "completed", {"status": "lost", "turns": 5, "judges": {"code": False, "llm": True}}, False),
    _episode(2, "completed", {"status": "won", "turns": 3, "truncated": 2, "judges": {"code": True}}, True),
    _episode(3, "errored"),
    _episode(4, "pending"),
]


def test_a_tally_counts_errored_games_in_every_rate_and_games_not_played_in_none() -> None:
    t = Tally(EPISODES)
    assert (len(t.episodes), len(t.done), t.errored, t.played, t.unfinished) == (5, 3, 1, 4, 1)
    assert t.rate(2) == Rate.of(2, 4)
    assert [m["status"] for m in t.won] == ["won", "won"]
    assert len(t.succeeded) == 2
    assert t.mean("turns") == pytest.approx(10 / 3)
    assert t.mean("turns", t.won) == pytest.approx(2.5)
    assert t.mean("missing") is None
    assert (t.total("format_errors"), t.total("truncated")) == (1, 2)
    assert t.judges(["code", "llm"]) == {"code": Rate.of(2, 4), "llm": Rate.of(2, 4)}
    # the LLM judge agreed with the code on one of the two games both judged
    assert t.agreement("code") == Rate.of(1, 2)
    assert t.where(lambda m: m.get("turns", 0) > 2) == [EPISODES[1].metrics, EPISODES[2].metrics]


def test_an_empty_tally_has_no_mean_and_empty_rates() -> None:
    t = Tally([])
    assert (t.played, t.mean("turns"), t.total("format_errors")) == (0, None, 0)
    assert t.judge("code") == Rate.of(0, 0) and t.agreement("code") == Rate.of(0, 0)


def test_groups_keep_the_order_they_first_appear_in() -> None:
    groups = group_by(EPISODES, lambda e: str(e.item["level"]))
    assert list(groups) == ["L2", "L1"]
    assert [e.index for e in groups["L2"]] == [0, 2, 4]


def test_judged_scores_are_the_win_rate_the_means_then_the_judges_agreement() -> None:
    t = Tally(EPISODES)
    turns = MeanScore("Turns", "Turns", "turns", "turns played")
    scores = judged_scores(t, len(t.won), [turns], "code", "agreed with the code")
    assert [(s.name, s.short, s.kind) for s in scores] == [
        ("Win rate", "Win", "rate"),
        ("Turns", "Turns", "mean"),
        ("LLM judge agreement", "Agree", "rate"),
    ]
    win, mean, agree = scores
    assert (win.k, win.n, win.legend) == (2, 4, WIN_LEGEND)
    assert mean.value == pytest.approx(10 / 3) and mean.n == 3 and mean.interval is not None
    assert mean.higher_is_better is False and mean.legend == "turns played"
    assert (agree.k, agree.n, agree.legend) == (1, 2, "agreed with the code")


def test_the_column_shorthands_are_the_columns_written_out() -> None:
    assert col.rate("won", "Won", "games won") == Column(
        key="won", name="Won", kind="rate", legend="games won"
    )
    assert col.mean("t", "Turns", digits=1, higher_is_better=False) == Column(
        key="t", name="Turns", kind="mean", digits=1, higher_is_better=False
    )
    assert col.count("n", "N", "games") == Column(key="n", name="N", kind="count", legend="games")
    assert col.text("rule", "Rule") == Column(key="rule", name="Rule")
    assert (col.PLAYER.key, col.LEVEL.key, col.CUT.kind) == ("player", "level", "count")


def test_turn_messages_show_each_move_then_what_the_game_answered() -> None:
    run = RunRow(
        id=1,
        task="t",
        player="llm",
        model="m",
        config={},
        status="completed",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        finished_at=None,
    )
    data = {
        "turns": [
            {"index": 0, "reply": "more please", "action": {"type": "More"}, "feedback": "3 more"},
            {"index": 1, "reply": None, "action": {"type": "Guess"}, "feedback": None},
        ]
    }
    out = turn_messages(data, run, lambda a: f"did {a['type']}", game="host", step="move")
    assert [(m.role, m.name, m.text, m.turn) for m in out] == [
        ("player", "model, move 1", "more please", 0),
        ("game", "host", "3 more", 0),
        ("player", "model, move 2", "did Guess", 1),
    ]


def test_the_calls_note_is_there_only_for_a_run_that_called_a_model() -> None:
    none = {"calls": 0, "cached_calls": 0}
    assert calls_notes(none) == []
    some = {
        "calls": 2,
        "attempts": 3,
        "failed_calls": 0,
        "cached_calls": 0,
        "input_tokens": 10,
        "output_tokens": 5,
    }
    (note,) = calls_notes(some)
    assert note.startswith("model calls: 2 made (1 retry), 0 failed") and "tokens spent 10 in, 5 out" in note


def test_a_move_without_text_is_said_by_its_family_s_template_or_function() -> None:
    moves: Moves = {"More": "more {n}", "Guess": lambda a: f"guess: {a['text'].upper()}"}
    assert describe_move({"type": "More", "n": 3}, moves) == "more 3"
    assert describe_move({"type": "More"}, moves) == "more None"  # a missing field, as the families wrote it
    assert describe_move({"type": "Guess", "text": "red"}, moves) == "guess: RED"
    assert describe_move({"type": "GiveUp", "reason": "tired"}, moves) == "GiveUp: tired"
