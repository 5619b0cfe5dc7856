"""How long ``POST /api/sessions`` takes at the largest sizes each family allows (issue 35), against its default.

Setup: the app in this process (``httpx.AsyncClient`` over ``httpx.ASGITransport(app=create_app(db))``, a fresh
SQLite store in a temporary folder). For each family, the default configuration (``{}``) is started once to
load what its games import, then ``--repeat`` times; then each case of the contract test
(``tests/core/test_config_bounds.py``: every size field at its largest allowed value with the others at their
defaults, then all of them at once) ``--repeat`` times. A case that sets a seed gets a new one at each repeat,
so a generated split is drawn afresh (a client choosing seeds defeats the caches); each game is the last item
where the family draws one alone (a generated split draws every rule before it), else the one seed 0 draws.

Printed: the default's median, each case's first and median request, and the median's ratio to the default's;
then each family's slowest case by its median, and its slowest first request (which also pays what a process
builds once: the list grammar's hypothesis space takes about 2 s). Goal: every request under 2 s on this 2-core
machine. Numbers are printed, never asserted; the machine is shared.

    python bench/bench_bounds.py [--repeat 3] [--family NAME ...]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the contract test's cases: the largest values, found by validation

from tests.core.test_config_bounds import cases  # noqa: E402

from wason.core import registry  # noqa: E402
from wason.server import create_app  # noqa: E402


def _index(name: str, fields: dict[str, Any]) -> int | None:
    family = registry.get(name)
    config = family.config_type.model_validate({**fields, "player": "session", "model": None})
    count = family.item_count(config)
    return None if count is None else count - 1


async def _post(client: httpx.AsyncClient, name: str, fields: dict[str, Any]) -> float:
    index = _index(name, fields)
    body: dict[str, Any] = {"family": name, "config": fields}
    body.update({"index": index} if index is not None else {"seed": 0})
    begun = time.perf_counter()
    response = await client.post("/api/sessions", json=body)
    took = time.perf_counter() - begun
    if response.status_code != 201:
        raise SystemExit(f"{name} {fields}: {response.status_code} {response.text[:300]}")
    return took


def _fresh(fields: dict[str, Any], repeat: int) -> dict[str, Any]:
    """The case with a seed of its own at each repeat, where it sets one."""
    return {**fields, "seed": 1000 + repeat} if "seed" in fields else fields


async def bench(families: list[str], repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(str(Path(tmp) / "bench.db"))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=600) as client:
            print(f"{'family':<15} {'case':<60} {'first':>8} {'median':>8} {'ratio':>7}")
            slowest: dict[str, tuple[float, str]] = {}  # by median: what every request costs
            first_slowest: dict[str, float] = {}  # the first request also builds what a process builds once
            for name in families:
                await _post(client, name, {})  # imports and caches every game of the family needs
                default = statistics.median([await _post(client, name, {}) for _ in range(repeat)])
                print(f"{name:<15} {'default':<60} {'':>8} {default * 1000:>6.0f}ms {1:>6.1f}x")
                todo, skipped = cases(registry.get(name), slow=False)
                more, _ = cases(registry.get(name), slow=True)
                for label, fields in [*todo, *more]:
                    times = [await _post(client, name, _fresh(fields, r)) for r in range(repeat)]
                    median = statistics.median(times)
                    shown = label if len(label) <= 60 else label[:57] + "..."
                    print(
                        f"{name:<15} {shown:<60} {times[0] * 1000:>6.0f}ms {median * 1000:>6.0f}ms "
                        f"{median / default:>6.1f}x"
                    )
                    if median > slowest.get(name, (0.0, ""))[0]:
                        slowest[name] = (median, label)
                    first_slowest[name] = max(first_slowest.get(name, 0.0), times[0])
                for reason in skipped:
                    print(f"{name:<15} skipped {reason}")
            print()
            print("slowest case per family, by its median (goal: under 2 s), and the slowest first request")
            for name, (worst, label) in slowest.items():
                mark = "ok" if worst < 2.0 else "OVER"
                first = first_slowest[name]
                print(f"  {name:<15} {worst:>6.2f} s  {mark:<4}  first {first:>5.2f} s  {label[:70]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3, help="requests per case (default 3)")
    parser.add_argument("--family", action="append", help="only these families (default all)")
    args = parser.parse_args()
    families = args.family or [f.name for f in registry.families()]
    asyncio.run(bench(families, args.repeat))


if __name__ == "__main__":
    main()
