"""A stand-in for the Cat 1.9.2 ``VectorMemoryCollection`` over a real local Qdrant client.

The collection is created exactly as ``core/cat/memory/vector_memory_collection.py`` (tag 1.9.2)
creates it: cosine distance, ``memmap_threshold=20000``, int8 scalar quantization (quantile 0.95,
always in RAM) and the alias ``<embedder_name>_<collection_name>``. The methods below are the
Cat's, minus logging and LangChain (``Document`` is a small dataclass with the same fields).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Document:
    """LangChain's ``Document`` as far as the Cat's recall uses it."""

    page_content: str
    metadata: dict = field(default_factory=dict)


def create_cat_collection(client: Any, collection_name: str, embedder_name: str,
                          embedder_size: int) -> None:
    """``VectorMemoryCollection.create_collection`` of Cat 1.9.2, verbatim in effect."""
    from qdrant_client.http.models import (
        CreateAlias,
        CreateAliasOperation,
        Distance,
        OptimizersConfigDiff,
        ScalarQuantization,
        ScalarQuantizationConfig,
        ScalarType,
        VectorParams,
    )

    client.create_collection(
        collection_name=collection_name,
        vectors_config=VectorParams(size=embedder_size, distance=Distance.COSINE),
        optimizers_config=OptimizersConfigDiff(memmap_threshold=20000),
        quantization_config=ScalarQuantization(
            scalar=ScalarQuantizationConfig(type=ScalarType.INT8, quantile=0.95, always_ram=True)),
    )
    client.update_collection_aliases(change_aliases_operations=[CreateAliasOperation(
        create_alias=CreateAlias(collection_name=collection_name,
                                 alias_name=embedder_name + "_" + collection_name))])


class CatLikeCollection:
    """The methods and attributes of the Cat's ``VectorMemoryCollection`` that plugins touch."""

    def __init__(self, client: Any, collection_name: str, embedder_name: str,
                 embedder_size: int) -> None:
        self.client = client
        self.collection_name = collection_name
        self.embedder_name = embedder_name
        self.embedder_size = embedder_size
        names = [c.name for c in client.get_collections().collections]
        if collection_name not in names:
            create_cat_collection(client, collection_name, embedder_name, embedder_size)
        else:
            self.check_embedding_size()

    def check_embedding_size(self) -> None:
        """Delete and re-create the collection when the embedder changed (as the Cat does)."""
        info = self.client.get_collection(self.collection_name)
        same_size = info.config.params.vectors.size == self.embedder_size
        alias = self.embedder_name + "_" + self.collection_name
        aliases = self.client.get_collection_aliases(self.collection_name).aliases
        if not (aliases and aliases[0].alias_name == alias and same_size):
            self.client.delete_collection(self.collection_name)
            create_cat_collection(self.client, self.collection_name, self.embedder_name,
                                  self.embedder_size)

    def _filter(self, metadata: dict | None) -> Any:
        from qdrant_client.http.models import FieldCondition, Filter, MatchValue

        if not metadata:
            return None
        return Filter(must=[FieldCondition(key=f"metadata.{k}", match=MatchValue(value=v))
                            for k, v in metadata.items()])

    def add_point(self, content: str, vector: Iterable, metadata: dict | None = None,
                  id: str | None = None, **kwargs: Any) -> Any:
        from qdrant_client.http.models import PointStruct

        point = PointStruct(id=id or uuid.uuid4().hex, vector=list(vector),
                            payload={"page_content": content, "metadata": metadata})
        status = self.client.upsert(collection_name=self.collection_name, points=[point],
                                    **kwargs)
        return point if status.status == "completed" else None

    def delete_points_by_metadata_filter(self, metadata: dict | None = None) -> Any:
        return self.client.delete(collection_name=self.collection_name,
                                  points_selector=self._filter(metadata))

    def delete_points(self, points_ids: list) -> Any:
        return self.client.delete(collection_name=self.collection_name,
                                  points_selector=points_ids)

    def recall_memories_from_embedding(self, embedding: Any, metadata: dict | None = None,
                                       k: int = 5, threshold: float | None = None) -> list:
        from qdrant_client.http.models import QuantizationSearchParams, SearchParams

        points = self.client.query_points(
            collection_name=self.collection_name, query=embedding,
            query_filter=self._filter(metadata), with_payload=True, with_vectors=True,
            limit=k, score_threshold=threshold,
            search_params=SearchParams(quantization=QuantizationSearchParams(
                ignore=False, rescore=True, oversampling=2.0))).points
        return [(Document(m.payload.get("page_content"), m.payload.get("metadata") or {}),
                 m.score, m.vector, m.id) for m in points]

    def get_points(self, ids: list[str]) -> Any:
        return self.client.retrieve(collection_name=self.collection_name, ids=ids,
                                    with_vectors=True)

    def get_all_points(self, limit: int = 10000, offset: str | None = None) -> Any:
        return self.client.scroll(collection_name=self.collection_name, with_vectors=True,
                                  offset=offset, limit=limit)
