"""Keeping the vector sink (the Cat's declarative collection) in step with the manifest.

Why a repair check instead of trust: the Cat deletes and re-creates its collections when the
embedder changes, the admin can wipe them, and ``cat.memory`` is replaced on every settings
save. The manifest records, per repository, how many points the sink should hold and the
collection's embedder alias and vector size at the last push. ``check`` compares that with
the sink's exact count and configuration; any difference (or an interrupted push, recorded as
``sink_count = -1``) means: delete this repository's points and re-push all of them from the
plugin's own store. Pushing is idempotent (deterministic point ids).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .code_manifest import CodeManifest, EntityRow
from .vector_sink import SinkPoint, SinkStatus, VectorSink, VectorSpaceMismatch, payload_metadata

#: ``sink_count`` while a push is under way: a crash in between forces a full re-push.
DIRTY = -1

Payloads = Callable[[str, Sequence[str]], list]
"""``(repo_id, memory_ids) -> [(memory_id, text, metadata)]`` from the plugin's store."""


@dataclass(frozen=True)
class SyncResult:
    """Outcome of one check: ``action`` is ``in_sync``, ``repushed`` or ``no_sink``."""

    repo_id: str
    action: str
    pushed: int = 0
    reason: str = ""


class SinkSync:
    """Pushes entity copies to an optional ``VectorSink`` and repairs it when it lost them."""

    def __init__(self, manifest: CodeManifest, payloads: Payloads,
                 sink: VectorSink | None = None) -> None:
        self._manifest = manifest
        self._payloads = payloads
        self._sink = sink
        self._last_status: dict[str, SinkStatus] = {}

    @property
    def sink(self) -> VectorSink | None:
        return self._sink

    def attach(self, sink: VectorSink | None) -> None:
        self._sink = sink
        self._last_status.clear()

    # -- checking and repairing ------------------------------------------------------------------
    def check(self, repo_id: str, dimension: int) -> SyncResult:
        """Re-push every point of ``repo_id`` if the sink does not hold exactly what it should.

        Raises ``VectorSpaceMismatch`` when the collection's vector size is not ``dimension``.
        """
        if self._sink is None:
            return SyncResult(repo_id, "no_sink")
        status = self._sink.status(repo_id)
        if status.vector_size is not None and status.vector_size != dimension:
            raise VectorSpaceMismatch(
                f"the collection holds {status.vector_size}-dim vectors but the embedder makes "
                f"{dimension}-dim ones: build CodeMemorySystem with the Cat's embedder")
        self._last_status[repo_id] = status
        reason = self._drift(repo_id, status)
        if not reason:
            return SyncResult(repo_id, "in_sync")
        pushed = self._repush(repo_id, status)
        return SyncResult(repo_id, "repushed", pushed, reason)

    def _drift(self, repo_id: str, status: SinkStatus) -> str:
        row = self._manifest.repo(repo_id)
        expected = self._manifest.entity_count(repo_id)
        if row is None:
            return "unknown repository"
        if row.sink_count == DIRTY:
            return "an earlier push did not finish"
        if row.sink_embedder != status.embedder_name or row.sink_size != status.vector_size:
            return (f"collection changed ({row.sink_embedder}/{row.sink_size} -> "
                    f"{status.embedder_name}/{status.vector_size})")
        if status.point_count != expected or row.sink_count != expected:
            return (f"collection holds {status.point_count} points of this repository, "
                    f"{expected} expected")
        return ""

    def _repush(self, repo_id: str, status: SinkStatus) -> int:
        assert self._sink is not None
        self._manifest.set_sink_state(repo_id, DIRTY, status.embedder_name, status.vector_size)
        if status.point_count:
            self._sink.clear(repo_id)
        pushed = 0
        for chunk in self._manifest.iter_entities(repo_id):
            self._upsert_rows(repo_id, chunk)
            pushed += len(chunk)
        self._manifest.set_sink_state(repo_id, pushed, status.embedder_name, status.vector_size)
        return pushed

    def _upsert_rows(self, repo_id: str, rows: Sequence[EntityRow]) -> None:
        by_id = {r.memory_id: r for r in rows}
        points = []
        for mid, text, meta in self._payloads(repo_id, list(by_id)):
            row = by_id[mid]
            if row.vector is not None:
                points.append(_point(repo_id, row, text, meta))
        self._sink.upsert(points)  # type: ignore[union-attr]

    # -- incremental pushes ----------------------------------------------------------------------
    def pusher(self, repo_id: str) -> Callable[[list, list], None]:
        """``push(pushed, removed_point_ids)`` for the indexer; ``pushed`` holds
        ``(EntityRow, text, metadata)`` tuples. Marks the state dirty until ``mark_synced``."""
        def push(pushed: list, removed: list) -> None:
            if self._sink is None or not (pushed or removed):
                return
            row = self._manifest.repo(repo_id)
            if row is not None and row.sink_count != DIRTY:
                self._manifest.set_sink_state(repo_id, DIRTY, row.sink_embedder, row.sink_size)
            if removed:
                self._sink.delete(removed)
            if pushed:
                self._sink.upsert([_point(repo_id, r, t, m) for r, t, m in pushed])
        return push

    def mark_synced(self, repo_id: str) -> None:
        """After a successful run: the sink holds exactly the manifest's entities."""
        status = self._last_status.get(repo_id)
        if self._sink is None or status is None:
            row = self._manifest.repo(repo_id)
            if row is not None and row.sink_count != DIRTY and self._sink is None:
                self._manifest.set_sink_state(repo_id, 0, None, None)
            return
        self._manifest.set_sink_state(repo_id, self._manifest.entity_count(repo_id),
                                      status.embedder_name, status.vector_size)

    def refresh_entity(self, memory_id: str, new_text: str | None,
                       embed: Callable[[list], Any]) -> None:
        """A code entity was edited through ``update_memory``: new vector, new point copy."""
        found = self._manifest.entity(memory_id)
        if found is None:
            return
        repo_id, row = found
        payload = self._payloads(repo_id, [memory_id])
        if not payload:
            return
        _, text, meta = payload[0]
        if new_text is not None:
            blob = np.asarray(embed([text])[0], dtype=np.float32).tobytes()
            self._manifest.set_vectors([(memory_id, blob)])
            row = EntityRow(row.memory_id, row.path, row.qualified_name, row.occurrence,
                            row.entity_hash, row.point_id, blob)
        if self._sink is not None:
            self._sink.upsert([_point(repo_id, row, text, meta)])

    def forget_repository(self, repo_id: str) -> None:
        """Every point of ``repo_id`` leaves the sink (the repository itself is gone)."""
        self._last_status.pop(repo_id, None)
        if self._sink is not None:
            self._sink.clear(repo_id)

    def forget_entity(self, memory_id: str) -> None:
        """A code entity was deleted through ``delete_memory``: drop its row and its point."""
        found = self._manifest.entity(memory_id)
        if found is None:
            return
        repo_id, row = found
        self._manifest.forget_memory(memory_id)
        if self._sink is not None:
            self._sink.delete([row.point_id])
            repo = self._manifest.repo(repo_id)
            if repo is not None and repo.sink_count > 0:
                self._manifest.set_sink_state(repo_id, repo.sink_count - 1, repo.sink_embedder,
                                              repo.sink_size)


def _point(repo_id: str, row: EntityRow, text: str, meta: dict) -> SinkPoint:
    vector = np.frombuffer(row.vector or b"", dtype=np.float32)
    return SinkPoint(row.point_id, text, payload_metadata(repo_id, row.memory_id, meta), vector)
