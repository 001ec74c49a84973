"""The dense candidate stage: an in-memory vector index kept in step with the SQLite store.

Why in memory: reading 100k vector blobs per query would cost far more than the search itself.
The index follows the store's ``generation`` counter: our own writes patch it in place; a write
from another connection or process (generation moved without us) makes it reload lazily, in one
pass into a preallocated matrix.

Whether the dense ranking is used at all is decided once per vector space (``ranking``):
``"auto"`` asks ``embedder_check.judge`` (weak embedders are left out, so their vectors are
neither stored nor loaded), ``"always"`` / ``"never"`` force it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np

from ..embedding import Embedder, VectorIndex, Vectors, as_matrix, embedder_key
from ..errors import CodeMemoryError
from ..store.memory_store import MemoryStore, Mutation
from ..store.support import Filters
from .embedder_check import Verdict, judge

_REEMBED_CHUNK = 512
#: how many more neighbours than wanted to fetch before applying a metadata filter
WIDEN = 20
#: Values of ``ranking``: probe the embedder, or force the dense ranking on or off.
DENSE_RANKING_MODES = ("auto", "always", "never")
#: Seconds before an embedder whose probe could not run (it raised) is probed again.
PROBE_RETRY_S = 600.0


class EmbedderFailed(CodeMemoryError):
    """The embedder raised (or returned garbage) while embedding a query."""


class DenseStage:
    """Embeds texts and answers top-k cosine queries over the store's vectors (thread-safe)."""

    def __init__(self, store: MemoryStore, embedder: Embedder, ranking: str = "auto") -> None:
        if ranking not in DENSE_RANKING_MODES:
            raise ValueError(f"dense_ranking must be one of {DENSE_RANKING_MODES}, "
                             f"got {ranking!r}")
        self._store = store
        self._embedder = embedder
        self._ranking = ranking
        self._lock = threading.RLock()
        self._index: VectorIndex | None = None
        self._generation = -1
        self._space: tuple[str, int] | None = None
        self._verdict: Verdict | None = None
        self._verdict_at = 0.0

    def verdict(self) -> Verdict:
        """Whether the dense ranking is used, and why (probing the embedder once; again after
        ``PROBE_RETRY_S`` if the probe could not run)."""
        with self._lock:
            stale = (self._verdict is not None and not self._verdict.final
                     and time.monotonic() - self._verdict_at > PROBE_RETRY_S)
            if self._verdict is None or stale:
                self._verdict_at = time.monotonic()
                if self._ranking != "auto":
                    self._verdict = Verdict(self._ranking == "always",
                                            f"dense_ranking={self._ranking!r}")
                else:
                    self._verdict = self._judged()
            return self._verdict

    def _judged(self) -> Verdict:
        try:
            key = "embedder_verdict:" + self.space()[0]
        except EmbedderFailed as err:
            return Verdict(False, str(err), final=False)
        return judge(self._embedder, lambda: self._store.meta_value(key),
                     lambda text: self._store.set_meta_value(key, text))

    def ranks(self) -> bool:
        """True when the dense ranking takes part in candidate selection."""
        return self.verdict().useful

    def space(self) -> tuple[str, int]:
        """``(embedder key, dimension)``; the dimension is probed once if not declared.

        ``EmbedderFailed`` if that probe fails (the embedder is down or answers garbage).
        """
        if self._space is None:
            dimension = getattr(self._embedder, "dimension", None)
            if not isinstance(dimension, int):
                dimension = self._query_vector("dimension probe", None).shape[0]
            self._space = (embedder_key(self._embedder, dimension), dimension)
        return self._space

    def _query_vector(self, text: str, dimension: int | None) -> Vectors:
        try:
            row: Vectors = as_matrix(self._embedder.embed_query(text), dimension)[0]
            return row
        except Exception as err:  # noqa: BLE001 - foreign code: a server down, a bad reply
            raise EmbedderFailed(f"the embedder failed on a query "
                                 f"({type(err).__name__}: {err})") from err

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.space()[1]), dtype=np.float32)
        return as_matrix(self._embedder.embed_documents(list(texts)), self.space()[1])

    def blob(self, vector: Vectors) -> bytes:
        return np.asarray(vector, dtype=np.float32).tobytes()

    def applied(self, mutation: Mutation[object], put: Sequence[tuple[int, Vectors]] = (),
                remove: Sequence[int] = ()) -> None:
        """Patch the index after our own write, or drop it if another writer came in between."""
        if mutation.generation_before < 0:
            return
        with self._lock:
            if self._index is None or self._generation != mutation.generation_before:
                self._index = None
                return
            self._index.remove(remove)
            if put:
                self._index.put([k for k, _ in put], np.stack([v for _, v in put]))
            self._generation = mutation.generation_after

    def invalidate(self) -> None:
        with self._lock:
            self._index = None

    def search(self, query: str, k: int, filters: Filters | None) -> list[int]:
        """Seqs of the ``k`` nearest memories to ``query`` (restricted by ``filters``).

        With filters, the nearest ``WIDEN * k`` are filtered first (cheap); only when too few
        of them pass is the filter evaluated over the whole table.
        """
        vector = self._query_vector(query, self.space()[1])
        with self._lock:
            index = self._current()
            wide = index.search(vector, k * WIDEN if filters else k)
        if not filters:
            return wide
        passed = set(self._store.filter_seqs(wide, filters))
        hits = [seq for seq in wide if seq in passed][:k]
        if len(hits) >= k or len(wide) < k * WIDEN:
            return hits
        allowed = self._store.matching_seqs(filters)
        with self._lock:
            return self._current().search(vector, k, allowed)

    def _current(self) -> VectorIndex:
        if self._index is not None and self._store.generation() == self._generation:
            return self._index
        key, dimension = self.space()
        generation, index, missing = self._store.vectors(
            key, lambda capacity, rows: VectorIndex.load(dimension, capacity, rows))
        for start in range(0, len(missing), _REEMBED_CHUNK):
            chunk = missing[start:start + _REEMBED_CHUNK]
            vectors = self.embed_documents([text for _, text, _ in chunk])
            items = [(seq, h, self.blob(v)) for (seq, _, h), v in zip(chunk, vectors, strict=True)]
            self._store.set_vectors(items, key)
            index.put([seq for seq, _, _ in chunk], vectors)
        self._index, self._generation = index, generation
        return index
