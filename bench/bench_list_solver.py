"""The reference list solver over its space (``solver_space``: the list grammar plus compound properties,
recurrences, digit relations and aggregates), played directly with code labels (no game, store or model).

For each rule: three generated examples (``generate_examples``, seed 0), then the solver proposes five lists a
round, the rule labels them, until the solver is ready (at most 19 rounds). Success is the stated predicate being
equivalent to the rule on the judge's probe set (``judge_list_predicate``); the quiz is ten held-out lists
(``quiz_lists``, half accepted) answered with ``ListSolver.predict``. Prints success, quiz accuracy, rounds,
stated-hypothesis consistency and time per game, then every failure.

Rule sets: ``generated`` (``generate_rules``, the grammar's own rules: all inside the solver's space) and
``published`` (the 59 candidate rules).

    python bench/bench_list_solver.py [--rules generated|published|both|pilot|outside] [--n 60] [--seed 0]
        [--part dev|heldout|both]

``outside`` plays ``bench/data/lists_outside.json``: 44 rules written for issue 16 before any change to the
solver (32 dev, 12 held out, reported apart; ``--part dev`` plays the dev rules only).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from wason.tasks.lists.examples import generate_examples
from wason.tasks.lists.language import compile_list_predicate
from wason.tasks.lists.rules import ListRule, load_split
from wason.tasks.lists.solver import ListSolver, SolverHypothesis

try:
    from wason.tasks.lists.generate import generate_rules
    from wason.tasks.lists.hypotheses import Hypothesis
    from wason.tasks.lists.judge import judge_list_predicate, quiz_lists
    from wason.tasks.lists.solver_space import solver_space
except ImportError as exc:  # the space, generator and judge are written alongside; say what is missing
    sys.exit(f"bench_list_solver needs the list grammar, generator and judge ({exc}); nothing to run yet.")


@dataclass(frozen=True)
class Result:
    rule: ListRule
    stated: SolverHypothesis
    rounds: int
    seconds: float
    equivalent: bool
    agreement: float
    quiz: float


def play(rule: ListRule, space: Sequence[Hypothesis], seed: int) -> Result:
    examples = generate_examples(rule, seed=0)
    start = time.perf_counter()
    solver = ListSolver(space, examples, seed=seed)
    while not solver.ready:
        tests = solver.propose()
        solver.observe(tests, [rule.accepts(list(xs)) for xs in tests])
    stated = solver.hypothesis()
    seconds = time.perf_counter() - start
    tested = [xs for tests, _ in solver.history for xs in tests]
    quiz = quiz_lists(rule.accepts, seed=seed, key=rule.key, positives=examples, exclude=tested)
    answers = solver.predict([xs for xs, _ in quiz])
    verdict = judge_list_predicate(rule.accepts, stated.source, seed=seed, key=rule.key, positives=examples)
    return Result(
        rule=rule,
        stated=stated,
        rounds=solver.rounds_used,
        seconds=seconds,
        equivalent=verdict.equivalent,
        agreement=verdict.agreement,
        quiz=sum(a == label for a, (_, label) in zip(answers, quiz, strict=True)) / max(1, len(quiz)),
    )


def report(name: str, results: list[Result]) -> None:
    rounds = [r.rounds for r in results]
    seconds = [r.seconds for r in results]
    print(
        f"{name}: {sum(r.equivalent for r in results)}/{len(results)} equivalent, "
        f"quiz accuracy {statistics.mean(r.quiz for r in results):.3f}, "
        f"probe agreement {statistics.mean(r.agreement for r in results):.3f}, "
        f"stated consistent {sum(r.stated.consistent for r in results)}/{len(results)}"
    )
    print(
        f"  rounds mean {statistics.mean(rounds):.2f} (median {statistics.median(rounds):g}, max {max(rounds)}); "
        f"time per game mean {statistics.mean(seconds):.3f} s (max {max(seconds):.3f} s), "
        f"total {sum(seconds):.1f} s"
    )
    for r in results:
        if not r.equivalent:
            print(
                f"  MISSED {r.rule.key} {r.rule.text[:60]!r}: stated {r.stated.text[:70]!r} "
                f"(consistent={r.stated.consistent}, rounds {r.rounds}, agreement {r.agreement:.3f}, "
                f"quiz {r.quiz:.2f})"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--rules", choices=("generated", "published", "both", "pilot", "outside"), default="both"
    )
    parser.add_argument("--n", type=int, default=60, help="how many generated rules")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated split, solver and judge")
    parser.add_argument(
        "--part", choices=("dev", "heldout", "both"), default="both", help="outside rules to play"
    )
    args = parser.parse_args()

    start = time.perf_counter()
    space = solver_space()
    print(f"space: {len(space)} hypotheses, built in {time.perf_counter() - start:.2f} s")
    if args.rules in ("generated", "both"):
        rules = generate_rules(args.seed, args.n)
        report(f"generated (seed {args.seed}, n {len(rules)})", [play(r, space, args.seed) for r in rules])
    if args.rules in ("published", "both"):
        results = []
        for rule in load_split("all"):
            try:
                results.append(play(rule, space, args.seed))
            except ValueError as exc:  # no three examples can be generated for a few published rules
                print(f"  skipped {rule.key}: {exc}")
        report("published (all)", results)
    if args.rules == "pilot":
        report("pilot", [play(r, space, args.seed) for r in load_split("pilot")])
    if args.rules == "outside":
        data = json.loads((Path(__file__).parent / "data" / "lists_outside.json").read_text())
        for part in ("dev", "heldout") if args.part == "both" else (args.part,):
            rules = [
                ListRule(split=part, id=i + 1, text=text, predicate=_predicate(text), source=text)
                for i, text in enumerate(data[part])
            ]
            report(f"outside {part}", [play(r, space, args.seed) for r in rules])


def _predicate(text: str) -> Callable[[Sequence[int]], bool]:
    compiled = compile_list_predicate(text)
    return lambda xs: bool(compiled(list(xs)))


if __name__ == "__main__":
    main()
