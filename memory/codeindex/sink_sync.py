"""Keeping the vector sink (the Cat's declarative collection) in step with the manifest.

Why a repair check instead of trust: the Cat deletes and re-creates its collections when the
embedder changes, the admin can wipe them, and ``cat.memory`` is replaced on every settings
save. The manifest records, per repository, how many points the sink should hold, the
collection's embedder alias and vector size at the last push, and what was pushed (the
``SinkMode`` label). ``check`` compares the configuration and looks up a spread sample of the
expected point ids by id (``SAMPLE``: its cost does not grow with the collection, unlike a
filtered count over 68k points); a missing point, another mode or an interrupted push
(``sink_count = -1``) means: delete this repository's points and re-push them from the
plugin's own store. Pushing is idempotent (deterministic point ids).

Why modes: every point in the Cat's declarative memory is compared with every
message the user sends, and the Cat's local Qdrant reloads every point at boot. Whole entities
of a large repository made the Cat slow and huge; ``auto`` pushes one compact outline per file
when the embedder ranks code and nothing when it cannot (the Cat's default DumbEmbedder).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum

import numpy as np

from ..embedding import Vectors
from ..store.support import Metadata
from .file_points import file_metadata, file_outline, file_point_id
from .indexer import Pushed, SinkPushFn
from .manifest import CodeManifest, EntityRow
from .vector_sink import SinkPoint, VectorSink, VectorSpaceMismatch, payload_metadata

#: ``sink_count`` while a push is under way: a crash in between forces a full re-push.
DIRTY = -1

#: Point ids looked up by the wipe check (a lookup by id: the cost does not grow with the
#: collection or the repository).
SAMPLE = 64

#: ``(memory id, text, metadata)`` of one entity memory (``Any``: JSON metadata)
Payload = tuple[str, str, Metadata]
Payloads = Callable[[str, Sequence[str]], list[Payload]]
"""``(repo_id, memory_ids) -> [(memory_id, text, metadata)]`` from the plugin's store."""

Embed = Callable[[list[str]], Vectors]
"""Texts -> vectors, with the embedder whose space the sink holds."""


class SinkMode(str, Enum):
    """What the plugin copies into the sink (the Cat's declarative memory).

    ``auto`` is resolved by the caller: ``none`` when the embedder cannot rank code (the Cat's
    default DumbEmbedder, the hashing fallback), ``files`` otherwise.
    """

    AUTO = "auto"
    NONE = "none"
    FILES = "files"
    ENTITIES = "entities"


def sink_label(mode: SinkMode, embedder_name: str | None) -> str | None:
    """What the manifest records as the sink's embedder: the alias, tagged by the mode.

    Rows written before modes existed hold the bare alias, which reads as ``entities``.
    """
    if mode is SinkMode.NONE:
        return None
    return embedder_name if mode is SinkMode.ENTITIES else f"{embedder_name} [files]"


@dataclass(frozen=True)
class SyncResult:
    """Outcome of one check: ``in_sync``, ``repushed``, ``cleared``, ``off`` or ``no_sink``."""

    repo_id: str
    action: str
    pushed: int = 0
    reason: str = ""


class SinkSync:
    """Pushes copies to an optional ``VectorSink`` in the chosen mode; repairs it when wiped."""

    def __init__(self, manifest: CodeManifest, payloads: Payloads,
                 sink: VectorSink | None = None, *,
                 mode: Callable[[], SinkMode] = lambda: SinkMode.ENTITIES,
                 embed: Embed | None = None) -> None:
        self._manifest = manifest
        self._payloads = payloads
        self._sink = sink
        self._mode = mode
        self._embed = embed
        self._checked: dict[str, tuple[str | None, int | None]] = {}

    @property
    def sink(self) -> VectorSink | None:
        return self._sink

    @property
    def mode(self) -> SinkMode:
        """The mode in force now (never ``auto``)."""
        return self._mode()

    def attach(self, sink: VectorSink | None) -> None:
        self._sink = sink
        self._checked.clear()

    # -- checking and repairing ------------------------------------------------------------------
    def check(self, repo_id: str, dimension: int) -> SyncResult:
        """Make the sink hold exactly what the mode says for ``repo_id``, re-pushing if not.

        The check itself costs a configuration read and a lookup of ``SAMPLE`` point ids.
        Raises ``VectorSpaceMismatch`` when the collection's vector size is not ``dimension``
        (never in mode ``none``: nothing is pushed then).
        """
        if self._sink is None:
            return SyncResult(repo_id, "no_sink")
        mode = self._mode()
        if mode is SinkMode.NONE:
            return self._empty(repo_id)
        size, name = self._sink.space()
        if size is not None and size != dimension:
            raise VectorSpaceMismatch(
                f"the collection holds {size}-dim vectors but the embedder makes "
                f"{dimension}-dim ones: build CodeMemorySystem with the Cat's embedder")
        label = sink_label(mode, name)
        self._checked[repo_id] = (label, size)
        reason = self._drift(repo_id, mode, label, size)
        if not reason:
            return SyncResult(repo_id, "in_sync")
        return SyncResult(repo_id, "repushed", self._repush(repo_id, mode, label, size), reason)

    def _empty(self, repo_id: str) -> SyncResult:
        """Mode ``none``: remove what an earlier mode pushed, once; nothing else to check."""
        row = self._manifest.repo(repo_id)
        if row is None or (row.sink_count == 0 and row.sink_embedder is None):
            return SyncResult(repo_id, "off")
        assert self._sink is not None
        self._sink.clear(repo_id)
        self._manifest.set_sink_state(repo_id, 0, None, None)
        return SyncResult(repo_id, "cleared", reason="the sink mode is none")

    def _drift(self, repo_id: str, mode: SinkMode, label: str | None, size: int | None) -> str:
        row = self._manifest.repo(repo_id)
        if row is None:
            return "unknown repository"
        if row.sink_count == DIRTY:
            return "an earlier push did not finish"
        if row.sink_embedder != label or row.sink_size != size:
            return (f"collection or mode changed ({row.sink_embedder}/{row.sink_size} -> "
                    f"{label}/{size})")
        expected, sample = self._expectation(repo_id, mode)
        if row.sink_count != expected:
            return f"{row.sink_count} points pushed, {expected} expected"
        assert self._sink is not None
        found = self._sink.present(sample)
        if found != len(sample):
            return f"{len(sample) - found} of {len(sample)} sampled points are missing"
        return ""

    def _expected_count(self, repo_id: str, mode: SinkMode) -> int:
        if mode is SinkMode.FILES:
            return len(self._manifest.entity_paths(repo_id))
        return self._manifest.entity_count(repo_id)

    def _expectation(self, repo_id: str, mode: SinkMode) -> tuple[int, list[str]]:
        """How many points the sink should hold, and a spread sample of their ids (one read
        of the manifest's index)."""
        if mode is SinkMode.FILES:
            paths = self._manifest.entity_paths(repo_id)
            step = max(1, len(paths) // SAMPLE)
            return len(paths), [file_point_id(repo_id, p) for p in paths[::step][:SAMPLE]]
        total = self._manifest.entity_count(repo_id)
        return total, self._manifest.sample_point_ids(repo_id, SAMPLE, total)

    def _repush(self, repo_id: str, mode: SinkMode, label: str | None,
                size: int | None) -> int:
        assert self._sink is not None
        self._manifest.set_sink_state(repo_id, DIRTY, label, size)
        self._sink.clear(repo_id)
        pushed = 0
        if mode is SinkMode.FILES:
            paths = self._manifest.entity_paths(repo_id)
            for start in range(0, len(paths), 256):
                pushed += self._push_files(repo_id, paths[start:start + 256])
        else:
            for chunk in self._manifest.iter_entities(repo_id):
                pushed += self._upsert_rows(repo_id, chunk)
        self._manifest.set_sink_state(repo_id, pushed, label, size)
        return pushed

    def _upsert_rows(self, repo_id: str, rows: Sequence[EntityRow]) -> int:
        by_id = {r.memory_id: r for r in rows}
        items = [(by_id[mid], text, meta) for mid, text, meta in self._payloads(repo_id,
                                                                                 list(by_id))]
        return self._upsert_entities(repo_id, items)

    def _upsert_entities(self, repo_id: str,
                         items: Sequence[Pushed]) -> int:
        """Entity points; rows stored without a vector (nothing needed one) are embedded now."""
        missing = [i for i, (row, _, _) in enumerate(items) if row.vector is None]
        rows = [row for row, _, _ in items]
        if missing:
            vectors = self._embedding([items[i][1] for i in missing])
            blobs = [np.asarray(v, dtype=np.float32).tobytes() for v in vectors]
            self._manifest.set_vectors([(rows[i].memory_id, b) for i, b in zip(missing, blobs,
                                                                               strict=True)])
            for i, blob in zip(missing, blobs, strict=True):
                rows[i] = replace(rows[i], vector=blob)
        points = [_point(repo_id, row, text, meta)
                  for row, (_, text, meta) in zip(rows, items, strict=True)]
        if points:
            assert self._sink is not None
            self._sink.upsert(points)
        return len(points)

    def _push_files(self, repo_id: str, paths: Iterable[str]) -> int:
        """(Re)write the point of each path; a path left without entities loses its point."""
        assert self._sink is not None
        gone, built = [], []
        for path in sorted(set(paths)):
            rows = self._manifest.entities(repo_id, path)
            metas = [meta for _, _, meta in self._payloads(repo_id, [r.memory_id for r in rows])]
            if not metas:
                gone.append(file_point_id(repo_id, path))
                continue
            outline = file_outline(path, metas)
            built.append((path, outline, file_metadata(repo_id, path, metas, outline)))
        if gone:
            self._sink.delete(gone)
        if built:
            vectors = self._embedding([outline for _, outline, _ in built])
            self._sink.upsert([SinkPoint(file_point_id(repo_id, path), outline, meta, vector)
                               for (path, outline, meta), vector in zip(built, vectors,
                                                                        strict=True)])
        return len(built)

    def _embedding(self, texts: list[str]) -> Vectors:
        if self._embed is None:
            raise VectorSpaceMismatch("the sink needs vectors but no embedder was given")
        return self._embed(texts)

    # -- incremental pushes ----------------------------------------------------------------------
    def pusher(self, repo_id: str) -> SinkPushFn:
        """``push(pushed, removed_point_ids, paths)`` for the indexer: ``pushed`` holds
        ``(EntityRow, text, metadata)`` tuples, ``paths`` the files the change touched. Marks
        the state dirty until ``mark_synced``."""
        def push(pushed: list[Pushed], removed: list[str], paths: list[str]) -> None:
            mode = self._mode()
            if self._sink is None or mode is SinkMode.NONE or not (pushed or removed):
                return
            row = self._manifest.repo(repo_id)
            if row is not None and row.sink_count != DIRTY:
                self._manifest.set_sink_state(repo_id, DIRTY, row.sink_embedder, row.sink_size)
            if mode is SinkMode.FILES:
                self._push_files(repo_id, [*paths, *(r.path for r, _, _ in pushed)])
                return
            if removed:
                self._sink.delete(removed)
            if pushed:
                self._upsert_entities(repo_id, pushed)
        return push

    def mark_synced(self, repo_id: str) -> None:
        """After a successful run: the sink holds exactly what the mode says."""
        mode = self._mode()
        if self._sink is None or mode is SinkMode.NONE:
            row = self._manifest.repo(repo_id)
            if row is not None and row.sink_count != DIRTY:
                self._manifest.set_sink_state(repo_id, 0, None, None)
            return
        checked = self._checked.get(repo_id)
        if checked is None:
            return
        label, size = checked
        self._manifest.set_sink_state(repo_id, self._expected_count(repo_id, mode), label, size)

    def refresh_entity(self, memory_id: str, new_text: str | None,
                       embed: Embed) -> None:
        """A code entity was edited through ``update_memory``: new vector, new point copy."""
        found = self._manifest.entity(memory_id)
        if found is None:
            return
        repo_id, row = found
        payload = self._payloads(repo_id, [memory_id])
        if not payload:
            return
        _, text, meta = payload[0]
        if new_text is not None and row.vector is not None:
            blob = np.asarray(embed([text])[0], dtype=np.float32).tobytes()
            self._manifest.set_vectors([(memory_id, blob)])
            row = replace(row, vector=blob)
        mode = self._mode()
        if self._sink is None or mode is SinkMode.NONE:
            return
        if mode is SinkMode.FILES:
            self._push_files(repo_id, [row.path])
        else:
            self._upsert_entities(repo_id, [(row, text, meta)])

    def forget_repository(self, repo_id: str) -> None:
        """Every point of ``repo_id`` leaves the sink (the repository itself is gone)."""
        self._checked.pop(repo_id, None)
        if self._sink is not None:
            self._sink.clear(repo_id)

    def forget_entity(self, memory_id: str) -> None:
        """A code entity was deleted through ``delete_memory``: drop its row and its point."""
        found = self._manifest.entity(memory_id)
        if found is None:
            return
        repo_id, row = found
        self._manifest.forget_memory(memory_id)
        mode = self._mode()
        repo = self._manifest.repo(repo_id)
        if self._sink is None or mode is SinkMode.NONE or repo is None or repo.sink_count < 0:
            return
        if mode is SinkMode.FILES:
            self._push_files(repo_id, [row.path])
        else:
            self._sink.delete([row.point_id])
        self._manifest.set_sink_state(repo_id, self._expected_count(repo_id, mode),
                                      repo.sink_embedder, repo.sink_size)


def _point(repo_id: str, row: EntityRow, text: str, meta: Metadata) -> SinkPoint:
    vector = np.frombuffer(row.vector or b"", dtype=np.float32)
    return SinkPoint(row.point_id, text, payload_metadata(repo_id, row.memory_id, meta), vector)
