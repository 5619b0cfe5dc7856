"""A grammar of word properties, rules built from it per level, and the balance check.

An **atom** is one property of a word (its length, its first or last letter, how many vowels it has, a double
letter, repeated letters, alphabetical order, a substring, a letter at a position...), with a phrase for people,
a predicate in the word language (:mod:`wason.sandbox.words`) and the same test compiled by Python (for speed: the
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
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from wason.tasks.code_functions.vocabulary import vocabulary

GENERATOR = "code-functions-grammar"
GENERATOR_VERSION = 2
LEVELS = ("L1", "L2", "L3")

Shape = Literal["one", "and", "or", "and3", "or3", "and_or", "or_and", "xor"]
SHAPES: dict[str, tuple[Shape, ...]] = {
    "L1": ("one",),
    "L2": ("and", "or"),
    "L3": ("and3", "or3", "and_or", "or_and", "xor"),
}
# each shape: how many atoms it joins, how it joins their truth values (bools or numpy arrays), its predicate
# in the word language and its text, about "the word"
_FORMS: dict[str, tuple[int, Callable[[Sequence[Any]], Any], str, str]] = {
    "one": (1, lambda v: v[0], "{0}", "The word {0}."),
    "and": (2, lambda v: v[0] & v[1], "{0} and {1}", "The word {0} and {1}."),
    "or": (2, lambda v: v[0] | v[1], "{0} or {1}", "The word {0} or {1} (or both)."),
    "and3": (3, lambda v: v[0] & v[1] & v[2], "{0} and {1} and {2}", "The word {0}, {1} and {2}."),
    "or3": (
        3,
        lambda v: v[0] | v[1] | v[2],
        "{0} or {1} or {2}",
        "The word {0}, or {1}, or {2} (at least one of them).",
    ),
    "and_or": (
        3,
        lambda v: (v[0] & v[1]) | v[2],
        "({0} and {1}) or {2}",
        "Either the word {0} and {1}, or it {2} (or both).",
    ),
    "or_and": (
        3,
        lambda v: (v[0] | v[1]) & v[2],
        "({0} or {1}) and {2}",
        "The word {2}, and also {0} or {1} (or both).",
    ),
    "xor": (2, lambda v: v[0] ^ v[1], "{0} != {1}", "The word {0} or {1}, but not both."),
}


@dataclass(frozen=True)
class Atom:
    """One property of a word: a stable ``id`` (``len_eq_5``), its ``kind`` (rules never join two atoms of one
    kind), the phrase (``has exactly 5 letters``), the body of its predicate in the word language over ``w``, and
    the same test compiled by Python (the word language is a subset of Python's expressions)."""

    id: str
    kind: str
    text: str
    source: str
    test: Callable[[str], bool] = field(repr=False, compare=False)


def _atom(id_: str, kind: str, text: str, source: str) -> Atom:
    test: Callable[[str], bool] = eval(f"lambda w: {source}", {})  # trusted text, built in this module
    return Atom(id_, kind, text, source, test)


_COMPARE = {"eq": ("exactly", "=="), "ge": ("at least", ">="), "le": ("at most", "<=")}


def _counted(name: str, kind: str, noun: str, source: str, **ks: Iterable[int]) -> Iterator[Atom]:
    """``has exactly / at least / at most k nouns``, for each comparison's ``k`` in the order given."""
    for op, values in ks.items():
        word, symbol = _COMPARE[op]
        for k in values:
            yield _atom(
                f"{name}_{op}_{k}", kind, f"has {word} {k} {noun}{'s' * (k > 1)}", f"{source} {symbol} {k}"
            )


def _each(values: Iterable[Any], id_: str, kind: str, text: str, source: str) -> Iterator[Atom]:
    """One atom per value (a tuple is formatted as its fields)."""
    for v in values:
        fields = v if isinstance(v, tuple) else (v,)
        yield _atom(id_.format(*fields), kind, text.format(*fields), source.format(*fields))


def _table(kind: str, *rows: tuple[str, str, str]) -> Iterator[Atom]:
    """Atoms of one kind, each written out: id, text and source."""
    for id_, text, source in rows:
        yield _atom(id_, kind, text, source)


def _atoms() -> Iterator[Atom]:
    """Every atom, kind by kind (the order is each atom's index in the table: keep it)."""
    yield from _counted("len", "length", "letter", "len(w)", eq=range(4, 8), ge=range(5, 8), le=range(4, 7))
    yield from _table(
        "length",
        ("len_even", "has an even number of letters", "len(w) % 2 == 0"),
        ("len_odd", "has an odd number of letters", "len(w) % 2 == 1"),
    )
    # the first and the last letter: vowel or consonant, a half of the alphabet, a letter, a suffix
    yield from _table(
        "first",
        ("first_vowel", "starts with a vowel", 'w[0] in "aeiou"'),
        ("first_consonant", "starts with a consonant", 'w[0] not in "aeiou"'),
        ("first_a_m", "starts with a letter from a to m", 'w[0] <= "m"'),
        ("first_n_z", "starts with a letter from n to z", 'w[0] > "m"'),
    )
    yield from _each("sbcpmtdf", "first_{}", "first", "starts with '{}'", 'w[0] == "{}"')
    yield from _table(
        "last",
        ("last_vowel", "ends with a vowel", 'w[-1] in "aeiou"'),
        ("last_consonant", "ends with a consonant", 'w[-1] not in "aeiou"'),
    )
    yield from _each("esydtnr", "last_{}", "last", "ends with '{}'", 'w[-1] == "{}"')
    suffixes = ("er", "ed", "es", "ing", "ly", "al", "on")
    yield from _each(suffixes, "suffix_{}", "last", "ends with '{}'", 'w.endswith("{}")')
    # how many vowels, how many consonants
    vowels = 'sum(c in "aeiou" for c in w)'
    yield from _counted("vowels", "vowels", "vowel", vowels, eq=(1, 2, 3), ge=(2, 3), le=(1, 2))
    yield _atom(
        "vowels_half", "vowels", "has at least as many vowels as consonants", f"2 * {vowels} >= len(w)"
    )
    consonants = 'sum(c not in "aeiou" for c in w)'
    yield from _counted(
        "consonants", "consonants", "consonant", consonants, eq=(3, 4), ge=(3, 4, 5), le=(2, 3)
    )
    # letters that repeat: a double letter, a letter used twice, how many different letters
    yield from _table(
        "double",
        (
            "double",
            "has a double letter (the same letter twice in a row)",
            "any(a == b for a, b in zip(w, w[1:]))",
        ),
        (
            "no_double",
            "has no double letter (never the same letter twice in a row)",
            "all(a != b for a, b in zip(w, w[1:]))",
        ),
    )
    yield from _table(
        "repeat",
        ("repeats", "uses some letter more than once", "len(set(w)) < len(w)"),
        ("unique", "uses no letter more than once", "len(set(w)) == len(w)"),
    )
    yield from _counted("distinct", "repeat", "different letter", "len(set(w))", ge=(5, 6), le=(4, 5))
    # alphabetical order among the letters
    yield from _table(
        "order",
        ("first_before_last", "has its first letter earlier in the alphabet than its last", "w[0] < w[-1]"),
        ("first_after_last", "has its first letter later in the alphabet than its last", "w[0] > w[-1]"),
        ("first_two_sorted", "has its first two letters in alphabetical order", "w[0] <= w[1]"),
        ("first_three_sorted", "has its first three letters in alphabetical order", "w[0] <= w[1] <= w[2]"),
        ("sorted", "has all its letters in alphabetical order", '"".join(sorted(w)) == w'),
    )
    # a letter or a pair of letters the word contains, or contains twice
    yield from _each("aeiorstnl", "has_{}", "contains", "contains the letter '{}'", '"{}" in w')
    yield from _each(
        "eao", "twice_{}", "count", "contains the letter '{}' at least twice", 'w.count("{}") >= 2'
    )
    pairs = ("er", "in", "th", "an", "re", "on", "st", "en")
    yield from _each(pairs, "sub_{}", "substring", "contains '{}'", '"{}" in w')
    # a mirrored word, and a vowel in a given place
    yield from _table(
        "mirror",
        ("palindrome", "reads the same backwards (a palindrome)", "w == w[::-1]"),
        ("same_ends", "starts and ends with the same letter", "w[0] == w[-1]"),
    )
    yield from _each(
        (("second", 1, "second"), ("third", 2, "third"), ("penultimate", -2, "second-to-last")),
        "{0}_vowel",
        "position",
        "has a vowel as its {2} letter",
        'w[{1}] in "aeiou"',
    )
    yield _atom(
        "middle_vowel",
        "position",
        "has a vowel in its middle (letter len // 2, counting from 0)",
        'w[len(w) // 2] in "aeiou"',
    )


ATOMS: tuple[Atom, ...] = tuple(_atoms())
ATOM_INDEX: dict[str, int] = {a.id: i for i, a in enumerate(ATOMS)}


@cache
def atom_table() -> npt.NDArray[np.bool_]:
    """Each atom's truth on each vocabulary word: shape (atoms, words)."""
    words = vocabulary()
    return np.array([[a.test(w) for w in words] for a in ATOMS], dtype=bool)


def combine(shape: str, values: Sequence[Any]) -> Any:
    """A shape applied to its atoms' truth values (bools or numpy arrays)."""
    if shape not in _FORMS:
        raise ValueError(f"unknown shape {shape!r}")
    return _FORMS[shape][1](values)


def rule_source(shape: str, atoms: Sequence[Atom]) -> str:
    """The rule's predicate in the word language."""
    parts = [atoms[0].source] if shape == "one" else [f"({a.source})" for a in atoms]
    return f"lambda w: {_FORMS[shape][2].format(*parts)}"


def rule_text(shape: str, atoms: Sequence[Atom]) -> str:
    """The rule in words, about "the word"."""
    return _FORMS[shape][3].format(*(a.text for a in atoms))


@dataclass(frozen=True)
class Rule:
    """A hidden rule: its predicate in the word language (``source``), its text, and where it came from; a
    ``key`` such as ``L2:and:first_vowel+len_eq_5`` (grammar rules, with their ``shape`` and ``atoms``) or
    ``published:17`` (the published functions, all L1)."""

    key: str
    level: str
    text: str
    source: str
    shape: str | None = None
    atoms: tuple[str, ...] = ()
    provenance: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "atoms": list(self.atoms)}

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
    arity = _FORMS[shape][0]
    if len(atoms) != arity:
        raise ValueError(f"shape {shape} takes {arity} atoms, not {len(atoms)}")
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
        return {**asdict(self), "fraction": round(self.fraction, 6)}


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
    smallest = 1.0
    for i in range(len(values)):
        for fixed in (np.ones_like(truth), np.zeros_like(truth)):
            moved = np.asarray(
                combine(shape, [fixed if j == i else v for j, v in enumerate(values)]), dtype=bool
            )
            smallest = min(smallest, float((truth != moved).mean()))
    return smallest


def generate_rules(level: str, seed: int, n: int) -> list[Rule]:
    """``n`` distinct balanced rules of ``level``, drawn with ``seed`` (same seed, same rules): each draw picks a
    shape of the level, then atoms of distinct kinds uniformly; a draw that is unbalanced, that has an atom
    deciding less than :data:`MIN_EFFECT` of the words, or whose extension equals an earlier rule's, is skipped."""
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
        while len(atoms) < _FORMS[shape][0]:
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
