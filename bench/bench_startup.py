"""Start-up of wason (issues 39, 52, 53): the CPU (user+sys) and wall seconds of each command, with and without a
plugin family installed, measured in one run; then the wall time from starting `wason serve` to its first answer
of `/` (the home page, built by a page worker) and of `/api/families`.

The plugin is a throwaway package written to a temporary folder: a copy of the toy family of the tests
(``tests/families/toy``) named ``slowtoy``, whose module imports pandas and sympy at its top as many research
packages do (about 0.8 s here), with the light card of ``docs/families.md`` beside it. It is "installed" the way
``importlib.metadata`` finds any installed package: a ``slowtoy-0.dist-info`` folder holding its entry points,
the folder put on the command's ``PYTHONPATH``. Its command-line tools (``wason slowtoy``) make ``wason --help``
list it. Each command runs ``repeats`` times (default 5); the table shows the median. CPU is the children's
``resource.getrusage`` before and after each run.

    .venv-dev/bin/python bench/bench_startup.py [repeats]

Goal (issue 53): every `wason COMMAND --help` and `wason runs` on an empty store under 0.3 s of CPU, plugin or not.

Measured (2 shared cores, median of 3, CPU s without / with the plugin): before the cards (issue 52), `wason
--help` 0.10 / 2.08, `wason eval --help` 1.31 / 2.11, `wason play --help` 1.27 / 1.94, `wason runs` 0.79 / 0.78;
with them, 0.11 / 0.11, 0.15 / 0.16, 0.14 / 0.14 and 0.67 / 0.65 (SQLAlchemy's import is most of what is left).
"""

from __future__ import annotations

import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

WASON = str(Path(sys.executable).with_name("wason"))
TOY = Path(__file__).resolve().parent.parent / "tests" / "families" / "toy" / "__init__.py"

_CARD = '''"""The light card of the slowtoy family: what `wason --help` shows of it, without importing it."""

CARD = {
    "title": "Toy threshold",
    "summary": "find the hidden threshold t of x >= t: probes, then one guess",
    "commands": "slowtoy tools",
    "playable": True,
}
'''

_TOOLS = """

    commands = "slowtoy tools"

    def add_commands(self, parser: Any) -> None:
        parser.add_subparsers(dest="slowtoy_command", required=True).add_parser("hello", help="say hello")

    def run_command(self, args: Any, write: Any) -> int:
        write("hello")
        return 0
"""


def write_plugin(where: Path) -> None:
    """The slowtoy package and its dist-info under ``where`` (see the module's docstring)."""
    package = where / "slowtoy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    source = TOY.read_text()
    source = source.replace('name = "toy"', 'name = "slowtoy"')
    source = source.replace("\n\nFAMILY = ToyFamily()", _TOOLS + "\n\nFAMILY = ToyFamily()")
    source = source.replace(
        "import random\n", "import random\n\nimport pandas  # noqa: F401\nimport sympy  # noqa: F401\n"
    )
    (package / "family.py").write_text(source)
    (package / "card.py").write_text(_CARD)
    info = where / "slowtoy-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: slowtoy\nVersion: 0\n")
    (info / "entry_points.txt").write_text(
        "[wason.tasks]\nslowtoy = slowtoy.family:FAMILY\n\n[wason.cards]\nslowtoy = slowtoy.card:CARD\n"
    )


def timed(argv: list[str], cwd: str, env: dict[str, str]) -> tuple[float, float]:
    """CPU seconds (user+sys) and wall seconds of one run of ``argv``, its output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    begun = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - begun
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def first_answer(path: str, db: str) -> float:
    """Seconds from starting ``wason serve`` to its first 200 for ``path``."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    begun = time.perf_counter()
    server = subprocess.Popen([WASON, "serve", "--db", db, "--port", str(port), "--log-level", "warning"])
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as reply:
                    reply.read()
                    if reply.status == 200:
                        return time.perf_counter() - begun
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError("wason serve ended") from None
                time.sleep(0.01)
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "empty.db")
        plugin = Path(tmp) / "plugin"
        plugin.mkdir()
        write_plugin(plugin)
        plain = dict(os.environ)
        with_plugin = dict(
            plain, PYTHONPATH=os.pathsep.join(filter(None, [str(plugin), plain.get("PYTHONPATH")]))
        )
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "import wason": [sys.executable, "-c", "import wason"],
            "wason --version": [WASON, "--version"],
            "wason --help": [WASON, "--help"],
            "wason eval --help": [WASON, "eval", "--help"],
            "wason eval wilt --help": [WASON, "eval", "wilt", "--help"],
            "wason play --help": [WASON, "play", "--help"],
            "wason runs (empty store)": [WASON, "runs", "--db", db],
        }
        times: dict[str, dict[str, tuple[float, float]]] = {}
        for name, argv in cases.items():
            runs: dict[str, list[tuple[float, float]]] = {"plain": [], "plugin": []}
            for _ in range(repeats):  # alternated, so that both see the same machine
                runs["plain"].append(timed(argv, tmp, plain))
                runs["plugin"].append(timed(argv, tmp, with_plugin))
            times[name] = {
                k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v))
                for k, v in runs.items()
            }
        served = {path: [first_answer(path, db) for _ in range(repeats)] for path in ("/", "/api/families")}
    base = times["python -c pass"]["plain"][0] or 1e-9
    print(f"median of {repeats}; plugin: slowtoy (imports pandas and sympy), with its card")
    print(f"{'command':26} {'CPU s':>7} {'x python':>9} {'wall s':>7} | {'plugin CPU s':>12} {'wall s':>7}")
    for name, t in times.items():
        (cpu, wall), (pcpu, pwall) = t["plain"], t["plugin"]
        print(f"{name:26} {cpu:7.3f} {cpu / base:9.1f} {wall:7.3f} | {pcpu:12.3f} {pwall:7.3f}")
    print(f"{'wason serve, first answer of':28} {'median s':>9} {'max s':>7}")
    for path, seconds in served.items():
        print(f"{path:28} {statistics.median(seconds):9.2f} {max(seconds):7.2f}")


if __name__ == "__main__":
    main()
