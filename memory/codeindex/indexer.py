"""Incremental indexing of a repository into entity memories (GitMemory, docs/memory-api.md).

Why incremental by stat, then hash: re-indexing a large repository after one edit must cost
about one file. A file whose size and mtime match the manifest is not even read; a file whose
stat moved is hashed, and parsed only if its content hash changed. A new file whose hash equals
a vanished file's hash is a rename: its entities move (metadata and point ids change) without
parsing or embedding. Inside a changed file only entities whose source changed are embedded.

The indexer never parses in this process: files go to the injected ``extract`` callable (the
extraction package's crash-contained worker pool in production; tests wrap it with counters).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ..embedding import Vectors
from ..store.support import JSONDict, Metadata
from .manifest import CodeManifest, EntityRow, FileRow
from .records import (
    INDEXED,
    ExtractorFn,
    IndexProgress,
    IndexReport,
    LabelFn,
    ReadFn,
    WalkedFile,
    entity_metadata,
    entity_text,
)
from .refs import INDEX_FORMAT, DefRow, RefRow
from .refs import file_rows as refs_file_rows
from .refs import move_file as refs_move_file
from .refs import replace_file as refs_replace_file
from .vector_sink import point_id

if TYPE_CHECKING:  # the extraction package loads when a file is parsed, not at import
    from ..extract.entities import CodeEntity, FileExtraction
    from ..extract.walker import ReadResult

#: a new entity memory for ``add_memories``: text, metadata, vector (None: not needed)
NewItem = tuple[str, JSONDict, "Vectors | None"]
#: an entity for the vector sink: its manifest row, text and metadata
Pushed = tuple[EntityRow, str, Metadata]
SinkPushFn = Callable[[list[Pushed], list[str], list[str]], None]
"""``push(pushed, removed point ids, touched paths)`` (``sink_sync.SinkSync.pusher``)."""
#: a changed file waiting to be parsed: walked file, bytes (None: read again later), digest
_Todo = tuple["WalkedFile", "bytes | None", str]


def _read_from_disk(root: str, rel: str, max_bytes: int) -> ReadResult:
    from ..extract.walker import read_file_safely

    return read_file_safely(root, rel, max_bytes)


class MemoryOps:
    """The memory operations the indexer needs (bound by ``CodeMemorySystem``)."""

    def __init__(self, add: Callable[[list[NewItem]], list[str]],
                 update_metadata: Callable[[str, JSONDict], bool],
                 delete: Callable[[str], bool], get: Callable[[str], JSONDict | None],
                 embed: Callable[[list[str]], Sequence[Vectors | None]]) -> None:
        self.add, self.update_metadata, self.delete = add, update_metadata, delete
        self.get, self.embed = get, embed


@dataclass
class _Pending:
    """Entities of one extracted file waiting to be stored."""

    file: FileRow
    keep: list[tuple[EntityRow, JSONDict]]  # (existing row, new metadata)
    new: list[tuple[CodeEntity, bytes | None]]  # (entity, reused vector or None)
    drop: list[EntityRow]
    #: every entity of the file and its module-level imports (who-uses-what rows)
    entities: tuple[CodeEntity, ...] = ()
    imports: tuple[str, ...] = ()


class RepositoryIndexer:
    """Applies one repository's walk to its memories, manifest and vector sink."""

    def __init__(self, manifest: CodeManifest, ops: MemoryOps, *, repo_id: str, root: str,
                 extract: ExtractorFn, max_file_bytes: int, sink_push: SinkPushFn,
                 progress: Callable[[IndexProgress], None] | None = None,
                 batch_files: int = 64, read: ReadFn | None = None,
                 labels: LabelFn | None = None, track_refs: bool = True) -> None:
        self.manifest, self.ops = manifest, ops
        self.repo_id, self.root = repo_id, root
        self.extract, self.max_file_bytes = extract, max_file_bytes
        self.sink_push = sink_push
        self.progress = progress
        self.batch_files = batch_files
        self.read = read or _read_from_disk
        self.labels = labels
        #: keep who-uses-what rows (``refs``): a repository's yes, a library source's no
        self.track_refs = track_refs
        self.report = IndexReport(repo_id, root)

    def _metadata(self, entity: CodeEntity) -> JSONDict:
        """The entity's memory metadata, with the caller's labels (e.g. a source's name)."""
        meta = entity_metadata(self.repo_id, entity)
        if self.labels is not None:
            meta.update(self.labels(entity))
        return meta

    def _notify(self, phase: str, done: int, total: int, path: str = "") -> None:
        if self.progress is not None:
            self.progress(IndexProgress(phase, done, total, path))

    # -- planning --------------------------------------------------------------------------------
    def run(self, walked: Iterable[WalkedFile], *, complete: bool = True,
            force: Sequence[str] = ()) -> IndexReport:
        """Index ``walked``; with ``complete`` the walk is the whole repository (so manifest
        files missing from it are deleted); paths in ``force`` are re-parsed even if unchanged."""
        from ..extract.walker import undecodable

        walked = list(walked)
        upgrade = complete and self.track_refs and (
            self.manifest.index_format(self.repo_id) < INDEX_FORMAT)
        if upgrade:  # rows made before the current format: parse every file once more
            force = [wf.path for wf in walked]
        known = self.manifest.files(self.repo_id, None if complete else
                                    [wf.path for wf in walked if not undecodable(wf.path)])
        todo: list[_Todo] = []
        seen: set[str] = set()
        self._notify("walk", len(walked), len(walked))
        for wf in walked:
            seen.add(wf.path)
            self._plan_one(wf, known.get(wf.path), todo, force)
        gone = {p: row for p, row in known.items() if p not in seen} if complete else {}
        todo = self._apply_renames(todo, gone, known)
        for path in sorted(gone):
            self._delete_file(path)
        self._extract_all(todo)
        if upgrade:
            self.manifest.set_index_format(self.repo_id, INDEX_FORMAT)
        self._notify("done", len(walked), len(walked))
        return self.report

    def _plan_one(self, wf: WalkedFile, old: FileRow | None,
                  todo: list[_Todo], force: Sequence[str]) -> None:
        from ..extract.walker import printable, undecodable

        if wf.status is not None:  # skipped or refused by the walker: report, forget entities
            self._not_indexed(wf.path, wf.status, old)
            return
        if undecodable(wf.path):  # from another walker: such a name cannot be stored
            self._not_indexed(printable(wf.path), "skipped:undecodable_name", None)
            return
        if (old is not None and wf.path not in force and old.size == wf.size
                and old.mtime_ns == wf.mtime_ns and wf.mtime_ns is not None):
            self._unchanged(wf.path, old)
            return
        read = self.read(self.root, wf.path, self.max_file_bytes)
        if read.data is None:
            self._not_indexed(wf.path, read.status, old)
            return
        from ..extract.entities import sha256_hex

        digest = sha256_hex(read.data)
        if old is not None and old.file_hash == digest and wf.path not in force:
            self._put_file(replace(old, size=wf.size, mtime_ns=wf.mtime_ns))
            self._unchanged(wf.path, old)
            return
        todo.append((wf, None, digest))  # bytes are read again when parsed: bounded memory

    def _not_indexed(self, path: str, status: str, old: FileRow | None) -> None:
        """Skipped files are reported, not kept in the manifest; a formerly indexed one is
        removed (its entities with it)."""
        self.report.statuses[path] = status
        if old is not None:
            self._delete_file(path, count=False)

    def _unchanged(self, path: str, old: FileRow) -> None:
        self.report.unchanged += 1
        self.report.statuses[path] = old.status

    def _put_file(self, row: FileRow) -> None:
        self.manifest.transaction(lambda c: CodeManifest.put_file(c, self.repo_id, row))

    # -- renames and deletions -------------------------------------------------------------------
    def _apply_renames(self, todo: list[_Todo], gone: dict[str, FileRow],
                       known: Mapping[str, FileRow]) -> list[_Todo]:
        by_hash: dict[str, list[str]] = {}
        for path, row in gone.items():
            if row.file_hash and row.status == INDEXED:
                by_hash.setdefault(row.file_hash, []).append(path)
        rest: list[_Todo] = []
        for wf, data, digest in todo:
            sources = by_hash.get(digest)
            if sources and wf.path not in known:
                old_path = sources.pop(0)
                self._move_file(gone.pop(old_path), wf)
            else:
                rest.append((wf, data, digest))
        return rest

    def _move_file(self, old: FileRow, wf: WalkedFile) -> None:
        """Rename: same content at a new path. No parsing, no embedding."""
        rows = self.manifest.entities(self.repo_id, old.path)
        moved: list[EntityRow] = []
        removed_points: list[str] = []
        pushed: list[Pushed] = []
        for row in rows:
            memory = self.ops.get(row.memory_id)
            if memory is None:
                continue
            meta = dict(memory["metadata"], path=wf.path)
            self.ops.update_metadata(row.memory_id, meta)
            new_row = replace(row, path=wf.path, point_id=point_id(
                self.repo_id, wf.path, row.qualified_name, row.occurrence))
            moved.append(new_row)
            removed_points.append(row.point_id)
            pushed.append((new_row, memory["text"], meta))
        new_file = replace(old, path=wf.path, size=wf.size, mtime_ns=wf.mtime_ns)

        def write(conn: sqlite3.Connection) -> None:
            refs_move_file(conn, self.repo_id, old.path, wf.path)
            CodeManifest.drop_file(conn, self.repo_id, old.path)
            CodeManifest.put_file(conn, self.repo_id, new_file)
            CodeManifest.put_entities(conn, self.repo_id, moved)
        self.manifest.transaction(write)
        self.sink_push(pushed, removed_points, [old.path, wf.path])
        self.report.renamed += 1
        self.report.statuses[wf.path] = new_file.status

    def _delete_file(self, path: str, count: bool = True) -> None:
        rows = self.manifest.entities(self.repo_id, path)
        for row in rows:
            self.ops.delete(row.memory_id)
        self.manifest.transaction(lambda c: CodeManifest.drop_file(c, self.repo_id, path))
        self.sink_push([], [r.point_id for r in rows], [path])
        self.report.entities_removed += len(rows)
        if count:
            self.report.deleted += 1

    # -- extraction and storage ------------------------------------------------------------------
    def _extract_all(self, todo: list[_Todo]) -> None:
        """Stream every changed file through the extractor; store results in groups."""
        total = len(todo)
        meta = {wf.path: (wf, digest) for wf, _, digest in todo}
        vanished: list[tuple[str, str]] = []
        items = self._read_again(todo, meta, vanished)
        group: list[_Pending] = []
        done = 0
        for result in self.extract(items) if todo else ():
            wf, digest = meta[result.path]
            group.append(self._diff(wf, digest, result))
            done += 1
            if len(group) >= self.batch_files:
                self._store(group)
                group = []
                self._notify("extract", done, total, wf.path)
        if group:
            self._store(group)
            self._notify("extract", done, total, group[-1].file.path)
        for path, status in vanished:
            self._not_indexed(path, status, self.manifest.files(self.repo_id, [path]).get(path))
        self.report.parsed += done

    def _read_again(self, todo: list[_Todo], meta: dict[str, tuple[WalkedFile, str]],
                    vanished: list[tuple[str, str]]) -> Iterator[tuple[str, bytes]]:
        """Bytes of each changed file, read lazily (the digest follows the bytes parsed).

        Runs on the extractor's feeder thread: it only reads, and reports vanished files in
        ``vanished`` for the indexing thread to handle."""
        from ..extract.entities import sha256_hex

        for wf, _, _ in todo:
            read = self.read(self.root, wf.path, self.max_file_bytes)
            if read.data is None:  # vanished or replaced since planning: handled after
                vanished.append((wf.path, read.status))
                continue
            meta[wf.path] = (wf, sha256_hex(read.data))
            yield wf.path, read.data

    def _diff(self, wf: WalkedFile, digest: str, result: FileExtraction) -> _Pending:
        status = result.status
        self.report.statuses[wf.path] = status
        entities = result.entities if status == INDEXED else ()
        row = FileRow(wf.path, digest, result.language, status, wf.size, wf.mtime_ns,
                      result.line_count, tuple(result.imports))
        old_rows = self.manifest.entities(self.repo_id, wf.path)
        by_key = {(r.qualified_name, r.occurrence): r for r in old_rows}
        vectors = {r.entity_hash: r.vector for r in old_rows if r.vector is not None}
        keep: list[tuple[EntityRow, JSONDict]] = []
        new: list[tuple[CodeEntity, bytes | None]] = []
        used: set[str] = set()
        for entity in entities:
            old = by_key.get((entity.qualified_name, entity.occurrence))
            meta = self._metadata(entity)
            if old is not None and old.entity_hash == entity.content_hash:
                keep.append((old, meta))
                used.add(old.memory_id)
            else:
                new.append((entity, vectors.get(entity.content_hash)))
        drop = [r for r in old_rows if r.memory_id not in used]
        return _Pending(row, keep, new, drop, tuple(entities), tuple(result.imports))

    def _store(self, pending: Sequence[_Pending]) -> None:
        fresh = [(p, e, v) for p in pending for e, v in p.new]
        texts = [entity_text(e) for _, e, v in fresh if v is None]
        made = list(self.ops.embed(texts)) if texts else []  # None each: nothing needs vectors
        self.report.embedded += sum(v is not None for v in made)
        computed = iter(made)
        vectors = [np.frombuffer(v, dtype=np.float32) if v is not None else next(computed)
                   for _, _, v in fresh]
        for p in pending:
            for row in p.drop:
                self.ops.delete(row.memory_id)
        items = [(entity_text(e), self._metadata(e), vec)
                 for (_, e, _), vec in zip(fresh, vectors, strict=True)]
        ids = self.ops.add(items) if items else []
        rows: list[EntityRow] = []
        pushed: list[Pushed] = []
        for (_, e, _), vec, mid, (text, meta, _) in zip(fresh, vectors, ids, items,
                                                       strict=True):
            row = EntityRow(mid, e.path, e.qualified_name, e.occurrence, e.content_hash,
                            point_id(self.repo_id, e.path, e.qualified_name, e.occurrence),
                            None if vec is None else np.asarray(vec, dtype=np.float32).tobytes())
            rows.append(row)
            pushed.append((row, text, meta))
        for p in pending:
            for old, new_meta in p.keep:
                changed = self._meta_changed(old.memory_id, new_meta)
                if changed is not None:
                    pushed.append((old, changed, new_meta))
        self._commit(pending, rows)
        self.sink_push(pushed, [r.point_id for p in pending for r in p.drop],
                       [p.file.path for p in pending])
        self.report.entities_added += len(rows)
        self.report.entities_removed += sum(len(p.drop) for p in pending)
        self.report.entities_kept += sum(len(p.keep) for p in pending)

    def _meta_changed(self, memory_id: str, meta: Metadata) -> str | None:
        """Update a kept entity's metadata if it moved; its text when it did, else None."""
        current = self.ops.get(memory_id)
        if current is None or current["metadata"] == meta:
            return None
        self.ops.update_metadata(memory_id, dict(meta))
        return str(current["text"])

    def _commit(self, pending: Sequence[_Pending], rows: list[EntityRow]) -> None:
        facts = self._facts(pending, rows) if self.track_refs else []

        def write(conn: sqlite3.Connection) -> None:
            for p in pending:
                CodeManifest.drop_entities(conn, [r.memory_id for r in p.drop])
                CodeManifest.put_file(conn, self.repo_id, p.file)
            CodeManifest.put_entities(conn, self.repo_id, rows)
            for path, defs, uses in facts:
                refs_replace_file(conn, self.repo_id, path, defs, uses)
        self.manifest.transaction(write)

    @staticmethod
    def _facts(pending: Sequence[_Pending], rows: list[EntityRow]
               ) -> list[tuple[str, list[DefRow], list[RefRow]]]:
        """Who-uses-what rows of each stored file, with the entities' memory ids."""
        ids = {(r.path, r.qualified_name, r.occurrence): r.memory_id
               for r in [*rows, *(old for p in pending for old, _ in p.keep)]}
        out = []
        for p in pending:
            pairs = [(ids[key], e) for e in p.entities
                     if (key := (p.file.path, e.qualified_name, e.occurrence)) in ids]
            out.append((p.file.path, *refs_file_rows(p.file.path, pairs, p.imports)))
        return out
