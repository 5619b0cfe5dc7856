"""``inspect view`` for the tests: Inspect's own viewer over a folder of logs, on 127.0.0.1 at a free port, in a
home of its own, stopped when the test ends."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

INSPECT_CLI = Path(sys.executable).parent / "inspect"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def inspect_view(logs: Path, tmp: Path) -> Iterator[str]:
    """``inspect view --log-dir LOGS`` on 127.0.0.1; yields its URL (skips the test, saying why, without Inspect)."""
    if not INSPECT_CLI.exists():
        pytest.skip(
            f"INSPECT VIEW TEST SKIPPED: no `inspect` command at {INSPECT_CLI} (pip install 'wason[inspect]')"
        )
    port = _free_port()
    home = tmp / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "c"),
    }
    args = [str(INSPECT_CLI), "view", "--log-dir", str(logs), "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp)
    try:
        deadline = time.monotonic() + 120  # a loaded machine starts it slowly; not a timing assert
        while True:
            if proc.poll() is not None:
                output = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
                pytest.fail(f"inspect view exited with {proc.returncode}: {output[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("inspect view did not listen within 120 s")
                time.sleep(0.3)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()
