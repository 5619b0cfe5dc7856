"""The Numberwang list rules as plain predicates over lists of integers.

Published texts and examples are package data (``data/rules.json``, reproduced from the pilot's rule sheet);
this module pairs each with a predicate and, where the text is ambiguous, the reading chosen. See
``docs/lists.md`` for the table of rules and readings.

Conventions shared by every rule:

* Only lists (or tuples) whose items are all integers can be accepted. ``bool`` is a subclass of ``int`` in
  Python, but ``True``/``False`` are not integers a player means, so a list containing one is "No"; so is a
  list containing a float (even ``2.0``), a string, or a nested list. Other ``numbers.Integral`` values (such
  as NumPy integers) count as integers.
* Rules that constrain every element, pair or window hold vacuously on lists too short to have one (the
  empty list is strictly increasing; a one-element list is Collatz-ish). Rules that need something to exist
  (a first item, a second item, a number that is the sum of the others) fail when it does not.
* Digit rules read the decimal digits of the absolute value: a minus sign is not a digit.
"""

from __future__ import annotations

import itertools
import json
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any

# One primality test for the rules and the predicates models write (exact below 3.3e24; deterministic above).
from wason.tasks.lists.language import is_prime as is_prime

Predicate = Callable[[Sequence[int]], bool]

SPLITS = ("pilot", "second", "all", "phase1")

# rules.json's ``set`` value of the highlighted candidates that were chosen as a second sample but never run.
SECOND_SET = "purple (second set, never run)"


@dataclass(frozen=True)
class ListRule:
    """One hidden rule over lists of integers; ``text`` exactly as published, ``predicate`` deciding a list
    already known to hold only integers (use :meth:`accepts` for raw input). ``source`` is the rule as
    ``lambda xs: ...`` in the list guess language when one is known (generated rules carry one; the published
    rules do not need it)."""

    split: str  # ``pilot``, ``second``, ``all`` or ``phase1``
    id: int  # candidate rank (1-60) for ``second``/``all``; 1-based position in the published list otherwise
    text: str
    predicate: Predicate
    reading: str | None = None  # the interpretation chosen where the text is ambiguous
    difficulty: float | None = None  # mean difficulty of the two raters (0-5), as published
    short_rule: str | None = None  # the pilot's short name, for pilot and phase-1 rules
    examples: tuple[tuple[int, ...], ...] = ()  # the published positive examples (pilot and phase-1 rules)
    rank: int | None = None  # the candidate rank this rule corresponds to, if any
    source: str | None = None
    provenance: dict[str, Any] | None = (
        None  # generated rules: the generator's name, version, seed, parameters
    )

    @property
    def key(self) -> str:
        return f"{self.split}/{self.id}"

    def accepts(self, items: object) -> bool:
        """Whether ``items`` follows the rule; anything that is not a list of integers is "No"."""
        ints = as_int_list(items)
        return ints is not None and self.predicate(ints)

    def __call__(self, items: object) -> bool:
        return self.accepts(items)


@dataclass(frozen=True)
class Unrepresentable:
    """A candidate rule that cannot be made a well-defined predicate, and why."""

    rank: int
    text: str
    reason: str


def as_int_list(items: object) -> tuple[int, ...] | None:
    """``items`` as a tuple of ints, or ``None`` when it is not a list or tuple of integers (bools excluded)."""
    if not isinstance(items, list | tuple):
        return None
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, numbers.Integral):
            return None
        out.append(int(item))
    return tuple(out)


def holds(predicate: Callable[[tuple[int, ...]], bool], xs: tuple[int, ...]) -> bool:
    """``predicate(xs)``, False where it raises: one odd hypothesis must not stop a game or a score (a predicate
    that cannot decide a list does not accept it)."""
    try:
        return bool(predicate(xs))
    except Exception:
        return False


# ---------------------------------------------------------------------------------------------- helpers


def _is_square(n: int) -> bool:
    return n >= 0 and math.isqrt(n) ** 2 == n


def _is_cube(n: int) -> bool:
    m = abs(n)
    lo, hi = 0, 1 << (m.bit_length() // 3 + 1)
    while lo < hi:
        mid = (lo + hi) // 2
        if mid**3 < m:
            lo = mid + 1
        else:
            hi = mid
    return lo**3 == m


def _digits(n: int) -> str:
    return str(abs(n))


_pairs = itertools.pairwise


def _windows3(xs: Sequence[int]) -> list[tuple[int, int, int]]:
    return list(zip(xs, xs[1:], xs[2:], strict=False))


def _prime_pi(n: int) -> int:
    """Number of primes <= n (Lucy Hedgehog's method, O(n^3/4)), exact for any n."""
    if n < 2:
        return 0
    r = math.isqrt(n)
    values = [n // i for i in range(1, r + 1)]
    values += list(range(values[-1] - 1, 0, -1))
    count = {v: v - 1 for v in values}
    for p in range(2, r + 1):
        if count[p] > count[p - 1]:
            below = count[p - 1]
            square = p * p
            for v in values:
                if v < square:
                    break
                count[v] -= count[v // p] - below
    return count[n]


def _pi_bound(y: int) -> float | Fraction:
    """1.25506 y / ln y, above pi(y) for y > 1 (Rosser and Schoenfeld); a Fraction where y has no float."""
    if y < 10**300:
        return 1.25506 * y / math.log(y)
    return Fraction(1.25506) * y / Fraction(math.log(y))  # the float of y would overflow


def _composites_below(p: int) -> int:
    # 2..p-1 holds p-2 numbers; the ones that are not prime are composite (1 is neither, so it is excluded).
    return 0 if p < 3 else (p - 2) - _prime_pi(p - 1)


def _first_nonzero_over(p: int, k: int) -> int | None:
    # Scaling by 10 shifts the decimal expansion of |p| / k without changing its digits (for any k up to 10**20).
    return None if p == 0 else int(str(abs(p) * 10**20 // k)[0])


_ONES = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = (
    "ten",
    "eleven",
    "twelve",
    *(w + "teen" for w in ("thir", "four", "fif", "six", "seven", "eigh", "nine")),
)
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SCALES = (
    "",
    "thousand",
    *(p + "illion" for p in ("m", "b", "tr", "quadr", "quint", "sext", "sept", "oct", "non", "dec")),
)


def _below_thousand(n: int) -> str:
    words = []
    if n >= 100:
        words += [_ONES[n // 100], "hundred"]
        n %= 100
    if 10 <= n < 20:
        words.append(_TEENS[n - 10])
    else:
        words += [w for w in (_TENS[n // 10], _ONES[n % 10]) if w]
    return " ".join(words)


def english(n: int) -> str | None:
    """American short-scale spelling (``negative`` for a sign), or ``None`` beyond the decillions (1e36)."""
    if n < 0:
        inner = english(-n)
        return None if inner is None else "negative " + inner
    if n == 0:
        return "zero"
    if n >= 1000 ** len(_SCALES):
        return None
    groups = []
    for scale in _SCALES:
        n, group = divmod(n, 1000)
        if group:
            groups.append(f"{_below_thousand(group)} {scale}".strip())
    return " ".join(reversed(groups))


def _ceil_pow_1_2(p: int) -> int:
    return 1 if p <= 0 else -(-(6**p) // 5**p)  # 1.2**p is in (0, 1] for p <= 0, so its ceiling is 1


def _matches_ceil_pow(p: int, x: int) -> bool:
    # 1.2**p exceeds 2**(bit_length+2) > x long before computing 6**p gets slow; reject those without it.
    # (p is compared with a float rather than multiplied by one: a p beyond 1e308 has no float.)
    if p > 0 and p > (x.bit_length() + 2) / math.log2(1.2):
        return False
    return _ceil_pow_1_2(p) == x


# The digits after the decimal point of 15/17, one period (15/17 has period 16).
_15_OVER_17 = tuple(int(c) for c in str(15 * 10**16 // 17).zfill(16))

# Seven-segment digits the published text lists as symmetric: "0, 1, 2, 3, not 4, 5, not 6, not 7, 8, not 9".
_LED_SYMMETRIC = frozenset("012358")


# ---------------------------------------------------------------------------------------------- rules


def _previous_or_sum(xs: Sequence[int]) -> bool:
    if len(xs) >= 2 and xs[1] != xs[0]:
        return False
    return all(c in (b, a + b) for a, b, c in _windows3(xs))


def _divisible_or_plus_13(xs: Sequence[int]) -> bool:
    def ok(p: int, x: int) -> bool:
        divisible = x == 0 if p == 0 else x % p == 0
        return divisible or x == p + 13

    return all(ok(p, x) for p, x in _pairs(xs[1:]))


def _constant_ratio(xs: Sequence[int]) -> bool:
    if len(xs) < 2:
        return True
    if xs[0] == 0:
        return all(x == 0 for x in xs)
    ratio = Fraction(xs[1], xs[0])
    return all(b == ratio * a for a, b in _pairs(xs))


def _alternate_up_down(xs: Sequence[int]) -> bool:
    diffs = [b - a for a, b in _pairs(xs)]
    return all(d != 0 for d in diffs) and all((d > 0) != (e > 0) for d, e in _pairs(diffs))


def _one_is_sum_of_others(xs: Sequence[int]) -> bool:
    total = sum(xs)
    return any(2 * x == total for x in xs)


def _share_digit(a: int, b: int) -> bool:
    return bool(set(_digits(a)) & set(_digits(b)))


def _no_repeated_digits(xs: Sequence[int]) -> bool:
    digits = "".join(_digits(x) for x in xs)
    return len(set(digits)) == len(digits)


def _three_times_composites_below(xs: Sequence[int]) -> bool:
    def ok(p: int, x: int) -> bool:
        if x % 3 or x < 0:
            return False
        c = x // 3
        # Cheap bounds first (pi(y) < 1.25506 y / ln y for y > 1), so a huge p costs nothing unless plausible.
        if p > 17 and not (p - 2) - _pi_bound(p - 1) - 1 <= c <= p - 2:
            return False
        return _composites_below(p) == c

    return all(ok(p, x) for p, x in _pairs(xs))


def _sum_is(target: int) -> Predicate:
    return lambda xs: sum(xs) == target


# Candidate rank -> (predicate, reading). Readings say which interpretation was chosen where the text allows more.
_CANDIDATES: dict[int, tuple[Predicate, str | None]] = {
    1: (
        lambda xs: len({b - a for a, b in _pairs(xs)}) <= 1,
        "Consecutive differences are all equal; lists of 0-2 items hold.",
    ),
    2: (
        _constant_ratio,
        "There is one rational r with next = r * previous for every pair (so [4, 6, 9] holds, "
        "[5, 0, 0] holds with r = 0, and after a leading 0 every item must be 0).",
    ),
    3: (lambda xs: all(a < b for a, b in _pairs(xs)), "As the pilot's operative text."),
    4: (
        lambda xs: all(x >= 0 and (_is_square(5 * x * x + 4) or _is_square(5 * x * x - 4)) for x in xs),
        "Every item is in 0, 1, 1, 2, 3, 5, 8, ... (0 counts; negatives do not).",
    ),
    5: (lambda xs: all(x % 3 == 0 or x % 5 == 0 for x in xs), "Inclusive or; 0 is a multiple of both."),
    6: (lambda xs: 3 in xs, "Some item equals 3 (the digit 3 inside 13 does not count)."),
    7: (lambda xs: all(is_prime(x) for x in xs), "Every item is prime; the empty list holds (vacuous)."),
    8: (lambda xs: all(a <= b for a, b in _pairs(xs)), None),
    9: (lambda xs: len(set(xs)) == len(xs), "As the pilot's operative text."),
    10: (lambda xs: all(_is_square(x + 1) for x in xs), "x + 1 is a perfect square, so -1 (0 - 1) counts."),
    11: (lambda xs: len(xs) > 0 and xs[0] in xs[1:], "The first item occurs again; the empty list fails."),
    12: (lambda xs: all(b == 2 * a - 1 for a, b in _pairs(xs)), "Every item after the first is 2p - 1."),
    13: (
        _alternate_up_down,
        "Consecutive differences are non-zero and alternate in sign, starting either way (phase-1 text).",
    ),
    14: (_sum_is(10), None),
    15: (
        lambda xs: all((x % 3 == 0 or x % 5 == 0) and x % 15 != 0 for x in xs),
        "As the pilot's operative text: a multiple of 3 or 5 but not of 15.",
    ),
    16: (lambda xs: not any(is_prime(x) for x in xs), None),
    17: (
        lambda xs: all(_is_cube(x - 1) for x in xs),
        "x - 1 is a perfect cube of any sign (0 = (-1)^3 + 1).",
    ),
    18: (lambda xs: all((a - b) % 2 == 1 for a, b in _pairs(xs)), "Consecutive items differ in parity."),
    19: (lambda xs: sum(int(d) for x in xs for d in _digits(x)) == 10, "Digits of absolute values."),
    20: (
        _one_is_sum_of_others,
        "Some item equals the sum of the rest ([0] holds: the empty sum is 0); the empty list fails.",
    ),
    21: (
        lambda xs: all(min(a, b) < c < max(a, b) for a, b, c in _windows3(xs)),
        "As the pilot rule: strictly between, first two arbitrary.",
    ),
    22: (lambda xs: math.prod(xs) == 60, "The empty product is 1, so the empty list fails."),
    23: (lambda xs: all(b == a * a - 10 for a, b in _pairs(xs)), "Every item after the first is p^2 - 10."),
    24: (
        lambda xs: all(is_prime(abs(b - a)) for a, b in _pairs(xs)),
        "The absolute difference of each consecutive pair is prime, so [10, 7] holds (a signed reading "
        "would force the list to increase).",
    ),
    25: (lambda xs: all(c == a + b for a, b, c in _windows3(xs)), None),
    26: (lambda xs: sum(1 for x in xs if x % 2 == 0) % 2 == 0, "Zero evens is an even count."),
    27: (lambda xs: sum(x % 2 for x in xs) % 2 == 1, None),
    28: (lambda xs: len(xs) >= 2 and is_prime(xs[1]), "Lists without a second item fail."),
    29: (lambda xs: len({x % 3 for x in xs}) <= 1, "Congruence mod 3, so -1 and 2 share a remainder."),
    30: (lambda xs: is_prime(sum(xs)), "The empty sum is 0, not prime."),
    31: (lambda xs: len(xs) > 0 and xs[-1] % 2 == 0, "The empty list has no last item and fails."),
    32: (
        lambda xs: any(math.prod(xs[:i]) * math.prod(xs[i + 1 :]) == x for i, x in enumerate(xs)),
        "Some item equals the product of the rest ([1] holds: the empty product is 1); the empty list fails.",
    ),
    33: (lambda xs: is_prime(len(xs)), None),
    34: (lambda xs: sum(1 for x in xs if is_prime(x)) == 1, None),
    35: (lambda xs: all(x % n == 0 for n, x in enumerate(xs, start=1)), "0 is a multiple of every N."),
    36: (lambda xs: len(xs) != 4, None),
    37: (lambda xs: all(_share_digit(a, b) for a, b in _pairs(xs)), "Digits of absolute values."),
    38: (
        lambda xs: all(_digits(b)[0] == _digits(a)[-1] for a, b in _pairs(xs)),
        "Leading digit of each item (after the first) equals the last digit of the one before; signs ignored.",
    ),
    39: (
        _previous_or_sum,
        "As the pilot rule. Item 2 has only one predecessor, so it must repeat item 1 (reading 'the sum of "
        "the preceding two' as undefined there; summing the one available predecessor gives the same).",
    ),
    40: (
        lambda xs: all(c > max(a, b) or c < min(a, b) for a, b, c in _windows3(xs)),
        "Strictly above both or strictly below both of the preceding two; first two arbitrary.",
    ),
    41: (_no_repeated_digits, "No decimal digit occurs twice anywhere in the list (signs ignored)."),
    42: (lambda xs: len(xs) in xs, None),
    43: (
        lambda xs: all(c in (b - a, a - b) for a, b, c in _windows3(xs)),
        "Item = p - p2 or p2 - p for every item after the first two.",
    ),
    44: (lambda xs: not any(_share_digit(a, b) for a, b in _pairs(xs)), "Digits of absolute values."),
    45: (
        lambda xs: all(b == (a // 2 if a % 2 == 0 else 5 * a + 1) for a, b in _pairs(xs)),
        "As the pilot rule (n even -> n / 2, odd -> 5n + 1), for any sign.",
    ),
    47: (lambda xs: all(is_prime(a + b) for a, b in _pairs(xs)), None),
    48: (
        lambda xs: all(is_prime(sum(xs[: i + 1])) for i in range(len(xs))),
        "Every non-empty prefix sums to a prime; the empty list holds (no prefixes).",
    ),
    49: (
        lambda xs: all(_matches_ceil_pow(a, b) for a, b in _pairs(xs)),
        "Every item after the first is ceiling(1.2^p), computed exactly (1 for p <= 0).",
    ),
    50: (
        lambda xs: all(c == abs(b + a - 7) for a, b, c in _windows3(xs)),
        "'2p' is read as p2 (two back), because the text leaves the first two items arbitrary: item = "
        "|p + p2 - 7|. The literal |p + 2p - 7| = |3p - 7| would need only one free item.",
    ),
    51: (
        _divisible_or_plus_13,
        "As the pilot rule: the first two items are arbitrary; after that each item x with predecessor p "
        "satisfies p | x (x is a multiple of p, as the examples 2 -> 6 and 32 -> 96 require) or x = p + 13. "
        "A zero predecessor divides only 0.",
    ),
    52: (
        lambda xs: all(c in (a, b - a, a - b) for a, b, c in _windows3(xs)),
        "Item = p2, or the difference of the preceding two in either order (as in rank 43); first two free.",
    ),
    53: (
        lambda xs: all("1" in d or not ("2" in d or "7" in d) for d in map(_digits, xs)),
        "Per item, by its decimal digits: a 2 or 7 is allowed only beside a 1.",
    ),
    54: (
        _three_times_composites_below,
        "Item = 3 x the number of composites below p (1 is not counted), as the published example "
        "(12, 15, 21, 33) requires: 4, 6, 8, 9, 10 are the five composites below 12.",
    ),
    55: (
        lambda xs: all(d == abs(c - a) for a, _, c, d in zip(xs, xs[1:], xs[2:], xs[3:], strict=False)),
        "'3p' is read as p3 (three back), because the first three items are arbitrary: item = |p - p3|.",
    ),
    56: (
        lambda xs: all(x == _15_OVER_17[i % 16] for i, x in enumerate(xs)),
        "The list is an initial run of the digits after the point of 15/17 = 0.8823529411764705..., one "
        "digit per item; the empty list holds.",
    ),
    57: (
        lambda xs: all(b == _first_nonzero_over(a, 17) for a, b in _pairs(xs)),
        "As the pilot rule; a 0 has no non-zero digit, so nothing may follow it.",
    ),
    58: (
        lambda xs: all((w := english(x)) is not None and "e" not in w for x in xs),
        "American short-scale words without 'and' ('and' has no e anyway); negatives are 'negative ...' and "
        "so fail; numbers of 1e36 or more have no standard name and fail.",
    ),
    59: (lambda xs: all(bin(abs(x)).count("1") % 2 == 0 for x in xs), "Binary of the absolute value."),
    60: (
        lambda xs: all(set(_digits(x)) <= _LED_SYMMETRIC for x in xs),
        "Every decimal digit is one the text lists as symmetric: 0, 1, 2, 3, 5, 8.",
    ),
}

_UNREPRESENTABLE_REASONS = {
    46: "Whether letters spell 'an English word' depends on an unspecified word list (dictionary, proper "
    "nouns, abbreviations, and what items above 26 mean), so no predicate is the rule rather than a guess.",
}

# Pilot position -> candidate rank: the pilot ran the blue candidates in rank order.
_PILOT_RANKS = (3, 9, 15, 21, 27, 33, 39, 45, 51, 57)

# Phase-1 position -> candidate rank, or a predicate where phase 1 used a rule that is no candidate.
_Ref = int | tuple[Predicate, str | None]  # a candidate rank, or a rule's own predicate and reading
_PHASE1_RULES: tuple[_Ref, ...] = (1, 9, 10, 11, 13, 16, (_sum_is(20), None), 34)


@cache
def _data() -> dict[str, Any]:
    raw = (resources.files("wason.tasks.lists") / "data" / "rules.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


def _candidate(entry: dict[str, Any], split: str) -> ListRule:
    rank = int(entry["rank"])
    predicate, reading = _CANDIDATES[rank]
    difficulty = float(entry["difficulty"])
    return ListRule(split, rank, str(entry["text"]), predicate, reading, difficulty, rank=rank)


def _published(entry: dict[str, Any], split: str, position: int, ref: _Ref) -> ListRule:
    """A pilot or phase-1 rule: ``ref`` is its candidate rank, or its own predicate and reading."""
    rank = ref if isinstance(ref, int) else None
    predicate, reading = _CANDIDATES[ref] if isinstance(ref, int) else ref
    examples = tuple(tuple(int(x) for x in ex) for ex in entry["examples"])
    text, difficulty, short = str(entry["rule"]), float(entry["difficulty"]), str(entry["short_rule"])
    return ListRule(split, position, text, predicate, reading, difficulty, short, examples, rank)


def load_split(split: str) -> list[ListRule]:
    """The rules of a split, in published order: ``pilot`` (the 10 rules run, operative text and examples),
    ``second`` (the 10 purple candidates: a second difficulty-stratified sample, never run), ``all`` (every
    candidate that is a well-defined predicate, 59 of 60; see :func:`unrepresentable`), or ``phase1`` (8 earlier
    rules with examples, kept for the known example error). ValueError for an unknown split."""
    data = _data()
    if split in ("pilot", "phase1"):
        refs = _PILOT_RANKS if split == "pilot" else _PHASE1_RULES
        pairs = zip(data[split], refs, strict=True)
        return [_published(e, split, i, ref) for i, (e, ref) in enumerate(pairs, start=1)]
    if split in ("second", "all"):
        return [
            _candidate(e, split)
            for e in data["candidates"]
            if int(e["rank"]) in _CANDIDATES and (split == "all" or e["set"] == SECOND_SET)
        ]
    raise ValueError(f"unknown lists split {split!r}; choose one of: {', '.join(SPLITS)}")


def unrepresentable() -> list[Unrepresentable]:
    """The candidates left out of ``all`` because no well-defined predicate matches them, with reasons."""
    found = [(int(e["rank"]), str(e["text"])) for e in _data()["candidates"]]
    return [
        Unrepresentable(rank, text, _UNREPRESENTABLE_REASONS[rank])
        for rank, text in found
        if rank in _UNREPRESENTABLE_REASONS
    ]


def get_rule(split: str, rule_id: int) -> ListRule:
    """One rule of a split by id (candidate rank for ``second``/``all``, 1-based position otherwise)."""
    for rule in load_split(split):
        if rule.id == rule_id:
            return rule
    raise ValueError(f"split {split!r} has no rule {rule_id}")
