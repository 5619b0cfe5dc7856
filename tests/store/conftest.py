"""A throwaway PostgreSQL server for the store's tests, when this machine has one."""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of the ``postgres`` database of a server started for this test session (skips without one)."""
    pytest.importorskip("psycopg")
    # Debian keeps the server's programs off PATH, under /usr/lib/postgresql/VERSION/bin
    path = os.pathsep.join(
        [os.environ.get("PATH", ""), *sorted(map(str, Path("/usr/lib/postgresql").glob("*/bin")))]
    )
    initdb, pg_ctl = shutil.which("initdb", path=path), shutil.which("pg_ctl", path=path)
    if not (initdb and pg_ctl):
        pytest.skip("no PostgreSQL server binaries on this machine (Debian: apt-get install postgresql)")
    as_postgres: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        runuser = shutil.which("runuser")
        if runuser is None or subprocess.run(["id", "postgres"], capture_output=True).returncode != 0:
            pytest.skip("running as root without a postgres user")
        as_postgres = [runuser, "-u", "postgres", "--"]
    root = Path(tempfile.mkdtemp(prefix="wason-pg-"))
    root.chmod(0o777)
    data, port = root / "data", _free_port()
    run = lambda *cmd: subprocess.run([*as_postgres, *cmd], check=True, capture_output=True, timeout=120)  # noqa: E731
    run(initdb, "-D", str(data), "-A", "trust", "-U", "postgres")
    run(
        pg_ctl,
        "-D",
        str(data),
        "-o",
        f"-p {port} -k {root} -h 127.0.0.1",
        "-l",
        str(root / "log"),
        "-w",
        "start",
    )
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_postgres, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True
        )
        time.sleep(0.2)
        shutil.rmtree(root, ignore_errors=True)


_database_numbers = itertools.count()


@pytest.fixture
def new_postgres_database(postgres_url: str) -> Callable[[], str]:
    """Makes an empty database on the throwaway server and returns its URL, one per call."""

    def make() -> str:
        name = f"wason_test_{os.getpid()}_{next(_database_numbers)}"
        admin = sa.create_engine(postgres_url, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as c:
                c.exec_driver_sql(f"CREATE DATABASE {name}")
        finally:
            admin.dispose()
        return postgres_url.rsplit("/", 1)[0] + f"/{name}"

    return make
