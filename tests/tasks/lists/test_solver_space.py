"""The solver's hypothesis space: the base grammar plus compound properties, recurrences, digit relations and
aggregates; every added source is in the list guess language and agrees with its predicate."""

from __future__ import annotations

import random

import pytest

from wason.tasks.lists.hypotheses import Hypothesis, build_space
from wason.tasks.lists.language import compile_list_predicate
from wason.tasks.lists.solver_space import FAMILY, SOLVER_SPACE_VERSION, added_grammar, solver_space


@pytest.fixture(scope="module")
def added() -> tuple[Hypothesis, ...]:
    return added_grammar()


def _lists() -> list[tuple[int, ...]]:
    rng = random.Random(5)
    out: list[tuple[int, ...]] = [(), *((v,) for v in range(-12, 40, 3)), (0, 0), (0, 5), (7, 0)]
    out += [tuple(rng.randint(-20, 60) for _ in range(rng.randint(2, 7))) for _ in range(80)]
    # Positives of a few added rules, so that sources and predicates are compared where they accept too.
    out += [(12, 6, 3, 16, 8, 4, 2, 1, 6), (4, 2, 1, 5, 2), (3, 3, 6, 9, 15), (5, 2, 39, 78), (4, 9, 6, 8)]
    out += [(3, 7, 15, 31), (1, 1, 2, 3, 5, 8), (6, 10, 9, 25, 3), (12, 23, 35, 58), (3, 8, 5, -3, 8, 11)]
    return out


def test_space_is_cached_versioned_and_holds_the_base_grammar(added: tuple[Hypothesis, ...]) -> None:
    space = solver_space()
    assert solver_space() is space
    assert SOLVER_SPACE_VERSION == "wason-list-solver-space-1"
    assert set(build_space()) <= set(space)
    assert len(space) == len(build_space()) + len(added)
    assert [h.complexity for h in space] == sorted(h.complexity for h in space)
    keys = [h.key for h in space]
    assert len(keys) == len(set(keys))
    assert all(h.family == FAMILY and isinstance(h.complexity, int) and h.complexity >= 2 for h in added)


def test_added_sources_are_in_the_language_and_agree_with_their_predicates(
    added: tuple[Hypothesis, ...],
) -> None:
    lists = _lists()
    for h in added:
        assert h.source.startswith("lambda xs: "), h.key
        compiled = compile_list_predicate(h.source)
        for xs in lists:
            verdict = h.predicate(xs)
            assert isinstance(verdict, bool), h.key
            assert bool(compiled.evaluate(xs)) is verdict, (h.key, xs, h.source)


def test_statements_are_sentences(added: tuple[Hypothesis, ...]) -> None:
    for h in added:
        assert h.text[0].isupper() and h.text.endswith("."), h.key


@pytest.mark.parametrize(
    ("key", "accepted", "rejected"),
    [
        ("all:(mul:3^mul:5)", [(3, 5, 6, 10, -9), ()], [(15,), (0,), (7,)]),
        ("rec:=lin:1:0|=lin2:1:1:0@1", [(3, 3, 6, 9, 15), (4,), (2, 2, 2)], [(3, 4, 7), (1, 1, 2, 4)]),
        ("rec:=lin:2:1@2", [(3, 7, 15, 31), (9, -1, -1)], [(3, 6, 12)]),
        ("rec:=half|lin:5:1@1", [(12, 6, 3, 16, 8, 4, 2, 1, 6)], [(12, 6, 3, 10)]),
        ("rec:=fnz:17@1", [(4, 2, 1, 5, 2), (9, 5)], [(4, 3), (0, 0)]),
        ("rec:first=last@1", [(12, 23, 35, 58), (7,)], [(12, 32)]),
        ("rec:multof|=lin:1:13@2", [(5, 2, 15, 45, 58), (1, 0, 13)], [(5, 2, 7)]),
        ("all:cubep1", [(2, 9, 28, 0, 1)], [(3,)]),
        ("agg:prod:eq:60", [(3, 4, 5), (60,), (-1, -60)], [(), (59,)]),
        ("prefix:all:prime", [(2, 1, 2), ()], [(1, 2), (2, 2)]),
        ("seq:ratio", [(4, 6, 9), (5, 0, 0), (3,)], [(0, 1), (2, 4, 6)]),
        ("count:eq:2:even", [(2, 4, 5), (1, 2, 3, 4)], [(2,), (2, 4, 6), ()]),
        ("count:ge:2:is:1", [(1, 5, 1), (1, 1, 1)], [(1, 11), ()]),
        ("none:is:5", [(), (15, -5, 55)], [(1, 5)]),
    ],
)
def test_added_kinds_decide_as_stated(
    key: str, accepted: list[tuple[int, ...]], rejected: list[tuple[int, ...]]
) -> None:
    h = {h.key: h for h in solver_space()}[key]
    compiled = compile_list_predicate(h.source)
    for xs in accepted:
        assert h.predicate(xs) and compiled(xs), (key, xs)
    for xs in rejected:
        assert not h.predicate(xs) and not compiled.evaluate(xs), (key, xs)
