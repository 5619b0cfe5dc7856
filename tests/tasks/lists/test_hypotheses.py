"""The list hypothesis space: sources agree with predicates, statements read, dedupe keeps the simplest, and the
natural rules (and the published ones a grammar can express) are in it."""

from __future__ import annotations

import ast
import math
import random
from collections.abc import Callable, Sequence

import pytest

from wason.tasks.lists.hypotheses import (
    FAMILIES,
    SPACE_VERSION,
    Hypothesis,
    build_space,
    extension,
    extension_probe,
    get_hypothesis,
    grammar,
)
from wason.tasks.lists.rules import is_prime, load_split

Probe = tuple[tuple[int, ...], ...]


def _ext(fn: Callable[[tuple[int, ...]], object], probe: Probe) -> bytes:
    return bytes(bool(fn(xs)) for xs in probe)


@pytest.fixture(scope="module")
def probe() -> Probe:
    return extension_probe()


@pytest.fixture(scope="module")
def space() -> tuple[Hypothesis, ...]:
    return build_space()


@pytest.fixture(scope="module")
def grammar_extensions(probe: Probe) -> dict[str, bytes]:
    """Every grammar hypothesis's truth values on the probe, computed here from its predicate."""
    return {h.key: _ext(h.predicate, probe) for h in grammar()}


@pytest.fixture(scope="module")
def space_extensions(space: tuple[Hypothesis, ...], grammar_extensions: dict[str, bytes]) -> set[bytes]:
    return {grammar_extensions[h.key] for h in space}


def _eval_source(source: str) -> Callable[[tuple[int, ...]], object]:
    # Tests only, on the module's own trusted strings: the sandbox is the production interpreter.
    fn = eval(source, {"math": math, "is_prime": is_prime})
    assert callable(fn)
    return fn  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------------------ shape and size


def test_space_is_cached_sized_and_versioned(space: tuple[Hypothesis, ...]) -> None:
    assert build_space() is space
    assert 1500 <= len(space) <= 4000
    assert SPACE_VERSION == "wason-list-hypotheses-1"
    assert len(grammar()) >= len(space)
    assert {h.family for h in space} == set(FAMILIES)


def test_keys_are_unique_and_complexities_positive(space: tuple[Hypothesis, ...]) -> None:
    keys = [h.key for h in grammar()]
    assert len(keys) == len(set(keys))
    assert all(isinstance(h.complexity, int) and h.complexity >= 1 for h in space)
    assert [h.complexity for h in space] == sorted(h.complexity for h in space)


def test_combinations_cost_more_than_their_parts(space: tuple[Hypothesis, ...]) -> None:
    combos = [h for h in space if h.family == "combination"]
    assert combos
    for h in combos:
        inner = h.key[h.key.index("(") + 1 : -1]
        a, b = (get_hypothesis(k) for k in inner.split(",", 1))
        assert h.complexity > a.complexity + b.complexity, h.key
        assert a.family != b.family or h.key.startswith("or(")


def test_natural_rules_are_simple() -> None:
    for key in ("all:even", "seq:inc", "len:eq:3", "agg:norep", "agg:sum:even"):
        assert get_hypothesis(key).complexity == 2
    assert get_hypothesis("seq:add:3").complexity == 3
    assert get_hypothesis("seq:add:3").complexity < get_hypothesis("and(all:pos,seq:inc)").complexity


def test_unknown_key_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no hypothesis 'all:purple'"):
        get_hypothesis("all:purple")


# ------------------------------------------------------------------------------------------ three faces agree


def test_every_source_agrees_with_its_predicate_on_the_probe(
    space: tuple[Hypothesis, ...], probe: Probe, grammar_extensions: dict[str, bytes]
) -> None:
    for h in space:
        assert h.source.startswith("lambda xs: "), h.key
        fn = _eval_source(h.source)
        values = [fn(xs) for xs in probe]
        assert all(isinstance(v, bool) for v in values), h.key
        assert bytes(values) == grammar_extensions[h.key], h.key


def test_predicates_return_bools_and_accept_lists_as_well_as_tuples(space: tuple[Hypothesis, ...]) -> None:
    samples = [(), (0,), (-7,), (3, 3), (1, 2, 3), (5, -2, 8, 8, 13), (10, 20, 30, 40), (-121, 44, 7)]
    for h in space:
        for xs in samples:
            verdict = h.predicate(xs)
            assert isinstance(verdict, bool), h.key
            assert h.predicate(list(xs)) is verdict, h.key
            assert h(xs) is verdict


_CALLS = {
    "len", "sum", "min", "max", "abs", "all", "any", "sorted", "set", "list", "tuple", "range", "zip",
    "enumerate", "str", "int", "is_prime",
}  # fmt: skip
_NODES = (
    ast.Expression, ast.Lambda, ast.arguments, ast.arg, ast.Constant, ast.Name, ast.Load, ast.Store,
    ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow, ast.UnaryOp, ast.USub, ast.Not,
    ast.Compare, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.BoolOp, ast.And, ast.Or, ast.IfExp,
    ast.Subscript, ast.Slice, ast.Call, ast.Attribute, ast.GeneratorExp, ast.ListComp, ast.comprehension,
    ast.Tuple,
)  # fmt: skip


def _check_restricted(source: str) -> None:
    tree = ast.parse(source, mode="eval")
    body = tree.body
    assert isinstance(body, ast.Lambda)
    assert [a.arg for a in body.args.args] == ["xs"]
    for node in ast.walk(tree):
        assert isinstance(node, _NODES), (source, type(node).__name__)
        if isinstance(node, ast.Constant):
            assert type(node.value) is int, source
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            assert isinstance(node.right, ast.Constant) and 0 <= node.right.value <= 3, source
        if isinstance(node, ast.Attribute):
            assert isinstance(node.value, ast.Name) and (node.value.id, node.attr) == ("math", "isqrt"), (
                source
            )
        if isinstance(node, ast.Call):
            func = node.func
            assert (isinstance(func, ast.Name) and func.id in _CALLS) or isinstance(func, ast.Attribute), (
                source
            )
            assert not node.keywords, source
        if isinstance(node, ast.Name):
            assert node.id in _CALLS | {"math", "xs", "x", "a", "b", "c", "d", "e", "i"}, source


def test_sources_stay_inside_the_restricted_subset(space: tuple[Hypothesis, ...]) -> None:
    for h in space:
        _check_restricted(h.source)


def test_statements_are_sentences(space: tuple[Hypothesis, ...]) -> None:
    for h in space:
        text = h.text
        assert text and text[0].isupper() and text.endswith("."), h.key
        assert "  " not in text and "{" not in text and "lambda" not in text, h.key
    texts = [h.text for h in space]
    assert len(texts) == len(set(texts)), "two different rules share a statement"


def test_statements_name_the_rule() -> None:
    assert get_hypothesis("all:even").text == "Every item is even."
    assert get_hypothesis("seq:add:3").text == "Each item after the first is the previous item plus 3."
    assert get_hypothesis("seq:mul:2").text == "Each item after the first is twice the previous item."
    assert get_hypothesis("most:mul:4").text == "More than half of the items are multiples of 4."
    assert get_hypothesis("len:eq:3").text == "The list has exactly 3 items."
    assert get_hypothesis("and(all:pos,seq:inc)").text == (
        "Every item is positive, and each item after the first is greater than the one before it."
    )


# ------------------------------------------------------------------------------------------ de-duplication


def test_no_two_hypotheses_share_an_extension(
    space: tuple[Hypothesis, ...], grammar_extensions: dict[str, bytes], probe: Probe
) -> None:
    exts = [grammar_extensions[h.key] for h in space]
    assert len(set(exts)) == len(space)
    everything, nothing = b"\x01" * len(probe), b"\x00" * len(probe)
    assert everything not in exts and nothing not in exts


def test_each_dropped_hypothesis_has_a_simpler_or_equal_kept_twin(
    space: tuple[Hypothesis, ...], grammar_extensions: dict[str, bytes], probe: Probe
) -> None:
    kept = {grammar_extensions[h.key]: h for h in space}
    constant = {b"\x01" * len(probe), b"\x00" * len(probe)}
    kept_keys = {h.key for h in space}
    dropped = [h for h in grammar() if h.key not in kept_keys]
    assert dropped, "the grammar has equivalent spellings (no item is odd = every item is even)"
    for h in dropped:
        e = grammar_extensions[h.key]
        if e in constant:
            continue
        assert e in kept, h.key
        assert kept[e].complexity <= h.complexity, (h.key, kept[e].key)
    # The natural spelling wins: "no item is odd" is "every item is even".
    assert kept[grammar_extensions["none:odd"]].key == "all:even"
    assert kept[grammar_extensions["agg:evens>odds"]].key == "most:even"


def _independent_lists() -> list[tuple[int, ...]]:
    rng = random.Random(20240917)
    ranges = [(-20, 60), (0, 12), (-5, 5), (1, 30), (-1000, 1000), (0, 200)]
    out = [tuple(rng.randint(*rng.choice(ranges)) for _ in range(rng.randint(0, 8))) for _ in range(5000)]
    for _ in range(1000):  # affine runs x -> k x + c, which random lists almost never contain
        xs = [rng.randint(-10, 30)]
        k, c = rng.choice([1, 2, 3, -1, -2]), rng.randint(-5, 5)
        while len(xs) < rng.randint(3, 7):
            xs.append(k * xs[-1] + c)
        out.append(tuple(xs))
    return out


def test_merged_hypotheses_agree_beyond_the_probe(
    space: tuple[Hypothesis, ...], grammar_extensions: dict[str, bytes]
) -> None:
    kept = {grammar_extensions[h.key]: h for h in space}
    kept_keys = {h.key for h in space}
    lists = _independent_lists()
    for h in grammar():
        twin = kept.get(grammar_extensions[h.key])
        if h.key in kept_keys or twin is None:
            continue
        differ = [xs for xs in lists if h.predicate(xs) != twin.predicate(xs)]
        assert not differ, (h.key, twin.key, differ[:3])


def test_extension_helper_matches_the_predicates(
    space: tuple[Hypothesis, ...], grammar_extensions: dict[str, bytes]
) -> None:
    for h in space[::7]:
        packed = extension(h).to_bytes(len(grammar_extensions[h.key]), "big")
        assert packed == grammar_extensions[h.key], h.key


def test_probe_is_deterministic_distinct_and_covers_edge_lists(probe: Probe) -> None:
    assert extension_probe.__wrapped__() == probe  # rebuilt from its seed, not the cached copy
    assert len(set(probe)) == len(probe) >= 1500
    assert () in probe and (0,) in probe and (-1,) in probe
    assert all(type(x) is int for xs in probe for x in xs)
    assert {len(xs) for xs in probe} >= set(range(10))


# ------------------------------------------------------------------------------------------ coverage

NATURAL_RULES: dict[str, Callable[[Sequence[int]], bool]] = {
    "strictly increasing": lambda xs: all(xs[i] < xs[i + 1] for i in range(len(xs) - 1)),
    "all even": lambda xs: all(x % 2 == 0 for x in xs),
    "length is 3": lambda xs: len(xs) == 3,
    "sum is even": lambda xs: sum(xs) % 2 == 0,
    "sum is 10": lambda xs: sum(xs) == 10,
    "previous plus 3": lambda xs: all(xs[i + 1] - xs[i] == 3 for i in range(len(xs) - 1)),
    "no repeats": lambda xs: len(xs) == len(set(xs)),
    "contains a multiple of 7": lambda xs: any(x % 7 == 0 for x in xs),
    "all prime": lambda xs: all(is_prime(x) for x in xs),
    "all odd": lambda xs: not any(x % 2 == 0 for x in xs),
    "non-decreasing": lambda xs: list(xs) == sorted(xs),
    "all the same": lambda xs: len(set(xs)) < 2,
    "doubling": lambda xs: all(xs[i + 1] == 2 * xs[i] for i in range(len(xs) - 1)),
    "fibonacci-like": lambda xs: all(xs[i + 2] == xs[i] + xs[i + 1] for i in range(len(xs) - 2)),
    "first equals last": lambda xs: bool(xs) and xs[0] == xs[-1],
    "at least 4 items": lambda xs: len(xs) > 3,
    "contains 7": lambda xs: 7 in xs,
    "all positive and increasing": lambda xs: min(xs, default=1) > 0 and list(xs) == sorted(set(xs)),
    "all even or all odd": lambda xs: len({x % 2 for x in xs}) <= 1,
    "last item is the largest": lambda xs: bool(xs) and max(xs) == xs[-1],
}


@pytest.mark.parametrize("name", list(NATURAL_RULES))
def test_natural_rules_are_in_the_space(name: str, probe: Probe, space_extensions: set[bytes]) -> None:
    assert _ext(NATURAL_RULES[name], probe) in space_extensions


# Published Numberwang candidates the grammar expresses exactly (by rank): constant differences, strictly
# increasing, Fibonacci numbers, contains 3, all primes, non-decreasing, no repeats, 2p - 1, alternating up and
# down, sum 10, no primes, alternating parity, sum of others, strictly between, Fibonacci-like, even number of
# evens, odd number of odds, same remainder mod 3, prime sum, last even, prime length, exactly one prime, ...
EXPRESSED_RANKS = (
    1,
    3,
    4,
    6,
    7,
    8,
    9,
    10,
    11,
    12,
    13,
    14,
    16,
    18,
    19,
    20,
    21,
    24,
    25,
    26,
    27,
    28,
    29,
    30,
    31,
    33,
)
EXPRESSED_RANKS += (34, 35, 36, 37, 41, 42, 44, 47)


def test_published_rules_the_grammar_can_express_are_in_the_space(
    probe: Probe, space_extensions: set[bytes]
) -> None:
    rules = {r.id: r for r in load_split("all")}
    missing = [rank for rank in EXPRESSED_RANKS if _ext(rules[rank].predicate, probe) not in space_extensions]
    assert not missing


# ------------------------------------------------------------------------------------------ conventions


def test_empty_and_one_item_lists_follow_the_conventions(space: tuple[Hypothesis, ...]) -> None:
    for h in space:
        if h.family == "sequential":
            # Relations between neighbours hold vacuously without neighbours.
            assert all(h.predicate(xs) for xs in [(), (7,), (-4,), (0,)]), h.key
        if h.key.startswith("all:"):
            assert h.predicate(()), h.key
        if h.key.split(":")[0] in ("first", "last", "second", "any", "one", "most"):
            assert not h.predicate(()), h.key
        if h.key.startswith("second:"):
            assert not h.predicate((2,)), h.key


@pytest.mark.parametrize(
    ("key", "accepted", "rejected"),
    [
        ("agg:firstlast:eq", [(5,), (3, 1, 3)], [(), (3, 1)]),
        ("agg:first:max", [(9,), (9, 9, 2)], [(), (1, 9)]),
        ("agg:sum:eq:0", [(), (3, -3)], [(1,)]),
        ("agg:mean:int", [(4,), (1, 3)], [(), (1, 2)]),
        ("agg:prod:pos", [(), (-2, -3)], [(0,), (-1, 2)]),
        ("agg:spread:3", [(), (5, 8, 6)], [(1, 5)]),
        ("all:prime", [(), (2, 3, 5)], [(1,), (-3,), (2, 9)]),
        ("all:square", [(0, 1, 4)], [(-1,), (2,)]),
        ("any:ends:3", [(-13,), (3, 4)], [(), (-7,), (30,)]),
        ("first:even", [(0,), (4, 5)], [(), (5, 4)]),
        ("last:odd", [(-3,), (4, 5)], [(), (5, 4)]),
        ("evencount:even", [(), (1, 3), (2, 4, 5)], [(2,), (2, 3)]),
        ("seq:multof", [(3, 6, 0, 0), (2, -4)], [(0, 5), (4, 6)]),
        ("seq:zigzag", [(1, 5, 2, 8), (4, 1)], [(1, 1), (1, 2, 3)]),
        ("seq:fib", [(1, 1, 2, 3, 5), (7, -2)], [(1, 1, 3)]),
        ("seq:sumprev", [(), (3, 3, 6, 12)], [(3, 4)]),
        ("seq:posmul", [(7, 4, 0, 8)], [(1, 3)]),
        ("len:even", [(), (1, 2)], [(1,)]),
        ("len:prime", [(1, 2), (1, 2, 3)], [(), (1,), (1, 2, 3, 4)]),
    ],
)
def test_edge_cases(key: str, accepted: list[tuple[int, ...]], rejected: list[tuple[int, ...]]) -> None:
    h = get_hypothesis(key)
    fn = _eval_source(h.source)
    for xs in accepted:
        assert h.predicate(xs) and fn(xs), (key, xs)
    for xs in rejected:
        assert not h.predicate(xs) and not fn(xs), (key, xs)
