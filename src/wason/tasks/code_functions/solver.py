"""The reference solver: version-space elimination over the word grammar.

Its hypotheses are every rule the grammar can build at the game's level (:mod:`grammar`: every atom at L1;
every pair of atoms of different kinds joined by ``and`` / ``or`` at L2; every triple of different kinds in the
four L3 shapes, and every ``xor`` pair, at L3), whatever their balance. Each labelled word removes the
hypotheses that disagree with it, and each wrong guess removes the hypotheses that say what it said on every
word. It never reads the hidden rule.

It makes only the moves its protocol can express, so that it plays the game a model plays:

* under the published protocols (``as-run``, ``head``, ``head-fixed``) every reply is read as a guess, so it
  guesses every turn: its best hypothesis, the most probable class by extension under the generator's prior.
  A wrong guess shows that the class was wrong and adds the game's ``after_wrong`` pairs, and it learns both;
* under ``game-api``, which can ask for more, it asks for more until the survivors fall into one class by
  extension on the words not yet shown, doubling the request each time (25, 50, 100, then 100 pairs), and then
  guesses that class. When its turns or the examples run out first, it guesses the most probable class.

The prior is the generator's draw (:func:`~wason.tasks.code_functions.grammar.generate_rules`): a shape of the
level uniformly, then atoms of distinct kinds uniformly, kept only when the rule is balanced on the word list
and no atom has a small effect. So a class weighs the summed draw probability of its members the generator
could have drawn (:meth:`VersionSpace.plausible`), the guess is its simplest rule, and a class with no such
member is guessed only when no other is left. With more than :data:`CLASS_LIMIT` survivors the classes are
those of an evenly spaced sample of them.
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
    grammar_rule,
)
from wason.tasks.code_functions.vocabulary import vocabulary_index

CLASS_LIMIT = 4000
"""Survivors are grouped by extension all together only when at most this many remain; beyond it, this many of them,
evenly spaced."""
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
            chosen = [(i, -1, -1) for i in range(n)]
        elif shape in ("and", "or", "xor"):
            chosen = [(i, j, -1) for i, j in pairs]
        else:
            triples = [t for t in itertools.combinations(range(n), 3) if len({kinds[i] for i in t}) == 3]
            # (A and B) or C / (A or B) and C: any of the three is C
            turns = ((0, 1, 2),) if shape in ("and3", "or3") else ((0, 1, 2), (0, 2, 1), (1, 2, 0))
            chosen = [(t[a], t[b], t[c]) for t in triples for a, b, c in turns]
        shapes += [code] * len(chosen)
        atoms += chosen
    return np.array(shapes, dtype=np.int8), np.array(atoms, dtype=np.int16).reshape(-1, 3)


def _values(shape: npt.NDArray[np.int8], atoms: npt.NDArray[np.int16], column: npt.NDArray[np.bool_]) -> Any:
    """Each hypothesis's truth on one word, given the atoms' truth on it (``column``)."""
    return _extensions(shape, atoms, np.append(column, (True, False)))  # indices -2 and -1 read the padding


def _pack(truth: npt.NDArray[np.bool_]) -> npt.NDArray[np.uint64]:
    """Rows of truth values over the word list as bits, 64 words to an integer (the last one padded with
    false): the rules' shapes are ``and``, ``or`` and ``xor`` of their atoms, so they combine packed bits as they
    combine bools, 64 words at a time."""
    packed = np.packbits(truth, axis=-1)
    pad = -packed.shape[-1] % 8
    if pad:
        packed = np.concatenate([packed, np.zeros((*packed.shape[:-1], pad), dtype=np.uint8)], axis=-1)
    return packed.view(np.uint64)


def _extensions(
    shape: npt.NDArray[np.int8], atoms: npt.NDArray[np.int16], bits: npt.NDArray[Any]
) -> npt.NDArray[Any]:
    """Each hypothesis's truth on the word list, packed (:func:`_pack`), from the atoms' packed rows ``bits``
    (then a row of ones and a row of zeros, which atom indices -2 and -1 read): shape (hypotheses, columns).
    Given the atoms' truth on one word (then true, then false), each hypothesis's truth on it."""
    a, b, c = bits[atoms[:, 0]], bits[atoms[:, 1]], bits[atoms[:, 2]]
    out = np.zeros((len(shape), *bits.shape[1:]), dtype=bits.dtype)
    for code, name in enumerate(SHAPE_CODES):
        sel = shape == code
        if sel.any():
            out[sel] = combine(name, [a[sel], b[sel], c[sel]])
    return out


def _level_of(shape: str) -> str:
    return next(level for level, shapes in SHAPES.items() if shape in shapes)


CHUNK = 2000
"""Hypotheses whose extensions are computed at once."""
REFUTE_WORDS = 64
"""A wrong guess is first compared with the survivors on this many unseen words, then in full with the few left."""
ONES, ZEROS = -2, -1
"""The atom indices of the padding rows: true on every word, false on every word (unused atoms read ``ZEROS``)."""


class VersionSpace:
    """The hypotheses of one level still consistent with the labelled words seen and the wrong guesses made."""

    def __init__(self, level: str) -> None:
        self.level = level
        self.shape, self.atoms = hypotheses(level)
        self.table = atom_table()
        self.words = self.table.shape[1]
        ones, zeros = np.ones((1, self.words), dtype=bool), np.zeros((1, self.words), dtype=bool)
        self.bits = _pack(np.vstack([self.table, ones, zeros]))
        self.seen: set[int] = set()
        # the generator's draw probability of one rule of each shape (up to a constant): a shape of its level
        # uniformly, then one of the shape's atom choices uniformly (every level alike in the ``any`` space)
        counts = np.bincount(self.shape, minlength=len(SHAPE_CODES))
        self.prior = np.array(
            [
                1.0 / (len(SHAPES[_level_of(s)]) * c) if c else 0.0
                for s, c in zip(SHAPE_CODES, counts, strict=True)
            ]
        )

    def __len__(self) -> int:
        return len(self.shape)

    def _keep(self, keep: npt.NDArray[np.bool_]) -> None:
        self.shape, self.atoms = self.shape[keep], self.atoms[keep]

    def _packed(self, indices: npt.NDArray[np.intp]) -> npt.NDArray[np.uint64]:
        return _extensions(self.shape[indices], self.atoms[indices], self.bits)

    def observe(self, word_index: int, label: bool) -> None:
        if word_index in self.seen:
            return
        self.seen.add(word_index)
        self._keep(_values(self.shape, self.atoms, self.table[:, word_index]) == label)

    def truth(self, index: int) -> npt.NDArray[np.bool_]:
        """Survivor ``index``'s truth on every word of the list."""
        packed = self._packed(np.array([index], dtype=np.intp))[0]
        return np.unpackbits(packed.view(np.uint8), count=self.words).astype(bool)

    def refute(self, truth: npt.NDArray[np.bool_]) -> int:
        """Remove the survivors that are true on exactly the words ``truth`` is (a guess the game judged wrong:
        a survivor that agrees with it on every word is wrong too); returns how many were removed."""
        candidates = np.arange(len(self))
        unseen = [i for i in range(self.words) if i not in self.seen]
        for word in unseen[:REFUTE_WORDS]:
            if len(candidates) <= CHUNK:
                break
            values = _values(self.shape[candidates], self.atoms[candidates], self.table[:, word])
            candidates = candidates[values == truth[word]]
        target = _pack(truth)
        same = [
            part[(self._packed(part) == target).all(axis=1)]
            for part in np.array_split(candidates, max(1, -(-len(candidates) // CHUNK)))
        ]
        drop = np.concatenate(same)
        keep = np.ones(len(self), dtype=bool)
        keep[drop] = False
        self._keep(keep)
        return len(drop)

    def classes(self, members: npt.NDArray[np.intp] | None = None) -> list[list[int]]:
        """The survivors (or those of ``members``) grouped by extension on the unseen words, largest class first
        (at most :data:`CLASS_LIMIT` of them). Every survivor agrees with the words seen, so that is their
        extension on the whole list."""
        members = np.arange(len(self)) if members is None else members
        if len(members) > CLASS_LIMIT:
            raise ValueError(f"{len(members)} survivors: group at most {CLASS_LIMIT}")
        groups: dict[bytes, list[int]] = {}
        for start in range(0, len(members), CHUNK):
            part = members[start : start + CHUNK]
            packed = self._packed(part)
            for k, index in enumerate(part):
                groups.setdefault(packed[k].tobytes(), []).append(int(index))
        return sorted(groups.values(), key=lambda g: (-len(g), g[0]))

    def grouped(self) -> tuple[list[list[int]], bool]:
        """The survivors' classes, and whether they are all of them: with more than :data:`CLASS_LIMIT`
        survivors, the classes of :data:`CLASS_LIMIT` of them, evenly spaced (the hypotheses are in order of
        shape and atoms, so every shape is sampled in proportion)."""
        if len(self) <= CLASS_LIMIT:
            return self.classes(), True
        sample = np.unique(np.linspace(0, len(self) - 1, CLASS_LIMIT).round().astype(np.intp))
        return self.classes(sample), False

    def plausible(self, indices: npt.NDArray[np.intp] | list[int]) -> npt.NDArray[np.bool_]:
        """Whether each survivor of ``indices`` is a rule the generator could have drawn: true on 10%-90% of the
        word list, every atom deciding at least :data:`~wason.tasks.code_functions.grammar.MIN_EFFECT` of it
        (the generator's published filters, :func:`~wason.tasks.code_functions.grammar.effect`; the solver's
        prior, not the hidden rule)."""
        indices = np.asarray(indices, dtype=np.intp)
        out = np.zeros(len(indices), dtype=bool)
        one = SHAPE_CODES.index("one")
        for start in range(0, len(indices), CHUNK):
            part = indices[start : start + CHUNK]
            shape, atoms = self.shape[part], self.atoms[part]
            truth = _extensions(shape, atoms, self.bits)
            fraction = np.bitwise_count(truth).sum(axis=1) / self.words
            smallest = np.ones(len(part))
            for slot in range(atoms.shape[1]):
                # a rule of one atom has no atom of small effect
                used = (atoms[:, slot] >= 0) & (shape != one)
                for fixed in (ONES, ZEROS):
                    changed = atoms.copy()
                    changed[used, slot] = fixed
                    moved = _extensions(shape, changed, self.bits) ^ truth
                    differ = np.bitwise_count(moved).sum(axis=1) / self.words
                    smallest = np.where(used, np.minimum(smallest, differ), smallest)
            out[start : start + len(part)] = (
                (fraction >= VOCABULARY_LOW) & (fraction <= VOCABULARY_HIGH) & (smallest >= MIN_EFFECT)
            )
        return out

    def choose(self, classes: list[list[int]]) -> int:
        """The guess among ``classes``: the simplest rule of the most probable class, a class weighing the
        generator's draw probability of its plausible members (:attr:`prior`); among classes of no plausible
        member (a rule from outside the grammar), the largest."""
        best = classes[0]
        if len(classes) > 1:
            members = np.concatenate([np.asarray(c, dtype=np.intp) for c in classes])
            weight = np.where(self.plausible(members), self.prior[self.shape[members]], 0.0)
            starts = np.cumsum([0] + [len(c) for c in classes[:-1]])
            weights = np.add.reduceat(weight, starts)
            if weights.max() > 0:
                best = classes[int(np.argmax(weights))]  # the first of the heaviest: the larger class
        return min(best, key=lambda i: (int(self.shape[i]), i))

    def rule(self, index: int) -> tuple[str, str]:
        """The text and predicate of survivor ``index``."""
        shape = SHAPE_CODES[int(self.shape[index])]
        ids = [ATOMS[int(i)].id for i in self.atoms[index] if i >= 0]
        rule = grammar_rule(shape, ids, self.level if self.level in SHAPES else _level_of(shape))
        return rule.text, rule.source


def _guess(text: str, source: str) -> Guess:
    """A guess as the reply that makes it: the rule in words, then its predicate on a line of its own (the
    protocol reads a reply whole as the guess's text, and its ``lambda`` as the predicate)."""
    return Guess(text=f"{text}\n{source}", predicate=source)


class CodeFunctionsSolver:
    """The reference solver as a player of :class:`~wason.tasks.code_functions.game.CodeFunctionsGame`, over a
    level's hypotheses (or :data:`ANY_LEVEL`); ``ask_for_more`` when its protocol can ask (``game-api``)."""

    def __init__(self, level: str, *, ask_for_more: bool) -> None:
        self.space = VersionSpace(level)
        self.ask_for_more = ask_for_more
        self.request = FIRST_REQUEST
        self.guessed: npt.NDArray[np.bool_] | None = None  # the last guess's truth on every word of the list

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
            guessed = self.guessed
            labels = tuple(
                None if guessed is None or w not in index else bool(guessed[index[w]])
                for w in observation.quiz
            )
            return Move(action=QuizAnswer(labels))
        meta: dict[str, Any] = {}
        # a guess judged wrong (not one the game could not use): every hypothesis that says what it said is wrong
        if observation.kind == "wrong" and observation.reason is None and self.guessed is not None:
            meta["refuted"] = self.space.refute(self.guessed)
        self._ingest(observation)
        if len(self.space) == 0:
            return Move(action=GiveUp(), meta={**meta, "survivors": 0})
        last_turn = observation.turns_left is not None and observation.turns_left <= 1
        # under game-api it waits for more words while it has turns and the game has words to give
        wait = self.ask_for_more and not last_turn and observation.available != 0
        if wait and len(self.space) > CLASS_LIMIT:  # too many to group: more words, whatever their classes
            return self._more({**meta, "survivors": len(self.space), "classes": None})
        classes, exact = self.space.grouped()
        meta.update(survivors=len(self.space), classes=len(classes) if exact else None)
        if not exact:
            meta["sampled"] = sum(len(c) for c in classes)
        if wait and not (exact and len(classes) == 1):
            return self._more(meta)
        chosen = self.space.choose(classes)
        self.guessed = self.space.truth(chosen)
        return Move(action=_guess(*self.space.rule(chosen)), meta=meta)

    def _more(self, meta: dict[str, Any]) -> Move[Any]:
        """Ask for more words: 25 pairs, then twice as many each time, at most :data:`MAX_MORE`."""
        n = min(self.request, MAX_MORE)
        self.request *= 2
        return Move(action=More(n), meta=meta)
