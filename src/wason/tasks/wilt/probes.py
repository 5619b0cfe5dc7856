"""The seeded, versioned probe set on which a guess is compared with the hidden rule.

It contains the reference harness's probes (so our verdicts are never weaker than the paper's) plus the
families the reference misses: the whole typeable range up to +-999, ties and arithmetic relations at large
magnitude, Pythagorean triples, fractional-part structure, boundary probes around every constant of the rule
or the guess, and the corners: every triple made of those constants (so a guess that singles out a point or a
box by its constants, ``x == 97 and y == -41 and z == 13``, meets it even where no proof is had). Every family
draws from its own generator seeded with ``[seed, family]`` (and the constant, for boundary probes; the corners
draw nothing), so a family never changes because another one did. Change anything here and bump
:data:`PROBE_VERSION`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from wason.sandbox import Inputs

PROBE_VERSION = "wilt-probes-3"
"""``wilt-probes-3``: the corners, every triple over the typeable constants of the rule and the guess (at most
:data:`MAX_CORNER_VALUES` of them), so a carve-out at a point or box of the guess's constants is probed.
``wilt-probes-2``: boundary probes only at typeable values; relation probes also split sums, differences and
products anywhere in the typeable range (up to +-999), not mostly within +-99; a mask of the typeable points.
``wilt-probes-1``: the set before."""

# The two set-inclusion families come first, so that subset is one contiguous slice of every probe set.
FAMILIES: tuple[str, ...] = (
    "uniform200",  # reference: 5,000 uniform floats in [-200, 200]^3
    "grid",  # reference: the integer grid -20..20 in each coordinate
    "uniform3",  # reference: 5,000 uniform floats in [-3, 3]^3
    "special",  # reference: its 10 fixed float triples
    "int999",  # random integers in [-999, 999]^3
    "typeable",  # random values with at most three digits (12.5, -0.25, 7.01, .125 ...)
    "ties",  # (a, a, b) in every position and (a, a, a), at any typeable magnitude
    "relations",  # one coordinate = a+b, a-b, a*b, (a+b)/2, -(a+b) of the other two, anywhere typeable
    "pythagorean",  # integer Pythagorean triples with signs and permutations, and their tenths
    "fractional",  # values whose fractional parts are ordered, reversed, equal or unordered
    "boundary",  # c + d around every constant c of the rule and the guess, where typeable
    "corners",  # every triple over the typeable constants of the rule and the guess
)
REFERENCE_FAMILIES: tuple[str, ...] = ("uniform200", "grid")
"""The subset the paper's set-inclusion metric is computed on."""

BOUNDARY_OFFSETS: tuple[float, ...] = (-1.0, -0.5, -0.01, -0.001, 0.0, 0.001, 0.01, 0.5, 1.0)
MAX_BOUNDARY_CONSTANTS = 64
"""At most this many constants get boundary probes (the first ones given: the judge lists the rule's first)."""
MAX_CORNER_VALUES = 16
"""At most this many values make the corners (the first typeable ones given: the judge lists the guess's own
constants first), so the block is at most 16**3 = 4,096 rows. Every rule of the full split and of the generated
split of seed 0 (n 2,000), with a carve-out's three constants, the negations and 0, has at most 14."""

_SPECIAL = (
    (0.1, 0.2, 0.3),
    (1.1, 1.2, 1.3),
    (2.5, 2.6, 2.7),
    (0.1, 0.2, 0.3),
    (0.3, 0.6, 0.9),
    (0.1234, 0.5678, 0.9123),
    (0.0, 0.5, 1.0),
    (1.0, 1.5, 2.0),
    (2.5, 3.0, 3.5),
    (3.9, 4.2, 4.8),
)
_MAX_TYPEABLE = 999
_SCALE = 1000  # typeable values have at most three decimals: we build them as integers / 1000
_FIXED_COMPANIONS = (0.0, 1.0, -1.0, 2.5)

F = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class ProbeSet:
    """A built probe set (read-only arrays; instances are cached and shared), with each point's family, the
    canonical constants and corner values it was built for, and masks of the paper's set-inclusion subset
    (exactly ``points[:reference_end]``) and of the points a player can type."""

    points: F  # (N, 3)
    family: npt.NDArray[np.int8]  # index into FAMILIES
    version: str  # PROBE_VERSION of the code that built it
    seed: int
    constants: tuple[float, ...]  # those that got boundary probes
    corners: tuple[float, ...]
    inputs: Inputs  # the points prepared for the sandbox evaluator
    reference: npt.NDArray[np.bool_]  # uniform floats in +-200 and the grid
    reference_end: int
    simplicity: F  # sort key, simple first: non-integer coordinates, then magnitude mapped into [0, 1)
    typeable: npt.NDArray[np.bool_]  # every value of at most three digits (the reference's floats mostly not)

    @property
    def n(self) -> int:
        """Number of probe points."""
        return int(self.points.shape[0])

    def family_mask(self, *names: str) -> npt.NDArray[np.bool_]:
        """Mask of the points belonging to any of the named families."""
        codes = [FAMILIES.index(name) for name in names]
        return np.isin(self.family, np.array(codes, dtype=np.int8))


def probe_set(seed: int, constants: Iterable[float] = (), corners: Iterable[float] | None = None) -> ProbeSet:
    """Build (or fetch from cache) the probe set for a non-negative integer seed (ValueError otherwise): the
    same seed and values give the same points, byte for byte. ``constants`` are probed around (the first
    finite ones, see :func:`canonical_constants`); every triple of ``corners`` is probed (the first typeable
    ones, see :func:`canonical_corners`; ``None`` takes ``constants``)."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"probe seed must be a non-negative integer, not {seed!r}")
    values = list(constants)
    chosen = canonical_corners(values if corners is None else corners)
    return _cached_probe_set(int(seed), canonical_constants(values), chosen)


def canonical_constants(constants: Iterable[float]) -> tuple[float, ...]:
    """The constants :func:`probe_set` actually uses: finite, -0.0 as 0.0, first 64 distinct, sorted."""
    return _first_distinct(constants, math.isfinite, MAX_BOUNDARY_CONSTANTS)


def canonical_corners(values: Iterable[float]) -> tuple[float, ...]:
    """The corner values :func:`probe_set` uses: typeable (before the cap: a triple holding any other is no test
    a player could make), -0.0 as 0.0, the first :data:`MAX_CORNER_VALUES` distinct, sorted."""
    return _first_distinct(values, lambda v: bool(typeable_rows(np.array([[v, v, v]]))[0]), MAX_CORNER_VALUES)


def _first_distinct(values: Iterable[float], keep: Callable[[float], bool], most: int) -> tuple[float, ...]:
    chosen: dict[float, None] = {}
    for c in values:
        value = float(c) + 0.0  # folds -0.0 into 0.0
        if value not in chosen and keep(value):
            chosen[value] = None
            if len(chosen) == most:
                break
    return tuple(sorted(chosen))


def clear_probe_caches() -> None:
    """Forget every cached probe set (for benchmarks and tests of build determinism)."""
    for cached in (_cached_probe_set, _base, _boundary, _corners):
        cached.cache_clear()


class _Part(NamedTuple):
    """A block of probe points and what is computed per point, cached on its own (the base is most of every
    probe set) and joined."""

    points: F
    inputs: Inputs
    simplicity: F
    typeable: npt.NDArray[np.bool_]


def _part(points: F) -> _Part:
    inputs = Inputs.from_points(points)
    return _Part(points, inputs, _simplicity(points, inputs), typeable_rows(points))


# Two only: each holds about 15 MB once the sandbox has indexed its values, the judge asks for a new one with
# nearly every rule's constants, and the parts it is joined from are cached on their own.
@lru_cache(maxsize=2)
def _cached_probe_set(seed: int, constants: tuple[float, ...], corners: tuple[float, ...]) -> ProbeSet:
    base, base_family = _base(seed)
    parts = [base, *(_boundary(seed, c) for c in constants), _corners(corners)]
    points = np.ascontiguousarray(np.concatenate([p.points for p in parts], axis=0), dtype=np.float64)
    n_corners = parts[-1].points.shape[0]
    n_boundary = points.shape[0] - base.points.shape[0] - n_corners
    family = np.concatenate(
        [
            base_family,
            np.full(n_boundary, FAMILIES.index("boundary"), dtype=np.int8),
            np.full(n_corners, FAMILIES.index("corners"), dtype=np.int8),
        ]
    )
    reference = np.isin(family, np.array([FAMILIES.index(f) for f in REFERENCE_FAMILIES], dtype=np.int8))
    reference_end = int(np.count_nonzero(reference))
    assert not reference[reference_end:].any()  # a prefix, by the order of FAMILIES
    simplicity = np.concatenate([p.simplicity for p in parts])
    typeable = np.concatenate([p.typeable for p in parts])
    for arr in (points, family, reference, simplicity, typeable):
        arr.flags.writeable = False
    return ProbeSet(
        points=points,
        family=family,
        version=PROBE_VERSION,
        seed=seed,
        constants=constants,
        corners=corners,
        inputs=Inputs.concatenate([p.inputs for p in parts]),
        reference=reference,
        reference_end=reference_end,
        simplicity=simplicity,
        typeable=typeable,
    )


def _simplicity(points: F, inputs: Inputs) -> F:
    """Fewer non-integer coordinates first, then smaller magnitude (mapped monotonically into [0, 1))."""
    n_fractional = 3 - sum(m.astype(np.float64) for m in inputs.ints)
    magnitude = np.abs(points).max(axis=1)
    out: F = n_fractional + magnitude / (1.0 + magnitude)
    return out


def typeable_rows(points: F) -> npt.NDArray[np.bool_]:
    """Mask of the rows of ``points`` whose three values each have at most three digits (the game's rule)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    with np.errstate(all="ignore"):
        scaled = np.round(pts * _SCALE)
        finite = np.isfinite(scaled) & (np.abs(scaled) <= _MAX_TYPEABLE * _SCALE)
        ints = np.where(finite, scaled, 0.0).astype(np.int64)
        # the value is the decimal it rounds to (parsing that decimal gives this very double)
        exact = finite & (_to_float(ints) == pts)
    out: npt.NDArray[np.bool_] = (exact & _typeable_mask(ints, 3)).all(axis=1)
    return out


def _rng(seed: int, family: str, *extra: int) -> np.random.Generator:
    return np.random.default_rng([seed, FAMILIES.index(family), *extra])


@lru_cache(maxsize=4)
def _base(seed: int) -> tuple[_Part, npt.NDArray[np.int8]]:
    blocks: dict[str, npt.NDArray[Any]] = {
        "uniform200": _rng(seed, "uniform200").uniform(-200.0, 200.0, (5000, 3)),
        "grid": _cube(np.arange(-20, 21, dtype=np.float64)),
        "uniform3": _rng(seed, "uniform3").uniform(-3.0, 3.0, (5000, 3)),
        "special": np.array(_SPECIAL, dtype=np.float64),
        "int999": _rng(seed, "int999").integers(-999, 1000, (10000, 3)).astype(np.float64),
        "typeable": _to_float(_typeable_scaled(_rng(seed, "typeable"), (10000, 3))),
        **{name: build(_rng(seed, name)) for name, build in _BUILT.items()},
    }
    points = {name: np.asarray(block, dtype=np.float64).reshape(-1, 3) for name, block in blocks.items()}
    family = [np.full(p.shape[0], FAMILIES.index(name), dtype=np.int8) for name, p in points.items()]
    return _part(np.concatenate(list(points.values()), axis=0)), np.concatenate(family)


def _cube(v: F) -> F:
    """Every triple over the values, x varying slowest."""
    xs, ys, zs = np.meshgrid(v, v, v, indexing="ij")
    return np.stack([xs.ravel(), ys.ravel(), zs.ravel()], axis=1)


# ---- typeable values, built exactly as integers at scale 1000 --------------------------------------------------


def _typeable_scaled(rng: np.random.Generator, shape: tuple[int, ...]) -> I64:
    """Random typeable values as integers at scale 1000: k digits (1-3) of which p are decimals."""
    k = rng.integers(1, 4, shape)
    p = rng.integers(0, k + 1)
    mantissa = rng.integers(0, 10**k)
    sign = rng.choice(np.array([-1, 1]), shape)
    out: I64 = (sign * mantissa * 10 ** (3 - p)).astype(np.int64)
    return out


def _to_float(scaled: I64, scale: int = _SCALE) -> F:
    # an exact integer over an exact power of ten, correctly rounded: the same double float("12.5") gives
    out: F = scaled.astype(np.float64) / float(scale)
    return out


def _digits_needed(scaled: I64, scale_exp: int) -> I64:
    """Fewest digits to type scaled / 10**scale_exp (sign and point not counted), as in the game's rule."""
    mag = np.abs(scaled)
    exponent = np.full(mag.shape, -scale_exp, dtype=np.int64)
    for _ in range(scale_exp + 19):
        strip = (mag != 0) & (mag % 10 == 0)
        if not strip.any():
            break
        mag = np.where(strip, mag // 10, mag)
        exponent = exponent + strip
    n = np.zeros(mag.shape, dtype=np.int64)
    for j in range(19):
        n = n + (mag >= 10**j)
    out: I64 = np.where(mag == 0, 1, np.where(exponent >= 0, n + exponent, np.maximum(n, -exponent)))
    return out


def _typeable_mask(scaled: I64, scale_exp: int) -> npt.NDArray[np.bool_]:
    out: npt.NDArray[np.bool_] = (_digits_needed(scaled, scale_exp) <= 3) & (
        np.abs(scaled) <= _MAX_TYPEABLE * 10**scale_exp
    )
    return out


def _friendly_scaled(rng: np.random.Generator, n: int) -> I64:
    """Typeable values skewed towards small integers and one decimal, so sums and products stay typeable."""
    kind = rng.integers(0, 10, n)
    small_int = rng.integers(-99, 100, n) * _SCALE
    one_decimal = rng.integers(-99, 100, n) * 100
    anything = _typeable_scaled(rng, (n,))
    out: I64 = np.where(kind < 5, small_int, np.where(kind < 8, one_decimal, anything)).astype(np.int64)
    return out


def _ties(rng: np.random.Generator) -> F:
    n = 1500
    a = _to_float(_typeable_scaled(rng, (n,)))
    b = _to_float(_typeable_scaled(rng, (n,)))
    # half of the pairs use integers of any size, which typeable_scaled rarely produces
    ints = rng.random(n) < 0.5
    a = np.where(ints, rng.integers(-999, 1000, n).astype(np.float64), a)
    b = np.where(ints, rng.integers(-999, 1000, n).astype(np.float64), b)
    blocks = [np.stack(t, axis=1) for t in ((a, a, b), (a, b, a), (b, a, a), (a, a, a))]
    return np.concatenate(blocks, axis=0)


_PERMUTATIONS = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))


def _wide_pairs(rng: np.random.Generator, n: int) -> tuple[I64, I64]:
    """Pairs (a, b) at scale 1000 whose sum, difference or product is a large typeable value: a result drawn
    anywhere up to +-999 and split into a typeable first part and the rest, or a first factor and a second no
    larger than the result's bound allows."""
    result = _typeable_scaled(rng, (n,))
    # half of the results are whole numbers of any size, which _typeable_scaled rarely draws
    result = np.where(rng.random(n) < 0.5, rng.integers(-999, 1000, n) * _SCALE, result)
    first = _typeable_scaled(rng, (n,))
    first = np.where(rng.random(n) < 0.5, rng.integers(-999, 1000, n) * _SCALE, first)
    split = result - first
    factor = rng.integers(1, 1000, n)
    other = rng.integers(1, np.maximum(2, 999 // factor + 1), n) * rng.choice(np.array([-1, 1]), n)
    by_product = rng.random(n) < 0.4
    a = np.where(by_product, factor * _SCALE, first)
    b = np.where(by_product, other * _SCALE, split)
    keep = _typeable_mask(a, 3) & _typeable_mask(b, 3)
    return a[keep].astype(np.int64), b[keep].astype(np.int64)


def _relations(rng: np.random.Generator) -> F:
    n = 700
    wide_a, wide_b = _wide_pairs(rng, n)
    # scale 10**6, so products and halves stay exact integers
    a = np.concatenate([_friendly_scaled(rng, n), wide_a]) * _SCALE
    b = np.concatenate([_friendly_scaled(rng, n), wide_b]) * _SCALE
    a3, b3 = a // _SCALE, b // _SCALE
    # a + b is a multiple of 1000 at this scale, so the half is exact
    derived = (a + b, a - b, b - a, a3 * b3, (a + b) // 2, -(a + b))
    blocks: list[F] = []
    for c in derived:
        keep = _typeable_mask(c, 6)
        triple = np.stack(
            [_to_float(a[keep], 10**6), _to_float(b[keep], 10**6), _to_float(c[keep], 10**6)], axis=1
        )
        for perm in _PERMUTATIONS:
            blocks.append(triple[:, perm])
    return np.concatenate(blocks, axis=0)


def _pythagorean(rng: np.random.Generator) -> F:
    triples: set[tuple[int, int, int]] = set()
    for m in range(2, 32):
        for n in range(1, m):
            if (m - n) % 2 == 1 and math.gcd(m, n) == 1:
                a, b, c = m * m - n * n, 2 * m * n, m * m + n * n
                k = 1
                while k * c <= _MAX_TYPEABLE:
                    triples.add((min(a, b) * k, max(a, b) * k, c * k))
                    k += 1
    base = np.array(sorted(triples), dtype=np.float64)
    blocks = []
    for perm in _PERMUTATIONS:
        signs = rng.choice(np.array([-1.0, 1.0]), base.shape)
        blocks.append((base * signs)[:, perm])
    # the same triples divided by ten (3, 4, 5 -> 0.3, 0.4, 0.5), each in one random order
    tenths = (base * 100).astype(np.int64)  # scale 1000
    order = np.array(_PERMUTATIONS)[rng.integers(0, len(_PERMUTATIONS), base.shape[0])]
    blocks.append(_to_float(np.take_along_axis(tenths, order, axis=1)))
    return np.concatenate(blocks, axis=0)


def _fractional(rng: np.random.Generator) -> F:
    n = 4000
    # small whole parts take two-decimal fractions, larger ones one decimal, so most values stay typeable
    small = rng.random((n, 3)) < 0.5
    whole = np.where(small, rng.integers(0, 10, (n, 3)), rng.integers(10, 100, (n, 3)))
    one_decimal = np.arange(100, 1000, 100, dtype=np.int64)
    two_decimals = np.array([50, 250, 750, 125, 10, 90, 330, 660], dtype=np.int64)
    frac = np.where(
        small & (rng.random((n, 3)) < 0.4), rng.choice(two_decimals, (n, 3)), rng.choice(one_decimal, (n, 3))
    )
    mode = rng.integers(0, 10, n)
    ordered = np.sort(frac, axis=1)
    frac = np.where((mode < 4)[:, None], ordered, frac)  # increasing
    frac = np.where(((mode >= 4) & (mode < 6))[:, None], ordered[:, ::-1], frac)  # decreasing
    frac = np.where((mode == 6)[:, None], frac[:, :1], frac)  # all equal
    sign = rng.choice(np.array([-1, 1]), (n, 3))
    scaled = (sign * (whole * _SCALE + frac)).astype(np.int64)
    scaled = scaled[_typeable_mask(scaled, 3).all(axis=1)]
    return _to_float(scaled)


_BUILT: dict[str, Callable[[np.random.Generator], F]] = {
    "ties": _ties,
    "relations": _relations,
    "pythagorean": _pythagorean,
    "fractional": _fractional,
}
"""The base families built from their generator alone, in the order of :data:`FAMILIES`."""


@lru_cache(maxsize=512)
def _boundary(seed: int, c: float) -> _Part:
    """Probes at c + d for each offset, in each coordinate, with companions from a small seeded pool; only
    the rows a player could type (around 999 or a constant beyond three digits, few or none are left)."""
    bits = int(np.array(c, dtype=np.float64).view(np.uint64))
    rng = _rng(seed, "boundary", bits)
    extra = _to_float(_typeable_scaled(rng, (1,)))
    pool = np.array([*_FIXED_COMPANIONS, float(extra[0])], dtype=np.float64)
    p_grid, q_grid = np.meshgrid(pool, pool, indexing="ij")
    p, q = p_grid.ravel(), q_grid.ravel()
    blocks = []
    for d in BOUNDARY_OFFSETS:
        # the decimal nearest c + d (a float sum would miss it: 5 - 0.001 is not the double of 4.999)
        shifted = float(np.round((c + d) * _SCALE) / _SCALE) if abs(c) < 1e12 else c + d
        v = np.full(p.shape, shifted)
        blocks += [
            np.array([[shifted] * 3]),
            *(np.stack(c, axis=1) for c in ((v, p, q), (p, v, q), (p, q, v))),
        ]
    return _typed_part(np.concatenate(blocks, axis=0))


@lru_cache(maxsize=8)
def _corners(values: tuple[float, ...]) -> _Part:
    """Every triple over the values (x varying slowest), only the rows a player could type: with
    ``(-41, 13, 97)`` among them, the carve-out's point ``(97, -41, 13)`` and the corners of any box they bound."""
    return _typed_part(_cube(np.array(values, dtype=np.float64)))


def _typed_part(points: F) -> _Part:
    """The part of the rows of ``points`` a player could type."""
    out = np.ascontiguousarray(points[typeable_rows(points)])
    out.flags.writeable = False
    return _part(out)
