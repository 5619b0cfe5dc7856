"""``wason serve`` in a process of its own, for the tests that need a real server they can measure: its memory
(the resident set of that process alone), its connections, what it does with a body it should not read.

``start(db, *flags)`` runs the command line as a user types it (with the server tests' family registered) on a
free port of 127.0.0.1 and waits until it answers; ``Served.stop()`` ends it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]

SERVER = """
import faulthandler
import signal
import sys
from tests.server import hidden_family
from wason.core import registry
from wason.cli import main

faulthandler.register(signal.SIGUSR1)  # a test that sees a hang asks where every thread is
registry.register(hidden_family.FAMILY)
sys.exit(main(["serve", "--port", sys.argv[1], "--db", sys.argv[2], "--log-level", "warning", *sys.argv[3:]]))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def rss_kib(pid: int) -> int | None:
    """The resident set of process ``pid`` in KiB (Linux's ``/proc``; None elsewhere)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


@dataclass
class Served:
    """A running ``wason serve``: its base URL (``http://127.0.0.1:PORT``), port and process."""

    url: str
    port: int
    proc: subprocess.Popen[str] = field(repr=False)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss_kib(self) -> int | None:
        return rss_kib(self.proc.pid)

    def dump_stacks(self) -> None:
        """Have the server write every thread's stack to its stderr (returned by :meth:`stop`)."""
        if self.alive():
            os.kill(self.proc.pid, signal.SIGUSR1)
            time.sleep(0.5)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> str:
        """End the server; returns what it wrote to stderr (its log)."""
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err or ""


def start(db: Path, *flags: str, within: float = 60.0) -> Served:
    """``wason serve --port P --db DB FLAGS...`` on a free port; fails if it does not answer within ``within``
    seconds (a start, not a speed: the machine may be busy)."""
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port), str(db), *flags],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    served = Served(url=f"http://127.0.0.1:{port}", port=port, proc=proc)
    deadline = time.monotonic() + within
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited: {served.stop()}")
        try:
            if httpx.get(f"{served.url}/guess-the-rule/games", timeout=5).status_code == 200:
                return served
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"the server did not answer within {within:.0f} s: {served.stop()}")
        time.sleep(0.1)
