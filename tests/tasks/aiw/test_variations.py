"""Fresh AIW variations: seeded, in range, structure kept, answers from the solvers, never confounded."""

from __future__ import annotations

import pytest

from wason.tasks.aiw.families import FAMILIES
from wason.tasks.aiw.items import render, render_problem
from wason.tasks.aiw.variations import EXAGGERATED_RANGE, SANE_RANGE, generate_variations


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_generates_fresh_unconfounded_items(family: str) -> None:
    fam = FAMILIES[family]
    items = generate_variations(family, seed=3, n=5)
    assert len({tuple(v.slots.items()) for v in items}) == 5
    for v in items:
        assert set(v.slots) == set(fam.slots)
        assert fam.consistent(v.slots)  # a possible family: e.g. cousins counts cover the named children
        # the problem renders with these numbers, and the answer is the family's own solver's
        text = render_problem(family, v.slots)
        assert all(str(value) in text for value in v.slots.values())
        assert v.answer == fam.solver(v.slots)
        if fam.symbolic:
            assert all(isinstance(s, str) and len(s) == 1 for s in v.slots.values())
        else:
            low, high = EXAGGERATED_RANGE if fam.min_value >= 50 else SANE_RANGE
            assert all(low <= int(s) <= high for s in v.slots.values())
            for name, value in v.slots.items():  # an answer equal to a slot must come from that slot
                if value == v.answer:
                    assert fam.solver({**v.slots, name: int(value) + 1}) != v.answer
            assert len(set(v.slots.values())) == len(v.slots)
        assert v.meta["seed"] == 3 and v.meta["generator_version"]


def test_same_seed_same_items_other_seed_other_items() -> None:
    first = generate_variations("aiw.bs", seed=11, n=8)
    again = generate_variations("aiw.bs", seed=11, n=8)
    assert [dict(v.slots) for v in first] == [dict(v.slots) for v in again]
    other = generate_variations("aiw.bs", seed=12, n=8)
    assert [dict(v.slots) for v in other] != [dict(v.slots) for v in first]
    # the original family's answer is sisters + 1 on fresh numbers too
    for v in first:
        assert v.answer == int(v.slots["sisters"]) + 1
    prompt = render("aiw.bs", first[0].slots, "STANDARD")
    assert prompt.startswith(f"Alice has {first[0].slots['brothers']} brothers")


def test_impossible_requests_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown AIW family"):
        generate_variations("nope", seed=1, n=1)
    with pytest.raises(ValueError, match="at least 1"):
        generate_variations("aiw.bs", seed=1, n=0)
    with pytest.raises(ValueError, match="distinct unconfounded"):
        generate_variations("aiw.bs", seed=1, n=500)
