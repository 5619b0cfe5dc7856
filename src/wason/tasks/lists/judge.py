"""The list-rule judge: is a model's final predicate the hidden rule, on a seeded probe set of integer lists?

The hidden rule is a plain Python callable (trusted code, the oracle); the guess is model text, compiled by
:mod:`wason.tasks.lists.language` and never run by Python. Both are evaluated on the same probe lists; the guess is
equivalent when it agrees with the rule on every one. The probe set mixes broad random lists (short, long, and
holding integers as large as a test list may) with near misses of lists the rule accepts, because many rules
are almost never true on random lists and the interesting mistakes (``<=`` for ``<``, an off-by-one bound) show
only next to the boundary. On top of that sample, every list the episode labelled is probed with the label the
player was shown, so a verdict never contradicts what the player saw. See ``docs/list-predicates.md``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from wason.tasks.lists import draw
from wason.tasks.lists.language import LANGUAGE_VERSION, MAX_STEPS, ListGuessError, compile_list_predicate

PROBES_VERSION = "wason-list-probes-2"
"""Version of the probe-set code: bumped whenever the same seed, key, positives and observations could give other
lists or another verdict. Verdicts recorded under an older version still load (the fields added since have
defaults). Version 1 probed no observations, no list longer than 12 items and no integer beyond 10**30."""

Rule = Callable[[tuple[int, ...]], bool]
Observation = tuple[Sequence[int], bool]
"""A list the episode labelled, with the label the player was shown."""
_Mistake = tuple[tuple[int, ...], bool, bool]  # a probe the guess gets wrong: (list, observed?, its label)

MAX_COUNTEREXAMPLES = 5
JUDGE_MAX_STEPS = 3_000_000
"""Step budget of one whole judgement, spent on the observations first; once spent, the remaining probes count
as errors (so as "No") and the verdict is not equivalent. A typical predicate uses 10-100 steps per list (naive
trial division up to x: a few hundred), so this only binds on texts that exhaust the per-list budget again and
again, or on observations of tens of thousands of items; it keeps a judgement at about a second at most while
staying deterministic (steps, not time)."""
RANDOM_PER_FAMILY = 70
"""Random lists of 0-9 items drawn from each value family."""
LONG_PER_FAMILY = 12
"""Random lists of :data:`LONG_LENGTHS` items drawn from each value family."""
LONG_LENGTHS = (13, 40)
"""Inclusive length range of the long random lists."""
HUGE_LISTS = 40
"""Random lists of 1-8 items holding integers of 31 to 1,000 digits (besides five fixed lists at the bounds)."""
LARGEST_TEST_INTEGER = 10**1000 - 1
"""The largest integer a test list may hold: the protocol reads numbers of up to 1,000 characters
(``wason.tasks.lists.protocol.MAX_NUMBER_CHARS``, which imports this module, so the bound is repeated here)."""
SMALLEST_TEST_INTEGER = -(10**999 - 1)
"""The smallest integer a test list may hold (the minus sign is one of the 1,000 characters)."""
MAX_POSITIVES = 12
"""Caller-supplied positives mutated (the first this many distinct ones that fit): each yields 30-350 near
misses. Observations are probed whether or not they are among them."""
RANDOM_SEEDS = 20
"""Random probes the rule accepts that are also mutated (this many, chosen by the seeded generator)."""
SEED_MUTATIONS = 25
"""Mutations kept per such accepted random probe."""
SECOND_SEEDS = 10
"""Accepted near misses mutated once more, to probe further along the boundary."""
SECOND_MUTATIONS = 20
"""Mutations kept per second-round seed."""
MAX_MAGNITUDE = 10**30
"""Mutated lists with a larger item are dropped, and lists with one are not mutated (only the huge random lists
and observations hold larger integers)."""
MAX_LENGTH = LONG_LENGTHS[1]
"""Mutated lists longer than this are dropped, and longer lists are not mutated."""

_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97)
_SQUARES = tuple(i * i for i in range(11))
_FIBONACCI = (0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89)
_SMALL_FACTORS = (2, 3, 5, 7)


# ------------------------------------------------------------------------------------------ random lists


FAMILIES: tuple[tuple[str, draw.Proposal], ...] = (
    ("small", draw.uniform(-10, 10)),
    ("naturals", draw.uniform(0, 20)),
    ("percent", draw.uniform(0, 100)),
    ("wide", draw.uniform(-1000, 1000)),
    ("digits", draw.uniform(0, 9)),
    ("positive", draw.uniform(1, 30)),
    ("repeats", draw.repeats(-5, 15)),
    ("constant", draw.constant(-5, 20)),
    ("increasing", draw.increasing(-10, 59)),
    ("non-decreasing", draw.non_decreasing(0, 12)),
    ("decreasing", draw.decreasing(-10, 40)),
    ("arithmetic", draw.arithmetic(start=(-10, 20), step=(-6, 8))),
    ("geometric", draw.geometric(starts=(1, 2, 3, 5, -1, -3), ratios=(2, 3, 4, -2, -1))),
    ("primes", draw.members_or_their_set(_PRIMES, as_set=0.3)),
    ("mixed primes", draw.members_mixed(_PRIMES, 0, 30)),
    (
        "sequence members",
        draw.members((_SQUARES, _FIBONACCI, tuple(s - 1 for s in _SQUARES), tuple(2**i for i in range(8)))),
    ),
    ("fibonacci-like", draw.fibonacci_like(-3, 8)),
    ("multiples", draw.multiples_of_one((2, 3, 4, 5, 6, 7), factors=(-3, 12))),
    ("zigzag", draw.zigzag(start=(0, 20), step=(1, 9))),
    ("sum to target", draw.sum_to_target),
    ("affine recurrence", draw.affine_recurrence),
    ("halving", draw.halving),
)
"""Value families of the random lists (lengths 0-9, then the long ones), in the order they are drawn
(see :mod:`.draw`)."""


def _tiny_lists() -> list[tuple[int, ...]]:
    """Every short list over a few small values: edge cases (empty, vacuous truth) and simple counterexamples."""
    out: list[tuple[int, ...]] = [()]
    out += [(v,) for v in range(-3, 13)]
    out += [(a, b) for a in range(-1, 5) for b in range(-1, 5)]
    out += [(a, b, c) for a in range(3) for b in range(3) for c in range(3)]
    return out


def _random_lists(rng: random.Random, k: int, lengths: tuple[int, int] = (0, 9)) -> list[tuple[int, ...]]:
    return [tuple(family(rng, rng.randint(*lengths))) for _, family in FAMILIES for _ in range(k)]


def _huge(rng: random.Random, factor: int) -> int:
    """A multiple of ``factor`` with 31 to 1,000 digits (999 when negative), within the test-list bounds."""
    negative = rng.random() < 0.3
    digits = rng.randint(31, 999 if negative else 1000)
    low = 10 ** (digits - 1)
    value = rng.randrange(low, 10 * low)
    value -= value % factor
    if value < low:
        value += factor
    return -value if negative else value


def _huge_lists(rng: random.Random, count: int) -> list[tuple[int, ...]]:
    """Lists at the value bounds of a test list: five fixed ones, then ``count`` random ones of 1-8 items.

    All items of one list are multiples of one small prime, so every item, sum and difference of items is too:
    whether such a number is prime is then settled by trial division, both in the rule's code and in the guess
    language (whose full primality test stops at 512 bits). A huge number without a small factor would make
    the rule's label one no guess can compute, and cost the rule's code a Miller-Rabin test.
    """
    top, bottom = LARGEST_TEST_INTEGER, SMALLEST_TEST_INTEGER  # both multiples of 9
    out: list[tuple[int, ...]] = [(top,), (bottom,), (bottom, top), (0, top), (top, top)]
    for _ in range(count):
        factor = rng.choice(_SMALL_FACTORS)
        n = rng.randint(1, 8)
        xs = [_huge(rng, factor) if rng.random() < 0.6 else factor * rng.randint(-5, 20) for _ in range(n)]
        if rng.random() < 0.4:
            xs.sort()
        out.append(tuple(xs))
    return out


# ------------------------------------------------------------------------------------------ near misses


def _fits(xs: Sequence[int]) -> bool:
    return len(xs) <= MAX_LENGTH and all(-MAX_MAGNITUDE <= v <= MAX_MAGNITUDE for v in xs)


def mutations(xs: Sequence[int], rng: random.Random) -> list[tuple[int, ...]]:
    """Near misses of ``xs`` (usually a list the rule accepts): small edits a careless guess might not notice, in
    a fixed order for the seeded ``rng`` (duplicates and the list itself possible; callers deduplicate)."""
    items = list(xs)
    n = len(items)
    out: list[list[int]] = []

    def replaced(i: int, v: int) -> list[int]:
        return [*items[:i], v, *items[i + 1 :]]

    for i, x in enumerate(items):
        out += [replaced(i, x + d) for d in (1, -1, 2, -2)]
        out.append(replaced(i, rng.randint(-20, 100)))
        if x:
            out.append(replaced(i, -x))
        out.append(items[:i] + items[i + 1 :])  # delete
        out.append([*items[: i + 1], x, *items[i + 1 :]])  # duplicate
    for i in range(n - 1):
        out.append([*items[:i], items[i + 1], items[i], *items[i + 2 :]])  # swap neighbours
    if n >= 3:
        i, j = sorted(rng.sample(range(n), 2))
        swapped = items[:]
        swapped[i], swapped[j] = swapped[j], swapped[i]
        out.append(swapped)
    for v in (rng.randint(-20, 100), rng.randint(0, 12), 0):
        k = rng.randint(0, n)
        out.append([*items[:k], v, *items[k:]])  # insert
    out += [items[::-1], [-x for x in items], sorted(items), sorted(items, reverse=True)]
    out += [[x + 1 for x in items], [2 * x for x in items], items[1:] + items[:1]]
    out += [items[:0], items[:1], items[:2], items[1:], items[:-1], items[2:]]  # truncations
    for _ in range(2):
        shuffled = items[:]
        rng.shuffle(shuffled)
        out.append(shuffled)
    if n >= 2:
        i = rng.randint(0, n - 2)
        out.append(items[i : rng.randint(i + 2, n)])  # a contiguous run
    if items:
        last = items[-1]
        nexts = [last + 1, last - 1, last, 0, rng.randint(-20, 100)]
        if n >= 2:
            prev = items[-2]
            nexts += [2 * last - prev, last + prev, last - prev, prev - last]  # progression, Fibonacci, ...
            if prev and last * last % prev == 0:
                nexts.append(last * last // prev)  # geometric
        out += [[*items, v] for v in nexts]
        out += [[items[0] - 1, *items], [items[0] + 1, *items]]
    else:
        out += [[v] for v in (0, 1, -1, rng.randint(2, 50))]
    return [tuple(m) for m in out if _fits(m)]


def _unique(lists: Iterable[tuple[int, ...]]) -> list[tuple[int, ...]]:
    return list(dict.fromkeys(lists))


def _label(rule: Rule, lists: Iterable[tuple[int, ...]], labels: dict[tuple[int, ...], bool]) -> None:
    for xs in lists:
        if xs not in labels:
            labels[xs] = bool(rule(xs))


def _positives(positives: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    # Only lists that fit are mutated: the edits of a longer list would be dropped anyway, after being built
    # (a 50,000-item positive would make millions of items).
    fitting = (t for t in (tuple(int(v) for v in p) for p in positives) if _fits(t))
    return _unique(fitting)[:MAX_POSITIVES]


def _observed(observations: Iterable[Observation]) -> dict[tuple[int, ...], tuple[bool, ...]]:
    """Each observed list once, in order, with the distinct labels it was shown with (normally one)."""
    # Grouped by list, so a long list is hashed once here and never again (a tuple does not cache its hash).
    found: dict[tuple[int, ...], tuple[bool, ...]] = {}
    for xs, label in observations:
        ints = _ints(xs)
        labels = found.get(ints, ())
        if bool(label) not in labels:
            found[ints] = (*labels, bool(label))
    return found


def _ints(xs: Sequence[int]) -> tuple[int, ...]:
    # The game's lists are tuples of ints already; checking is several times cheaper than copying a long one.
    if type(xs) is tuple and all(type(v) is int for v in xs):
        return xs
    return tuple(int(v) for v in xs)


def _labelled_probes(
    rule: Rule, *, seed: int, key: str, positives: Sequence[Sequence[int]]
) -> dict[tuple[int, ...], bool]:
    """The sampled probe lists in order, each with the rule's label (observations are added by the caller)."""
    rng = random.Random(f"{PROBES_VERSION}/{seed}/{key}")
    labels: dict[tuple[int, ...], bool] = {}
    given = _positives(positives)
    base = [
        *_tiny_lists(),
        *_random_lists(rng, RANDOM_PER_FAMILY),
        *_random_lists(rng, LONG_PER_FAMILY, LONG_LENGTHS),
        *_huge_lists(rng, HUGE_LISTS),
        *given,
    ]
    _label(rule, base, labels)
    near = [m for p in given for m in mutations(p, rng)]
    accepted = sorted({xs for xs, ok in labels.items() if ok and xs not in given and _fits(xs)})
    near = _unique(near + _mutated(rng, accepted, RANDOM_SEEDS, SEED_MUTATIONS))
    _label(rule, near, labels)
    used = set(given) | set(accepted)
    second = sorted({xs for xs in near if labels[xs] and xs not in used})
    _label(rule, _mutated(rng, second, SECOND_SEEDS, SECOND_MUTATIONS), labels)
    return labels


def _some(rng: random.Random, lists: Sequence[tuple[int, ...]], k: int) -> list[tuple[int, ...]]:
    return rng.sample(lists, min(k, len(lists)))


def _mutated(
    rng: random.Random, seeds: Sequence[tuple[int, ...]], k: int, keep: int
) -> list[tuple[int, ...]]:
    """``keep`` mutations each (at random) of ``k`` of ``seeds`` (at random)."""
    return [m for p in _some(rng, seeds, k) for m in _some(rng, mutations(p, rng), keep)]


def list_probes(
    rule: Rule,
    *,
    seed: int,
    key: str,
    positives: Sequence[Sequence[int]] = (),
    observations: Iterable[Observation] = (),
) -> tuple[tuple[int, ...], ...]:
    """The probe lists for one rule: the observations (every list the episode labelled, however many, long or
    large; they do not change the sampled lists), then about 1,800-3,000 distinct sampled lists not among them,
    random lists and near misses of accepted lists, in a fixed order. The rule (trusted code) is called on
    probes to choose which are mutated; ``seed`` and the rule's ``key`` (e.g. ``pilot/3``) seed the generator.
    The first :data:`MAX_POSITIVES` distinct ``positives`` (lists the rule accepts, e.g. the examples shown) of at
    most :data:`MAX_LENGTH` items are included and mutated."""
    observed = _observed(observations)
    sampled = _labelled_probes(rule, seed=seed, key=key, positives=positives)
    return (*observed, *(xs for xs in sampled if xs not in observed))


# ------------------------------------------------------------------------------------------ verdict


class ListVerdict(BaseModel):
    """The judge's verdict on one list predicate.

    The verdict rests on a sample of lists (the probe set) that always holds every observation: a guess that
    disagrees with a label the player was shown is never equivalent; one that agrees with all of them and with
    the rule on every sampled probe is equivalent as far as the sample can tell. A probe is a ``(list, label)``
    pair, the observations first; the label is the one shown for an observed list, the rule's for a sampled one.
    ``counterexamples`` holds up to five disagreements, the observed ones first, then the simplest lists
    (shortest, then smallest items), each ``{"list": [...], "rule": bool, "guess": bool}`` (``rule`` is the
    label); both kinds of mistake are shown when both occur.
    """

    model_config = ConfigDict(frozen=True)

    # the defaults are a rejected text's: nothing was evaluated
    # the guess agrees with the label on every probe (where it raised: "No"), and the step budget was not spent
    equivalent: bool = False
    agreement: float = 0.0  # share of probes where the guess agrees with the label
    probes: int = 0
    rule_positives: int = 0  # probes labelled Yes
    false_positives: int = 0  # probes the guess accepts and the label rejects
    false_negatives: int = 0  # probes the label accepts and the guess rejects (or raised on)
    errors: int = 0  # probes where evaluating the guess failed (counted as "No")
    counterexamples: list[dict[str, Any]] = []
    rejection: str | None = None  # why the text did not compile
    first_error: str | None = None  # the first evaluation error, with its list (abbreviated when long)
    probe_version: str = PROBES_VERSION  # (verdicts of ``wason-list-probes-1`` had no observations)
    language_version: str = LANGUAGE_VERSION
    seed: int  # the probe seed
    n_observations: int = 0  # probes that are observations of the episode (each distinct list and label once)
    observation_mismatches: int = 0  # observations the guess contradicts (the first counterexamples)
    decided_by_observation: bool = False  # it contradicts a label the player was shown: refuted whatever else


def judge_list_predicate(
    rule: Rule,
    source: str,
    *,
    seed: int,
    key: str,
    positives: Sequence[Sequence[int]] = (),
    observations: Iterable[Observation] = (),
) -> ListVerdict:
    """Judge a model's predicate ``source`` (any text: outside the language it is judged wrong, not raised)
    against the hidden ``rule`` on the probe set (``seed``, ``key`` and ``positives`` as in :func:`list_probes`).
    Each of ``observations`` (every list the episode labelled, examples included) is a probe with the label the
    player was shown (even where the rule's code would say otherwise), evaluated before the sampled probes."""
    try:
        guess = compile_list_predicate(source)
    except ListGuessError as exc:
        return ListVerdict(rejection=str(exc), seed=seed)
    observed = _observed(observations)
    sampled = _labelled_probes(rule, seed=seed, key=key, positives=positives)
    # (list, its labels, observed?): the guess is evaluated once per list; a probe is a list with one label
    lists = [(xs, labels, True) for xs, labels in observed.items()]
    lists += [(xs, (truth,), False) for xs, truth in sampled.items() if xs not in observed]
    left = JUDGE_MAX_STEPS
    false_pos: list[_Mistake] = []
    false_neg: list[_Mistake] = []
    probes = positives_count = errors = skipped = 0
    first_error: str | None = None
    for xs, labels, is_observed in lists:
        if left > 0:
            verdict, error, used = guess.run(xs, max_steps=min(MAX_STEPS, left))
            left -= used
        else:
            verdict, error = None, f"the judgement's step budget of {JUDGE_MAX_STEPS:,} is spent"
            skipped += 1
        if verdict is None:
            errors += 1
            if first_error is None:
                first_error = f"{error} (on {_brief(xs)})"
        said = bool(verdict)
        for truth in labels:
            probes += 1
            positives_count += truth
            if said != truth:
                (false_neg if truth else false_pos).append((xs, is_observed, truth))
    wrong = len(false_pos) + len(false_neg)
    mismatches = sum(o for _, o, _ in false_pos) + sum(o for _, o, _ in false_neg)
    return ListVerdict(
        # a probe the budget left unevaluated proves nothing either way, so the guess is not shown equivalent
        equivalent=wrong == 0 and skipped == 0,
        agreement=1.0 - wrong / probes,
        probes=probes,
        rule_positives=positives_count,
        false_positives=len(false_pos),
        false_negatives=len(false_neg),
        errors=errors,
        counterexamples=_counterexamples(false_pos, false_neg),
        first_error=first_error,
        seed=seed,
        n_observations=sum(len(labels) for labels in observed.values()),
        observation_mismatches=mismatches,
        decided_by_observation=mismatches > 0,
    )


def _brief(xs: tuple[int, ...]) -> str:
    """A list for a message: in full when short, else its start and its length; long integers abbreviated."""

    def item(v: int) -> str:
        text = str(v)
        return text if len(text) <= 40 else f"{text[:18]}...{text[-6:]} ({len(text.lstrip('-'))} digits)"

    if len(xs) <= 20:
        return "[" + ", ".join(map(item, xs)) + "]"
    return "[" + ", ".join(map(item, xs[:10])) + f", ...] ({len(xs)} items)"


def _order(entry: _Mistake) -> tuple[bool, int, int, int]:
    xs, is_observed, _ = entry
    if len(xs) > MAX_LENGTH:  # only an observation is this long; its length says enough, and costs nothing
        return not is_observed, len(xs), 0, 0
    return not is_observed, len(xs), max((abs(v) for v in xs), default=0), sum(abs(v) for v in xs)


def _counterexamples(false_pos: list[_Mistake], false_neg: list[_Mistake]) -> list[dict[str, Any]]:
    # Observations first (the player saw those labels), then the simplest lists.
    fp = sorted(false_pos, key=_order)[:MAX_COUNTEREXAMPLES]  # sorted() is stable: ties keep probe order
    fn = sorted(false_neg, key=_order)[:MAX_COUNTEREXAMPLES]
    chosen = sorted([*fp, *fn], key=_order)[:MAX_COUNTEREXAMPLES]
    # Show both kinds of mistake when both exist: they point in different directions.
    for other in (fp, fn):
        if other and not any(entry in other for entry in chosen):
            chosen = [*chosen[: MAX_COUNTEREXAMPLES - 1], other[0]]
    return [{"list": list(xs), "rule": truth, "guess": not truth} for xs, _, truth in chosen]


# ------------------------------------------------------------------------------------------ quiz


def quiz_lists(
    rule: Rule,
    *,
    seed: int,
    key: str,
    positives: Sequence[Sequence[int]],
    n: int = 10,
    exclude: Collection[tuple[int, ...]] = (),
) -> list[tuple[tuple[int, ...], bool]]:
    """``n`` held-out lists for a classification quiz, each with the rule's label, in a seeded shuffled order
    (``seed`` and the rule's ``key`` seed a generator apart from the probe set's; fewer lists only if even the
    fallbacks run out of distinct ones; ValueError for a negative ``n``).

    Half the lists (``n // 2``) are accepted by the rule, the rest rejected. Accepted lists are edits of the
    given ``positives`` (or of other accepted lists) that the rule still accepts, and random lists it accepts;
    rejected lists are near misses of accepted ones where there are enough, random lists otherwise. The given
    positives themselves are used only as a last resort. If the rule accepts (or rejects) too few distinct
    candidates, the other kind fills the gap, so the quiz still has ``n`` lists but is unbalanced; the labels
    say so. No list is in ``exclude`` (the lists the player tested or saw) and no list appears twice.
    """
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    rng = random.Random(f"{PROBES_VERSION}/quiz/{seed}/{key}")
    excluded = {tuple(int(v) for v in xs) for xs in exclude}
    given = _positives(positives)
    labels: dict[tuple[int, ...], bool] = {}
    near = [m for p in given for m in mutations(p, rng)]
    randoms = _random_lists(rng, 10)
    _label(rule, [*near, *randoms], labels)
    accepted_near = sorted({xs for xs in near if labels[xs]} - set(given))
    for p in _some(rng, accepted_near, SECOND_SEEDS):
        more = mutations(p, rng)
        _label(rule, more, labels)
        near += more

    def pool(lists: Iterable[tuple[int, ...]], truth: bool) -> list[tuple[int, ...]]:
        found = [
            xs for xs in _unique(lists) if labels[xs] == truth and xs not in excluded and xs not in given
        ]
        rng.shuffle(found)
        return found

    yes = pool([*near, *randoms], True) + [p for p in given if p not in excluded]
    no_near, no_random = pool(near, False), pool(randoms, False)
    no = _unique([*no_near, *no_random])
    want_yes = min(n // 2, len(yes))
    want_no = min(n - want_yes, len(no))
    want_yes = min(n - want_no, len(yes))  # too few rejected lists: more accepted ones fill the quiz
    chosen = yes[:want_yes] + no[:want_no]
    rng.shuffle(chosen)
    return [(xs, bool(rule(xs))) for xs in chosen]
