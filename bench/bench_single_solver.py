"""The one-variable solver (``--protocol single``) on our 12 single rules and on the rules of
``bench/data/wilt_single_outside.json``, played directly on the game (no store, no model), at several test budgets.

The prompt allows 5 tests. Five yes/no results split the games into at most 2**5 = 32 outcomes, so no strategy
can find more than 32 distinct rules with them; larger budgets show whether the solver finds every rule when
the evidence allows it. Prints, for each rule set and budget, how many rules it found (exactly equivalent on
1..100), how many it got approximately right, the mean tests used, and, with ``--wrong``, each miss and its guess.

    python bench/bench_single_solver.py [--budgets 5,10,20,30] [--outside dev|heldout|both|none] [--wrong]

``dev`` rules may be looked at while improving the solver; ``heldout`` rules are measured at the end and
reported apart. Both were written before any change to the one-variable solver.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from wason.tasks.wilt import WiltGame, WiltRunConfig
from wason.tasks.wilt.single import SINGLE_RULES, SingleSolverPlayer, compile_single


def play(rule: str, budget: int) -> WiltGame:
    config = WiltRunConfig(protocol="single", max_tests=budget).game_config()
    game = WiltGame(compile_single(rule), config)
    player = SingleSolverPlayer(max_tests=budget)
    seen = game.start()
    while not game.done:
        seen = game.step(asyncio.run(player.act(seen)).action)
    return game


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budgets", default="5,10,20,30", help="comma-separated test budgets")
    parser.add_argument("--outside", choices=["none", "dev", "heldout", "both"], default="both")
    parser.add_argument("--wrong", action="store_true", help="print every miss with its guess")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    sets = {"single": [r.rule for r in SINGLE_RULES]}
    outside = json.loads((Path(__file__).parent / "data" / "wilt_single_outside.json").read_text())
    for part in {"none": [], "dev": ["dev"], "heldout": ["heldout"], "both": ["dev", "heldout"]}[
        args.outside
    ]:
        sets[f"outside {part}"] = outside[part]
    for name, rules in sets.items():
        for budget in budgets:
            start = time.perf_counter()
            games = [play(rule, budget) for rule in rules]
            elapsed = time.perf_counter() - start
            found = sum(bool(g.verdict and g.verdict.equivalent) for g in games)
            approx = sum(bool(g.verdict and g.verdict.approximately_correct) for g in games)
            tests = sum(len(g.tests) for g in games) / len(games)
            print(
                f"{name:<16} {budget:>3} tests: found {found:>2}/{len(rules)}, approximately {approx:>2}, "
                f"mean tests {tests:4.1f}, {elapsed:5.2f} s"
            )
            if args.wrong:
                for rule, g in zip(rules, games, strict=True):
                    if not (g.verdict and g.verdict.equivalent):
                        print(f"    {rule}  ->  {g.guess}")


if __name__ == "__main__":
    main()
