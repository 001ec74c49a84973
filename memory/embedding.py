"""Offline embeddings and the in-memory vector index of the dense candidate stage.

Why hashing: the plugin must work standalone and in tests with no model download. Feature
hashing of identifier-aware tokens is deterministic across processes (crc32, not ``hash()``),
and good enough to *propose* candidates that the LLM then scores. Any object with
``embed_documents(list[str])`` and ``embed_query(str)`` (the Cat's ``cat.embedder`` included)
can replace it.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from .store.primitives import split_identifier

#: float32 vectors: one ``(dimension,)`` row, or a ``(n, dimension)`` matrix
Vectors = NDArray[np.float32]
#: the integer keys (the store's ``seq``) of an index's rows
Keys = NDArray[np.int64]

_WORD = re.compile(r"\w+")


class Embedder(Protocol):
    """What the dense stage needs; LangChain embedders (``cat.embedder``) fit.

    ``Any`` results: a foreign embedder answers lists of floats, numpy arrays or worse; every
    answer goes through ``as_matrix``, which checks shape and values.
    """

    def embed_documents(self, texts: list[str]) -> Any: ...

    def embed_query(self, text: str) -> Any: ...


class HashingEmbedder:
    """Deterministic feature-hashing embedder: words and identifier parts, log tf, L2-normalised."""

    def __init__(self, dimension: int = 256) -> None:
        if isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 8:
            raise ValueError(f"dimension must be an int >= 8, got {dimension!r}")
        #: vector size; stored with each vector so a change of embedder triggers re-embedding
        self.dimension = dimension
        #: identifies the vector space (algorithm version + size)
        self.name = f"hashing-v1-{dimension}"

    def _vector(self, text: str) -> Vectors:
        counts: dict[tuple[int, float], float] = {}
        for word in _WORD.findall(text):
            for slot in _word_slots(word, self.dimension):
                counts[slot] = counts.get(slot, 0.0) + 1.0
        vec = np.zeros(self.dimension, dtype=np.float32)
        for (index, sign), count in counts.items():
            vec[index] += sign * (1.0 + np.log(count))
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm > 0 else vec

    def embed_documents(self, texts: list[str]) -> Vectors:
        """Embed ``texts`` into a ``(len(texts), dimension)`` float32 array."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self._vector(text)
        return out

    def embed_query(self, text: str) -> Vectors:
        """Embed one query into a ``(dimension,)`` float32 array."""
        return self._vector(text)


@lru_cache(maxsize=1 << 17)
def _word_slots(word: str, dimension: int) -> tuple[tuple[int, float], ...]:
    """Hash slots (index, sign) of a word and its identifier parts; memoized, since code
    repeats the same words over and over (indexing profile)."""
    lower = word.lower()
    parts = split_identifier(word)
    slots = []
    for token in {lower, *parts} if len(parts) > 1 else (lower,):
        h = zlib.crc32(token.encode("utf-8"))
        slots.append((h % dimension, 1.0 if (h >> 31) & 1 else -1.0))
    return tuple(slots)


def embedder_key(embedder: object, dimension: int) -> str:
    """The identity of a vector space, stored next to each vector."""
    name = getattr(embedder, "name", None) or type(embedder).__name__
    return f"{name}:{dimension}"


def as_matrix(vectors: object, dimension: int | None = None) -> Vectors:
    """Normalised float32 rows; ``ValueError`` if the shape or values are wrong."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix.reshape(1, -1)
    if matrix.ndim != 2 or (dimension is not None and matrix.shape[1] != dimension):
        raise ValueError(f"embeddings must have shape (n, {dimension}), got {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise ValueError("embeddings contain NaN or infinity")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalised = np.empty_like(matrix)  # never in place: ``matrix`` may be the caller's array
    np.divide(matrix, np.where(norms > 0, norms, 1.0), out=normalised)
    return normalised


def _grown(matrix: Vectors, keys: Keys, size: int) -> tuple[Vectors, Keys]:
    """Copies of ``matrix`` and ``keys`` with room for a quarter more rows (at least 1024)."""
    capacity = size + max(1024, size // 4)
    new_matrix = np.empty((capacity, matrix.shape[1]), dtype=np.float32)
    new_matrix[:size] = matrix[:size]
    new_keys = np.empty(capacity, dtype=np.int64)
    new_keys[:size] = keys[:size]
    return new_matrix, new_keys


class VectorIndex:
    """Row-aligned matrix of normalised vectors keyed by the store's integer ``seq``.

    Brute-force cosine: at 100k x 256 float32 one query is a ~25 M multiply-add, a few ms, and
    it stays exact. Not thread-safe; the owner guards it.
    """

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self._matrix = np.zeros((0, dimension), dtype=np.float32)
        self._keys = np.zeros(0, dtype=np.int64)
        self._size = 0
        self._row: dict[int, int] = {}

    def __len__(self) -> int:
        return self._size

    @classmethod
    def load(cls, dimension: int, capacity: int,
             rows: Iterable[tuple[int, bytes]]) -> VectorIndex:
        """An index filled in one pass from ``(key, float32 blob)`` rows.

        The matrix is allocated once for ``capacity`` rows (an upper bound; untouched rows of
        ``np.empty`` cost no memory) and each blob is copied straight into its row: no list of
        blobs, no joined copy, no growth by doubling. Blobs of the wrong size are skipped.
        """
        index = cls(dimension)
        matrix = np.empty((max(capacity, 1), dimension), dtype=np.float32)
        keys = np.empty(max(capacity, 1), dtype=np.int64)
        size, width = 0, dimension * 4
        for key, blob in rows:
            if blob is None or len(blob) != width:
                continue
            if size == len(keys):  # more rows than announced: grow once, by a quarter
                matrix, keys = _grown(matrix, keys, size)
            matrix[size] = np.frombuffer(blob, dtype=np.float32)
            keys[size] = key
            size += 1
        index._matrix, index._keys, index._size = matrix, keys, size
        index._row = {int(k): i for i, k in enumerate(keys[:size].tolist())}
        return index

    def put(self, keys: Sequence[int], matrix: Vectors) -> None:
        """Insert or replace the vectors of ``keys`` (rows of ``matrix``, already normalised)."""
        for key, vec in zip(keys, matrix, strict=False):
            row = self._row.get(key)
            if row is None:
                row = self._append_row()
                self._row[key] = row
                self._keys[row] = key
            self._matrix[row] = vec

    def _append_row(self) -> int:
        if self._size == len(self._keys):
            self._matrix, self._keys = _grown(self._matrix, self._keys, self._size)
        self._size += 1
        return self._size - 1

    def remove(self, keys: Iterable[int]) -> None:
        """Drop ``keys`` (missing ones are ignored); swaps the last row into the hole."""
        for key in keys:
            row = self._row.pop(key, None)
            if row is None:
                continue
            last = self._size - 1
            if row != last:
                moved = int(self._keys[last])
                self._matrix[row] = self._matrix[last]
                self._keys[row] = moved
                self._row[moved] = row
            self._size = last

    def search(self, query: Vectors, k: int, allowed: Sequence[int] | None = None) -> list[int]:
        """Keys of the ``k`` nearest vectors with cosine > 0, best first, within ``allowed``."""
        if self._size == 0 or k <= 0:
            return []
        scores = self._matrix[: self._size] @ query.astype(np.float32)
        if allowed is not None:
            mask = np.isin(self._keys[: self._size], np.asarray(list(allowed), dtype=np.int64))
            scores = np.where(mask, scores, -np.inf)
            k = min(k, int(mask.sum()))
            if k == 0:
                return []
        k = min(k, self._size)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        # Orthogonal or opposite vectors share nothing: scoring them would waste LLM calls.
        return [int(self._keys[i]) for i in top if scores[i] > 0]
