"""Start-up CPU of wason (issue 39): user+sys seconds of each command, and its ratio to `python -c pass`,
measured in one run. Run: `.venv/bin/python bench/bench_startup.py [repeats]`."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

WASON = str(Path(sys.executable).with_name("wason"))


def cpu(argv: list[str], cwd: str) -> float:
    pid = os.fork()
    if pid == 0:  # the child: run the command with its output discarded
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.chdir(cwd)
        os.execv(argv[0], argv)
    _, _, usage = os.wait4(pid, 0)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "empty.db")
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "import wason": [sys.executable, "-c", "import wason"],
            "wason --version": [WASON, "--version"],
            "wason --help": [WASON, "--help"],
            "wason eval wilt --help": [WASON, "eval", "wilt", "--help"],
            "wason runs (empty store)": [WASON, "runs", "--db", db],
        }
        times = {
            name: statistics.median(cpu(argv, tmp) for _ in range(repeats)) for name, argv in cases.items()
        }
    base = times["python -c pass"] or 1e-9
    print(f"{'command':28} {'CPU s':>7} {'x python':>9}")
    for name, t in times.items():
        print(f"{name:28} {t:7.3f} {t / base:9.1f}")


if __name__ == "__main__":
    main()
