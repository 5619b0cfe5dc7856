"""Fresh AIW variations: new slot values drawn within each family's ranges, the structure kept.

The paper's point is that a model's correct rate swings when only the numbers change; fresh numbers, drawn with a
seed, are numbers no model can have memorised. Answers always come from the family's solver.

Ranges: every count in 1..10, never below a family's own minimum (the published variations use 1..6; a count of 0
would make questions such as "How many sisters does Alice's brother have?" ill-posed when it is the brothers);
exaggerated-number families in 50..100 (published: 61..66). Symbolic (AIW-Param) families draw distinct capital
letters. Draws that describe an impossible family, such as an aunt with fewer nephews than Alice has brothers,
are rejected.

Structure is preserved, and no variation is confounded: a draw is rejected when the right answer equals the value
of a slot it does not depend on (with 3 brothers and 2 sisters the answer 3 is also "the number of brothers", so a
model that answers the wrong quantity would be scored right), and slots of one item take distinct values, so an
answered number points to one quantity.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from wason.tasks.aiw.families import FAMILIES, Answer, Family, Slot
from wason.tasks.aiw.items import solve

GENERATOR = "aiw-variations"
GENERATOR_VERSION = "1"
SANE_RANGE = (1, 10)
EXAGGERATED_RANGE = (50, 100)
SYMBOLS = "KLMNPQRSTXYZ"
MAX_DRAWS = 10_000


@dataclass(frozen=True)
class Variation:
    """One generated instance of a family, with its provenance."""

    family: str
    slots: Mapping[str, Slot]
    answer: Answer
    name: str
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)


def value_range(family: Family) -> tuple[int, int]:
    """The inclusive range slot values are drawn from (never below the family's own minimum)."""
    low, high = EXAGGERATED_RANGE if family.min_value >= EXAGGERATED_RANGE[0] else SANE_RANGE
    return max(low, family.min_value), high


def generate_variations(family: str, *, seed: int, n: int) -> list[Variation]:
    """``n`` distinct fresh variations of ``family`` for ``seed`` (same seed, same items).

    Raises:
        ValueError: unknown family, or fewer than ``n`` distinct unconfounded variations exist.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown AIW family {family!r}")
    if n < 1:
        raise ValueError("n must be at least 1")
    fam = FAMILIES[family]
    rng = random.Random(f"{GENERATOR}:{GENERATOR_VERSION}:{family}:{seed}")
    low, high = value_range(fam)
    out: list[Variation] = []
    seen: set[tuple[Slot, ...]] = set()
    for _ in range(MAX_DRAWS):
        if len(out) == n:
            break
        slots = _draw(fam, rng, low, high)
        key = tuple(slots[s] for s in fam.slots)
        if key in seen or not fam.consistent(
            slots
        ):  # e.g. an aunt with fewer nephews than Alice has brothers
            continue
        answer = solve(fam, slots)
        if not fam.symbolic and _confounded(fam, slots, answer):
            continue
        seen.add(key)
        out.append(
            Variation(
                family=family,
                slots=slots,
                answer=answer,
                name=f"{family}#s{seed}-{len(out) + 1}",
                meta={
                    "generator": GENERATOR,
                    "generator_version": GENERATOR_VERSION,
                    "seed": seed,
                    "range": [low, high] if not fam.symbolic else "symbols",
                },
            )
        )
    if len(out) < n:
        raise ValueError(f"{family} has only {len(out)} distinct unconfounded variations in its range")
    return out


def _confounded(fam: Family, slots: Mapping[str, Slot], answer: Answer) -> bool:
    """True when the answer equals the value of a slot the answer does not depend on.

    Whether it depends on a slot is tested by changing that slot alone: for "sisters + 1" with 4 brothers and 3
    sisters, changing the brothers leaves the answer at 4, so answering "the brothers" would be scored right.
    """
    for name, value in slots.items():
        if value != answer or not isinstance(value, int):
            continue
        changed = dict(slots)
        changed[name] = value + 1
        if solve(fam, changed) == answer:
            return True
    return False


def _draw(fam: Family, rng: random.Random, low: int, high: int) -> dict[str, Slot]:
    if fam.symbolic:
        letters = rng.sample(SYMBOLS, len(fam.slots))
        return dict(zip(fam.slots, letters, strict=True))
    values = rng.sample(range(low, high + 1), len(fam.slots))  # distinct: one number, one quantity
    return dict(zip(fam.slots, values, strict=True))
