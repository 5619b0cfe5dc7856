"""One way to write a run's duration and its tokens, in `wason runs` and in the web viewer's runs list."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from wason.report.runs import count_text, seconds_between, took_text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(None, "-"), (4.24, "4.2s"), (37.4, "37s"), (185, "3m05s"), (7440, "2h04m")],
)
def test_durations_read_the_same_in_every_runs_list(seconds: float | None, text: str) -> None:
    assert took_text(seconds) == text


def test_a_run_without_an_end_is_running_or_unknown_and_naive_times_are_utc() -> None:
    assert took_text(None, "running") == "running" and took_text(None, "completed") == "-"
    start = datetime(2026, 1, 1, 12, 0, 0)
    assert seconds_between(start, datetime(2026, 1, 1, 12, 1, 5, tzinfo=UTC)) == 65.0
    assert seconds_between(None, start) is None


@pytest.mark.parametrize(
    ("n", "text"), [(950, "950"), (12_345, "12.3k"), (123_456, "123k"), (1_234_567, "1.2M")]
)
def test_token_counts_read_the_same_in_every_runs_list(n: int, text: str) -> None:
    assert count_text(n) == text
