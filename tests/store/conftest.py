"""A throwaway PostgreSQL server for the store's tests, when this machine has one."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa

from tests.postgres import PostgresUnavailable, ThrowawayPostgres


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of the ``postgres`` database of a server started for this test session (skips without one)."""
    server = ThrowawayPostgres()
    try:
        url = server.start()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))
    try:
        yield url
    finally:
        server.stop()


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
