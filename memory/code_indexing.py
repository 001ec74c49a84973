"""The indexing side of ``CodeMemorySystem``: repositories and single files indexed
incrementally into the memory store (``codeindex``), associative sources indexed under their own
id, the impact of a change, and the vector sink kept in step (its mode, its embedder, its
repair). ``codebase.CodeMemorySystem`` builds the parts in its constructor and adds retrieval
for a ``CodeContext``, the code-aware prompt and the other kinds of memory.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from .codeindex.impact import Impact, compute_impact
from .codeindex.indexer import MemoryOps, RepositoryIndexer
from .codeindex.manifest import CodeManifest
from .codeindex.records import IndexProgress, IndexReport, LabelFn, ReadFn, WalkedFile
from .codeindex.refs import INDEX_FORMAT
from .codeindex.sink_sync import Payload, SinkMode, SinkSync, SyncResult
from .codeindex.vector_sink import VectorSink
from .codeindex.walk import ExtractorFn, WalkerFn, checked_dir, locate_file, walk_single
from .embedding import Vectors
from .retrieval.recency import RecencyTracker
from .store.support import JSONDict
from .system import MemorySystem


class CodeIndexing(MemorySystem):
    """Indexing and the vector sink of a code memory; its parts are set by
    ``CodeMemorySystem.__init__``."""

    max_file_bytes: int
    sink_mode: SinkMode
    last_index_report: IndexReport | None
    _repository_id: str | None
    _manifest: CodeManifest
    _recency: RecencyTracker
    _walker: WalkerFn
    _extractor: ExtractorFn
    _sink: SinkSync
    _recovery_told: Exception | None
    _index_lock: threading.RLock

    # -- indexing --------------------------------------------------------------------------------
    def index_repository(self, directory: str, exclude_patterns: list[str] | None = None,
                         recursive: bool = True, *,
                         progress: Callable[[IndexProgress], None] | None = None
                         ) -> list[str]:
        """Index ``directory`` incrementally; returns the memory ids of all its entities.

        Only files whose content changed are parsed and only changed entities embedded;
        entities of deleted files are removed; renames move entities. ``.gitignore`` and
        ``exclude_patterns`` (globs such as ``*/tests/*``) are honoured. Every walked file gets
        a status in ``last_index_report.statuses``. ``progress`` receives ``IndexProgress``.
        """
        root = checked_dir(directory)
        with self._index_lock:  # one indexing run at a time per system
            indexer = self._indexer(root, progress)
            walked = self._walker(root, list(exclude_patterns or []), recursive,
                                  self.max_file_bytes)
            return self._finish(indexer.run(walked, complete=True))

    def index_file(self, file_path: str) -> list[str]:
        """Index one file; its entities' memory ids (``FileNotFoundError``: no such file;
        ``ValueError``: an unsupported type)."""
        return self._index_one(file_path, force=False)

    def reindex_file(self, file_path: str) -> list[str]:
        """Re-parse one file (call after editing it); its entities' memory ids. Entities whose
        source did not change keep their memory (and their vector)."""
        return self._index_one(file_path, force=True)

    def _index_one(self, file_path: str, force: bool) -> list[str]:
        root, rel = locate_file(file_path, [r.root for r in self._manifest.repos()])
        with self._index_lock:
            report = self._indexer(root, None).run(walk_single(root, rel), complete=False,
                                                   force=[rel] if force else [])
            self._finish(report, all_ids=False)
        return [r.memory_id for r in self._manifest.entities(report.repo_id, rel)]

    def repository_id_for(self, root: str) -> str:
        """The repository id used for ``root`` (fixed by ``repository_id`` or path-derived)."""
        if self._repository_id:
            return self._repository_id
        digest = hashlib.sha1(os.path.realpath(root).encode("utf-8", "surrogateescape"))
        return f"{os.path.basename(root.rstrip(os.sep)) or 'root'}-{digest.hexdigest()[:8]}"

    def index_tree(self, root: str, walked: Iterable[WalkedFile], *, repository_id: str,
                   read: ReadFn | None = None, extractor: ExtractorFn | None = None,
                   labels: LabelFn | None = None, force: Sequence[str] = (),
                   progress: Callable[[IndexProgress], None] | None = None) -> IndexReport:
        """Index a walked tree under its own id (an associative source), incrementally.

        ``read`` replaces the disk reader (files in an archive), ``extractor`` the parsing pool
        (wrap ``self.extractor``), ``labels`` adds metadata per entity; ``force`` paths are
        re-extracted. The walk is complete; ``last_index_report`` is left alone.
        """
        with self._index_lock:
            indexer = self._indexer(root, progress, repo_id=repository_id, read=read,
                                    extract=extractor, labels=labels, track_refs=False)
            report = indexer.run(walked, complete=True, force=force)
            self._finish(report, record=False)
            return report

    def impact(self, directory: str, path: str, symbol: str, *,
               second_level: bool = True) -> Impact:
        """Who uses ``symbol`` of ``path``, one level further, and the tests (``impact``)."""
        repo_id = self.repository_id_for(directory)
        return compute_impact(self._manifest.read, repo_id, path, symbol,
                              stale=self._manifest.index_format(repo_id) < INDEX_FORMAT,
                              second_level=second_level)

    def indexed_paths(self, directory: str) -> list[str]:
        """The files of the repository indexed from ``directory`` that define an entity."""
        return self._manifest.entity_paths(self.repository_id_for(directory))

    def indexed_names(self) -> set[str]:
        """Every indexed entity's qualified name and its last part (repositories, sources)."""
        return {n for q in self._manifest.entity_names() for n in (q, q.rsplit(".", 1)[-1])}

    def forget_repository(self, repository_id: str) -> int:
        """Remove a repository id's memories from the store, the manifest and the sink."""
        with self._index_lock:
            deleted = MemorySystem.delete_memories(self, {"repo_id": repository_id})
            self._manifest.drop_repo(repository_id)
            self._sink.forget_repository(repository_id)
            return deleted

    @property
    def extractor(self) -> ExtractorFn:
        """The parsing seam in use (the crash-contained pool by default)."""
        return self._extractor

    def _indexer(self, root: str, progress: Callable[[IndexProgress], None] | None, *,
                 repo_id: str | None = None, read: ReadFn | None = None,
                 extract: ExtractorFn | None = None, labels: LabelFn | None = None,
                 track_refs: bool = True) -> RepositoryIndexer:
        repo_id = repo_id or self.repository_id_for(root)
        if not repo_id:
            raise ValueError("repository_id must be non-empty")
        self._ensure_space(repo_id, root)
        self._sink.check(repo_id, self._dense.space()[1])
        ops = MemoryOps(add=lambda items: MemorySystem.add_memories(self, items),
                        update_metadata=lambda mid, meta: MemorySystem.update_memory(
                            self, mid, metadata=meta),
                        delete=lambda mid: MemorySystem.delete_memory(self, mid),
                        get=lambda mid: MemorySystem.get_memory(self, mid),
                        embed=self._index_vectors)
        return RepositoryIndexer(self._manifest, ops, repo_id=repo_id, root=root,
                                 extract=extract or self._extractor,
                                 max_file_bytes=self.max_file_bytes,
                                 sink_push=self._sink.pusher(repo_id), progress=progress,
                                 read=read, labels=labels, track_refs=track_refs)

    def _finish(self, report: IndexReport, *, record: bool = True,
                all_ids: bool = True) -> list[str]:
        """Record the run (``record``: as ``last_index_report``); ``all_ids`` lists every entity
        of the repository (what ``index_repository`` returns; a one-file index returns its own
        entities instead)."""
        if self.recovery is not None and self.recovery is not self._recovery_told:
            report.notices.append(str(self.recovery))
            self._recovery_told = self.recovery
        self._sink.mark_synced(report.repo_id)
        self._recency.invalidate()
        if all_ids:
            report.memory_ids = self._manifest.entity_ids(report.repo_id)
        if record:
            self.last_index_report = report
        return list(report.memory_ids)

    def _ensure_space(self, repo_id: str, root: str) -> None:
        """Record the embedder; if it changed since the last run, re-embed the stored texts."""
        key, dimension = self._dense.space()
        previous = self._manifest.repo(repo_id)
        self._manifest.upsert_repo(repo_id, root, key, dimension)
        if previous is not None and previous.embedder != key:
            self._reembed(repo_id)

    def _reembed(self, repo_id: str) -> None:
        """The embedder changed: re-embed every entity text (no re-parsing) for the sink, or
        drop the old vectors when nothing uses entity vectors (they are made when needed)."""
        if not (self._dense_ranks() or self._sink.mode is SinkMode.ENTITIES):
            self._manifest.clear_vectors(repo_id)
            return
        rows = self._manifest.entities(repo_id)
        for start in range(0, len(rows), 512):
            chunk = rows[start:start + 512]
            texts = [(self.get_memory(r.memory_id) or {}).get("text") or r.qualified_name
                     for r in chunk]
            vectors = self._dense.embed_documents(texts)
            self._manifest.set_vectors([(r.memory_id, np.asarray(v, np.float32).tobytes())
                                        for r, v in zip(chunk, vectors, strict=True)])

    # -- the vector sink -------------------------------------------------------------------------
    def _resolved_sink_mode(self) -> SinkMode:
        """``auto``: nothing for an embedder that cannot rank code, one point per file else."""
        if self.sink_mode is not SinkMode.AUTO:
            return self.sink_mode
        return SinkMode.FILES if self._dense.ranks() else SinkMode.NONE

    def _index_vectors(self, texts: list[str]) -> Sequence[Vectors | None]:
        """Entity vectors for the indexer, or ``None`` each when nothing would use them (the
        dense ranking is off and the sink does not hold entities): no embedding cost then."""
        if self._dense_ranks() or self._sink.mode is SinkMode.ENTITIES:
            return list(self._dense.embed_documents(texts))
        return [None] * len(texts)

    def attach_vector_sink(self, sink: VectorSink | None) -> None:
        """Use ``sink`` from now on (the glue re-attaches after the Cat replaced its memory)."""
        self._sink.attach(sink)

    def sync_vector_sink(self, repository_id: str | None = None) -> dict[str, SyncResult]:
        """Check the sink for each repository (or one) and re-push everything if it was wiped,
        re-created, or holds a different number of this repository's points."""
        out = {}
        for repo in self._manifest.repos():
            if repository_id is None or repo.repo_id == repository_id:
                self._ensure_space(repo.repo_id, repo.root)
                out[repo.repo_id] = self._sink.check(repo.repo_id, self._dense.space()[1])
        return out

    def _entity_payloads(self, repo_id: str, memory_ids: Sequence[str]) -> list[Payload]:
        found = ((mid, MemorySystem.get_memory(self, mid)) for mid in memory_ids)
        return [(mid, m["text"], m["metadata"]) for mid, m in found if m is not None]

    # -- MemorySystem CRUD kept consistent with the manifest and the sink ------------------------
    def update_memory(self, memory_id: str, text: str | None = None,
                      metadata: JSONDict | None = None) -> bool:
        """As ``MemorySystem.update_memory``; an edited code entity's copy in the sink follows."""
        changed = super().update_memory(memory_id, text=text, metadata=metadata)
        if changed and isinstance(memory_id, str):
            self._sink.refresh_entity(memory_id, text, self._dense.embed_documents)
        return changed

    def delete_memory(self, memory_id: str) -> bool:
        """As ``MemorySystem.delete_memory``; a code entity also leaves the manifest and sink."""
        deleted = super().delete_memory(memory_id)
        if deleted:
            self._sink.forget_entity(memory_id)
        return deleted
