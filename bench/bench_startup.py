"""Start-up of wason (issue 39): user+sys seconds of each command, and its ratio to `python -c pass`, measured in
one run; then the wall time from starting `wason serve` to its first answer of `/` (the home page, built by a
page worker) and of `/api/families`. Run: `.venv-dev/bin/python bench/bench_startup.py [repeats]`."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
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
        served = {path: [first_answer(path, db) for _ in range(repeats)] for path in ("/", "/api/families")}
    base = times["python -c pass"] or 1e-9
    print(f"{'command':28} {'CPU s':>7} {'x python':>9}")
    for name, t in times.items():
        print(f"{name:28} {t:7.3f} {t / base:9.1f}")
    print(f"{'wason serve, first answer of':28} {'median s':>9} {'max s':>7}")
    for path, seconds in served.items():
        print(f"{path:28} {statistics.median(seconds):9.2f} {max(seconds):7.2f}")


if __name__ == "__main__":
    main()
