"""Where code-entity vectors go besides the plugin's own store: the Cat's declarative collection.

Why a sink and not a hard dependency: ``memory/`` never imports ``cat``. The glue hands in the
Cat's ``VectorMemoryCollection`` (``cat.memory.vectors.declarative``); ``CatVectorSink`` wraps
anything shaped like it. The plugin's SQLite store stays the source of truth: the Cat deletes
and re-creates the collection when the embedder changes and the admin can wipe it, so the
sink only ever receives copies, and ``status`` lets the owner notice that they are gone.

Point ids are deterministic (``uuid5``), so re-pushing is an idempotent upsert. Every payload
is ``{"page_content": str, "metadata": {...}}`` with ``metadata["source"]`` set (the Cat's
recall and prompt code read it) and ``metadata["code_working_memory"] = True``, the marker the
glue uses to take code points out of ordinary declarative recall.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..errors import CodeMemoryError
from ..store.support import JSONDict, Metadata

if TYPE_CHECKING:  # numpy is not needed to import this module
    from ..embedding import Embedder, Vectors

MARKER_KEY = "code_working_memory"
"""Metadata key set to ``True`` on every point this plugin writes."""

SOURCE_PREFIX = "code_working_memory:"
"""``metadata["source"]`` of a code point is this prefix plus the file path."""

PAYLOAD_KEYS = ("repo_id", "path", "qualified_name", "kind", "language", "start_line",
                "end_line", "hash")
"""Entity facts copied into every point's metadata (besides ``source``, marker, memory id)."""

SOURCE_LABEL_KEYS = ("source_name", "source_version", "source_kind", "public_name")
"""Labels of an associative source's entity, copied when present (see ``sources``)."""


class VectorSinkError(CodeMemoryError):
    """The vector sink refused a write or cannot hold this plugin's vectors."""


class VectorSpaceMismatch(VectorSinkError):
    """The collection's vector size differs from the embedder's: vectors cannot be pushed.

    The glue must build ``CodeMemorySystem`` with the same embedder the Cat uses
    (``cat.embedder``) and rebuild it when the Cat's embedder changes.
    """


def point_id(repo_id: str, path: str, qualified_name: str, occurrence: int = 0) -> str:
    """Deterministic UUID of one entity's point: ``uuid5(NAMESPACE_URL, "codemem:...")``.

    ``occurrence`` (the n-th definition with the same qualified name in one file, from 0)
    is appended as ``#n`` only when non-zero, so ordinary entities keep the documented key.
    """
    key = f"codemem:{repo_id}:{path}::{qualified_name}"
    if occurrence:
        key += f"#{occurrence}"
    return str(uuid.uuid5(uuid.NAMESPACE_URL, key))


@dataclass(frozen=True)
class SinkPoint:
    """One point to upsert: id, text (``page_content``), payload metadata and vector."""

    id: str
    text: str
    metadata: Metadata
    vector: Sequence[float] | Vectors = field(repr=False)


@dataclass(frozen=True)
class SinkStatus:
    """What the collection holds for one repository right now.

    ``vector_size``/``embedder_name`` describe the collection (``None`` if unknown);
    ``point_count`` is the exact number of this repository's code points in it.
    """

    vector_size: int | None
    embedder_name: str | None
    point_count: int


def payload_metadata(repo_id: str, memory_id: str, meta: Metadata) -> JSONDict:
    """The point metadata for one entity memory (its store metadata is ``meta``)."""
    out: JSONDict = {
        "source": SOURCE_PREFIX + str(meta.get("path", "")),
        MARKER_KEY: True,
        "repo_id": repo_id,
        "memory_id": memory_id,
    }
    for key in PAYLOAD_KEYS[1:]:
        if key == "hash":
            out["hash"] = meta.get("entity_hash")
        else:
            out[key] = meta.get(key)
    out.update({key: meta[key] for key in SOURCE_LABEL_KEYS if meta.get(key)})
    return out


@runtime_checkable
class VectorCollection(Protocol):
    """The part of the Cat 1.9.2 ``VectorMemoryCollection`` this plugin relies on.

    ``client`` (a ``QdrantClient``) and ``collection_name`` are used for batched upserts and
    exact counts; the methods are the Cat's own (``vector_memory_collection.py``).
    """

    # Any: the Cat's objects (a ``QdrantClient``, LangChain documents, qdrant results, JSON
    # metadata); this plugin reads only what it documents at each call.
    client: Any
    collection_name: str
    embedder_name: str
    embedder_size: int

    def add_point(self, content: str, vector: Iterable[float],
                  metadata: dict[str, Any] | None = None, id: str | None = None,
                  **kwargs: Any) -> Any: ...

    def delete_points(self, points_ids: list[str]) -> Any: ...

    def delete_points_by_metadata_filter(self, metadata: dict[str, Any] | None = None
                                         ) -> Any: ...

    def recall_memories_from_embedding(self, embedding: Any,
                                       metadata: dict[str, Any] | None = None, k: int = 5,
                                       threshold: float | None = None) -> list[Any]: ...

    def get_points(self, ids: list[str]) -> Any: ...

    def get_all_points(self, limit: int = 10000, offset: str | None = None) -> Any: ...


class VectorSink(Protocol):
    """What ``CodeMemorySystem`` needs from a sink (``CatVectorSink`` implements it)."""

    def upsert(self, points: Sequence[SinkPoint]) -> None: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def clear(self, repo_id: str) -> None: ...

    def space(self) -> tuple[int | None, str | None]: ...

    def present(self, ids: Sequence[str]) -> int: ...


class CatVectorSink:
    """Adapter from ``VectorSink`` to a Cat ``VectorMemoryCollection`` (or a look-alike).

    Upserts go straight to ``collection.client.upsert`` in batches of ``batch_size`` (the
    Cat's ``add_point`` does one request per point); without a usable ``client`` it falls back
    to ``add_point``. Deletes use the collection's own methods.
    """

    def __init__(self, collection: VectorCollection, *, batch_size: int = 256) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.collection = collection
        self.batch_size = batch_size

    # -- writes ----------------------------------------------------------------------------------
    def upsert(self, points: Sequence[SinkPoint]) -> None:
        """Upsert ``points`` (ids must be UUID strings) in batches; raises ``VectorSinkError``."""
        size = self._vector_size()
        for point in points:
            if size is not None and len(point.vector) != size:
                raise VectorSpaceMismatch(
                    f"vector of {len(point.vector)} dims for a collection of size {size}: build "
                    "CodeMemorySystem with the Cat's embedder")
        for start in range(0, len(points), self.batch_size):
            self._upsert_batch(points[start:start + self.batch_size])

    def _upsert_batch(self, batch: Sequence[SinkPoint]) -> None:
        client = getattr(self.collection, "client", None)
        if client is None or not hasattr(client, "upsert"):
            for p in batch:
                self.collection.add_point(p.text, _floats(p.vector), dict(p.metadata), id=p.id)
            return
        from qdrant_client.models import PointStruct  # lazy: only the Cat/tests need it

        structs = [PointStruct(id=p.id, vector=_floats(p.vector),
                               payload={"page_content": p.text, "metadata": dict(p.metadata)})
                   for p in batch]
        result = client.upsert(collection_name=self.collection.collection_name, points=structs)
        status = getattr(result, "status", "completed")
        if str(getattr(status, "value", status)) not in ("completed", "acknowledged"):
            raise VectorSinkError(f"upsert of {len(batch)} points returned status {status!r}")

    def delete(self, ids: Sequence[str]) -> None:
        """Delete points by id; ids the collection does not hold are skipped.

        Why look them up first: a Qdrant server ignores unknown ids, but the Cat's embedded
        Qdrant (qdrant_client's local mode) raises ``KeyError`` for them, and a file that lost
        its entities, or a point never pushed, is an ordinary case.
        """
        ids = list(ids)
        for start in range(0, len(ids), self.batch_size * 4):
            held = self._held(ids[start:start + self.batch_size * 4])
            if held:
                self.collection.delete_points(held)

    def clear(self, repo_id: str) -> None:
        """Delete every code point of ``repo_id`` (never anything else: the filter is exact)."""
        if not repo_id:
            raise ValueError("repo_id must be non-empty")
        self.collection.delete_points_by_metadata_filter(
            {MARKER_KEY: True, "repo_id": repo_id})

    # -- reads -----------------------------------------------------------------------------------
    def status(self, repo_id: str) -> SinkStatus:
        """Vector size, embedder alias and exact count of ``repo_id``'s points right now (a
        diagnostic: it scans with a filter, so the repair check uses ``present`` instead)."""
        return SinkStatus(self._vector_size(), getattr(self.collection, "embedder_name", None),
                          self._count(repo_id))

    def space(self) -> tuple[int | None, str | None]:
        """The collection's vector size and embedder alias: no scan, whatever its size."""
        return self._vector_size(), getattr(self.collection, "embedder_name", None)

    def present(self, ids: Sequence[str]) -> int:
        """How many of the point ids ``ids`` the collection holds (a lookup by id, no scan).

        This is the cheap wipe check: a re-created or emptied collection has none of them,
        at a cost that grows with ``len(ids)``, not with the collection.
        """
        return len(self._held(ids))

    def _held(self, ids: Sequence[str]) -> list[str]:
        """The ids among ``ids`` that the collection holds (one lookup by id)."""
        ids = list(ids)
        if not ids:
            return []
        client = getattr(self.collection, "client", None)
        if client is not None and hasattr(client, "retrieve"):
            found = client.retrieve(collection_name=self.collection.collection_name, ids=ids,
                                    with_payload=False, with_vectors=False)
        else:
            found = self.collection.get_points(ids) or []
        return [str(point.id) for point in found]

    def _vector_size(self) -> int | None:
        client = getattr(self.collection, "client", None)
        if client is not None and hasattr(client, "get_collection"):
            vectors = client.get_collection(self.collection.collection_name).config.params.vectors
            size = getattr(vectors, "size", None)
            if isinstance(size, int):
                return size
        size = getattr(self.collection, "embedder_size", None)
        return size if isinstance(size, int) else None

    def _count(self, repo_id: str) -> int:
        client = getattr(self.collection, "client", None)
        if client is not None and hasattr(client, "count"):
            from qdrant_client.models import FieldCondition, Filter, MatchValue

            flt = Filter(must=[
                FieldCondition(key=f"metadata.{MARKER_KEY}", match=MatchValue(value=True)),
                FieldCondition(key="metadata.repo_id", match=MatchValue(value=repo_id))])
            return int(client.count(collection_name=self.collection.collection_name,
                                    count_filter=flt, exact=True).count)
        return self._count_by_scroll(repo_id)

    def _count_by_scroll(self, repo_id: str) -> int:
        total, offset = 0, None
        while True:
            records, offset = self.collection.get_all_points(limit=10000, offset=offset)
            for r in records:
                meta = (getattr(r, "payload", None) or {}).get("metadata") or {}
                total += bool(meta.get(MARKER_KEY) is True and meta.get("repo_id") == repo_id)
            if offset is None:
                return total

    def search(self, vector: Sequence[float], k: int = 5, *, repo_id: str | None = None,
               threshold: float | None = None) -> list[Any]:
        """Code points nearest to ``vector`` (the Cat's ``[(Document, score, vector, id)]``)."""
        flt: JSONDict = {MARKER_KEY: True}
        if repo_id:
            flt["repo_id"] = repo_id
        found: list[Any] = self.collection.recall_memories_from_embedding(  # the Cat's tuples
            _floats(vector), metadata=flt, k=k, threshold=threshold)
        return found


class NamedEmbedder:
    """An embedder (``cat.embedder``) with a ``name`` that identifies its vector space.

    The Cat's embedder objects carry no model name; without one, two models of the same class
    and size look identical and stored vectors would not be recomputed after a switch. Pass
    ``NamedEmbedder(cat.embedder, cat.memory.vectors.declarative.embedder_name)``.
    """

    def __init__(self, embedder: Embedder, name: str) -> None:
        self.embedder = embedder
        self.name = str(name)

    # Any: whatever the wrapped embedder answers (``as_matrix`` checks it)
    def embed_documents(self, texts: list[str]) -> Any:
        return self.embedder.embed_documents(texts)

    def embed_query(self, text: str) -> Any:
        return self.embedder.embed_query(text)


def is_code_point(metadata: Metadata | None) -> bool:
    """True for a point written by this plugin (use it to filter declarative recall)."""
    return metadata is not None and metadata.get(MARKER_KEY) is True


def _floats(vector: Iterable[float]) -> list[float]:
    return [float(x) for x in vector]
