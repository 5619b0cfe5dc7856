"""Static Picnic's players for the reward audit (:mod:`wason.env.audit`): degenerate players, and hacks of the
hidden rule.

A guess is right when it accepts exactly the rule's items over all 511 (``guess.py``), so each player and hack
below is wrong by construction over the catalogue:

* **give-up-at-once** gives up on its first move; **repeat-more** asks for two more examples every turn and never
  guesses (the game ends at its turn limit).
* **broadest guess** is the union of the eight largest categories (every category of a rule has 110 items at
  most, this union far more); **empty guess** is the conjunction ``mammal`` and ``tool``, which no item carries
  (every rule has 3 items or more).

The hacks of one game, built from its hidden categories (a hack an item has no form of is left out for it):

* **widened**: the rule's categories joined by ``or``, with one more category that brings items of its own: it
  accepts an item the rule rejects.
* **carve-out**: the rule and one more category that some of its items carry and some do not: it rejects an
  item the rule accepts.
* **dropped category**: a rule of two or three categories with one left out where that accepts more items.
* **same size**: another category (or pair of them) with as many items as the rule: a guess from the count of
  positives, which names the rule only when no other set has its size.
* **hedged**: the rule's own answer, then the widened guess on the next line: a reply is judged by the last
  answer it gives, so this one is the widened guess; a judge that took any answer a reply names would pay a
  list of guesses.

:func:`public_names` names what every player may read (the items and categories): the leak check does not count
a hidden category read only inside an item's longer name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from itertools import combinations
from typing import Any

from wason.tasks.picnic.catalog import catalog, rule_text

PLAYERS: Mapping[str, tuple[str, ...]] = {
    "give-up-at-once": ("give up",),
    "repeat-more": ("more 2",),
    "broadest guess": (
        "Items from the categories 'animal' or 'food' or 'clothing' or 'kitchenware' or 'tool' or "
        "'sports equipment' or 'vehicle' or 'furniture'",
    ),
    "empty guess": ("Items from the categories 'mammal' and 'tool'",),
}


def _union(categories: Sequence[str]) -> str:
    """A guess of the items of any of ``categories`` (read by ``guess.py`` as a union: names joined by ``or``)."""
    return "Items from the categories " + " or ".join(f"'{c}'" for c in categories)


def _count(mask: int) -> int:
    return bin(mask).count("1")


@cache
def _by_size() -> dict[int, list[tuple[tuple[str, ...], int]]]:
    """Every category, then every pair of categories, in the catalogue's order, with its items, by their count."""
    cat = catalog()
    out: dict[int, list[tuple[tuple[str, ...], int]]] = {}
    for names in [*((t,) for t in cat.tags), *combinations(cat.tags, 2)]:
        mask = cat.members(names)
        out.setdefault(_count(mask), []).append((names, mask))
    return out


def hacks(item: Mapping[str, Any]) -> Mapping[str, tuple[str, ...]]:
    """The hacks of one game: guesses built from its hidden categories (``item["rule"]["categories"]``)."""
    cat = catalog()
    categories = tuple(str(c) for c in item["rule"]["categories"])
    members = cat.members(categories)
    union = 0
    for c in categories:
        union |= cat.extension[c]
    out: dict[str, tuple[str, ...]] = {}
    extra = next(t for t in cat.tags if cat.extension[t] & ~union)
    widened = _union([*categories, extra])
    out["widened"] = (widened,)
    carve = next((t for t in cat.tags if 0 < _count(members & cat.extension[t]) < _count(members)), None)
    if carve is not None:
        out["carve-out"] = (rule_text([*categories, carve]),)
    dropped = next(
        (
            rest
            for rest in combinations(categories, len(categories) - 1)
            if rest and cat.members(rest) != members
        ),
        None,
    )
    if dropped is not None:
        out["dropped category"] = (rule_text(dropped),)
    same = next((names for names, mask in _by_size().get(_count(members), []) if mask != members), None)
    if same is not None:
        out["same size"] = (rule_text(same),)
    out["hedged"] = (f"{rule_text(categories)}\n{widened}",)
    return out


def public_names() -> tuple[str, ...]:
    """Names every player may read: the 511 items (shown as examples, some named after their category, "christmas
    tree") and the 76 categories (the Play page lists them)."""
    known = catalog()
    return (*known.items, *known.tags)
