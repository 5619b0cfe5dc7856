"""A procedurally generated WILT split (the paper's "future work"), so no model can have memorised the rules.

Rules are drawn from the solver's grammar space (``hypotheses.build_space``) by difficulty tier, in rotation
easy / medium / hard, where the tier is the complexity third of the rule's grammar entry; within a tier a family is
drawn first, then a rule of that family, so the many conjunctions do not crowd out single ideas. A drawn rule is
kept only if it is

* new: its extension on the judge's probe set differs from every rule kept before (de-duplication by meaning,
  not by text);
* not near-constant: among the test triples a player can type (the solver's candidates), both True and False
  answers make up at least ``MIN_SHARE`` of them;
* identifiable within 30 tests: the ideal-scientist solver, playing the real game, ends with a guess the judge
  finds equivalent.

Same seed, same rules, byte for byte; every rule records the generator, its version, the seed, its tier, family
and complexity.
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np

from wason.sandbox import compile_rule
from wason.tasks.wilt.probes import probe_set
from wason.tasks.wilt.rules import WiltRule

GENERATOR = "wilt-grammar"
GENERATOR_VERSION = "1"
TIERS = ("easy", "medium", "hard")
MIN_SHARE = 0.005
MAX_N = 500


def tier_of(complexity: int, cuts: tuple[float, float]) -> str:
    """easy / medium / hard by complexity thirds of the grammar space."""
    if complexity <= cuts[0]:
        return "easy"
    return "medium" if complexity <= cuts[1] else "hard"


@cache
def generate_split(*, seed: int, n: int) -> list[WiltRule]:
    """``n`` generated rules for ``seed`` (deterministic)."""
    if not 1 <= n <= MAX_N:
        raise ValueError(f"--n must be between 1 and {MAX_N}")
    from wason.tasks.wilt.hypotheses import build_space, candidate_tests

    space = build_space(0)
    candidates, _typed = candidate_tests(0)
    on_candidates = space.evaluate(candidates)  # (H, C)
    share_true = on_candidates.mean(axis=1)
    complexity = np.array([h.complexity for h in space.hypotheses], dtype=np.float64)
    cuts = (float(np.quantile(complexity, 1 / 3)), float(np.quantile(complexity, 2 / 3)))
    # tier -> family -> hypotheses; a family is drawn first so that the many conjunctions do not crowd out
    # the single-idea families
    by_tier: dict[str, dict[str, list[int]]] = {t: {} for t in TIERS}
    for i, h in enumerate(space.hypotheses):
        if MIN_SHARE <= share_true[i] <= 1 - MIN_SHARE:
            by_tier[tier_of(h.complexity, cuts)].setdefault(h.family, []).append(i)
    rng = random.Random(seed)
    for families in by_tier.values():
        for pool in families.values():
            rng.shuffle(pool)

    probes = probe_set(0).points
    seen: set[bytes] = set()
    rules: list[WiltRule] = []
    turn = 0
    while len(rules) < n:
        live = [t for t in TIERS if by_tier[t]]
        if not live:
            raise ValueError(f"the grammar yields only {len(rules)} usable rules; ask for fewer")
        tier = TIERS[turn % len(TIERS)] if TIERS[turn % len(TIERS)] in live else live[0]
        turn += 1
        families = by_tier[tier]
        family = rng.choice(sorted(families))
        index = families[family].pop()
        if not families[family]:
            del families[family]
        h = space.hypotheses[index]
        extension = np.packbits(compile_rule(h.lambda_text).evaluate(probes)).tobytes()
        if extension in seen or not _identifiable(h.lambda_text):
            continue
        seen.add(extension)
        rules.append(
            WiltRule(
                split="generated",
                id=len(rules) + 1,
                text=h.lambda_text,
                tier=tier,
                meta={
                    "generator": GENERATOR,
                    "generator_version": GENERATOR_VERSION,
                    "seed": seed,
                    "family": h.family,
                    "complexity": h.complexity,
                    "hypothesis_space": space.version,
                },
            )
        )
    return rules


def _identifiable(text: str) -> bool:
    """Whether the ideal solver, playing the real game on this rule, ends with an equivalent guess."""
    from wason.tasks.wilt.game import FinalGuess, ProposeTest, WiltGame
    from wason.tasks.wilt.hypotheses import build_space, candidate_tests
    from wason.tasks.wilt.solver import IdealSolver

    points, typed = candidate_tests(0)
    solver = IdealSolver(build_space(0), points)
    game = WiltGame(compile_rule(text))
    while not game.done:
        choice = None if solver.should_guess() else solver.next_test()
        if choice is None:
            game.step(FinalGuess(solver.guess()))
            break
        obs = game.step(ProposeTest(typed[choice]))
        if obs.values is not None and obs.result is not None:
            solver.observe(obs.values, obs.result)
        else:  # the game refused the test: never propose it again
            solver.exclude(choice)
    return bool(game.verdict and game.verdict.equivalent)
