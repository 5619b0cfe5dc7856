"""A grammar of word properties, rules built from it per level, and the balance check.

An **atom** is one property of a word (its length, its first or last letter, how many vowels it has, a double
letter, repeated letters, alphabetical order, a substring, a letter at a position...), with a phrase for people,
a predicate in the word language (:mod:`wason.sandbox.words`) and the same test written natively (for speed: the
two are checked against each other on every word by the tests). Vowels are a, e, i, o, u; y is a consonant.

Levels (the complexity of a rule is the number of atoms and how they are joined):

* **L1**: one atom (``has exactly 5 letters``);
* **L2**: two atoms of different kinds joined by ``and`` or ``or``;
* **L3**: three atoms of different kinds (``A and B and C``, ``A or B or C``, ``(A and B) or C``,
  ``(A or B) and C``), or exactly one of two atoms (``A != B``).

A rule is **balanced** when it passes the published check, true for more than 4 and fewer than 46 of 50 words
drawn at random (the reference's ``4 < k < 46``; here the 50 words are drawn with the rule's own seed), and,
so that the luck of 50 words lets no 3% rule through, true for 10%-90% of the whole word list.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from wason.tasks.code_functions.vocabulary import vocabulary

GENERATOR = "code-functions-grammar"
GENERATOR_VERSION = 2
LEVELS = ("L1", "L2", "L3")
VOWELS = "aeiou"

Shape = Literal["one", "and", "or", "and3", "or3", "and_or", "or_and", "xor"]
SHAPES: dict[str, tuple[Shape, ...]] = {
    "L1": ("one",),
    "L2": ("and", "or"),
    "L3": ("and3", "or3", "and_or", "or_and", "xor"),
}
ARITY: dict[Shape, int] = {
    "one": 1,
    "and": 2,
    "or": 2,
    "and3": 3,
    "or3": 3,
    "and_or": 3,
    "or_and": 3,
    "xor": 2,
}


@dataclass(frozen=True)
class Atom:
    """One property of a word.

    Attributes:
        id: a stable name (``len_eq_5``).
        kind: its family; rules never join two atoms of one kind.
        text: the phrase (``has exactly 5 letters``).
        source: the body of its predicate in the word language, over ``w``.
        test: the same test, natively.
    """

    id: str
    kind: str
    text: str
    source: str
    test: Callable[[str], bool] = field(repr=False, compare=False)


def _vowels(w: str) -> int:
    return sum(c in VOWELS for c in w)


def _atom(id_: str, kind: str, text: str, source: str, test: Callable[..., bool]) -> Atom:
    # the tests bind their parameters as defaults (``lambda w, k=k: ...``), which Callable[[str], bool] refuses
    return Atom(id_, kind, text, source, test)


def _length_atoms() -> Iterator[Atom]:
    """Length: exactly, at least, at most k letters; even or odd."""
    for k in range(4, 8):
        yield _atom(
            f"len_eq_{k}", "length", f"has exactly {k} letters", f"len(w) == {k}", lambda w, k=k: len(w) == k
        )
    for k in range(5, 8):
        yield _atom(
            f"len_ge_{k}", "length", f"has at least {k} letters", f"len(w) >= {k}", lambda w, k=k: len(w) >= k
        )
    for k in range(4, 7):
        yield _atom(
            f"len_le_{k}", "length", f"has at most {k} letters", f"len(w) <= {k}", lambda w, k=k: len(w) <= k
        )
    yield _atom(
        "len_even", "length", "has an even number of letters", "len(w) % 2 == 0", lambda w: len(w) % 2 == 0
    )
    yield _atom(
        "len_odd", "length", "has an odd number of letters", "len(w) % 2 == 1", lambda w: len(w) % 2 == 1
    )


def _end_atoms() -> Iterator[Atom]:
    """The first and the last letter: vowel or consonant, a half of the alphabet, a letter, a suffix."""
    yield _atom("first_vowel", "first", "starts with a vowel", 'w[0] in "aeiou"', lambda w: w[0] in VOWELS)
    yield _atom(
        "first_consonant",
        "first",
        "starts with a consonant",
        'w[0] not in "aeiou"',
        lambda w: w[0] not in VOWELS,
    )
    yield _atom(
        "first_a_m", "first", "starts with a letter from a to m", 'w[0] <= "m"', lambda w: w[0] <= "m"
    )
    yield _atom("first_n_z", "first", "starts with a letter from n to z", 'w[0] > "m"', lambda w: w[0] > "m")
    for c in "sbcpmtdf":
        yield _atom(f"first_{c}", "first", f"starts with '{c}'", f'w[0] == "{c}"', lambda w, c=c: w[0] == c)

    yield _atom("last_vowel", "last", "ends with a vowel", 'w[-1] in "aeiou"', lambda w: w[-1] in VOWELS)
    yield _atom(
        "last_consonant",
        "last",
        "ends with a consonant",
        'w[-1] not in "aeiou"',
        lambda w: w[-1] not in VOWELS,
    )
    for c in "esydtnr":
        yield _atom(f"last_{c}", "last", f"ends with '{c}'", f'w[-1] == "{c}"', lambda w, c=c: w[-1] == c)
    for suffix in ("er", "ed", "es", "ing", "ly", "al", "on"):
        yield _atom(
            f"suffix_{suffix}",
            "last",
            f"ends with '{suffix}'",
            f'w.endswith("{suffix}")',
            lambda w, s=suffix: w.endswith(s),
        )


def _count_atoms() -> Iterator[Atom]:
    """How many vowels, how many consonants."""
    vowel_count = 'sum(c in "aeiou" for c in w)'
    for k in (1, 2, 3):
        yield _atom(
            f"vowels_eq_{k}",
            "vowels",
            f"has exactly {k} vowel{'s' * (k > 1)}",
            f"{vowel_count} == {k}",
            lambda w, k=k: _vowels(w) == k,
        )
    for k in (2, 3):
        yield _atom(
            f"vowels_ge_{k}",
            "vowels",
            f"has at least {k} vowels",
            f"{vowel_count} >= {k}",
            lambda w, k=k: _vowels(w) >= k,
        )
    for k in (1, 2):
        yield _atom(
            f"vowels_le_{k}",
            "vowels",
            f"has at most {k} vowel{'s' * (k > 1)}",
            f"{vowel_count} <= {k}",
            lambda w, k=k: _vowels(w) <= k,
        )
    yield _atom(
        "vowels_half",
        "vowels",
        "has at least as many vowels as consonants",
        f"2 * {vowel_count} >= len(w)",
        lambda w: 2 * _vowels(w) >= len(w),
    )

    consonant_count = 'sum(c not in "aeiou" for c in w)'
    for k in (3, 4):
        yield _atom(
            f"consonants_eq_{k}",
            "consonants",
            f"has exactly {k} consonants",
            f"{consonant_count} == {k}",
            lambda w, k=k: len(w) - _vowels(w) == k,
        )
    for k in (3, 4, 5):
        yield _atom(
            f"consonants_ge_{k}",
            "consonants",
            f"has at least {k} consonants",
            f"{consonant_count} >= {k}",
            lambda w, k=k: len(w) - _vowels(w) >= k,
        )
    for k in (2, 3):
        yield _atom(
            f"consonants_le_{k}",
            "consonants",
            f"has at most {k} consonants",
            f"{consonant_count} <= {k}",
            lambda w, k=k: len(w) - _vowels(w) <= k,
        )


def _repetition_atoms() -> Iterator[Atom]:
    """Letters that repeat: a double letter, a letter used twice, how many different letters."""
    yield _atom(
        "double",
        "double",
        "has a double letter (the same letter twice in a row)",
        "any(a == b for a, b in zip(w, w[1:]))",
        lambda w: any(a == b for a, b in itertools.pairwise(w)),
    )
    yield _atom(
        "no_double",
        "double",
        "has no double letter (never the same letter twice in a row)",
        "all(a != b for a, b in zip(w, w[1:]))",
        lambda w: all(a != b for a, b in itertools.pairwise(w)),
    )

    yield _atom(
        "repeats",
        "repeat",
        "uses some letter more than once",
        "len(set(w)) < len(w)",
        lambda w: len(set(w)) < len(w),
    )
    yield _atom(
        "unique",
        "repeat",
        "uses no letter more than once",
        "len(set(w)) == len(w)",
        lambda w: len(set(w)) == len(w),
    )
    for k in (5, 6):
        yield _atom(
            f"distinct_ge_{k}",
            "repeat",
            f"has at least {k} different letters",
            f"len(set(w)) >= {k}",
            lambda w, k=k: len(set(w)) >= k,
        )
    for k in (4, 5):
        yield _atom(
            f"distinct_le_{k}",
            "repeat",
            f"has at most {k} different letters",
            f"len(set(w)) <= {k}",
            lambda w, k=k: len(set(w)) <= k,
        )


def _order_atoms() -> Iterator[Atom]:
    """Alphabetical order among the letters."""
    yield _atom(
        "first_before_last",
        "order",
        "has its first letter earlier in the alphabet than its last",
        "w[0] < w[-1]",
        lambda w: w[0] < w[-1],
    )
    yield _atom(
        "first_after_last",
        "order",
        "has its first letter later in the alphabet than its last",
        "w[0] > w[-1]",
        lambda w: w[0] > w[-1],
    )
    yield _atom(
        "first_two_sorted",
        "order",
        "has its first two letters in alphabetical order",
        "w[0] <= w[1]",
        lambda w: w[0] <= w[1],
    )
    yield _atom(
        "first_three_sorted",
        "order",
        "has its first three letters in alphabetical order",
        "w[0] <= w[1] <= w[2]",
        lambda w: w[0] <= w[1] <= w[2],
    )
    yield _atom(
        "sorted",
        "order",
        "has all its letters in alphabetical order",
        '"".join(sorted(w)) == w',
        lambda w: "".join(sorted(w)) == w,
    )


def _content_atoms() -> Iterator[Atom]:
    """A letter or a pair of letters the word contains, or contains twice."""
    for c in "aeiorstnl":
        yield _atom(
            f"has_{c}", "contains", f"contains the letter '{c}'", f'"{c}" in w', lambda w, c=c: c in w
        )
    for c in "eao":
        yield _atom(
            f"twice_{c}",
            "count",
            f"contains the letter '{c}' at least twice",
            f'w.count("{c}") >= 2',
            lambda w, c=c: w.count(c) >= 2,
        )
    for pair in ("er", "in", "th", "an", "re", "on", "st", "en"):
        yield _atom(
            f"sub_{pair}", "substring", f"contains '{pair}'", f'"{pair}" in w', lambda w, p=pair: p in w
        )


def _place_atoms() -> Iterator[Atom]:
    """A mirrored word, and a vowel in a given place."""
    yield _atom(
        "palindrome",
        "mirror",
        "reads the same backwards (a palindrome)",
        "w == w[::-1]",
        lambda w: w == w[::-1],
    )
    yield _atom(
        "same_ends",
        "mirror",
        "starts and ends with the same letter",
        "w[0] == w[-1]",
        lambda w: w[0] == w[-1],
    )

    yield _atom(
        "second_vowel",
        "position",
        "has a vowel as its second letter",
        'w[1] in "aeiou"',
        lambda w: w[1] in VOWELS,
    )
    yield _atom(
        "third_vowel",
        "position",
        "has a vowel as its third letter",
        'w[2] in "aeiou"',
        lambda w: w[2] in VOWELS,
    )
    yield _atom(
        "penultimate_vowel",
        "position",
        "has a vowel as its second-to-last letter",
        'w[-2] in "aeiou"',
        lambda w: w[-2] in VOWELS,
    )
    yield _atom(
        "middle_vowel",
        "position",
        "has a vowel in its middle (letter len // 2, counting from 0)",
        'w[len(w) // 2] in "aeiou"',
        lambda w: w[len(w) // 2] in VOWELS,
    )


def _atoms() -> tuple[Atom, ...]:
    """Every atom, kind by kind (the order is each atom's index in the table: keep it)."""
    kinds = (
        _length_atoms,
        _end_atoms,
        _count_atoms,
        _repetition_atoms,
        _order_atoms,
        _content_atoms,
        _place_atoms,
    )
    return tuple(atom for kind in kinds for atom in kind())


ATOMS: tuple[Atom, ...] = _atoms()
ATOM_INDEX: dict[str, int] = {a.id: i for i, a in enumerate(ATOMS)}


@cache
def atom_table() -> npt.NDArray[np.bool_]:
    """Each atom's truth on each vocabulary word: shape (atoms, words)."""
    words = vocabulary()
    return np.array([[a.test(w) for w in words] for a in ATOMS], dtype=bool)


def combine(shape: str, values: Sequence[Any]) -> Any:
    """A shape applied to its atoms' truth values (bools or numpy arrays)."""
    if shape == "one":
        return values[0]
    if shape == "and":
        return values[0] & values[1]
    if shape == "or":
        return values[0] | values[1]
    if shape == "and3":
        return values[0] & values[1] & values[2]
    if shape == "or3":
        return values[0] | values[1] | values[2]
    if shape == "and_or":
        return (values[0] & values[1]) | values[2]
    if shape == "or_and":
        return (values[0] | values[1]) & values[2]
    if shape == "xor":
        return values[0] ^ values[1]
    raise ValueError(f"unknown shape {shape!r}")


def rule_source(shape: str, atoms: Sequence[Atom]) -> str:
    """The rule's predicate in the word language."""
    p = [f"({a.source})" for a in atoms]
    body = {
        "one": lambda: atoms[0].source,
        "and": lambda: f"{p[0]} and {p[1]}",
        "or": lambda: f"{p[0]} or {p[1]}",
        "and3": lambda: f"{p[0]} and {p[1]} and {p[2]}",
        "or3": lambda: f"{p[0]} or {p[1]} or {p[2]}",
        "and_or": lambda: f"({p[0]} and {p[1]}) or {p[2]}",
        "or_and": lambda: f"({p[0]} or {p[1]}) and {p[2]}",
        "xor": lambda: f"{p[0]} != {p[1]}",
    }[shape]()
    return f"lambda w: {body}"


def rule_text(shape: str, atoms: Sequence[Atom]) -> str:
    """The rule in words, about "the word"."""
    t = [a.text for a in atoms]
    return {
        "one": lambda: f"The word {t[0]}.",
        "and": lambda: f"The word {t[0]} and {t[1]}.",
        "or": lambda: f"The word {t[0]} or {t[1]} (or both).",
        "and3": lambda: f"The word {t[0]}, {t[1]} and {t[2]}.",
        "or3": lambda: f"The word {t[0]}, or {t[1]}, or {t[2]} (at least one of them).",
        "and_or": lambda: f"Either the word {t[0]} and {t[1]}, or it {t[2]} (or both).",
        "or_and": lambda: f"The word {t[2]}, and also {t[0]} or {t[1]} (or both).",
        "xor": lambda: f"The word {t[0]} or {t[1]}, but not both.",
    }[shape]()


@dataclass(frozen=True)
class Rule:
    """A hidden rule: its predicate in the word language, its text, and where it came from.

    Attributes:
        key: a stable id (``L2:and:first_vowel+len_eq_5`` for grammar rules, ``published:17`` for the
            published functions).
        level: ``L1``-``L3`` (the published functions are L1).
        text: the rule in words.
        source: ``lambda w: ...`` in the word language.
        shape, atoms: the grammar's structure, for grammar rules (the solver's hypotheses).
        provenance: generator, version, seed and parameters, or the published function it translates.
    """

    key: str
    level: str
    text: str
    source: str
    shape: str | None = None
    atoms: tuple[str, ...] = ()
    provenance: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "level": self.level,
            "text": self.text,
            "source": self.source,
            "shape": self.shape,
            "atoms": list(self.atoms),
            "provenance": self.provenance,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rule:
        return cls(
            key=str(data["key"]),
            level=str(data["level"]),
            text=str(data["text"]),
            source=str(data["source"]),
            shape=None if data.get("shape") is None else str(data["shape"]),
            atoms=tuple(str(a) for a in data.get("atoms") or ()),
            provenance=dict(data.get("provenance") or {}),
        )


def grammar_rule(
    shape: str, atom_ids: Sequence[str], level: str, provenance: dict[str, Any] | None = None
) -> Rule:
    atoms = [ATOMS[ATOM_INDEX[a]] for a in atom_ids]
    if len(atoms) != ARITY[shape]:  # type: ignore[index]
        raise ValueError(f"shape {shape} takes {ARITY[shape]} atoms, not {len(atoms)}")  # type: ignore[index]
    return Rule(
        key=f"{level}:{shape}:{'+'.join(atom_ids)}",
        level=level,
        text=rule_text(shape, atoms),
        source=rule_source(shape, atoms),
        shape=shape,
        atoms=tuple(atom_ids),
        provenance=provenance or {},
    )


def extension(rule: Rule) -> npt.NDArray[np.bool_]:
    """A grammar rule's truth on every vocabulary word (from the atoms' native tests)."""
    if rule.shape is None:
        raise ValueError(f"rule {rule.key} is not a grammar rule")
    table = atom_table()
    return np.asarray(combine(rule.shape, [table[ATOM_INDEX[a]] for a in rule.atoms]), dtype=bool)


# -- balance -------------------------------------------------------------------------------------------------
BALANCE_SAMPLE = 50
BALANCE_LOW, BALANCE_HIGH = 4, 46  # the reference's ``4 < k < 46`` of 50
VOCABULARY_LOW, VOCABULARY_HIGH = 0.10, 0.90


@dataclass(frozen=True)
class Balance:
    """The balance check's numbers: ``k`` of the 50 sampled words, and the fraction of the whole list."""

    sample_true: int
    sample_size: int
    fraction: float
    published_ok: bool
    vocabulary_ok: bool

    @property
    def ok(self) -> bool:
        return self.published_ok and self.vocabulary_ok

    def reason(self) -> str | None:
        if not self.published_ok:
            return (
                f"unbalanced: true for {self.sample_true} of {self.sample_size} sampled words "
                f"(the published check needs {BALANCE_LOW} < k < {BALANCE_HIGH})"
            )
        if not self.vocabulary_ok:
            return f"unbalanced: true for {self.fraction:.1%} of the word list (needs 10%-90%)"
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "sample_true": self.sample_true,
            "sample_size": self.sample_size,
            "fraction": round(self.fraction, 6),
            "published_ok": self.published_ok,
            "vocabulary_ok": self.vocabulary_ok,
        }


def balance(truth: npt.NDArray[np.bool_], seed: int | str) -> Balance:
    """The balance of a rule given its truth on every vocabulary word; the 50 words are drawn with ``seed``."""
    rng = random.Random(f"balance|{seed}")
    n = len(truth)
    sample = [rng.randrange(n) for _ in range(BALANCE_SAMPLE)]
    k = int(sum(bool(truth[i]) for i in sample))
    fraction = float(truth.mean()) if n else 0.0
    return Balance(
        sample_true=k,
        sample_size=BALANCE_SAMPLE,
        fraction=fraction,
        published_ok=BALANCE_LOW < k < BALANCE_HIGH,
        vocabulary_ok=VOCABULARY_LOW <= fraction <= VOCABULARY_HIGH,
    )


# -- generation ----------------------------------------------------------------------------------------------
MAX_DRAWS = 10_000
MIN_EFFECT = 0.01
"""Each atom of a rule of two or more must decide at least this share of the word list (see :func:`effect`)."""


def effect(shape: str, values: Sequence[npt.NDArray[np.bool_]]) -> float:
    """The smallest share of the word list on which the rule differs from itself with one atom fixed to true,
    or to false. A rule with an atom of small effect is a simpler rule in disguise (``(has at least 6 letters
    and is a palindrome) or ...`` is ``...`` but for a word or two): it is a rule of the level below that no
    number of examples is likely to tell apart, the word-list analogue of the reference's compound categories
    that equal one of their own parts."""
    if len(values) < 2:
        return 1.0
    truth = np.asarray(combine(shape, values), dtype=bool)
    ones = np.ones_like(truth)
    zeros = np.zeros_like(truth)
    smallest = 1.0
    for i in range(len(values)):
        as_true = np.asarray(
            combine(shape, [ones if j == i else v for j, v in enumerate(values)]), dtype=bool
        )
        as_false = np.asarray(
            combine(shape, [zeros if j == i else v for j, v in enumerate(values)]), dtype=bool
        )
        smallest = min(smallest, float((truth != as_true).mean()), float((truth != as_false).mean()))
    return smallest


def generate_rules(level: str, seed: int, n: int) -> list[Rule]:
    """``n`` distinct balanced rules of ``level``, drawn with ``seed`` (same seed, same rules).

    Each draw picks a shape of the level, then atoms of distinct kinds uniformly; a draw that is unbalanced,
    that has an atom deciding less than :data:`MIN_EFFECT` of the words, or whose extension equals an earlier
    rule's, is skipped.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    if n < 1:
        raise ValueError("n must be at least 1")
    rng = random.Random(f"{GENERATOR}|{GENERATOR_VERSION}|{level}|{seed}")
    table = atom_table()
    seen: set[bytes] = set()
    out: list[Rule] = []
    skipped = {"unbalanced": 0, "weak_atom": 0, "duplicate": 0}
    for draw in range(MAX_DRAWS):
        if len(out) == n:
            break
        shape = rng.choice(SHAPES[level])
        atoms: list[int] = []
        kinds: set[str] = set()
        while len(atoms) < ARITY[shape]:
            i = rng.randrange(len(ATOMS))
            if ATOMS[i].kind not in kinds:
                atoms.append(i)
                kinds.add(ATOMS[i].kind)
        values = [table[i] for i in atoms]
        truth = np.asarray(combine(shape, values), dtype=bool)
        check = balance(truth, f"{level}|{seed}|{draw}")
        if not check.ok:
            skipped["unbalanced"] += 1
            continue
        weakest = effect(shape, values)
        if weakest < MIN_EFFECT:
            skipped["weak_atom"] += 1
            continue
        digest = hashlib.sha256(np.packbits(truth).tobytes()).digest()
        if digest in seen:
            skipped["duplicate"] += 1
            continue
        seen.add(digest)
        provenance = {
            "generator": GENERATOR,
            "version": GENERATOR_VERSION,
            "seed": seed,
            "level": level,
            "n": n,
            "draw": draw,
            "balance": check.to_json(),
            "min_effect": round(weakest, 6),
        }
        out.append(grammar_rule(shape, [ATOMS[i].id for i in atoms], level, provenance))
    if len(out) < n:
        raise ValueError(f"only {len(out)} balanced {level} rules found in {MAX_DRAWS} draws")
    return out
