"""AIW problem families: a template with named number slots and a solver for the right answer.

Template syntax (parsed by regular expressions, never evaluated):

* ``{name}`` -- the slot value alone;
* ``{name:singular|plural}`` -- the value followed by the noun in the form the records use
  ("1 sister", "3 sisters"); symbolic values (AIW-Param's "M", "X") take the plural, as published.

Slots are ints, or single capital letters for the symbolic AIW-Param family. Answers are ints, or for
symbolic slots a normalised expression string such as ``"M + 1"``; a model's symbolic answer is compared with
it algebraically (sympy) when answers are judged, so the string form here only needs to be canonical.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

Slot = int | str
Slots = Mapping[str, Slot]
Answer = int | str

SLOT_RE = re.compile(r"\{(\w+)(?::([^|{}]+)\|([^{}]+))?\}")


def add(*terms: Slot) -> Answer:
    """Sum slot values; symbolic terms stay as names joined by `` + ``, with the integer part last.

    Args:
        *terms: ints or symbol names.

    Returns:
        An int when every term is numeric, else a normalised expression like ``"M + 1"``.
    """
    symbols = [t for t in terms if isinstance(t, str)]
    constant = sum(t for t in terms if isinstance(t, int))
    if not symbols:
        return constant
    parts = [*symbols, str(constant)] if constant else symbols
    return " + ".join(parts)


@dataclass(frozen=True)
class Family:
    """One problem family.

    Attributes:
        name: stable identifier ``group.form``; the form distinguishes word orders and phrasings.
        group: the family as the paper names it (coverage is reported per group).
        template: problem text with named slots (see module docstring).
        solver: computes the right answer from the slots.
        symbolic: slots are symbol names (AIW-Param) rather than numbers.
        min_value: smallest value a slot may take (exaggerated-numbers instances use large values).
    """

    name: str
    group: str
    template: str
    solver: Callable[[Slots], Answer]
    symbolic: bool = False
    min_value: int = 0

    @property
    def slots(self) -> tuple[str, ...]:
        """Slot names in order of first appearance."""
        seen: dict[str, None] = {}
        for m in SLOT_RE.finditer(self.template):
            seen.setdefault(m.group(1), None)
        return tuple(seen)


def _count(name: str, singular: str, plural: str | None = None) -> str:
    return "{%s:%s|%s}" % (name, singular, plural or singular + "s")  # noqa: UP031 - braces are template syntax


_B, _S = _count("brothers", "brother"), _count("sisters", "sister")
_MALE, _FEMALE = _count("male", "male friend"), _count("female", "female friend")
_FAMILIES: list[Family] = []


def _family(name: str, group: str, template: str, solver: Callable[[Slots], Answer], **kw: object) -> None:
    _FAMILIES.append(Family(name, group, template, solver, **kw))  # type: ignore[arg-type]


def _sisters_plus_one(s: Slots) -> Answer:
    return add(s["sisters"], 1)


def _brothers_plus_one(s: Slots) -> Answer:
    return add(s["brothers"], 1)


_ALICE_Q = "How many sisters does Alice's brother have?"
_BOB_Q = "How many brothers does Bob's sister have?"

# AIW original, its exaggerated-number instances and AIW-Param share the wording; they differ in slot values.
for _group, _kw in (
    ("AIW", {}),
    ("AIW exaggerated numbers", {"min_value": 50}),
    ("AIW-Param", {"symbolic": True}),
):
    _prefix = {"AIW": "aiw", "AIW exaggerated numbers": "exaggerated", "AIW-Param": "param"}[_group]
    _family(
        f"{_prefix}.bs", _group, f"Alice has {_B} and she also has {_S}. {_ALICE_Q}", _sisters_plus_one, **_kw
    )
    _family(
        f"{_prefix}.sb", _group, f"Alice has {_S} and she also has {_B}. {_ALICE_Q}", _sisters_plus_one, **_kw
    )
_family(
    "param.light.sb",
    "AIW-Param",
    f"Alice has {_S} and she also has {_B}. How many brothers does Alice's sister have?",
    lambda s: s["brothers"],
    symbolic=True,
)

_family("bob.bs", "AIW Bob", f"Bob has {_B} and he also has {_S}. {_BOB_Q}", _brothers_plus_one)
_family("bob.sb", "AIW Bob", f"Bob has {_S} and he also has {_B}. {_BOB_Q}", _brothers_plus_one)

_family(
    "female_boost.bs",
    "AIW female boost",
    f"Alice is female and has {_B} and she also has {_S}. {_ALICE_Q}",
    _sisters_plus_one,
)
_family(
    "female_boost.sb",
    "AIW female boost",
    f"Alice is female and has {_S} and she also has {_B}. {_ALICE_Q}",
    _sisters_plus_one,
)
_family(
    "female_boost.a_female.bs",
    "AIW female boost",
    f"Alice is a female, she has {_B} and she also has {_S}. {_ALICE_Q}",
    _sisters_plus_one,
)
_family(
    "female_boost.girl.bs",
    "AIW female boost",
    f"Alice is a girl and has {_B} and she also has {_S}. {_ALICE_Q}",
    _sisters_plus_one,
)
_family(
    "female_boost.girl.sb",
    "AIW female boost",
    f"Alice is a girl and has {_S} and she also has {_B}. {_ALICE_Q}",
    _sisters_plus_one,
)
_family(
    "male_boost.bs",
    "AIW male boost",
    f"Bob is male and has {_B} and he also has {_S}. {_BOB_Q}",
    _brothers_plus_one,
)
_family(
    "male_boost.sb",
    "AIW male boost",
    f"Bob is male and has {_S} and he also has {_B}. {_BOB_Q}",
    _brothers_plus_one,
)

# AIW Light: same family facts, questions that do not need the "Alice is one of the sisters" step
# (Family: a sister's brothers; Arithmetic Siblings; Total Girls) or only ask for Alice's sex.
_family(
    "light_family.bs",
    "AIW Light Family",
    f"Alice has {_B} and she also has {_S}. How many brothers does Alice's sister have?",
    lambda s: s["brothers"],
)
_family(
    "light_family.sb",
    "AIW Light Family",
    f"Alice has {_S} and she also has {_B}. How many brothers does Alice's sister have?",
    lambda s: s["brothers"],
)
_family(
    "light_siblings.bs",
    "AIW Light Arithmetic Siblings",
    f"Alice has {_B} and she also has {_S}. How many siblings does Alice have?",
    lambda s: add(s["brothers"], s["sisters"]),
)
_family(
    "light_siblings.sb",
    "AIW Light Arithmetic Siblings",
    f"Alice has {_S} and she also has {_B}. How many siblings does Alice have?",
    lambda s: add(s["brothers"], s["sisters"]),
)
_family(
    "light_total_girls.sb",
    "AIW Light Arithmetic Total Girls",
    f"Alice has {_S} and she also has {_B}. How many girls are there in total?",
    _sisters_plus_one,
)
_family(
    "light_total_sisters.sb",
    "AIW Light Arithmetic Total Girls",
    f"Alice has {_S} and she also has {_B}. How many sisters are there in total?",
    _sisters_plus_one,
)
_family(
    "light_attribute.bs",
    "AIW Light attribute control",
    f"Alice has {_B} and she also has {_S}. Is Alice male or female?",
    lambda s: "female",
)
_family(
    "light_attribute.sb",
    "AIW Light attribute control",
    f"Alice has {_S} and she also has {_B}. Is Alice male or female?",
    lambda s: "female",
)

# AIW Ext: Alice's sisters and Bob's brothers are given; each asks for the other sibling set.
_EXT = f"Alice and Bob are sister and brother. Alice has {_S} and Bob has {_B}."
_family("ext.alice_brothers", "AIW Ext", f"{_EXT} How many brothers does Alice have?", _brothers_plus_one)
_family("ext.bob_sisters", "AIW Ext", f"{_EXT} How many sisters does Bob have?", _sisters_plus_one)
_family(
    "ext_boost.alice_brothers",
    "AIW Ext",
    f"Alice and Bob are sister and brother. Alice is female and has {_S}. Bob is male and has {_B}. "
    "How many brothers does Alice have?",
    _brothers_plus_one,
)


def _female_plus_one(s: Slots) -> Answer:
    return add(s["female"], 1)


_FRIENDS_Q = "How many female friends does male friend of Alice have?"
for _form, _clause in (
    ("they_all", "They all are friends with each other and have no other friends aside."),
    ("all_mentioned", "All mentioned persons are friends with each other and have no other friends aside."),
):
    _family(
        f"friends.{_form}.mf",
        "AIW Friends",
        f"Alice has {_MALE} and she also has {_FEMALE}. {_clause} {_FRIENDS_Q}",
        _female_plus_one,
    )
    _family(
        f"friends.{_form}.fm",
        "AIW Friends",
        f"Alice has {_FEMALE} and she also has {_MALE}. {_clause} {_FRIENDS_Q}",
        _female_plus_one,
    )
_family(
    "female_boost.friends.mf",
    "AIW female boost",
    f"Alice is female who has {_MALE} and she also has {_FEMALE}. They all are friends with each other and have no "
    f"other friends aside. {_FRIENDS_Q}",
    _female_plus_one,
)
_family(
    "female_boost.friends.fm",
    "AIW female boost",
    f"Alice is female who has {_FEMALE} and she also has {_MALE}. They all are friends with each other and have no "
    f"other friends aside. {_FRIENDS_Q}",
    _female_plus_one,
)


def _circles(noun: str) -> str:
    # "Mod 8" wording: Matilda belongs to both circles and nobody has relations outside them.
    n = noun
    return (
        f"Alice has {_count('alice_male', f'male {n}')} and she also has {_count('alice_female', f'female {n}')} "
        f"in total. All these mentioned persons in the circle around Alice are {n}s of each other. Bob has "
        f"{_count('bob_female', f'female {n}')} and {_count('bob_male', f'male {n}')} in total. All these "
        f"mentioned persons in the circle around Bob are {n}s of each other. The people in the circle around Bob "
        f"do not have other {n}s aside - with the only exception of Matilda. She is {n} of Bob, being part of "
        f"Bob's circle, and she is also {n} of Alice, being part of Alice's circle. All the mentioned persons "
        f"have no {n}s beyond the already described group of people. How many female {n}s does Matilda have?"
    )


def _matilda(s: Slots) -> Answer:
    # Matilda is one of Alice's female colleagues and one of Bob's: the other women in Alice's circle
    # (Alice plus her female colleagues, minus Matilda) plus Bob's female colleagues other than Matilda.
    return add(s["alice_female"], s["bob_female"], -1)


_family("circles.colleagues", "Colleague Circles", _circles("colleague"), _matilda)
_family("circles.friends", "Colleague Circles", _circles("friend"), _matilda)

FAMILIES: Mapping[str, Family] = {f.name: f for f in _FAMILIES}

# The original AIW variations as the paper numbers them: (family, slots) -> right answer 7, 3, 5, 2, 4, 6.
ORIGINAL_VARIATIONS: Mapping[int, tuple[str, Mapping[str, int]]] = {
    1: ("aiw.bs", {"brothers": 3, "sisters": 6}),
    2: ("aiw.sb", {"sisters": 2, "brothers": 4}),
    3: ("aiw.sb", {"sisters": 4, "brothers": 1}),
    4: ("aiw.bs", {"brothers": 4, "sisters": 1}),
    5: ("aiw.bs", {"brothers": 2, "sisters": 3}),
    6: ("aiw.sb", {"sisters": 5, "brothers": 3}),
}
