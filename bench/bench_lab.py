"""The lab's reference solver against the random-experiment design, played through ``LabGame`` (no engine).

For each difficulty, ``--n`` domains (``drawing.generate(PRESETS[d], seed)``, seeds 0..n-1), each played by the
solver with the ``information`` design and with the ``random`` design, budget ``world.BUDGETS[d]``. Prints per
design: the mean prediction accuracy on the test, the exact-theory rate (the stated theory predicts every one of
200 wide probe experiments exactly as the hidden laws do), the share of games the learner calls identified, the
experiments used, the seconds per episode, and the ideal learner's curve (mean test accuracy after k
experiments of that design).

``--identify N``: only the information design on N domains per difficulty; counts the domains whose laws the
solver identifies exactly within the budget and, for the others, the kinds of the laws it got wrong (a
threshold, a conditional law, ...): what ``drawing.identifiability_problems`` lets through.

    python bench/bench_lab.py [--n 50] [--difficulty easy,medium,hard] [--seed 0]
    python bench/bench_lab.py --identify 1000 [--difficulty hard] [--budget 500] [--create]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass

from wason.tasks.lab.drawing import generate
from wason.tasks.lab.game import LabConfig, LabGame
from wason.tasks.lab.grammar import kind_of
from wason.tasks.lab.laws import Law
from wason.tasks.lab.learner import curve
from wason.tasks.lab.solver import LabSolverPlayer
from wason.tasks.lab.world import BUDGETS, PRESETS, Domain, trials


@dataclass(frozen=True)
class Result:
    accuracy: float
    exact: bool
    identified: bool
    experiments: int
    seconds: float
    curve: list[float]
    wrong: list[str]


def same_theory(domain: Domain, theory: tuple[Law, ...]) -> tuple[bool, list[str]]:
    """Whether ``theory`` predicts 200 wide probe experiments exactly as the domain's laws, and the true laws
    it does not hold (by kind, ``conditional`` marked)."""
    probes = trials(domain, 200, "bench-probe", wide=True)
    exact = all(
        all(a == b for a, b in zip(p.outcome(theory), p.outcome(domain.laws), strict=True)) for p in probes
    )
    wrong = [
        kind_of(law) + (" (conditional)" if law.condition is not None else "")
        for law in domain.laws
        if law not in theory
    ]
    return exact, wrong


def play(domain: Domain, design: str, budget: int, with_curve: bool, create: bool = False) -> Result:
    config = LabConfig(
        budget=budget, max_turns=budget + 10, curve=False, seed=domain.seed, allow_create=create
    )
    game = LabGame(domain, config)
    start = time.perf_counter()
    player = LabSolverPlayer(domain, config, design=design, seed=domain.seed)

    async def run() -> None:
        obs = game.start()
        while not game.done:
            move = await player.act(obs)
            obs = game.step(move.action)

    asyncio.run(run())
    seconds = time.perf_counter() - start
    metrics = game.outcome().metrics
    exact, wrong = same_theory(domain, player.learner.theory())
    points = curve(domain, game.history, game.test, config.tolerance) if with_curve else []
    return Result(
        accuracy=float(metrics["prediction_accuracy"] or 0.0),
        exact=exact,
        identified=player.learner.identified(),
        experiments=int(metrics["experiments"]),
        seconds=seconds,
        curve=points,
        wrong=[] if exact else wrong,
    )


def mean_curve(curves: list[list[float]], length: int) -> list[float]:
    # a game that stopped early keeps its last accuracy
    padded = [c + [c[-1]] * (length + 1 - len(c)) for c in curves if c]
    return [statistics.mean(c[k] for c in padded) for k in range(length + 1)]


def compare(difficulties: list[str], n: int, seed: int) -> None:
    for d in difficulties:
        budget = BUDGETS[d]
        print(f"== {d}: {n} domains, budget {budget}")
        curves = {}
        for design in ("information", "random"):
            results = [
                play(generate(PRESETS[d], seed + k), design, budget, with_curve=True) for k in range(n)
            ]
            print(
                f"{design:>11}: accuracy {statistics.mean(r.accuracy for r in results):.3f} "
                f"(min {min(r.accuracy for r in results):.2f}), "
                f"exact theory {sum(r.exact for r in results)}/{n}, "
                f"identified {sum(r.identified for r in results)}/{n}, "
                f"experiments {statistics.mean(r.experiments for r in results):.1f}, "
                f"{statistics.mean(r.seconds for r in results):.3f} s/episode"
            )
            curves[design] = mean_curve([r.curve for r in results], budget)
        print("   k  " + "  ".join(f"{k:>4}" for k in range(0, budget + 1, 5)))
        for design, points in curves.items():
            print(f"{design[:4]:>4}  " + "  ".join(f"{points[k]:.2f}" for k in range(0, budget + 1, 5)))
        sys.stdout.flush()


def identify(difficulties: list[str], n: int, seed: int, budget: int | None, create: bool) -> None:
    for d in difficulties:
        start = time.perf_counter()
        exact = 0
        causes: Counter[str] = Counter()
        failed: list[int] = []
        for k in range(n):
            r = play(generate(PRESETS[d], seed + k), "information", budget or BUDGETS[d], False, create)
            exact += r.exact
            if not r.exact:
                failed.append(seed + k)
                causes.update(r.wrong)
        minutes = (time.perf_counter() - start) / 60
        within = budget or BUDGETS[d]
        print(f"{d}: identified exactly within {within} experiments: {exact}/{n} ({minutes:.1f} min)")
        print(f"  true laws missed, by kind: {dict(causes.most_common())}")
        print(f"  first failing seeds: {failed[:20]}")
        sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--difficulty", default="easy,medium,hard")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--identify", type=int, default=0, metavar="N")
    parser.add_argument("--budget", type=int, default=None, help="with --identify: instead of BUDGETS[d]")
    parser.add_argument("--create", action="store_true", help="with --identify: allow creating objects")
    args = parser.parse_args()
    difficulties = [d.strip() for d in args.difficulty.split(",") if d.strip()]
    unknown = [d for d in difficulties if d not in PRESETS]
    if unknown:
        sys.exit(f"--difficulty: unknown {unknown}; choose from {', '.join(PRESETS)}")
    if args.identify:
        identify(difficulties, args.identify, args.seed, args.budget, args.create)
    else:
        compare(difficulties, args.n, args.seed)


if __name__ == "__main__":
    main()
