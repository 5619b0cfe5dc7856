"""Drawing a lab's domain: the first draw whose laws a design of experiments can tell apart
(:mod:`wason.tasks.lab.identify`, whose learner plays the lab's game), so this module sits above the world it
draws (:mod:`wason.tasks.lab.world`)."""

from __future__ import annotations

import dataclasses
import random

from wason.tasks.lab.identify import identifying_design
from wason.tasks.lab.world import (
    BUDGETS,
    DRAW_VERSION,
    GENERATOR,
    MAX_DRAWS,
    Domain,
    DomainParams,
    difficulty_of,
    draw_domain,
    law_problems,
)

__all__ = ["generate", "identifiability_problems"]


def generate(params: DomainParams, seed: str | int) -> Domain:
    """The domain of ``seed`` with ``params``: the first identifiable draw.

    Raises:
        ValueError: no identifiable domain in ``MAX_DRAWS`` draws (parameters that cannot give one).
    """
    rng = random.Random(f"{GENERATOR}|{DRAW_VERSION}|{seed}")
    budget = BUDGETS[difficulty_of(params)]
    for rejected in range(MAX_DRAWS):
        domain = draw_domain(params, str(seed), rng, rejected)
        if domain is None or law_problems(domain):
            continue
        design = identifying_design(domain, budget)
        if design is not None:
            return dataclasses.replace(domain, design=len(design))
    raise ValueError(
        f"params: no identifiable domain in {MAX_DRAWS} draws with {params.model_dump_json()}; "
        "give it more properties or operations, or fewer laws"
    )


def identifiability_problems(domain: Domain, budget: int | None = None) -> list[str]:
    """Why the domain could not be identified within ``budget`` experiments (default: its difficulty's
    budget, see :data:`BUDGETS`), or nothing.

    Checks: every law is of the grammar and changes what it touches for some object of the lab (no identity, no
    law whose condition no object meets); and a design of at most ``budget`` experiments on the lab's starting
    objects tells the laws apart from every other theory of the grammar
    (:func:`wason.tasks.lab.identify.identifying_design`).
    """
    problems = law_problems(domain)
    if problems:
        return problems
    if budget is None:
        budget = BUDGETS[difficulty_of(domain.params)]
    if identifying_design(domain, budget) is None:
        problems.append(
            f"no design of at most {budget} experiments on the lab's starting objects tells its laws apart from "
            "every other theory of the grammar"
        )
    return problems
