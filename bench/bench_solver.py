"""The WILT solver on the published splits, the generated split and our out-of-split rules, played directly
on the game (no store, no model).

Two stopping rules are played side by side, so their times are ratios measured in one run:

* ``confident``: the ideal solver of ``wason.tasks.wilt.elimination`` alone, guessing once one listed hypothesis holds
  99% of the weight (the solver before issue 16);
* ``falsify``: the scientist of ``wason.tasks.wilt.scientist`` (the default player), which spends every test,
  the ones left after the ideal solver would have guessed going to breaking its hypothesis over a space widened
  on the evidence.

Prints, per split and stopping rule: rules found, tests used, play time and time per game; then every rule it
got wrong with its guess. The space builds are timed apart.

    python bench/bench_solver.py [--seed 0] [--outside dev|heldout|both|none] [--generated N] [--stop both]

``--outside`` also plays the rules of ``bench/data/wilt_outside.json``: 120 rules written for issue 16 before any
change to the solver, of the paper's kinds and ordinary mathematics; ``dev`` may be looked at while improving the
solver, ``heldout`` is measured at the end and reported apart (it was, once: 28/36 at ed00639), ``heldout2`` (36
rules written after that measurement and before any later change) likewise (31/36 at 7ac9670), and ``heldout3``
(36 more, written after that: 32/36 at 30f0216), ``heldout4`` (36 more: 31/36 at 30f0216) and ``heldout5`` (36
more, written after that: 28/36 at 30f0216). The changes after 071f7ee were chosen on all of these sets
together, so none of them is unseen any more. ``heldout6`` and ``heldout7`` (48 rules each) were written on
2026-11-26 by helpers that never read the solver, each before any later change: measured once each, 40/48 at
8191ef3 and 36/48 at e45f70b; the changes after e45f70b (b5cc753, a110809) were chosen on all the sets above,
and ``heldout8`` (48 more, written before them) gave 36/48 at a110809, measured once; ``heldout9`` (48 more,
written after the last change to what the solver plays) gave 36/48 at 89b4ff5, measured once. The hunting and
spelling changes of 2026-11-26 were chosen on all of these; ``heldout10`` (48) and ``heldout11`` (47) were written
by another helper before those changes, kept outside the project, and measured once after them: 43/48 and 37/47
(76/95 for the commit before the changes). ``heldout12`` and ``heldout13`` (48 each), written by a sixth helper
and kept outside the project, were measured once after the session's last change to what the solver plays: 42/48
and 39/48 at 16612ca (75/96 for the session's starting commit). ``heldout14`` and ``heldout15`` (48 each), written
by a seventh helper and kept outside the project, were measured once at b5d3728: 38/48 and 32/48 (71/96 for
0123aed, the commit before the changes of that session); ``heldout16`` and ``heldout17`` (48 each), written by an
eighth helper and kept outside the project, were measured once after that session's last change to what the
solver plays: 40/48 and 32/48 at 230d5cb (69/96 for 0123aed). ``heldout18`` and ``heldout19`` (48 each), written by
a ninth helper and kept outside the project, were measured once after the whole parts: 42/48 and 38/48 at
7ef21af (74/96 for 0123aed, 75/96 for 4b8fe5c). ``heldout20`` and ``heldout21`` (48 each), written by a tenth
helper and kept outside the project, were measured once after the fitted relations: 33/48 and 37/48 at 3e6c5da
(69/96 for c070704, the commit before them). ``heldout22`` and ``heldout23`` (48 each), written by an eleventh
helper and kept outside the project, were measured once after the residues, counts of conditions and spread:
44/48 and 46/48 at e9de0f9 (86/96 for 2f233f9, the commit before them). ``heldout24`` and ``heldout25`` (48 each),
written by a twelfth helper and kept outside the project, were measured once at ba6820d, whose play is e017841's
(only its speed changed): 38/48 and 38/48. ``heldout26`` and ``heldout27`` (48 each), written by a thirteenth
helper and kept outside the project, were measured once after that session's last change to what the solver plays:
42/48 and 39/48 at b81bd9f (80/96 for e017841, the session's starting commit). ``heldout28`` and ``heldout29``
(48 each), written by a fourteenth helper and kept outside the project, were measured once at 3342ae6 (whose play
is b81bd9f's): 38/48 and 37/48 (72/96 for e017841). ``heldout30`` and ``heldout31`` (48 each), written by a
fifteenth helper and kept outside the project, were measured once after that session's last change to what the
solver plays: 43/48 and 40/48 at ff6143f (74/96 for e017841). ``heldout32`` and ``heldout33`` (48 each), written by
a sixteenth helper and kept outside the project, were measured once at dbf515b, before any change of the next
session: 42/48 and 41/48. ``heldout34`` and ``heldout35`` (48 each), written by a seventeenth helper and kept outside
the project, were measured once after that session's last change to what the solver plays: 48/48 and 44/48 at
b9e8a98 (89/96 for dbf515b). ``heldout36`` and ``heldout37`` (48 each), written by an eighteenth helper and kept
outside the project, were measured once at 23e0b64, before any change of the next session: 43/48 and 37/48.
``heldout38`` to ``heldout41`` (48 each), written by a nineteenth and a twentieth helper and kept outside the
project, were measured once after that session's last addition to what the solver plays: 43/48, 36/48, 40/48 and
36/48 at 9d4271b (151/192 for 23e0b64; 156/192 for 4a5585a, which reverted one change). ``heldout42`` to
``heldout47`` (48 each), written by a twenty-first to a twenty-third helper and kept outside the project, were
measured once after the next session's last change to what the solver plays: 45/48, 36/48, 38/48, 35/48, 44/48 and
38/48 at 923e491 (236/288; 234/288 for b15f88d, the session's starting commit).
``--generated N`` plays the first N rules of the generated split (seed 0).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from wason.tasks.wilt import FinalGuess, ProposeTest, WiltConfig, WiltGame, WiltRule, load_split
from wason.tasks.wilt.built_space import BuiltSpace
from wason.tasks.wilt.elimination import truth_table
from wason.tasks.wilt.generate import generate_split
from wason.tasks.wilt.listed_space import HypothesisSpace, build_space, candidate_tests
from wason.tasks.wilt.scientist import Scientist, label

OUTSIDE: dict[str, list[str]] = {
    key: value
    for key, value in json.loads((Path(__file__).parent / "data" / "wilt_outside.json").read_text()).items()
    if isinstance(value, list)
}
SETS = tuple(OUTSIDE)  # dev, heldout, heldout2, ...


def play(rule: WiltRule, space: HypothesisSpace, seed: int, falsify: bool, built: BuiltSpace) -> WiltGame:
    points, _ = candidate_tests(seed)
    game = WiltGame(rule.program(), WiltConfig())
    solver = Scientist(space, points, falsify=falsify, built=built)
    while game.remaining > 0:
        test = solver.next_test()
        if test is None:
            break
        observation = game.step(ProposeTest(tuple(label(v) for v in test)))
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
        choices=["none", *SETS, "both", "all"],
        default="none",
        help="also play the out-of-split rules of bench/data/wilt_outside.json",
    )
    parser.add_argument("--generated", type=int, default=0, help="also play this many generated rules")
    parser.add_argument("--stop", choices=["both", "falsify", "confident"], default="both")
    args = parser.parse_args()

    start = time.perf_counter()
    space = build_space(args.seed)
    built_at = time.perf_counter()
    points, _ = candidate_tests(args.seed)
    truth_table(space, points)
    tabled = time.perf_counter()
    grown = BuiltSpace(args.seed)
    grown_at = time.perf_counter()
    print(
        f"listed space {space.version}: {len(space)} hypotheses ({space.generated} generated), "
        f"{points.shape[0]} candidate tests; built space: {len(grown.grammar.terms)} terms, "
        f"{len(grown.grammar.atoms)} atoms"
    )
    print(
        f"build {built_at - start:.2f} s, truth table {tabled - built_at:.2f} s, "
        f"built space {grown_at - tabled:.2f} s"
    )

    parts = {"none": [], "both": ["dev", "heldout"], "all": list(SETS)}.get(args.outside, [args.outside])
    splits: list[tuple[str, list[WiltRule]]] = [("full", load_split("full")), ("lite", load_split("lite"))]
    if args.generated:
        splits.append(("generated", generate_split(seed=0, n=args.generated)))
    for part in parts:
        splits.append((part, [WiltRule(part, i + 1, text) for i, text in enumerate(OUTSIDE[part])]))
    stops = ["confident", "falsify"] if args.stop == "both" else [args.stop]
    for name, rules in splits:
        per_stop = {}
        for stop in stops:
            split_start = time.perf_counter()
            games = [play(rule, space, args.seed, stop == "falsify", grown) for rule in rules]
            elapsed = time.perf_counter() - split_start
            per_stop[stop] = elapsed
            correct = sum(bool(g.verdict and g.verdict.equivalent) for g in games)
            tests = [len(g.tests) for g in games]
            print(
                f"{name} [{stop}]: {correct}/{len(rules)} correct, tests used mean {statistics.mean(tests):.2f} "
                f"(max {max(tests)}), play {elapsed:.2f} s ({1000 * elapsed / len(rules):.0f} ms a game)"
            )
            for rule, game in zip(rules, games, strict=True):
                if not (game.verdict and game.verdict.equivalent):
                    print(f"  FAILED {rule.key} {rule.text!r}: guessed {game.guess!r}")
        if len(per_stop) == 2:
            print(f"{name}: falsify / confident time {per_stop['falsify'] / per_stop['confident']:.1f}x")


if __name__ == "__main__":
    main()
