"""Benchmark the WILT judge: verdicts decided over the typeable domain against an earlier judge, and the judge
against a plain-Python per-point loop over the same probes.

**Verdicts** (the default). Judge every pair of the judge corpus (``tests/tasks/wilt/data/judge_corpus.jsonl``: range
caps, carve-outs, boundary shifts, equivalent algebra, the sandbox's operators), the reference corpus
(``tests/tasks/wilt/reference_verdicts.jsonl``) and the 50 published rules against themselves, once with this checkout's
judge and once with the judge of ``--against REV`` (default ``37fe741``, the sampled judge before z3), each in a
fresh process of its own in the same run. Prints, for each judge, the median, p99 and largest time per verdict
(the first verdict, which imports and builds the probe set, left out), the share of verdicts of each kind
(proved, refuted, sampled; the earlier judge's are all sampled), how many of the corpus's expected verdicts each
gets right, and the pairs on which the two disagree. The earlier judge is read from ``git archive REV``.

**Loop** (``--loop``). For every published full-split rule, judge a correct guess (the rule's own text) on its
full probe set, and compare with a Python loop that calls the rule and the guess lambdas point by point (inputs
passed as int when integral, exceptions counted as False), which is how the reference harness checks a guess.
The lambdas for the loop come from our own rules data via ``eval``; this file is a benchmark, outside the
product. Also prints the probe-set build time and the time to judge the worst hostile guesses we know of.

Run: ``.venv-dev/bin/python bench/bench_judge.py [--against REV] [--loop]``
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
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


# Run in a child process with the judge under test first on sys.path: prints one JSON line per verdict.
_CHILD = """
import json, sys, time
from wason.tasks.wilt.judge import judge
for line in sys.stdin:
    rule, guess = json.loads(line)
    t0 = time.perf_counter()
    v = judge(rule, guess)
    seconds = time.perf_counter() - t0
    method = getattr(v, "method", None) or ("rejected" if not v.accepted else "sampled")
    print(json.dumps([v.equivalent, method, seconds]), flush=True)
"""


def _pairs() -> list[tuple[str, str, bool | None]]:
    data = ROOT / "tests" / "tasks" / "wilt"
    out: list[tuple[str, str, bool | None]] = []
    for row in _jsonl(data / "data" / "judge_corpus.jsonl"):
        out.append((row["rule"], row["guess"], bool(row["correct"])))
    for row in _jsonl(data / "reference_verdicts.jsonl"):
        out.append((row["rule"], row["guess"], None))
    out += [(rule, rule, True) for rule in _rules()]
    return out


def _jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _judged(src: Path, pairs: list[tuple[str, str, bool | None]]) -> list[tuple[bool, str, float]]:
    feed = "".join(json.dumps([rule, guess]) + "\n" for rule, guess, _ in pairs)
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], input=feed, capture_output=True, text=True, env=env, check=True
    )
    return [tuple(json.loads(line)) for line in done.stdout.splitlines()]  # type: ignore[misc]


def _checkout(rev: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def verdicts(against: str) -> None:
    pairs = _pairs()
    with tempfile.TemporaryDirectory() as tmp:
        judges = {"this checkout": ROOT / "src", f"judge at {against}": _checkout(against, Path(tmp))}
        results = {name: _judged(src, pairs) for name, src in judges.items()}
    expected = [(i, want) for i, (_, _, want) in enumerate(pairs) if want is not None]
    print(f"{len(pairs)} verdicts: {len(expected)} with a known answer (judge corpus and published rules)")
    for name, got in results.items():
        times = sorted(seconds for _, _, seconds in got[1:])
        p99 = times[min(len(times) - 1, math.ceil(0.99 * len(times)) - 1)]
        kinds = Counter(method for _, method, _ in got)
        judged = sum(n for m, n in kinds.items() if m != "rejected")
        shares = ", ".join(
            f"{m} {kinds[m]} ({kinds[m] / judged:.1%})" for m in ("proved", "refuted", "sampled") if kinds[m]
        )
        right = sum(got[i][0] == want for i, want in expected)
        print(f"  {name}:")
        print(
            f"    per verdict: median {statistics.median(times) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
            f"largest {times[-1] * 1000:.1f} ms"
        )
        print(f"    of {judged} judged: {shares}; {kinds['rejected']} rejected by the sandbox")
        print(f"    right on {right} of {len(expected)} known answers")
    ours, theirs = results.values()
    changed = [i for i in range(len(pairs)) if ours[i][0] != theirs[i][0]]
    print(f"  verdicts that differ: {len(changed)}")
    for i in changed:
        rule, guess, want = pairs[i]
        known = "" if want is None else f", expected {'correct' if want else 'wrong'}"
        print(
            f"    {rule[16:]}  vs  {guess[16:]}: now {'correct' if ours[i][0] else 'wrong'} ({ours[i][1]}){known}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default="37fe741", help="the commit whose judge to compare with")
    parser.add_argument("--loop", action="store_true", help="also the judge against a per-point Python loop")
    args = parser.parse_args()
    verdicts(args.against)
    if args.loop:
        loop()


def loop() -> None:
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
