"""The stored side of ``MemorySystem``: its configuration, its counters and the memories
themselves (add, get, update, delete, list, history), each change kept in step with the dense
stage's vectors. ``system.MemorySystem`` adds retrieval, scoring and the ``query`` prompt on top.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from .defaults import MEMORY_DEFAULTS as DEFAULTS
from .embedding import Embedder, HashingEmbedder, Vectors, as_matrix
from .retrieval.dense import DenseStage
from .store.memory_store import MemoryStore, NewRow, canonical_json, content_hash, utc_now
from .store.support import Filters, JSONDict
from .system_config import ParsedItem, RetrievalConfig, _check_text, parse_items


class StoredMemories:
    """Configuration, counters and CRUD of a memory system (see ``MemorySystem``)."""

    #: what a damaged database loses (named in the ``StoreCorrupt`` notice; subclasses refine)
    lost_on_corruption: str = "every memory, its change history and the score cache"

    def __init__(
        self,
        small_model_fn: Callable[[str], Awaitable[str]],
        db_path: str = "memories.db",
        relevance_threshold: float = DEFAULTS.relevance_threshold,
        max_memories: int = DEFAULTS.max_memories,
        batch_size: int = DEFAULTS.batch_size,
        retry_attempts: int = DEFAULTS.retry_attempts,
        retry_delay: float = DEFAULTS.retry_delay,
        *,
        candidate_limit: int = DEFAULTS.candidate_limit,
        enable_caching: bool = DEFAULTS.enable_caching,
        embedder: Embedder | None = None,
        use_dense: bool = True,
        dense_ranking: str = "auto",
        llm_timeout: float | None = DEFAULTS.llm_timeout,
        scoring_mode: str = DEFAULTS.scoring_mode,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        if not callable(small_model_fn):
            raise ValueError("small_model_fn must be an async function str -> str")
        if not isinstance(db_path, str) or not db_path:
            raise ValueError("db_path must be a non-empty path string")
        self._config = RetrievalConfig(
            relevance_threshold=relevance_threshold, max_memories=max_memories,
            batch_size=batch_size, retry_attempts=retry_attempts, retry_delay=retry_delay,
            candidate_limit=candidate_limit, enable_caching=enable_caching,
            llm_timeout=llm_timeout, scoring_mode=scoring_mode)
        self.small_model_fn = small_model_fn
        self.db_path = db_path
        self._sleep = sleep or asyncio.sleep
        now = utc_now if clock is None else (
            lambda: clock().astimezone(timezone.utc).isoformat(timespec="microseconds"))
        self._store = MemoryStore(db_path, now=now, lost_on_corruption=self.lost_on_corruption)
        self._dense = DenseStage(self._store, HashingEmbedder() if embedder is None else embedder,
                                 dense_ranking)
        self._store.damage.listeners.append(lambda notice: self._dense.invalidate())
        self._use_dense = bool(use_dense)
        self._counts = {"queries": 0, "llm_calls": 0, "llm_failures": 0,
                        "cache_hits": 0, "cache_misses": 0}
        self._counts_lock = threading.Lock()

    # -- configuration ---------------------------------------------------------------------------
    @property
    def config(self) -> RetrievalConfig:
        """The current retrieval configuration (immutable; change it with the method below)."""
        return self._config

    relevance_threshold = property(lambda self: self._config.relevance_threshold)
    max_memories = property(lambda self: self._config.max_memories)
    batch_size = property(lambda self: self._config.batch_size)
    retry_attempts = property(lambda self: self._config.retry_attempts)
    retry_delay = property(lambda self: self._config.retry_delay)

    def update_retrieval_config(self, **kwargs: Any) -> None:  # Any: RetrievalConfig checks
        """Change retrieval settings at runtime; all-or-nothing, ``ValueError`` on a bad value."""
        valid = [f.name for f in dataclasses.fields(self._config)]
        unknown = set(kwargs) - set(valid)
        if unknown:
            raise ValueError(f"unknown retrieval setting(s) {sorted(unknown)}; valid: {valid}")
        self._config = dataclasses.replace(self._config, **kwargs)

    def _count(self, key: str, n: int = 1) -> None:
        with self._counts_lock:
            self._counts[key] += n

    # -- CRUD ------------------------------------------------------------------------------------
    def add_memory(self, text: str, metadata: JSONDict | None = None) -> str:
        """Store ``text``; returns its id, or the existing id of an exact duplicate.

        Exact duplicate = same text and same metadata. ``ValueError`` if text is empty or None.
        """
        return self.add_memories([(text, metadata)])[0]

    def add_memories(self, items: Iterable[object]) -> list[str]:
        """Add many memories in ONE transaction; ids in input order (duplicates: existing id).

        Each item is a ``str``, ``(text, metadata)``, ``(text, metadata, embedding)`` or a mapping
        with ``text`` and optional ``metadata`` / ``embedding`` (a precomputed vector for the
        configured embedder). Everything is validated before anything is written.
        """
        parsed = parse_items(items)
        if not parsed:
            return []
        vectors = self._vectors_for(parsed, compute=self._dense_ranks())
        rows = []
        for (text, meta, _), vector in zip(parsed, vectors, strict=False):
            meta_json = canonical_json(meta)
            blob = None if vector is None else self._dense.blob(vector)
            rows.append(NewRow(str(uuid.uuid4()), text, meta_json, content_hash(text, meta_json),
                               blob))
        key = self._dense.space()[0] if self._dense_ranks() else None
        mutation = self._store.insert_many(rows, key)
        put = [(seq, vector) for (_, seq, created), vector in zip(mutation.value, vectors,
                                                                   strict=True)
               if created and vector is not None]
        self._dense.applied(mutation, put=put)
        return [memory_id for memory_id, _, _ in mutation.value]

    def _dense_ranks(self) -> bool:
        """Vectors are stored and searched only when the dense ranking is used."""
        return self._use_dense and self._dense.ranks()

    def _vectors_for(self, parsed: Sequence[ParsedItem], compute: bool) -> list[Vectors | None]:
        """One vector (or None) per item: given ones checked, missing ones embedded if
        ``compute`` (given ones are kept only then too: unused vectors are not stored)."""
        out: list[Vectors | None] = [None] * len(parsed)
        given = [(i, emb) for i, (_, _, emb) in enumerate(parsed) if emb is not None]
        if not given and not compute:
            return out
        dimension = self._dense.space()[1]
        checked = [(i, as_matrix(emb, dimension)[0]) for i, emb in given]
        if not compute:
            return out
        todo = [i for i, (_, _, emb) in enumerate(parsed) if emb is None]
        computed = self._dense.embed_documents([parsed[i][0] for i in todo])
        for i, vector in [*zip(todo, computed, strict=False), *checked]:
            out[i] = vector
        return out

    def get_memory(self, memory_id: str) -> JSONDict | None:
        """``{id, text, metadata, timestamp}`` or ``None`` if there is no such memory."""
        record = self._store.get(memory_id) if isinstance(memory_id, str) else None
        return record.as_dict() if record else None

    def update_memory(self, memory_id: str, text: str | None = None,
                      metadata: JSONDict | None = None) -> bool:
        """Replace text and/or metadata (None = keep); ``False`` if the id is unknown.

        ``ValueError`` if ``text`` is given but empty. Metadata is replaced, not merged.
        """
        if text is not None:
            text = _check_text(text)
        meta_json = None if metadata is None else canonical_json(metadata)
        if not isinstance(memory_id, str):
            return False
        vector = None
        if text is not None and self._dense_ranks():
            vector = self._dense.embed_documents([text])[0]
        key = self._dense.space()[0] if self._dense_ranks() else None
        blob = None if vector is None else self._dense.blob(vector)
        mutation = self._store.update(memory_id, text, meta_json, blob, key)
        record = mutation.value
        if record is None:
            return False
        self._dense.applied(mutation, put=[] if vector is None else [(record.seq, vector)])
        return True

    def delete_memory(self, memory_id: str) -> bool:
        """Delete one memory; ``True`` if it existed. Its history is kept."""
        if not isinstance(memory_id, str):
            return False
        mutation = self._store.delete(memory_id)
        self._dense.applied(mutation, remove=mutation.value)
        return bool(mutation.value)

    def delete_memories(self, filters: Filters) -> int:
        """Delete every memory whose metadata matches ``filters`` (non-empty); returns the count."""
        if not isinstance(filters, Mapping) or not filters:
            raise ValueError("delete_memories needs a non-empty metadata filter")
        mutation = self._store.delete_matching(filters)
        self._dense.applied(mutation, remove=mutation.value)
        return len(mutation.value)

    def list_memories(self, filters: Filters | None = None, *,
                      limit: int | None = None, offset: int = 0) -> list[JSONDict]:
        """Memories matching ``filters`` (all if None), oldest first, as ``get_memory`` dicts."""
        return [r.as_dict() for r in self._store.select(filters, limit, offset)]

    def count_memories(self, filters: Filters | None = None) -> int:
        return self._store.count(filters)

    def history(self, memory_id: str) -> list[JSONDict]:
        """Changes of a memory, oldest first: ``action`` (add/update/delete), ``old_text``,
        ``old_metadata``, ``new_text``, ``new_metadata``, ``timestamp``. ``[]`` if unknown."""
        return self._store.history(memory_id) if isinstance(memory_id, str) else []

    def clear_cache(self) -> None:
        """Forget every cached LLM score."""
        self._store.clear_cache()
