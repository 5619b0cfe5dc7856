"""A throwaway PostgreSQL server for tests, from the server programs of this machine (Debian keeps them off PATH,
under /usr/lib/postgresql/VERSION/bin). Used by the store's tests (a session fixture) and by the Ray sweep test's
child process (which starts its own inside a private network namespace)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


class PostgresUnavailable(RuntimeError):
    """This machine cannot start a server; the message says why (a test skips with it)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ThrowawayPostgres:
    """``start()`` a server on 127.0.0.1 with trust authentication in a temporary directory; ``stop()`` removes
    it. ``url`` is its ``postgres`` database (psycopg driver)."""

    def __init__(self) -> None:
        self.url = ""
        self._root: Path | None = None
        self._pg_ctl = ""
        self._as_postgres: list[str] = []

    def start(self) -> str:
        try:
            import psycopg  # noqa: F401 - the store's driver
        except ImportError:
            raise PostgresUnavailable("psycopg is not installed (pip install 'wason[postgres]')") from None
        path = os.pathsep.join(
            [os.environ.get("PATH", ""), *sorted(map(str, Path("/usr/lib/postgresql").glob("*/bin")))]
        )
        initdb, pg_ctl = shutil.which("initdb", path=path), shutil.which("pg_ctl", path=path)
        if not (initdb and pg_ctl):
            raise PostgresUnavailable(
                "no PostgreSQL server binaries on this machine (Debian: apt-get install postgresql)"
            )
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            runuser = shutil.which("runuser")
            if runuser is None or subprocess.run(["id", "postgres"], capture_output=True).returncode != 0:
                raise PostgresUnavailable("running as root without a postgres user")
            self._as_postgres = [runuser, "-u", "postgres", "--"]
        self._pg_ctl = pg_ctl
        root = self._root = Path(tempfile.mkdtemp(prefix="wason-pg-"))
        root.chmod(0o777)
        data, port = root / "data", free_port()
        self._run(initdb, "-D", str(data), "-A", "trust", "-U", "postgres")
        self._run(
            pg_ctl, "-D", str(data), "-o", f"-p {port} -k {root} -h 127.0.0.1", "-l", str(root / "log"), "-w",
            "start",
        )  # fmt: skip
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
        return self.url

    def _run(self, *cmd: str) -> None:
        subprocess.run([*self._as_postgres, *cmd], check=True, capture_output=True, timeout=120)

    def stop(self) -> None:
        if self._root is None:
            return
        subprocess.run(
            [*self._as_postgres, self._pg_ctl, "-D", str(self._root / "data"), "-m", "immediate", "stop"],
            capture_output=True,
        )
        time.sleep(0.2)
        shutil.rmtree(self._root, ignore_errors=True)
        self._root = None
