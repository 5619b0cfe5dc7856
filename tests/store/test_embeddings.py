"""The store's embedding cache (``wason show --novelty``): vectors by (model, SHA-256 of the text), on SQLite and
PostgreSQL; no sentence model needed."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from wason.store import Store


def _key(i: int) -> str:
    return hashlib.sha256(f"message {i}".encode()).hexdigest()


def _vector(i: int) -> bytes:
    return np.random.default_rng(i).standard_normal(384).astype("<f4").tobytes()


def _check(store: Store) -> None:
    assert store.cached_embeddings("m", [_key(0)]) == {}
    # more digests than one IN list holds (500), asked for with repeats and unknown ones among them
    vectors = {_key(i): _vector(i) for i in range(1200)}
    store.store_embeddings("m", vectors, 384)
    asked = [_key(i) for i in (*range(1300), 5, 5)]
    found = store.cached_embeddings("m", asked)
    assert found == vectors  # every stored one, byte for byte; the 100 never stored left out
    assert np.frombuffer(found[_key(7)], dtype="<f4").shape == (384,)
    # another model's vectors are its own
    assert store.cached_embeddings("other", [_key(1)]) == {}
    store.store_embeddings("other", {_key(1): _vector(99)}, 384)
    assert store.cached_embeddings("other", [_key(1)])[_key(1)] == _vector(99)
    assert store.cached_embeddings("m", [_key(1)])[_key(1)] == _vector(1)
    # a vector already kept stays as it is; the new ones beside it are added
    store.store_embeddings("m", {_key(2): b"\x00" * 1536, _key(5000): _vector(5000)}, 384)
    assert store.cached_embeddings("m", [_key(2), _key(5000)]) == {
        _key(2): _vector(2),
        _key(5000): _vector(5000),
    }
    store.store_embeddings("m", {}, 384)


def test_the_embedding_cache_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'e.db'}"
    _check(Store(url))
    # kept across connections: a second process reads what the first stored
    assert Store(url).cached_embeddings("m", [_key(3)]) == {_key(3): _vector(3)}


def test_the_embedding_cache_on_postgresql(new_postgres_database: Callable[[], str]) -> None:
    url = new_postgres_database()
    _check(Store(url))
    assert Store(url).cached_embeddings("m", [_key(3)]) == {_key(3): _vector(3)}


def test_a_writer_that_lost_the_race_keeps_the_first_vectors_and_adds_its_new_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    first, second = Store(url), Store(url)
    first.store_embeddings("m", {_key(1): _vector(1)}, 384)
    # the second writer looked before the first wrote, so it inserts a digest that is already there
    monkeypatch.setattr(second, "cached_embeddings", lambda model, digests: {})
    second.store_embeddings("m", {_key(1): b"\x01" * 1536, _key(2): _vector(2)}, 384)
    assert first.cached_embeddings("m", [_key(1), _key(2)]) == {_key(1): _vector(1), _key(2): _vector(2)}
