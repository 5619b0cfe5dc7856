"""The ideal learner: each kind of law identified from a few experiments, with and without noise; its
predictions, information and curves."""

from __future__ import annotations

import random
from typing import Any

import pytest

from wason.tasks.lab.drawing import generate
from wason.tasks.lab.game import number_right, random_curve
from wason.tasks.lab.laws import Arith, Bool, Compare, Law, Not, Num, Ref, Thing, apply
from wason.tasks.lab.learner import Learner, curve, public
from wason.tasks.lab.world import PRESETS, Domain, DomainParams, ObjectType, Operation, trials

ZORP = ObjectType("zorple", ("glowy", "shiny"), ("zib", "zab"))
BLICK = ObjectType("blicket", ("furry",), ("flurb",))
ZIB, ZAB, GLOWY, SHINY = Ref(0, "zib"), Ref(0, "zab"), Ref(0, "glowy"), Ref(0, "shiny")


def domain(laws: tuple[Law, ...], binary: bool = False, noise: float = 0.0) -> Domain:
    params = DomainParams(
        types=2 if binary else 1, booleans=2, numbers=2, unary=0 if binary else 1, binary=1 if binary else 0,
        laws=len(laws), kinds=("add", "scale", "interact", "set", "toggle", "threshold"), conditional=0.5,
        cross=binary, noise=noise,
    )  # fmt: skip
    types = (ZORP, BLICK) if binary else (ZORP,)
    ops = (Operation("wuzz", 2),) if binary else (Operation("splorf", 1),)
    return Domain("hand", params, types, ops, laws, ())


def state(rng: random.Random, t: ObjectType, name: str) -> Thing:
    values: dict[str, Any] = {b: rng.random() < 0.5 for b in t.booleans}
    values.update({n: float(rng.randint(1, 12)) for n in t.numbers})
    return Thing(name, t.name, values)


def records(dom: Domain, n: int, seed: int = 0, noise: float = 0.0) -> list[dict[str, Any]]:
    """``n`` experiments on random states under the domain's laws (numbers seen with noise of sd ``noise``)."""
    rng = random.Random(seed)
    op = dom.operations[0]
    out = []
    for k in range(n):
        types = [rng.choice(dom.types) for _ in range(op.arity)]
        things = [state(rng, t, f"{t.name}-{k}-{j}") for j, t in enumerate(types)]
        before = [dict(t.values) for t in things]
        apply(dom.laws, op.name, things)
        after = [dict(t.values) for t in things]
        if noise:
            seen = [
                {p: v if isinstance(v, bool) else round(v + rng.gauss(0, noise), 2) for p, v in b.items()}
                for b in before
            ]
            after = [
                {
                    p: v
                    if isinstance(v, bool)
                    else seen[j][p]
                    if v == before[j][p]
                    else round(v + rng.gauss(0, noise), 2)
                    for p, v in a.items()
                }
                for j, a in enumerate(after)
            ]
            before = seen
        out.append({"op": op.name, "objects": [t.name for t in things], "types": [t.type for t in things],
                    "before": before, "after": after})  # fmt: skip
    return out


def learned(dom: Domain, n: int, noise: float = 0.0) -> Learner:
    learner = Learner(public(dom))
    for record in records(dom, n, noise=noise):
        learner.observe(record)
    return learner


LAWS = {
    "add": Law("splorf", 1, ZIB, Arith("-", ZIB, Num(3.0))),
    "scale": Law("splorf", 1, ZIB, Arith("*", ZIB, Num(0.5))),
    "interact": Law("splorf", 1, ZIB, Arith("+", ZIB, ZAB)),
    "set": Law("splorf", 1, GLOWY, Bool(False)),
    "toggle": Law("splorf", 1, GLOWY, Not(GLOWY)),
    "threshold": Law("splorf", 1, GLOWY, Compare(">", ZAB, Num(7.0))),
    "conditional": Law("splorf", 1, ZIB, Arith("+", ZIB, Num(2.0)), Not(SHINY)),
    "conditional threshold": Law("splorf", 1, GLOWY, Compare("<", ZIB, Num(4.0)), SHINY),
}


@pytest.mark.parametrize("kind", sorted(LAWS))
def test_each_kind_of_law_is_identified_from_a_few_experiments(kind: str) -> None:
    law = LAWS[kind]
    dom = domain((law,))
    fresh = Learner(public(dom))
    assert not fresh.identified() and fresh.theory() == ()  # the prior prefers no law
    learner = learned(dom, 120)
    assert learner.identified(), learner.unresolved()
    assert learner.theory() == (law,)
    assert learner.hypotheses() == len(learner.slots)


def test_two_object_laws_across_types_are_identified() -> None:
    laws = (
        Law("wuzz", 2, Ref(1, "zib"), Arith("-", Ref(1, "zib"), Ref(0, "flurb"))),
        Law("wuzz", 2, Ref(0, "furry"), Bool(True), Ref(1, "glowy")),
    )
    dom = domain(laws, binary=True)
    learner = learned(dom, 150)
    assert learner.identified(), learner.unresolved()
    assert set(learner.theory()) == set(laws)


def test_a_law_is_not_identified_from_too_few_experiments() -> None:
    learner = learned(domain((LAWS["threshold"],)), 2)
    assert not learner.identified()
    assert learner.hypotheses() > len(learner.slots)


def test_noisy_numbers_are_consistent_within_a_few_sd() -> None:
    for kind in ("add", "scale", "interact", "threshold"):
        dom = domain((LAWS[kind],), noise=0.1)
        learner = learned(dom, 80, noise=0.1)
        assert learner.theory() == (LAWS[kind],), kind


def test_predictions_follow_the_learned_laws_and_thresholds_read_the_new_numbers() -> None:
    laws = (LAWS["add"], Law("splorf", 1, GLOWY, Compare("<", ZIB, Num(4.0))))
    dom = domain(laws)
    learner = learned(dom, 100)
    assert learner.theory() == laws
    thing = Thing("z", "zorple", {"glowy": False, "shiny": True, "zib": 6.0, "zab": 2.0})
    (after,) = learner.predict("splorf", [thing])
    assert after.values == {"glowy": True, "shiny": True, "zib": 3.0, "zab": 2.0}
    assert thing.values["zib"] == 6.0  # the input is not changed


def test_expected_information_is_positive_while_uncertain_and_zero_once_identified() -> None:
    dom = domain((LAWS["threshold"],))
    thing = Thing("z", "zorple", {"glowy": False, "shiny": True, "zib": 6.0, "zab": 2.0})
    assert Learner(dom).expected_information("splorf", [thing]) > 0
    learner = learned(dom, 60)
    assert learner.identified()
    assert learner.expected_information("splorf", [thing]) == 0


def test_a_record_of_another_domain_is_refused_in_one_line() -> None:
    learner = Learner(domain((LAWS["add"],)))
    with pytest.raises(ValueError, match="not of this domain"):
        learner.observe({"op": "nope", "objects": ["x"], "types": ["zorple"], "before": [{}], "after": [{}]})


def test_the_learner_never_reads_the_hidden_laws() -> None:
    dom = generate(PRESETS["medium"], 3)
    history = records(dom, 0)
    a, b = Learner(dom), Learner(public(dom))
    assert a.domain.laws == () and [len(s.laws) for s in a.slots.values()] == [
        len(s.laws) for s in b.slots.values()
    ]
    del history


def test_curve_rises_to_one_on_an_identified_domain_and_random_curve_is_deterministic() -> None:
    dom = generate(PRESETS["easy"], 5)
    test = trials(dom, 20, "t")
    points = random_curve(dom, 20, test, 0.05, "s")
    assert len(points) == 21 and all(0 <= p <= 1 for p in points)
    assert points[-1] == 1.0 and points[0] < 1.0
    assert points == random_curve(dom, 20, test, 0.05, "s")
    assert curve(dom, [], test, 0.05) == points[:1]


def test_number_predictions_on_noisy_records_are_within_tolerance() -> None:
    dom = domain((LAWS["scale"],), noise=0.2)
    learner = learned(dom, 60, noise=0.2)
    thing = Thing("z", "zorple", {"glowy": False, "shiny": True, "zib": 9.0, "zab": 2.0})
    (after,) = learner.predict("splorf", [thing])
    assert number_right(float(after.values["zib"]), 4.5, 0.05)
