"""The server's fixtures: the test family registered, a store, the app and an httpx client over ASGI."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.server import hidden_family
from wason.core import registry
from wason.games import Games
from wason.server import create_app
from wason.store import Store


@pytest.fixture(autouse=True)
def hidden_mod() -> Iterator[Any]:
    """The test family with a game API, registered for each test and forgotten after (the layering test reads
    the registry's names)."""
    registry.register(hidden_family.FAMILY, replace=True)
    yield hidden_family.FAMILY
    registry.unregister(hidden_family.NAME)
    hidden_family.GATES.clear()


@pytest.fixture(scope="session")
def empty_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new store, migrated once: each test copies it (building the schema is most of a small test's time)."""
    path = tmp_path_factory.mktemp("template") / "empty.db"
    Store(str(path)).close()
    return path


@pytest.fixture
def db_path(tmp_path: Path, empty_store: Path) -> Path:
    path = tmp_path / "server.db"
    shutil.copyfile(empty_store, path)
    return path


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    s = Store(str(db_path))
    yield s
    s.close()


@pytest.fixture
def games(store: Store) -> Games:
    return Games(store)


@pytest.fixture
def app(store: Store) -> FastAPI:
    return create_app(store)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        yield c
