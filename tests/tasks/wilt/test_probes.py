"""The probe set: deterministic, versioned, and containing every family it promises."""

from __future__ import annotations

import hashlib
import itertools
import math
from decimal import Decimal

import numpy as np
import pytest

from wason.tasks.wilt.probes import (
    BOUNDARY_OFFSETS,
    FAMILIES,
    MAX_BOUNDARY_CONSTANTS,
    MAX_CORNER_VALUES,
    PROBE_VERSION,
    REFERENCE_FAMILIES,
    canonical_constants,
    canonical_corners,
    clear_probe_caches,
    probe_set,
    typeable_rows,
)
from wason.tasks.wilt.values import InvalidValue, parse_value


def _digest(seed: int, constants: tuple[float, ...] = ()) -> str:
    probes = probe_set(seed, constants)
    return hashlib.sha256(probes.points.tobytes() + probes.family.tobytes()).hexdigest()


def test_same_seed_gives_the_same_bytes_after_a_rebuild() -> None:
    first = _digest(0, (5.0, -5.0))
    clear_probe_caches()
    assert _digest(0, (5.0, -5.0)) == first
    assert _digest(1, (5.0, -5.0)) != first


def test_constant_order_and_duplicates_do_not_matter() -> None:
    assert _digest(3, (5.0, -2.0, 5.0)) == _digest(3, (-2.0, 5.0))
    assert canonical_constants([5.0, -0.0, 0.0, math.inf, math.nan, -2.0]) == (-2.0, 0.0, 5.0)


def test_version_and_seed_are_recorded() -> None:
    probes = probe_set(7)
    assert probes.version == PROBE_VERSION
    assert probes.seed == 7


def test_points_are_read_only_and_cached() -> None:
    probes = probe_set(0)
    assert probe_set(0) is probes
    with pytest.raises(ValueError):
        probes.points[0, 0] = 1.0


def test_negative_seed_is_refused() -> None:
    with pytest.raises(ValueError):
        probe_set(-1)


def test_size_is_in_the_intended_range() -> None:
    assert 100_000 <= probe_set(0).n <= 150_000


def _family(name: str, seed: int = 0, constants: tuple[float, ...] = ()) -> np.ndarray:
    probes = probe_set(seed, constants)
    return probes.points[probes.family_mask(name)]


def test_reference_families_are_included_as_published() -> None:
    uniform200 = _family("uniform200")
    assert uniform200.shape == (5000, 3)
    assert np.all(np.abs(uniform200) <= 200)
    uniform3 = _family("uniform3")
    assert uniform3.shape == (5000, 3)
    assert np.all(np.abs(uniform3) <= 3)
    grid = _family("grid")
    assert {tuple(p) for p in grid.tolist()} == set(itertools.product(range(-20, 21), repeat=3))
    special = {tuple(p) for p in _family("special").tolist()}
    assert special == {
        (0.1, 0.2, 0.3),
        (1.1, 1.2, 1.3),
        (2.5, 2.6, 2.7),
        (0.3, 0.6, 0.9),
        (0.1234, 0.5678, 0.9123),
        (0.0, 0.5, 1.0),
        (1.0, 1.5, 2.0),
        (2.5, 3.0, 3.5),
        (3.9, 4.2, 4.8),
    }


def test_reference_mask_is_exactly_the_reference_families() -> None:
    probes = probe_set(0, (5.0,))
    assert np.array_equal(probes.reference, probes.family_mask(*REFERENCE_FAMILIES))
    assert int(probes.reference.sum()) == 5000 + 41**3


def _digits(v: float) -> int:
    """Digits needed to type v, computed from its shortest decimal repr."""
    d = Decimal(repr(v)).normalize()
    _sign, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    if digits == (0,):
        return 1
    return len(digits) + exponent if exponent >= 0 else max(len(digits), -exponent)


@pytest.mark.parametrize("name", ["int999", "typeable", "ties", "relations", "pythagorean", "fractional"])
def test_added_families_are_typeable_values(name: str) -> None:
    points = _family(name)
    assert len(points) > 1000
    values = np.unique(points)
    assert np.abs(values).max() <= 999
    assert max(_digits(float(v)) for v in values) <= 3


def test_large_magnitudes_are_probed() -> None:
    for name in ("int999", "typeable", "ties", "relations"):
        points = _family(name)
        assert (np.abs(points) > 500).any(), name
    # a triple that tells x < y < z from x < y < z and z < 500
    assert any(x < y < z and z >= 500 for x, y, z in _family("int999").tolist())


def test_ties_include_all_positions_and_all_equal() -> None:
    ties = _family("ties").tolist()
    assert any(x == y != z for x, y, z in ties)
    assert any(x == z != y for x, y, z in ties)
    assert any(y == z != x for x, y, z in ties)
    assert any(x == y == z and abs(x) > 100 for x, y, z in ties)


def test_relation_triples_satisfy_a_relation_exactly_in_decimal() -> None:
    def holds(a: Decimal, b: Decimal, c: Decimal) -> bool:
        return c in (a + b, a - b, b - a, a * b, (a + b) / 2, -(a + b))

    points = _family("relations").tolist()
    for x, y, z in points[:: max(1, len(points) // 2000)]:
        dx, dy, dz = (Decimal(repr(v)) for v in (x, y, z))
        assert any(holds(*perm) for perm in itertools.permutations((dx, dy, dz))), (x, y, z)
    # and every relation kind and position occurs with large values
    assert any(x + y == z and abs(z) > 300 for x, y, z in points)
    assert any(x * z == y and abs(y) > 300 for x, y, z in points)


def test_pythagorean_triples_have_signs_permutations_and_tenths() -> None:
    points = _family("pythagorean").tolist()
    for x, y, z in points:
        a, b, c = sorted(Decimal(repr(abs(v))) for v in (x, y, z))
        assert a * a + b * b == c * c, (x, y, z)
    assert any(x < 0 for x, _, _ in points)
    assert any(abs(y) > abs(x) and abs(y) > abs(z) for x, y, z in points)  # hypotenuse in the middle
    assert any(abs(z) > 100 for _, _, z in points)
    assert (0.3, 0.4, 0.5) in {tuple(sorted(map(abs, p))) for p in points}


def test_fractional_family_has_ordered_and_unordered_fractional_parts() -> None:
    points = _family("fractional")
    fracs = np.mod(points, 1.0)
    increasing = (fracs[:, 0] < fracs[:, 1]) & (fracs[:, 1] < fracs[:, 2])
    decreasing = (fracs[:, 0] > fracs[:, 1]) & (fracs[:, 1] > fracs[:, 2])
    assert increasing.mean() > 0.1
    assert decreasing.mean() > 0.05
    assert (~increasing & ~decreasing).mean() > 0.2
    assert (points < 0).any() and (fracs > 0).all()


def test_boundary_probes_surround_each_constant_in_each_coordinate_where_typeable() -> None:
    probes = probe_set(0, (5.0, -5.0, 500.0))
    boundary = probes.points[probes.family_mask("boundary")]
    assert typeable_rows(boundary).all()
    for c in (5.0, -5.0, 500.0):
        for d in BOUNDARY_OFFSETS:
            v = float(np.round((c + d) * 1000) / 1000)  # the decimal, as a player types it
            if not typeable_rows(np.array([[v, v, v]]))[0]:
                assert not (boundary == v).any(), (c, d)  # 499.5 has four digits: no test can hold it
                continue
            for k in range(3):
                assert (boundary[:, k] == v).any(), (c, d, k)
            assert ((boundary == v).all(axis=1)).any()  # all equal
    assert (boundary == 4.99).any() and not (boundary == 4.999).any()  # four digits: no test holds it
    assert (boundary == 499).any() and not (boundary == 499.99).any()
    assert probe_set(0).family_mask("boundary").sum() == 0


def test_the_typeable_mask_is_the_games_own_rule() -> None:
    rng = np.random.default_rng(5)
    probes = probe_set(0, (950.0, 0.25))
    sample = rng.choice(probes.n, 3000, replace=False)
    for i in sample.tolist():
        point = probes.points[i]
        accepted = True
        for v in point.tolist():
            try:
                accepted &= parse_value(repr(v)) == v
            except InvalidValue:
                accepted = False
        assert probes.typeable[i] == accepted, point


def test_relation_probes_reach_the_top_of_the_typeable_range() -> None:
    probes = probe_set(0)
    rel = probes.points[probes.family_mask("relations")]
    assert typeable_rows(rel).all()
    sums = np.isclose(rel[:, 0] + rel[:, 1], rel[:, 2], rtol=0, atol=1e-9)
    products = np.isclose(rel[:, 0] * rel[:, 1], rel[:, 2], rtol=0, atol=1e-9)
    assert (np.abs(rel[sums, 2]) >= 900).sum() >= 50
    assert (np.abs(rel[products, 2]) >= 900).sum() >= 20


def test_boundary_constants_are_capped() -> None:
    many = [float(k) for k in range(200)]
    probes = probe_set(0, many)
    assert len(probes.constants) == MAX_BOUNDARY_CONSTANTS
    assert probes.constants == tuple(float(k) for k in range(MAX_BOUNDARY_CONSTANTS))


def test_families_are_named_and_all_present_with_a_constant() -> None:
    probes = probe_set(0, (1.0,))
    present = {FAMILIES[k] for k in np.unique(probes.family).tolist()}
    assert present == set(FAMILIES)


def test_seed_changes_random_families_only() -> None:
    a, b = probe_set(0), probe_set(1)
    assert not np.array_equal(a.points[a.family_mask("uniform200")], b.points[b.family_mask("uniform200")])
    assert np.array_equal(a.points[a.family_mask("grid")], b.points[b.family_mask("grid")])


def test_corners_are_every_typeable_triple_of_the_values() -> None:
    probes = probe_set(0, (97.0, -97.0), corners=(97.0, -41.0, 13.0, -0.0, 0.12345, 5000.0, math.inf))
    assert probes.corners == (-41.0, 0.0, 13.0, 97.0)  # four digits and beyond are no value a player types
    corners = probes.points[probes.family_mask("corners")]
    assert {tuple(p) for p in corners.tolist()} == set(itertools.product(probes.corners, repeat=3))
    assert (
        len(corners) == 4**3
        and typeable_rows(corners).all()
        and probes.typeable[probes.family_mask("corners")].all()
    )
    assert (97.0, -41.0, 13.0) in {tuple(p) for p in corners.tolist()}
    assert not probes.reference[probes.family_mask("corners")].any()
    # by default the corners are the constants' own values, and none without constants
    assert probe_set(0, (5.0, -5.0)).corners == (-5.0, 5.0)
    assert probe_set(0).corners == () and probe_set(0).family_mask("corners").sum() == 0


def test_corner_values_are_capped_after_the_untypeable_ones_are_dropped() -> None:
    values = [1234.0, 0.0001, *(float(k) for k in range(100, 0, -1))]
    chosen = canonical_corners(values)
    assert len(chosen) == MAX_CORNER_VALUES
    assert chosen == tuple(
        sorted(float(k) for k in range(100, 100 - MAX_CORNER_VALUES, -1))
    )  # the first given
    probes = probe_set(0, (), corners=values)
    assert probes.family_mask("corners").sum() == MAX_CORNER_VALUES**3 <= 5000
    assert canonical_corners([2.0, 1.0, 2.0]) == canonical_corners([1.0, 2.0])
