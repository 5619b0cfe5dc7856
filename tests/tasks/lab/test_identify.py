"""The generator's identifiability check: the design it finds really identifies the laws, and it refuses domains
whose laws cannot be told apart from the lab's starting objects."""

from __future__ import annotations

import pytest

from wason.tasks.lab.drawing import generate
from wason.tasks.lab.identify import candidates, identifying_design
from wason.tasks.lab.laws import Law, Not, Ref, apply
from wason.tasks.lab.learner import Learner
from wason.tasks.lab.world import BUDGETS, PRESETS, Domain


def _learn(domain: Domain, design: list[tuple[str, tuple[str, ...]]]) -> Learner:
    """A learner (public knowledge only) that saw the design's experiments, each on freshly reset objects."""
    learner = Learner(domain)
    start = {t.name: t for t in domain.things()}
    for op, names in design:
        things = [start[n].copy() for n in names]
        before = [dict(t.values) for t in things]
        apply(domain.laws, op, things)
        record = {
            "op": op,
            "objects": list(names),
            "types": [t.type for t in things],
            "before": before,
            "after": [dict(t.values) for t in things],
        }
        learner.observe(record)
    return learner


@pytest.mark.parametrize(("difficulty", "n"), [("easy", 6), ("medium", 4), ("hard", 2)])
def test_the_design_identifies_the_laws(difficulty: str, n: int) -> None:
    for k in range(n):
        domain = generate(PRESETS[difficulty], f"design|{k}")
        design = identifying_design(domain, BUDGETS[difficulty])
        assert design is not None and len(design) == domain.design <= BUDGETS[difficulty]
        learner = _learn(domain, design)
        assert learner.identified()
        assert set(learner.theory()) == set(domain.laws)
        # one experiment fewer leaves something open (the greedy cover has no idle step at its end)
        assert not _learn(domain, design[:-1]).identified()


def test_laws_that_cannot_be_told_apart_are_refused() -> None:
    domain = generate(PRESETS["easy"], "refuse")
    t = domain.types[0]
    flag = t.booleans[0]
    op = domain.operations[0].name
    # every object starts with the flag true: "flag = not flag" is then indistinguishable from "flag = false"
    objects = tuple(
        (name, type_name, tuple((p, True if p == flag else v) for p, v in values))
        for name, type_name, values in domain.objects
    )
    toggle = Law(op, 1, Ref(0, flag), Not(Ref(0, flag)))
    blind = Domain(domain.seed, domain.params, domain.types, domain.operations, (toggle,), objects)
    assert identifying_design(blind) is None
    # with the flag both ways in the lab it is identifiable again
    assert (
        identifying_design(
            Domain(domain.seed, domain.params, domain.types, domain.operations, (toggle,), domain.objects)
        )
        is not None
    )


def test_candidates_cover_every_operation_on_every_object() -> None:
    domain = generate(PRESETS["medium"], 3)
    found = candidates(domain)
    n = len(domain.objects)
    unary = sum(1 for o in domain.operations if o.arity == 1)
    binary = len(domain.operations) - unary
    assert len(found) == unary * n + binary * n * (n - 1) == len(set(found))
