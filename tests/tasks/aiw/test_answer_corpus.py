"""The answer reader over a corpus of replies written to look like real ones (tests/tasks/aiw/reply_corpus.py): every
reply reads as its entry says, and every rule of the reader is exercised several times."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.tasks.aiw.reply_corpus import ENDINGS, Entry, corpus
from wason.tasks.aiw.answers import answers_match, parse_answer

CORPUS = corpus()


def _read(entry: Entry) -> int | float | str:
    parsed = parse_answer(entry.reply, first_answer=entry.first_answer)
    return parsed.value if parsed.status == "ok" else parsed.status


@pytest.mark.parametrize("entry", CORPUS, ids=[f"{i}-{e.rule}" for i, e in enumerate(CORPUS)])
def test_each_reply_reads_as_written(entry: Entry) -> None:
    assert _read(entry) == entry.expected


def test_the_corpus_is_large_and_every_rule_is_met_at_least_five_times() -> None:
    assert len(CORPUS) >= 200
    counts = Counter(e.rule for e in CORPUS)
    rules = {rule for _, _, rule in ENDINGS} | {"no_marker", "base_continuation", "last_marker"}
    assert set(counts) == rules
    assert min(counts.values()) >= 5, counts


def test_an_ambiguous_answer_is_never_right() -> None:
    for entry in CORPUS:
        if entry.expected == "ambiguous":
            parsed = parse_answer(entry.reply, first_answer=entry.first_answer)
            assert parsed.value is None and not any(answers_match(parsed, n) for n in range(0, 13))


def test_a_continuation_read_at_its_last_marker_takes_an_invented_answer() -> None:
    # why base models need the first answer: the last marker belongs to a problem the model made up
    entry = next(e for e in CORPUS if e.rule == "base_continuation" and e.expected == 7)
    assert parse_answer(entry.reply).value == 5
    assert parse_answer(entry.reply, first_answer=True).value == 7
