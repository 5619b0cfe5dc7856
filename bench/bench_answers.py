"""Benchmark the AIW answer parser on huge and hostile replies: its time must grow linearly with the reply.

For each hostile reply shape (the ones ``tests/tasks/aiw/test_answers.py::test_huge_replies`` checks for the right
result), time the parse at a base size and at 8 times that size in the same run, and print the ratio: about
8 means linear time, about 64 quadratic; a catastrophic regular expression would not finish. Also prints the
cost per 100 kB next to that of an ordinary reply, and the slowest shape.

Run: ``.venv-dev/bin/python bench/bench_answers.py``
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from wason.tasks.aiw.answers import parse_answer, parse_symbolic

FILLER = "Alice has 3 brothers and 6 sisters. "
SCALE = 8

# name -> reply of about ``n`` repeats of its hostile unit, and the parser that reads it
SHAPES: dict[str, tuple[Callable[[int], str], Callable[[str], object]]] = {
    "filler, then a marker": (lambda n: FILLER * n + "### Answer: 7", parse_answer),
    "filler, no marker": (lambda n: FILLER * n, parse_answer),
    "marker, then filler words": (lambda n: "### Answer: " + (FILLER * n).replace(".", " and"), parse_answer),
    "only #": (lambda n: "#" * (36 * n), parse_answer),
    "marker, then (((": (lambda n: "### Answer: " + "(" * (36 * n), parse_answer),
    "marker, then one long number": (lambda n: "### Answer: " + "7" * (36 * n), parse_answer),
    "symbolic, deep parentheses": (
        lambda n: "### Answer: " + "(" * (18 * n) + "M" + ")" * (18 * n),
        parse_symbolic,
    ),
    "symbolic, long sum": (lambda n: "### Answer: " + "M + " * (9 * n) + "1", parse_symbolic),
    "symbolic, filler then M + 1": (lambda n: "### Answer: " + FILLER * n + "M + 1", parse_symbolic),
    # a list is followed back from its final expression (a hedge is ambiguous): one answer written two ways
    "symbolic, a list of one answer": (
        lambda n: "### Answer: " + "M + 1, 1 + M, " * (3 * n) + "M + 1",
        parse_symbolic,
    ),
}


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    base = 3000  # about 100 kB, the size the test uses
    ordinary = "Alice has 3 brothers and 6 sisters, so each brother has 7 sisters.\n### Answer: 7"
    per_ordinary = _best(lambda: parse_answer(ordinary), 200) / len(ordinary)
    print(f"ordinary reply ({len(ordinary)} chars): {per_ordinary * 1e5 * 1000:.2f} ms per 100 kB")
    print(f"{'shape':32s} {'chars':>9s} {'ms':>9s} {'ms/100kB':>9s} {f'x{SCALE} size':>10s}")
    worst = (0.0, "")
    for name, (make, parse) in SHAPES.items():
        small, large = make(base), make(base * SCALE)
        t_small = _best(lambda parse=parse, small=small: parse(small), 5)
        t_large = _best(lambda parse=parse, large=large: parse(large), 3)
        ratio = t_large / t_small
        per = t_small / len(small) * 1e5 * 1000
        print(f"{name:32s} {len(small):9,d} {t_small * 1000:9.2f} {per:9.2f} {ratio:9.1f}x")
        worst = max(worst, (ratio, name))
    print(f"time ratio at {SCALE}x the size: worst {worst[0]:.1f}x ({worst[1]}); linear is about {SCALE}x")


if __name__ == "__main__":
    main()
