"""The reference Static Picnic solver: version-space elimination over category conjunctions.

Hypotheses are the conjunctions of categories shared by every positive seen (the subsets of the tags the first
positive carries, at most 63). A hypothesis survives while no negative carries all of its categories. The solver
is sure when every survivor accepts the same items (over all 511); then it guesses the survivor with the fewest
categories, in the published answer format. Until then it asks for more examples, doubling the request each
turn. On its last allowed move, or when nothing is left, it guesses the survivor with the fewest items (the size
principle: positives drawn at random from a rule are most likely under the narrowest rule that fits them).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from wason.core.game import Move
from wason.tasks.picnic.catalog import catalog, rule_text
from wason.tasks.picnic.game import GiveUp, Guess, More, PicnicObservation


class VersionSpace:
    """The surviving conjunctions of categories given the examples seen."""

    def __init__(self) -> None:
        self.positives: list[str] = []
        self.negatives: list[str] = []
        self.survivors: list[tuple[str, ...]] | None = None

    def observe(self, positives: tuple[str, ...], negatives: tuple[str, ...]) -> None:
        cat = catalog()
        self.positives += positives
        self.negatives += negatives
        if self.survivors is None and self.positives:
            tags = sorted(cat.tags_of[self.positives[0]])
            self.survivors = [c for k in range(1, len(tags) + 1) for c in combinations(tags, k)]
        if self.survivors is None:
            return
        pos_tags = [set(cat.tags_of[p]) for p in positives]
        neg_tags = [set(cat.tags_of[q]) for q in negatives]
        self.survivors = [
            h
            for h in self.survivors
            if all(set(h) <= t for t in pos_tags) and not any(set(h) <= t for t in neg_tags)
        ]

    def extensions(self) -> dict[int, list[tuple[str, ...]]]:
        cat = catalog()
        out: dict[int, list[tuple[str, ...]]] = {}
        for h in self.survivors or []:
            out.setdefault(cat.members(h), []).append(h)
        return out

    @property
    def sure(self) -> bool:
        return self.survivors is not None and len(self.extensions()) == 1

    def best(self) -> tuple[str, ...] | None:
        """The survivor with the fewest items, then the fewest categories."""
        groups = self.extensions()
        if not groups:
            return None
        mask = min(groups, key=lambda m: (bin(m).count("1"), m))
        return min(groups[mask], key=lambda h: (len(h), h))


class PicnicSolverPlayer:
    """Plays one Static Picnic episode with a :class:`VersionSpace` (no text, no model); each request for more
    doubles the one before, from ``first_request``."""

    def __init__(self, *, first_request: int = 4) -> None:
        self.space = VersionSpace()
        self.request = first_request

    async def act(self, observation: PicnicObservation) -> Move[Any]:
        self.space.observe(observation.positives, observation.negatives)
        best = self.space.best()
        meta = {"survivors": len(self.space.survivors or []), "extensions": len(self.space.extensions())}
        if best is None:
            if observation.remaining > 0 and not observation.final_turn:
                return Move(action=More(self.request), meta=meta)
            return Move(action=GiveUp(), meta=meta)
        must = observation.final_turn or observation.remaining <= 0
        if self.space.sure or must:
            return Move(action=Guess(rule_text(best)), meta={**meta, "sure": self.space.sure})
        n = self.request
        self.request = min(self.request * 2, 64)
        return Move(action=More(n), meta=meta)
