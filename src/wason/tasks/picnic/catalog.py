"""The Static Picnic data: 511 items with their category tags, the rule pools per level, and seeded draws.

The data are the published Open Images items (``data/open_images_combined_items.json``: an item and all its named
ancestor categories) and the 76 tags. A rule is a set of one to three tags; an item fits it when it carries every
tag. Extensions (the items a rule accepts) are Python ints used as bit sets over the items in file order, so two
rules are the same rule exactly when their ints are equal.

Rule pools (published, ``static_picnic/base.py:42-48``; thresholds on the number of positive items):

* L1: one tag with more than 6 items.
* L2: one tag with 4-6 items, or a pair with more than 6 (a coin flip between the two).
* L3: one tag with exactly 3 items, a pair with 4-5, or a triplet with more than 4 (equal odds).

The ``published`` pool keeps every definition (115: L1 31, L2 44, L3 40), in the order of the published count
files, and draws as published: the kind first, then uniformly within it. The ``distinct`` pool (the default) keeps
one definition per extension within a level (64 distinct sets overall: L1 31, L2 39, L3 27), preferring the
fewest categories and then the published order, and draws uniformly among them. The count files' keys are read
by a strict pattern, never evaluated (the reference ``eval``s them, ``base.py:31,35,39``), and their counts are
checked against the items.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Any, Literal

from wason.core.guess_rule import package_text

Level = Literal["L1", "L2", "L3"]
Kind = Literal["single", "pair", "triplet"]
PoolName = Literal["published", "distinct"]
LEVELS: tuple[Level, ...] = ("L1", "L2", "L3")
POOLS: tuple[PoolName, ...] = ("published", "distinct")
KIND_SIZE: dict[Kind, int] = {"single": 1, "pair": 2, "triplet": 3}
DRAW_VERSION = "wason-picnic-draw-1"
"""Version of the rule draw: bumped whenever the same seed could draw another rule."""

_COUNT_KEY = re.compile(r"\[('[^'\\]*'(?:, '[^'\\]*')*)\]")


_read = partial(package_text, "wason.tasks.picnic")


def parse_count_key(key: str) -> tuple[str, ...]:
    """A count-file key such as ``"['animal', 'mammal']"`` as a tuple of tag names, read by a strict pattern
    (``ValueError`` when it is not a bracketed list of single-quoted names)."""
    if not _COUNT_KEY.fullmatch(key):
        raise ValueError(f"not a count-file key: {key[:80]!r}")
    return tuple(part[1:-1] for part in key[1:-1].split(", "))


@dataclass(frozen=True, eq=False)
class Catalog:
    """The items in file order (bit ``i`` of an extension is ``items[i]``), each item's tags, the 76 tags in the
    published tag file's order, and each tag's items as a bit set."""

    items: tuple[str, ...]
    tags_of: dict[str, tuple[str, ...]]
    tags: tuple[str, ...]
    extension: dict[str, int]
    positions: dict[str, int]

    @property
    def everything(self) -> int:
        return (1 << len(self.items)) - 1

    def members(self, categories: Iterable[str]) -> int:
        """The items that carry every one of ``categories`` (all items for none)."""
        mask = self.everything
        for tag in categories:
            mask &= self.extension.get(tag, 0)
        return mask

    def names(self, mask: int) -> list[str]:
        """The items of a bit set, in file order."""
        return [self.items[i] for i in range(mask.bit_length()) if mask >> i & 1]

    def index(self, item: str) -> int:
        return self.positions[item]


@cache
def catalog() -> Catalog:
    """The published items and tags (package data), checked for consistency."""
    raw = json.loads(_read("open_images_combined_items.json"))
    tags = tuple(json.loads(_read("open_images_unique_tags.json")))
    items = tuple(raw)
    tags_of = {item: tuple(raw[item]) for item in items}
    extension = dict.fromkeys(tags, 0)
    for i, item in enumerate(items):
        for tag in tags_of[item]:
            if tag not in extension:
                raise ValueError(f"item {item!r} has tag {tag!r}, which is not in the tag list")
            extension[tag] |= 1 << i
    return Catalog(items, tags_of, tags, extension, positions={name: i for i, name in enumerate(items)})


@dataclass(frozen=True)
class PicnicRule:
    """One rule: items from all of its categories; ``id`` is its place in its level's pool, from 1, and
    ``aliases`` (distinct pool) the level's other published definitions with the same items."""

    id: int
    level: Level
    kind: Kind
    categories: tuple[str, ...]
    pool: PoolName
    aliases: tuple[tuple[str, ...], ...] = ()

    @property
    def text(self) -> str:
        """The published rule text (``rule_templates.txt``)."""
        return rule_text(self.categories)

    @property
    def key(self) -> str:
        return f"{self.pool}:{self.level}:{self.id}"

    def members(self) -> int:
        return catalog().members(self.categories)

    def accepts(self, item: str) -> bool:
        tags = catalog().tags_of.get(item, ())
        return all(c in tags for c in self.categories)

    def as_json(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "level": self.level,
            "id": self.id,
            "kind": self.kind,
            "categories": list(self.categories),
            "text": self.text,
            "positives": bin(self.members()).count("1"),
            "aliases": [list(a) for a in self.aliases],
        }


def rule_text(categories: Sequence[str]) -> str:
    """The rule as the reference writes it: ``Items from the category 'x'`` / ``categories 'x' and 'y'`` /
    ``categories 'x', 'y', and 'z'`` (``base.py:297-320``)."""
    if len(categories) == 1:
        return f"Items from the category '{categories[0]}'"
    if len(categories) == 2:
        return f"Items from the categories '{categories[0]}' and '{categories[1]}'"
    head = ", ".join(f"'{c}'" for c in categories[:-1])
    return f"Items from the categories {head}, and '{categories[-1]}'"


@cache
def counts() -> dict[Kind, list[tuple[tuple[str, ...], int]]]:
    """The published count files (singles, pairs, triplets) in file order, keys parsed safely and every count
    checked against the items (``ValueError`` otherwise)."""
    cat = catalog()
    out: dict[Kind, list[tuple[tuple[str, ...], int]]] = {}
    for kind, name in (
        ("single", "pp_individual_counts.json"),
        ("pair", "pp_pairs_counts.json"),
        ("triplet", "pp_triplets_counts.json"),
    ):
        rows = []
        for key, count in json.loads(_read(name)).items():
            tags = parse_count_key(key)
            if len(tags) != KIND_SIZE[kind]:  # type: ignore[index]
                raise ValueError(f"{name}: {key!r} is not a {kind}")
            real = bin(cat.members(tags)).count("1")
            if real != count:
                raise ValueError(f"{name}: {key!r} counts {count}, the items give {real}")
            rows.append((tags, int(count)))
        out[kind] = rows  # type: ignore[index]
    return out


# The published thresholds (base.py:42-48): which counts each level takes of each kind.
THRESHOLDS: dict[Level, dict[Kind, tuple[int, int | None]]] = {
    "L1": {"single": (7, None)},
    "L2": {"single": (4, 6), "pair": (7, None)},
    "L3": {"single": (3, 3), "pair": (4, 5), "triplet": (5, None)},
}


def published_definitions(level: Level) -> dict[Kind, list[tuple[str, ...]]]:
    """The level's published definitions per kind, in the count files' order."""
    out: dict[Kind, list[tuple[str, ...]]] = {}
    for kind, (low, high) in THRESHOLDS[level].items():
        out[kind] = [tags for tags, n in counts()[kind] if n >= low and (high is None or n <= high)]
    return out


@cache
def pool(level: Level, name: PoolName = "distinct") -> tuple[PicnicRule, ...]:
    """The rules of one level's pool (see the module docstring)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    if name not in POOLS:
        raise ValueError(f"unknown pool {name!r}; choose one of {', '.join(POOLS)}")
    defs = [(kind, tags) for kind, group in published_definitions(level).items() for tags in group]
    if name == "published":
        return tuple(
            PicnicRule(id=i, level=level, kind=kind, categories=tags, pool="published")
            for i, (kind, tags) in enumerate(defs, 1)
        )
    cat = catalog()
    groups: dict[int, list[tuple[Kind, tuple[str, ...]]]] = {}
    for kind, tags in defs:
        groups.setdefault(cat.members(tags), []).append((kind, tags))
    # the fewest categories first, then the published order (a stable sort)
    best = [sorted(group, key=lambda d: len(d[1])) for group in groups.values()]
    return tuple(
        PicnicRule(
            id=i, level=level, kind=kind, categories=tags, pool="distinct", aliases=tuple(t for _, t in rest)
        )
        for i, ((kind, tags), *rest) in enumerate(best, 1)
    )


def get_rule(pool_name: PoolName, level: Level, rule_id: int) -> PicnicRule:
    """A rule by pool, level and id (``ValueError`` when there is none)."""
    rules = pool(level, pool_name)
    if not 1 <= rule_id <= len(rules):
        raise ValueError(f"the {pool_name} {level} pool has rules 1-{len(rules)}, not {rule_id}")
    return rules[rule_id - 1]


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from its parts (stable across processes and Python versions)."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def draw_rule(level: Level, pool_name: PoolName, seed: int) -> PicnicRule:
    """One rule of a level, drawn with ``random.Random(seed)``: the published pool as the reference draws (L2 a coin
    flip between single and pair, L3 equal odds of single, pair and triplet, then uniformly within the kind), the
    distinct pool uniformly among its rules."""
    rng = random.Random(seed)
    rules = pool(level, pool_name)
    if pool_name == "distinct":
        return rules[rng.randrange(len(rules))]
    kinds = list(THRESHOLDS[level])
    kind = kinds[rng.randrange(len(kinds))]
    of_kind = [r for r in rules if r.kind == kind]
    return of_kind[rng.randrange(len(of_kind))]


# -- the hierarchy, for informative negatives --------------------------------------------------------------


@cache
def parents() -> dict[str, frozenset[str]]:
    """Each tag's ancestors: the tags of the item of the same name (49 tags are items), plus every tag whose
    items strictly contain its items."""
    cat = catalog()
    out: dict[str, frozenset[str]] = {}
    for tag in cat.tags:
        mine = cat.extension[tag]
        above = set(cat.tags_of.get(tag, ()))
        ext = cat.extension
        above |= {o for o in cat.tags if o != tag and mine and (mine & ext[o]) == mine and ext[o] != mine}
        above.discard(tag)
        out[tag] = frozenset(above)
    return out


@cache
def near_miss_mask(categories: tuple[str, ...]) -> int:
    """Non-members that tell a rule from its neighbours: items sharing all but one of its categories (for two or
    more), and items under an ancestor or a sibling of one of its categories (a tag with a parent in common)."""
    cat = catalog()
    members = cat.members(categories)
    near = 0
    if len(categories) > 1:
        for skip in range(len(categories)):
            near |= cat.members(c for j, c in enumerate(categories) if j != skip)
    ups = parents()
    for tag in categories:
        for parent in ups[tag]:
            near |= cat.extension[parent]
            for sibling in cat.tags:
                if sibling != tag and parent in ups[sibling]:
                    near |= cat.extension[sibling]
    return near & ~members & cat.everything


@cache
def named_within(categories: tuple[str, ...]) -> int:
    """Items that are not members of a rule yet are named like a category the rule covers: the item ``fruit``
    (tagged ``food`` only, as an item carries its ancestors and not itself) under the rule fruit, or under food
    and fruit. Shown as a "cannot bring" it would contradict its own name, so no game deals them as negatives.

    An item ``x`` is one when ``x`` is a tag and every category of the rule is ``x`` or one of its ancestors."""
    cat = catalog()
    ups = parents()
    members = cat.members(categories)
    mask = 0
    for tag in cat.tags:
        position = cat.positions.get(tag)
        if position is None or members >> position & 1:
            continue
        if all(c == tag or c in ups[tag] for c in categories):
            mask |= 1 << position
    return mask
