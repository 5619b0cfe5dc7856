"""wason's answer reader against the AIW reference's scorer, on the reply corpus (tests/tasks/aiw/reply_corpus.py).

The reference's reads are stored data (``reference_reads.json``), produced once by running its parse by hand; the
reference's code is not run here. Every reply where the two read different numbers carries the reason, and the
counts per reason are the ones docs/fidelity.md reports.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from tests.tasks.aiw.reply_corpus import corpus
from wason.tasks.aiw.answers import ParsedAnswer, parse_answer

CORPUS = corpus()
DATA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "reference_reads.json").read_text(encoding="utf-8")
)

# docs/aiw.md, "A corpus of replies" (docs/fidelity.md, "## AIW", gives the counts of the first 293 replies)
DISAGREEMENTS = {
    "worked_sum": 165,
    "earlier_marker": 118,
    "range_or_list": 30,
    "no_marker_fallback": 18,
    "number_words": 15,
    "operation_without_result": 15,
    "number_form": 12,
    "no_value_fallback": 10,
    "space_before_colon": 3,
    "base_continuation": 3,
}


def _same(parsed: ParsedAnswer, reference: str | None) -> bool:
    """Both read the same whole number, or neither reads one (the reference's read is a digit string or None)."""
    if parsed.status != "ok":
        return reference is None
    return isinstance(parsed.value, int) and reference == str(parsed.value)


def test_the_stored_reads_are_of_this_corpus() -> None:
    reads = DATA["reads"]
    assert len(reads) == len(CORPUS) == 533
    digests = [hashlib.sha256(e.reply.encode()).hexdigest()[:16] for e in CORPUS]
    changed = [i for i, (d, r) in enumerate(zip(digests, reads, strict=True)) if d != r["sha256"]]
    assert not changed, f"corpus replies {changed} changed: run the reference's parse on them again"


def test_every_disagreement_with_the_reference_has_its_reason_and_wason_reads_what_was_meant() -> None:
    reasons = DATA["reasons"]
    found: Counter[str] = Counter()
    for index, (entry, read) in enumerate(zip(CORPUS, DATA["reads"], strict=True)):
        parsed = parse_answer(entry.reply, first_answer=entry.first_answer)
        same = _same(parsed, read["reference"])
        assert same == (read["why"] is None), (index, entry.reply[-60:], parsed, read)
        if not same:
            assert read["why"] in reasons
            found[read["why"]] += 1
            # where they differ, wason reads what the reply meant and the reference does not
            meant = parsed.value if parsed.status == "ok" else parsed.status
            assert meant == entry.expected and read["reference"] != str(entry.expected), index
    assert dict(found) == DISAGREEMENTS and sum(found.values()) == 389
    assert set(reasons) == set(DISAGREEMENTS)


def test_the_reference_reads_the_first_number_after_the_first_answer() -> None:
    # docs/aiw.md, rule 3: "### Answer: 7  Alice has 3 sisters, so..." is read as 7 by both
    index = next(i for i, e in enumerate(CORPUS) if e.reply.startswith("### Answer: 7  Alice has 3 sisters"))
    assert DATA["reads"][index]["reference"] == "7" and DATA["reads"][index]["why"] is None
    assert parse_answer(CORPUS[index].reply).value == 7
