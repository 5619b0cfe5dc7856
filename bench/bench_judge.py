"""Benchmark the equivalence judge against a plain-Python per-point loop over the same probes.

For every published full-split rule, judge a correct guess (the rule's own text) on its full probe set, and
compare with a Python loop that calls the rule and the guess lambdas point by point (inputs passed as int when
integral, exceptions counted as False), which is how the reference harness checks a guess. The lambdas for the
loop come from our own rules data via ``eval``; this file is a benchmark, outside the product.

Also prints the probe-set build time and the time to judge the worst hostile guesses we know of.

Run: ``.venv/bin/python bench/bench_judge.py``
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from wason.sandbox import MAX_NODES, MAX_SLOW_OPS, compile_rule
from wason.tasks.wilt.judge import judge
from wason.tasks.wilt.probes import clear_probe_caches, probe_set

ROOT = Path(__file__).resolve().parents[1]
RULE_FILES = (
    ROOT / "src" / "wason" / "tasks" / "wilt" / "data" / "rules.json",
    ROOT.parent / "shared" / "reference" / "wilt" / "rules.json",
)


def _rules() -> list[str]:
    for path in RULE_FILES:
        if path.exists():
            return [r["rule"] for r in json.loads(path.read_text())["splits"]["full"]]
    raise SystemExit("no rules.json found")


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _python_judge(
    rule: Callable[..., object], guess: Callable[..., object], points: list[tuple[float, ...]]
) -> int:
    disagree = 0
    for x, y, z in points:
        try:
            r = bool(rule(x, y, z))
        except Exception:
            r = False
        try:
            g = bool(guess(x, y, z))
        except Exception:
            g = False
        disagree += r != g
    return disagree


def _as_python(v: float) -> float:
    return int(v) if v.is_integer() else v


HOSTILE = {
    "slow-op chain": " + ".join(
        f"(x + {k}.5) ** 1.5 + math.log(y + {k + 300})" for k in range(MAX_SLOW_OPS // 2)
    ),
    "pow overflow band": " + ".join(
        f"(2 + x * 1e-13 + {k}e-12) ** 1023.99999999" for k in range(MAX_SLOW_OPS)
    ),
    "round band": " + ".join(f"round(x * 1e15 + {k}, 1)" for k in range(MAX_SLOW_OPS)),
    "exp band": " + ".join(f"math.exp(709.78271289 + x * 1e-14 + {k}e-13)" for k in range(MAX_SLOW_OPS)),
    "float ** float": " + ".join(f"(x + {k}) ** y" for k in range(MAX_SLOW_OPS)),
    "and/or/if chain": " and ".join(f"(x if y > {k} else z) or {k} < x ** 2 < {k + 1}" for k in range(12)),
    "nested comprehensions": "all(all(all(a + b + c > 0 for a in (x, y, z)) for b in (x, y, z)) for c in (x, y, z))",
    "300-node min": "min(" + ", ".join(["x", "y", "z"] * 99) + ") > 0",
    "gcd of 120 ints": "math.gcd(" + ", ".join(["int(x)", "int(y)", "int(z)"] * 40) + ") > 1",
    "10**10**10": "10 ** 10 ** 10 > x",
    "big shifts": " + ".join(f"(1 << (x * {k} + 100000)) >> {k}" for k in range(1, 30)),
}


def main() -> None:
    rules = _rules()

    clear_probe_caches()
    t0 = time.perf_counter()
    base = probe_set(0)
    build_cold = time.perf_counter() - t0
    print(f"probe set: {base.n:,} points, {base.version}; cold build {build_cold * 1000:.1f} ms")
    clear_probe_caches()
    t0 = time.perf_counter()
    judge("x < y < z and z < 500", "x < y < z", seed=0)
    print(
        f"first judge with boundary constants (cold caches, includes build): {(time.perf_counter() - t0) * 1000:.1f} ms"
    )

    ours_total = python_total = 0.0
    ratios: list[tuple[float, int]] = []
    for k, text in enumerate(rules, start=1):
        program = compile_rule(text)
        verdict = judge(text, text)  # warm the probe set for this rule's constants
        assert verdict.equivalent, text
        probes = probe_set(0, [c for v in program.constants for c in (v, -v)])
        points = [tuple(_as_python(v) for v in row) for row in probes.points.tolist()]
        fn = eval(text, {"math": math})  # our own published data, benchmark only
        ours = _best(lambda text=text: judge(text, text), 5)
        python = _best(lambda fn=fn, points=points: _python_judge(fn, fn, points), 1)
        ours_total += ours
        python_total += python
        ratios.append((python / ours, k))
    print(f"judge a correct guess, all {len(rules)} full-split rules, full probe set each:")
    print(f"  wason judge (compile + evaluate rule and guess + verdict): {ours_total * 1000:8.1f} ms total")
    print(f"  per-point Python loop (rule and guess lambdas):          {python_total * 1000:8.1f} ms total")
    print(f"  ratio {python_total / ours_total:.1f}x overall (goal >= 20x)")
    med = statistics.median(r for r, _ in ratios)
    worst = min(ratios)
    print(f"  per rule: median {med:.1f}x, slowest rule {worst[1]} at {worst[0]:.1f}x")

    print("hostile guesses against rule 2 (probe set warm, best of 3):")
    worst = 0.0
    for name, text in HOSTILE.items():
        judge(rules[1], text)
        t = _best(lambda text=text: judge(rules[1], text), 3)
        v = judge(rules[1], text)
        status = (
            f"rejected: {v.rejection}"
            if not v.accepted
            else f"{compile_rule(text).node_count}/{MAX_NODES} nodes"
        )
        print(f"  {name:24s} {t * 1000:8.1f} ms  ({status})")
        worst = max(worst, t)
    print(f"  worst hostile guess: {worst * 1000:.1f} ms")


if __name__ == "__main__":
    main()
