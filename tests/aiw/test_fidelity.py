"""Fidelity of the AIW task against the published prompts.json: byte-exact prompts and right answers."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from wason.tasks.aiw import FAMILIES, ORIGINAL_VARIATIONS, PROMPT_TYPES, parse, published_items, render, solve

PROMPTS = Path("/work/shared/reference/aiw/prompts.json")
# Coverage actually achieved when the mapping was built; a regression below it fails the suite.
MIN_REPRODUCED = 543
# Id 772 says "3 brothers and she also has 9 sisters" but stores 9; the text implies 10 (it should have
# said 8 sisters, like its neighbours' one-step progression).
KNOWN_WRONG_ANSWERS = {772: 9}
# AIW-Param records store the string "null": the published set has no symbolic answer to compare with.
NULL_ANSWER = {None, "null"}

pytestmark = pytest.mark.skipif(not PROMPTS.exists(), reason="published AIW prompts not available")


@cache
def _records() -> dict[int, dict[str, Any]]:
    return {int(r["id"]): r for r in json.loads(PROMPTS.read_text(encoding="utf-8"))}


def _same_answer(published: object, computed: str) -> bool:
    # 120 records (ids 669-796) store floats such as 7.0; compare numerically when both sides are numbers.
    try:
        return float(str(published)) == float(computed)
    except ValueError:
        return str(published) == computed


def test_every_published_item_renders_byte_identical() -> None:
    records = _records()
    items = published_items()
    assert items, "published mapping is empty"
    mismatches = [it.id for it in items if it.render() != records[it.id]["prompt"]]
    assert mismatches == []


def test_every_published_item_has_the_published_answer_except_documented_cases() -> None:
    records = _records()
    wrong, null_ids = [], []
    for it in published_items():
        published = records[it.id]["right_answer"]
        if published in NULL_ANSWER:
            null_ids.append(it.id)
            # With no published answer the solver must still give a symbolic expression.
            assert FAMILIES[it.family].symbolic, it.id
            continue
        if not _same_answer(published, it.answer()):
            wrong.append(it.id)
    assert wrong == sorted(KNOWN_WRONG_ANSWERS)
    assert null_ids == [100, 101, 102, 103, 104, 105, 106, 107, 108, 117, 118, 119]


def test_known_data_error_772_is_pinned() -> None:
    record = _records()[772]
    assert "3 brothers and she also has 9 sisters" in record["prompt"]
    assert float(record["right_answer"]) == KNOWN_WRONG_ANSWERS[772]
    (item,) = [it for it in published_items() if it.id == 772]
    assert item.render() == record["prompt"]
    assert item.answer() == "10"


def test_null_answer_records_785_786_are_not_claimed() -> None:
    # "Plug in any natural numbers" prompts have no single right answer; the package does not model them.
    records = _records()
    assert records[785]["right_answer"] is None and records[786]["right_answer"] is None
    claimed = {it.id for it in published_items()}
    assert claimed.isdisjoint({785, 786})


def test_published_mapping_agrees_with_parse_over_all_records() -> None:
    # The mapping must list exactly the records the templates reproduce (no stale or missing entries).
    reproducible = {
        rid for rid, r in _records().items() if isinstance(r["prompt"], str) and parse(r["prompt"])
    }
    assert {it.id for it in published_items()} == reproducible
    for it in published_items():
        assert (it.family, dict(it.slots), it.prompt_type) in parse(_records()[it.id]["prompt"])


def test_coverage_report(capsys: pytest.CaptureFixture[str]) -> None:
    records = _records()
    items = published_items()
    by_group = Counter(FAMILIES[it.family].group for it in items)
    claimed = {it.id for it in items}
    uncovered = Counter(str(r.get("description")) for rid, r in records.items() if rid not in claimed)
    with capsys.disabled():
        print(f"\nAIW fidelity: {len(items)}/{len(records)} records reproduced byte-exactly")
        for group, n in by_group.most_common():
            print(f"  {n:4d}  {group}")
        print(f"  {len(uncovered)} distinct descriptions not yet covered")
    assert len(records) == 826
    assert len(items) >= MIN_REPRODUCED


@pytest.mark.parametrize(
    ("record_id", "variation"),
    [(55, 1), (56, 2), (63, 3), (69, 4), (53, 1), (54, 2), (65, 3), (71, 4), (457, 5), (458, 6)],
)
def test_paper_variations_are_named_instances(record_id: int, variation: int) -> None:
    family, slots = ORIGINAL_VARIATIONS[variation]
    (item,) = [it for it in published_items() if it.id == record_id]
    assert (item.family, dict(item.slots)) == (family, slots)
    assert item.variation == f"AIW variation {variation}"
    assert _same_answer(_records()[record_id]["right_answer"], str(solve(family, slots)))


def test_prompt_types_match_the_main_paper_records() -> None:
    records = _records()
    family, slots = ORIGINAL_VARIATIONS[1]
    for record_id, ptype in ((55, "STANDARD"), (57, "THINKING"), (53, "RESTRICTED"), (205, "THINKING_V2")):
        assert render(family, slots, ptype) == records[record_id]["prompt"]
    assert set(PROMPT_TYPES) >= {"STANDARD", "THINKING", "THINKING_V2", "RESTRICTED", "PLAIN", "CONFIDENCE"}


def test_singular_forms_follow_the_records() -> None:
    text = render("aiw.bs", {"brothers": 1, "sisters": 1}, "PLAIN")
    assert "1 brother and she also has 1 sister." in text
    assert solve("aiw.bs", {"brothers": 1, "sisters": 1}) == 2


def test_symbolic_answers_are_normalised_expressions() -> None:
    assert solve("param.bs", {"brothers": "X", "sisters": "Y"}) == "Y + 1"
    assert solve("param.light.sb", {"sisters": "N", "brothers": "M"}) == "M"


def test_attribute_control_answer_is_coded_by_its_prompt_type() -> None:
    (item,) = [it for it in published_items() if it.id == 659]
    assert solve(item.family, item.slots) == "female"
    assert item.answer() == _records()[659]["right_answer"] == "1"


def test_bad_slots_are_rejected() -> None:
    with pytest.raises(ValueError):
        render("aiw.bs", {"brothers": 3}, "STANDARD")
    with pytest.raises(ValueError):
        solve("param.bs", {"brothers": 3, "sisters": 1})
    with pytest.raises(ValueError):
        solve("exaggerated.bs", {"brothers": 3, "sisters": 6})


def test_every_published_item_describes_a_possible_family() -> None:
    # AIW+ totals must cover the children already named; the published slots always do.
    inconsistent = [it.id for it in published_items() if not FAMILIES[it.family].consistent(it.slots)]
    assert inconsistent == []


def test_aiw_plus_records_are_all_reproduced_with_their_answers() -> None:
    # Every cousins record in the published set (ids 91-99, 447-452, 485-564, 815-820) is claimed by an AIW+
    # family, and the cousin solver agrees with each stored answer.
    records = _records()
    cousin_ids = {
        rid for rid, r in records.items() if isinstance(r["prompt"], str) and "cousin" in r["prompt"]
    }
    claimed = {it.id: it for it in published_items() if FAMILIES[it.family].group == "AIW+"}
    assert set(claimed) == cousin_ids
    for rid, it in claimed.items():
        assert _same_answer(records[rid]["right_answer"], it.answer()), rid


def test_aiw_plus_totals_below_the_named_children_are_inconsistent() -> None:
    (item,) = [it for it in published_items() if it.id == 94]
    family = FAMILIES[item.family]
    named_children = int(item.slots["sisters"]) + 1  # Alice and her sisters
    short = {**item.slots, "aunt_kin": named_children - 1}
    assert family.consistent(item.slots)
    assert not family.consistent(short)
