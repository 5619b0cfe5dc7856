"""The AIW family table, entry by entry, against a snapshot of it taken from the hand-written table it was
generated from (``family_table.json``): every family's name, group, template and flags, the order of each
mapping, and its solver's answers and consistency check on a fixed set of slot values."""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from wason.tasks.aiw import families
from wason.tasks.aiw.items import published_items
from wason.tasks.aiw.prompt_types import PROMPT_TYPES

SNAPSHOT = Path(__file__).with_name("family_table.json")
DRAWS = 24


def _samples(fam: families.Family) -> list[dict[str, Any]]:
    """Slot values to run the solver on: the published ones, then draws from a per-family seed."""
    out = [dict(it.slots) for it in published_items() if it.family == fam.name]
    rng = random.Random(fam.name)
    for _ in range(DRAWS):
        if fam.symbolic:
            out.append(dict(zip(fam.slots, rng.sample("KLMNPQRSTXYZ", len(fam.slots)), strict=True)))
        else:
            low = fam.min_value
            out.append({s: rng.randint(low, max(low, 12) if low < 50 else 100) for s in fam.slots})
    return out


def _entry(fam: families.Family) -> dict[str, Any]:
    samples = _samples(fam)
    return {
        "group": fam.group,
        "template": fam.template,
        "slots": list(fam.slots),
        "symbolic": fam.symbolic,
        "min_value": fam.min_value,
        "words": fam.words,
        "article": fam.article,
        "published_only": fam.published_only,
        "samples": [[s[name] for name in fam.slots] for s in samples],
        "answers": [fam.solver(s) for s in samples],
        "consistent": [fam.consistent(s) for s in samples],
    }


def table() -> dict[str, Any]:
    """The table as plain data (what the snapshot holds)."""
    return {
        "order": {
            name: list(getattr(families, name))
            for name in ("FAMILIES", "WORD_FAMILIES", "PUBLISHED_ONLY_FAMILIES", "ALL_FAMILIES")
        },
        "families": {name: _entry(fam) for name, fam in families.ALL_FAMILIES.items()},
    }


@cache
def _snapshot() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    return data


def test_each_mapping_holds_the_same_names_in_the_same_order() -> None:
    assert table()["order"] == _snapshot()["order"]


@pytest.mark.parametrize("name", sorted(json.loads(SNAPSHOT.read_text(encoding="utf-8"))["families"]))
def test_family_is_the_same_as_in_the_snapshot(name: str) -> None:
    old = _snapshot()["families"][name]
    fam = families.ALL_FAMILIES[name]
    new = _entry(fam)
    assert new["samples"] == old["samples"]
    assert new == old


def test_prompt_types_keep_their_order() -> None:
    assert list(PROMPT_TYPES) == [
        *(
            "STANDARD",
            "THINKING",
            "THINKING_V2",
            "THINKING_V2_NO_PERIOD",
            "THINKING_V2_TWO_PERIODS",
            "RESTRICTED",
        ),
        *(
            "RESTRICTED_V0",
            "FORMATTING_ONLY",
            "FORMATTING_THEN",
            "FORMATTING_THEN_NO_THE",
            "STANDARD_BY",
            "PLAIN",
        ),
        *("SCIENTIST_V1", "SCIENTIST_V2", "SCIENTIST_V3", "CONFIDENCE", "COUNT_STEPS", "COUNT_STEPS_FORMAT"),
        *(
            "REFLECTION_THINKING_V2",
            "REFLECTION_THINKING_V2_SPACED",
            "SQL",
            "THINKING_V2_SEX_CODE",
            "BASE",
            "ICL",
        ),
        "ICL_NO_HEADING",
    ]
