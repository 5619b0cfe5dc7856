"""A generated split of list rules (``--split generated --seed S --n N``): new rules no model can have memorised.

Rules are drawn from the list grammar (:func:`wason.tasks.lists.hypotheses.build_space`, already de-duplicated
by extension, so every drawn rule has its own meaning) by difficulty tier, in rotation easy / medium / hard, the
tier being the complexity third of the rule in the space (:func:`tier_cuts`). Within a tier a family is drawn
first (element, sequential, aggregate, length, combination), then a group within the family (:func:`draw_group`:
a quantifier, a template, a pair of joined families), then a rule of the group, so that neither the many
combinations nor the many variants of one template crowd out the single ideas. A drawn rule is kept only if a
game can be made of it:

* it is not near-universal: it accepts at most ``MAX_SHARE`` of a broad sample of random lists
  (:func:`broad_sample`);
* the game can show three positive examples: ``generate_examples(rule, seed=0, k=3)`` succeeds (lists of at
  least three items). A rule that accepts no list of three or more items on the extension probe is rejected
  without trying, since the draw would spend seconds failing;
* those examples are not one trivial list repeated (all their items one value, as ``[1, 1, 1]``,
  ``[1, 1, 1, 1]``, ...), which would give the rule away or say nothing about it.

Same seed, same rules, byte for byte, in any process; the first ``m`` rules of a split of ``n`` are the split of
``m``. Every rule records the generator, its version, the seed, its grammar key, family, complexity and tier.
``docs/lists-generated.md`` shows an example.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Sequence
from functools import cache, lru_cache

from wason.tasks.lists.draw import uniform
from wason.tasks.lists.examples import MIN_LENGTH as MIN_EXAMPLE_LENGTH
from wason.tasks.lists.examples import generate_examples
from wason.tasks.lists.hypotheses import Hypothesis, build_space, extension_probe, parts
from wason.tasks.lists.rules import ListRule

GENERATOR = "wason.lists.generated"
VERSION = 1
"""Bumped whenever the same seed could yield different rules (including any change of the grammar's
``SPACE_VERSION``)."""

SPLIT = "generated"
TIERS = ("easy", "medium", "hard")
DIFFICULTY = {"easy": 1.0, "medium": 2.0, "hard": 3.0}
"""``ListRule.difficulty`` of a generated rule: its tier as a number."""

MAX_SHARE = 0.9
"""A rule accepting more of the broad sample than this is too permissive for a game."""

BROAD_SAMPLE_SEED = "wason.lists.generated.broad/1"
BROAD_SAMPLE_SIZE = 1000


def tier_cuts(space: Sequence[Hypothesis]) -> tuple[int, int]:
    """Complexity cuts nearest the thirds of the space: ``easy <= cuts[0] < medium <= cuts[1] < hard``.

    Complexities are small integers with many ties, so each cut is the complexity whose cumulative count is
    closest to one (then two) thirds of the space, the second strictly above the first.
    """
    total = len(space)
    values = sorted({h.complexity for h in space})
    at_most = {c: sum(1 for h in space if h.complexity <= c) for c in values}
    first = min(values[:-1] or values, key=lambda c: (abs(at_most[c] - total / 3), c))
    rest = [c for c in values if c > first] or [first]
    second = min(rest, key=lambda c: (abs(at_most[c] - 2 * total / 3), c))
    return first, second


def tier_of(complexity: int, cuts: tuple[int, int]) -> str:
    """``easy``, ``medium`` or ``hard`` for a complexity, given :func:`tier_cuts`."""
    return "easy" if complexity <= cuts[0] else "medium" if complexity <= cuts[1] else "hard"


def draw_group(h: Hypothesis) -> str:
    """The group a rule is drawn from within its family, so that each kind of idea gets an equal chance however
    many variants the grammar has of it: element rules by quantifier (``all``, ``most``, ``first``, ...);
    sequential, aggregate and length rules by template (``seq:add``, ``agg:sum``, ``len:eq``, ...); conjunctions
    by the families they join (``and:element+length``); disjunctions form one group (``or``)."""
    if h.family == "combination":
        if h.key.startswith("or("):
            return "or"
        return "and:" + "+".join(p.family for p in parts(h))
    if h.family == "element":
        return h.key.split(":", 1)[0]
    return ":".join(h.key.split(":")[:2])


@cache
def broad_sample() -> tuple[tuple[int, ...], ...]:
    """``BROAD_SAMPLE_SIZE`` random lists as a player might type them, to measure how permissive a rule is: 1-8
    items, each list from one of the ranges -20..60, 0..12, 1..30 and -10..10."""
    rng = random.Random(BROAD_SAMPLE_SEED)
    out = []
    for _ in range(BROAD_SAMPLE_SIZE):
        lo, hi = rng.choice(((-20, 60), (0, 12), (1, 30), (-10, 10)))
        out.append(tuple(uniform(lo, hi)(rng, rng.randint(1, 8))))  # the range is drawn before the length
    return tuple(out)


@cache
def _long_probe_lists() -> tuple[tuple[int, ...], ...]:
    return tuple(xs for xs in extension_probe() if len(xs) >= MIN_EXAMPLE_LENGTH)


def _playable(rule: ListRule, h: Hypothesis) -> bool:
    """Whether a game can be made of the rule (see the module docstring); cheapest checks first."""
    sample = broad_sample()
    if sum(map(h.predicate, sample)) / len(sample) > MAX_SHARE:
        return False
    # A rule accepting none of the probe's ~2,000 lists of 3+ items (built to hold positives of every
    # parametrised rule) almost surely has no three examples either; the example draw would spend seconds
    # establishing that.
    if not any(map(h.predicate, _long_probe_lists())):
        return False
    try:
        examples = generate_examples(rule, seed=0, k=3)
    except ValueError:
        return False
    return len({x for xs in examples for x in xs}) > 1


def generate_rules(seed: int, n: int) -> list[ListRule]:
    """``n`` new list rules for ``seed``, spread over difficulty tiers; the same seed always gives the same rules,
    in the same order (ValueError if ``n`` is below 1 or more than the grammar's several hundred playable ones).

    Rules have ``split="generated"`` and ids 1..n; each has its statement as ``text``, a ``source`` in the list
    guess language, ``difficulty`` 1.0 / 2.0 / 3.0 for easy / medium / hard, and ``provenance`` with
    ``generator``, ``version``, ``seed``, ``key``, ``family``, ``complexity`` and ``tier``.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if n > len(build_space()):
        raise ValueError(f"n={n} is more than the {len(build_space())} rules of the list grammar")
    draw = _draw(seed)
    with draw.lock:
        while len(draw.rules) < n:
            if not draw.step():
                raise ValueError(
                    f"n={n} is more than the {len(draw.rules)} playable rules of the list grammar"
                )
        rules = draw.rules[:n]
    # Copies, so that a caller changing a provenance dict does not change the cached split.
    return [dataclasses.replace(rule, provenance=dict(rule.provenance or {})) for rule in rules]


class _Draw:
    """The draw for one seed, extended on demand: rules come one at a time from one random stream, so the
    first ``m`` rules of a split of ``n >= m`` are the split of ``m``, and a longer split reuses a shorter one's
    work (each rule costs an example draw)."""

    def __init__(self, seed: int) -> None:
        space = build_space()
        cuts = tier_cuts(space)
        self.seed = seed
        self.lock = threading.Lock()
        self.rules: list[ListRule] = []
        # tier -> family -> group -> hypotheses, each pool shuffled once; popping from the end draws without
        # replacement.
        self.pools: dict[str, dict[str, dict[str, list[Hypothesis]]]] = {t: {} for t in TIERS}
        for h in space:
            families = self.pools[tier_of(h.complexity, cuts)]
            families.setdefault(h.family, {}).setdefault(draw_group(h), []).append(h)
        self.rng = random.Random(f"{GENERATOR}/{VERSION}/{seed}")
        for tier in TIERS:
            for family in sorted(self.pools[tier]):
                for group in sorted(self.pools[tier][family]):
                    self.rng.shuffle(self.pools[tier][family][group])

    def step(self) -> bool:
        """Draw until one more rule is kept; False when the grammar has no candidates left."""
        while True:
            live = [t for t in TIERS if self.pools[t]]
            if not live:
                return False
            # Tiers rotate over kept rules (easy, medium, hard, easy, ...) until one runs dry.
            wanted = TIERS[len(self.rules) % len(TIERS)]
            tier = wanted if wanted in live else live[0]
            families = self.pools[tier]
            family = self.rng.choice(sorted(families))
            groups = families[family]
            group = self.rng.choice(sorted(groups))
            h = groups[group].pop()
            if not groups[group]:
                del groups[group]
                if not groups:
                    del families[family]
            rule = self._rule(h, tier)
            if _playable(rule, h):
                self.rules.append(rule)
                return True

    def _rule(self, h: Hypothesis, tier: str) -> ListRule:
        # The id is part of the examples' seed, so the playability check draws exactly the examples a game
        # played on this rule will show.
        grammar = {"key": h.key, "family": h.family, "complexity": h.complexity, "tier": tier}
        provenance = {"generator": GENERATOR, "version": VERSION, "seed": self.seed, **grammar}
        rule_id, difficulty = len(self.rules) + 1, DIFFICULTY[tier]
        return ListRule(
            SPLIT, rule_id, h.text, h.predicate, None, difficulty, source=h.source, provenance=provenance
        )


_draw = lru_cache(maxsize=64)(_Draw)
"""The draw of a seed, kept for the process (the most recent 64 seeds)."""
