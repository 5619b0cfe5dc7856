"""The reference solver: version-space elimination over the word grammar.

Its hypotheses are every rule the grammar can build at the game's level (:mod:`grammar`: every atom at L1;
every pair of atoms of different kinds joined by ``and`` / ``or`` at L2; every triple of different kinds in the
four L3 shapes, and every ``xor`` pair, at L3), whatever their balance. Each labelled word removes the
hypotheses that disagree with it. Once the survivors fall into one class by extension on the words not yet
shown (they agree on every held-out word), it guesses that class's simplest rule; until then it asks for more
examples, doubling the request each time (25, 50, 100, then 100 pairs). When the turns run out first, it guesses the
largest class (the most hypotheses, so the most probable under the generator's uniform draw) among the classes
holding a rule the generator could have drawn (balanced on the word list, no atom of small effect). It never
reads the hidden rule.
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from wason.core.game import Move
from wason.tasks.code_functions.game import MAX_MORE, GiveUp, Guess, More, Observation, QuizAnswer
from wason.tasks.code_functions.grammar import (
    ATOMS,
    MIN_EFFECT,
    SHAPES,
    VOCABULARY_HIGH,
    VOCABULARY_LOW,
    atom_table,
    combine,
    effect,
    grammar_rule,
)
from wason.tasks.code_functions.vocabulary import vocabulary_index

CLASS_LIMIT = 4000
"""Survivors are grouped by extension only when at most this many remain."""
FIRST_REQUEST = 25
SHAPE_CODES = ("one", "and", "or", "and3", "or3", "and_or", "or_and", "xor")


ANY_LEVEL = "any"
"""The solver's space for rules from outside the grammar (the published split, a rules file): every level's."""


@cache
def hypotheses(level: str) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int16]]:
    """The level's hypotheses: a shape code each, and up to three atom indices (-1 where unused); ``any``:
    the three levels' together."""
    if level == ANY_LEVEL:
        parts = [hypotheses(each) for each in SHAPES]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    kinds = [a.kind for a in ATOMS]
    n = len(ATOMS)
    shapes: list[int] = []
    atoms: list[tuple[int, int, int]] = []
    pairs = [(i, j) for i, j in itertools.combinations(range(n), 2) if kinds[i] != kinds[j]]
    for shape in SHAPES[level]:
        code = SHAPE_CODES.index(shape)
        if shape == "one":
            for i in range(n):
                shapes.append(code)
                atoms.append((i, -1, -1))
        elif shape in ("and", "or", "xor"):
            for i, j in pairs:
                shapes.append(code)
                atoms.append((i, j, -1))
        else:
            for i, j, k in itertools.combinations(range(n), 3):
                if len({kinds[i], kinds[j], kinds[k]}) < 3:
                    continue
                if shape in ("and3", "or3"):
                    shapes.append(code)
                    atoms.append((i, j, k))
                else:  # (A and B) or C / (A or B) and C: any of the three is C
                    for a, b, c in ((i, j, k), (i, k, j), (j, k, i)):
                        shapes.append(code)
                        atoms.append((a, b, c))
    return np.array(shapes, dtype=np.int8), np.array(atoms, dtype=np.int16).reshape(-1, 3)


def _values(shape: npt.NDArray[np.int8], atoms: npt.NDArray[np.int16], column: npt.NDArray[np.bool_]) -> Any:
    """Each hypothesis's truth on one word, given the atoms' truth on it (``column``)."""
    padded = np.append(column, False)  # index -1 reads the padding
    a, b, c = padded[atoms[:, 0]], padded[atoms[:, 1]], padded[atoms[:, 2]]
    out = np.zeros(len(shape), dtype=bool)
    for code, name in enumerate(SHAPE_CODES):
        sel = shape == code
        if sel.any():
            out[sel] = combine(name, [a[sel], b[sel], c[sel]])
    return out


def _level_of(shape: str) -> str:
    return next(level for level, shapes in SHAPES.items() if shape in shapes)


class VersionSpace:
    """The hypotheses of one level still consistent with the labelled words seen."""

    def __init__(self, level: str) -> None:
        self.level = level
        shapes, atoms = hypotheses(level)
        self.shape = shapes
        self.atoms = atoms
        self.table = atom_table()
        self.seen: set[int] = set()

    def __len__(self) -> int:
        return len(self.shape)

    def observe(self, word_index: int, label: bool) -> None:
        if word_index in self.seen:
            return
        self.seen.add(word_index)
        keep = _values(self.shape, self.atoms, self.table[:, word_index]) == label
        self.shape, self.atoms = self.shape[keep], self.atoms[keep]

    def classes(self) -> list[list[int]]:
        """The survivors grouped by extension on the unseen words, largest class first (needs
        ``len(self) <= CLASS_LIMIT``)."""
        unseen = np.ones(self.table.shape[1], dtype=bool)
        unseen[list(self.seen)] = False
        table = self.table[:, unseen]
        padded = np.vstack([table, np.zeros((1, table.shape[1]), dtype=bool)])
        groups: dict[bytes, list[int]] = {}
        for start in range(0, len(self.shape), 500):
            shape = self.shape[start : start + 500]
            atoms = self.atoms[start : start + 500]
            a, b, c = padded[atoms[:, 0]], padded[atoms[:, 1]], padded[atoms[:, 2]]
            ext = np.zeros((len(shape), table.shape[1]), dtype=bool)
            for code, name in enumerate(SHAPE_CODES):
                sel = shape == code
                if sel.any():
                    ext[sel] = combine(name, [a[sel], b[sel], c[sel]])
            packed = np.packbits(ext, axis=1)
            for k in range(len(shape)):
                groups.setdefault(packed[k].tobytes(), []).append(start + k)
        return sorted(groups.values(), key=lambda g: (-len(g), g[0]))

    def plausible(self, index: int) -> bool:
        """Whether survivor ``index`` is a rule the generator could have drawn: true on 10%-90% of the word list,
        every atom deciding at least :data:`~wason.tasks.code_functions.grammar.MIN_EFFECT` of it (the
        generator's published filters; the solver's prior, not the hidden rule)."""
        shape = SHAPE_CODES[int(self.shape[index])]
        values = [self.table[int(i)] for i in self.atoms[index] if i >= 0]
        truth = np.asarray(combine(shape, values), dtype=bool)
        fraction = float(truth.mean())
        return VOCABULARY_LOW <= fraction <= VOCABULARY_HIGH and effect(shape, values) >= MIN_EFFECT

    def rule(self, index: int) -> tuple[str, str]:
        """The text and predicate of survivor ``index``."""
        shape = SHAPE_CODES[int(self.shape[index])]
        ids = [ATOMS[int(i)].id for i in self.atoms[index] if i >= 0]
        rule = grammar_rule(shape, ids, self.level if self.level in SHAPES else _level_of(shape))
        return rule.text, rule.source

    def label(self, index: int, word_index: int) -> bool:
        shape = self.shape[index : index + 1]
        atoms = self.atoms[index : index + 1]
        return bool(_values(shape, atoms, self.table[:, word_index])[0])


def _guess(text: str, source: str) -> Guess:
    """A guess as the reply that makes it: the rule in words, then its predicate on a line of its own (the
    protocol reads a reply whole as the guess's text, and its ``lambda`` as the predicate)."""
    return Guess(text=f"{text}\n{source}", predicate=source)


class CodeFunctionsSolver:
    """The reference solver as a player of :class:`~wason.tasks.code_functions.game.CodeFunctionsGame`."""

    def __init__(self, level: str) -> None:
        self.space = VersionSpace(level)
        self.request = FIRST_REQUEST
        self.choice: int | None = None
        self.counts: dict[str, int] = {}

    def _ingest(self, observation: Observation) -> None:
        index = vocabulary_index()
        for words, label in ((observation.all_positives, True), (observation.all_negatives, False)):
            for word in words:
                i = index.get(word)
                if i is not None:
                    self.space.observe(i, label)

    async def act(self, observation: Observation) -> Move[Any]:
        if observation.kind == "ask_quiz":
            index = vocabulary_index()
            labels = tuple(
                None if self.choice is None or w not in index else self.space.label(self.choice, index[w])
                for w in observation.quiz
            )
            return Move(action=QuizAnswer(labels))
        self._ingest(observation)
        if len(self.space) == 0:
            return Move(action=GiveUp(), meta={"survivors": 0})
        last_turn = observation.turns_left is not None and observation.turns_left <= 1
        classes = self.space.classes() if len(self.space) <= CLASS_LIMIT else None
        meta = {"survivors": len(self.space), "classes": None if classes is None else len(classes)}
        if classes is not None and (len(classes) == 1 or last_turn or observation.available == 0):
            best = classes[0]
            if len(classes) > 1:  # the largest class among those the generator could have drawn
                best = next((c for c in classes if any(self.space.plausible(i) for i in c[:50])), classes[0])
            chosen = min(best, key=lambda i: (int(self.space.shape[i]), i))
            self.choice = chosen
            return Move(action=_guess(*self.space.rule(chosen)), meta=meta)
        if last_turn:  # too many survivors to group: the first survivor is as good a guess as any
            self.choice = 0
            return Move(action=_guess(*self.space.rule(0)), meta=meta)
        n = min(self.request, MAX_MORE)
        self.request *= 2
        return Move(action=More(n), meta=meta)
