"""The ideal-scientist solver on the published WILT splits, played directly on the game (no store, no model).

Goal (issue "WILT depth"): the full split (50 episodes) in under 60 s on the 2-core reference machine,
hypothesis-space build included, with at least 48 of 50 rules found (lite: 10 of 10). Prints accuracy, tests
used, the build, truth-table and play times, the space size, and every rule it got wrong with its guess.

    python bench/bench_solver.py [--seed 0] [--outside dev|heldout|both]

``--outside`` also plays the rules of ``bench/data/wilt_outside.json``: 120 rules written for issue 16 before any
change to the solver, of the paper's kinds and ordinary mathematics; ``dev`` may be looked at while improving the
solver, ``heldout`` is measured at the end and reported apart.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from wason.tasks.wilt import FinalGuess, ProposeTest, WiltConfig, WiltGame, WiltRule, load_split
from wason.tasks.wilt.hypotheses import HypothesisSpace, build_space, candidate_tests
from wason.tasks.wilt.solver import IdealSolver, truth_table


def play(rule: WiltRule, space: HypothesisSpace, seed: int) -> WiltGame:
    points, labels = candidate_tests(seed)
    game = WiltGame(rule.program(), WiltConfig())
    solver = IdealSolver(space, points)
    while not solver.should_guess() and game.remaining > 0:
        index = solver.next_test()
        assert index is not None  # should_guess() is False only when some test is informative
        observation = game.step(ProposeTest(labels[index]))
        assert observation.values is not None and observation.result is not None
        solver.observe(observation.values, observation.result)
    game.step(FinalGuess(solver.guess()))
    return game


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the hypothesis space and candidate tests"
    )
    parser.add_argument(
        "--outside",
        choices=["none", "dev", "heldout", "both"],
        default="none",
        help="also play the out-of-split rules of bench/data/wilt_outside.json",
    )
    args = parser.parse_args()

    start = time.perf_counter()
    space = build_space(args.seed)
    built = time.perf_counter()
    points, _ = candidate_tests(args.seed)
    truth_table(space, points)
    tabled = time.perf_counter()
    print(
        f"space {space.version}: {len(space)} hypotheses ({space.generated} generated), "
        f"{points.shape[0]} candidate tests"
    )
    print(f"build {built - start:.2f} s, truth table {tabled - built:.2f} s")

    total_start = start
    outside = json.loads((Path(__file__).parent / "data" / "wilt_outside.json").read_text())
    parts = {"none": [], "dev": ["dev"], "heldout": ["heldout"], "both": ["dev", "heldout"]}[args.outside]
    for split in ("full", "lite", *parts):
        split_start = time.perf_counter()
        rules = (
            load_split(split)
            if split in ("full", "lite")
            else [WiltRule(split, i + 1, text) for i, text in enumerate(outside[split])]
        )
        games = [play(rule, space, args.seed) for rule in rules]
        elapsed = time.perf_counter() - split_start
        correct = sum(bool(g.verdict and g.verdict.equivalent) for g in games)
        tests = [len(g.tests) for g in games]
        print(
            f"{split}: {correct}/{len(rules)} correct, tests used mean {statistics.mean(tests):.2f} "
            f"(median {statistics.median(tests):g}, max {max(tests)}), play {elapsed:.2f} s"
        )
        tiers = sorted({rule.tier for rule in rules if rule.tier})
        for tier in tiers:
            used = [len(g.tests) for rule, g in zip(rules, games, strict=True) if rule.tier == tier]
            print(f"  {tier}: {len(used)} rules, tests used mean {statistics.mean(used):.2f}")
        if split == "full":
            print(
                f"full split wall time including the space build: {time.perf_counter() - total_start:.2f} s"
            )
        for rule, game in zip(rules, games, strict=True):
            if not (game.verdict and game.verdict.equivalent):
                print(
                    f"  FAILED {rule.key} {rule.text!r}: guessed {game.guess!r} after {len(game.tests)} tests"
                )


if __name__ == "__main__":
    main()
