"""The index manifest: what was indexed from which repository, with which embedder.

Why a manifest next to the memories: incremental re-indexing needs, per file, the content hash
and stat it was indexed at and the memories it produced; re-pushing to the Cat's collection
needs each entity's vector and point id. Both must survive restarts, so they live in the same
SQLite file as the memories (their own ``code_*`` tables, their own connection).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from ..errors import StoreCorrupt, StoreError
from ..store.integrity import DamageControl, is_corruption
from .refs import SCHEMA
from .refs import drop_file as refs_drop_file
from .refs import drop_repo as refs_drop_repo
from .refs import forget_memory as refs_forget_memory
from .refs import migrate as refs_migrate

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS code_repos (
        repo_id TEXT PRIMARY KEY, root TEXT NOT NULL, embedder TEXT, dimension INTEGER,
        sink_count INTEGER NOT NULL DEFAULT 0, sink_embedder TEXT, sink_size INTEGER)""",
    """CREATE TABLE IF NOT EXISTS code_files (
        repo_id TEXT NOT NULL, path TEXT NOT NULL, file_hash TEXT, language TEXT,
        status TEXT NOT NULL, size INTEGER, mtime_ns INTEGER, line_count INTEGER,
        imports TEXT NOT NULL DEFAULT '[]', PRIMARY KEY (repo_id, path)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS code_files_hash ON code_files (repo_id, file_hash)",
    """CREATE TABLE IF NOT EXISTS code_entities (
        memory_id TEXT PRIMARY KEY, repo_id TEXT NOT NULL, path TEXT NOT NULL,
        qualified_name TEXT NOT NULL, occurrence INTEGER NOT NULL, entity_hash TEXT NOT NULL,
        point_id TEXT NOT NULL, vector BLOB)""",
    "CREATE INDEX IF NOT EXISTS code_entities_file ON code_entities (repo_id, path)",
    # Entity rows carry their vector (9 KB at 2,367 dimensions): listing a repository's ids
    # from this small covering index reads megabytes, not the whole table.
    "CREATE INDEX IF NOT EXISTS code_entities_ids ON code_entities (repo_id, memory_id)",
    # Every entity's name, read from this index alone (what a chat message may name).
    "CREATE INDEX IF NOT EXISTS code_entities_names ON code_entities (qualified_name)",
]

T = TypeVar("T")


@dataclass(frozen=True)
class RepoRow:
    """One indexed repository: root, embedder identity and what the sink last received."""

    repo_id: str
    root: str
    embedder: str | None
    dimension: int | None
    sink_count: int
    sink_embedder: str | None
    sink_size: int | None


@dataclass(frozen=True)
class FileRow:
    """One walked file as last indexed (``status`` is the extraction status)."""

    path: str
    file_hash: str | None
    language: str | None
    status: str
    size: int | None
    mtime_ns: int | None
    line_count: int | None
    imports: tuple[str, ...]


@dataclass(frozen=True)
class EntityRow:
    """One entity memory of a file, with its point id and (float32 bytes) vector."""

    memory_id: str
    path: str
    qualified_name: str
    occurrence: int
    entity_hash: str
    point_id: str
    vector: bytes | None


DamageHandler = Callable[[sqlite3.Error], Exception]
"""Called with a corruption error met here; replaces the database file and returns the error to
raise (``MemoryStore.damage_found``: the manifest shares the memories' file, and its connection
is closed and reopened with the store's, ``store.integrity``)."""


class CodeManifest:
    """Thread-safe access to the ``code_*`` tables (one connection, one lock)."""

    def __init__(self, db_path: str, *, on_damage: DamageHandler | None = None) -> None:
        self._lock = threading.RLock()
        self._path = db_path
        self._on_damage = on_damage
        try:
            self._conn = self._connect()
        except StoreCorrupt:  # found damaged and replaced by a new, empty file: connect to it
            self._conn = self._connect()
        self._damage = DamageControl(db_path, self._lock, lambda: self._conn.close(),
                                     self._reconnect)

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self._path, timeout=30.0, check_same_thread=False,
                                   isolation_level=None)
            with conn:
                for statement in (*_SCHEMA, *SCHEMA):
                    conn.execute(statement)
                refs_migrate(conn)
            return conn
        except sqlite3.Error as exc:
            if self._on_damage is not None and is_corruption(exc):
                raise self._on_damage(exc) from exc
            raise StoreError(f"cannot open the code manifest in {self._path!r}: {exc}") from exc

    def _reconnect(self) -> None:
        """Connect again: the database file was replaced by a new, empty one."""
        self._conn = self._connect()

    def close(self) -> None:
        with self._lock:
            self._damage.leave()
            self._conn.close()

    def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        try:
            with self._lock:
                return fn(self._conn)
        except sqlite3.Error as exc:  # handled outside the lock: recovery reopens this manifest
            if self._on_damage is not None and is_corruption(exc):
                raise self._on_damage(exc) from exc
            raise StoreError(f"code manifest: {exc}") from exc

    def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run the read-only ``fn(conn)`` under the manifest's lock (the impact queries)."""
        return self._run(fn)

    def transaction(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(conn)`` inside one IMMEDIATE transaction."""
        def run(conn: sqlite3.Connection) -> T:
            conn.execute("BEGIN IMMEDIATE")
            try:
                out = fn(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return out
        return self._run(run)

    # -- repositories ----------------------------------------------------------------------------
    def repo(self, repo_id: str) -> RepoRow | None:
        row = self._run(lambda c: c.execute(
            "SELECT repo_id, root, embedder, dimension, sink_count, sink_embedder, sink_size "
            "FROM code_repos WHERE repo_id=?", (repo_id,)).fetchone())
        return RepoRow(*row) if row else None

    def repos(self) -> list[RepoRow]:
        rows = self._run(lambda c: c.execute(
            "SELECT repo_id, root, embedder, dimension, sink_count, sink_embedder, sink_size "
            "FROM code_repos ORDER BY repo_id").fetchall())
        return [RepoRow(*r) for r in rows]

    def upsert_repo(self, repo_id: str, root: str, embedder: str, dimension: int) -> None:
        self._run(lambda c: c.execute(
            "INSERT INTO code_repos (repo_id, root, embedder, dimension) VALUES (?,?,?,?) "
            "ON CONFLICT(repo_id) DO UPDATE SET root=excluded.root, embedder=excluded.embedder,"
            " dimension=excluded.dimension", (repo_id, root, embedder, dimension)))

    def drop_repo(self, repo_id: str) -> None:
        """Forget a repository: its row, files and entities (its memories are the caller's)."""
        def drop(conn: sqlite3.Connection) -> None:
            for table in ("code_entities", "code_files", "code_repos"):
                conn.execute(f"DELETE FROM {table} WHERE repo_id=?", (repo_id,))
            refs_drop_repo(conn, repo_id)
        self.transaction(drop)

    def index_format(self, repo_id: str) -> int:
        """The ``INDEX_FORMAT`` the repository's rows were made with (0: none)."""
        row = self._run(lambda c: c.execute(
            "SELECT index_format FROM code_repos WHERE repo_id=?", (repo_id,)).fetchone())
        return int(row[0]) if row else 0

    def set_index_format(self, repo_id: str, version: int) -> None:
        self._run(lambda c: c.execute("UPDATE code_repos SET index_format=? WHERE repo_id=?",
                                      (version, repo_id)))

    def set_sink_state(self, repo_id: str, count: int, embedder: str | None,
                       size: int | None) -> None:
        self._run(lambda c: c.execute(
            "UPDATE code_repos SET sink_count=?, sink_embedder=?, sink_size=? WHERE repo_id=?",
            (count, embedder, size, repo_id)))

    # -- files -----------------------------------------------------------------------------------
    def files(self, repo_id: str, paths: Sequence[str] | None = None) -> dict[str, FileRow]:
        """The manifest rows of ``repo_id``: all of them, or only those of ``paths`` (a
        one-file re-index reads one row, not the whole repository's)."""
        sql = ("SELECT path, file_hash, language, status, size, mtime_ns, line_count, imports "
               "FROM code_files WHERE repo_id=?")
        if paths is None:
            rows = self._run(lambda c: c.execute(sql, (repo_id,)).fetchall())
        else:
            rows = self._run(lambda c: [row for path in paths for row in c.execute(
                sql + " AND path=?", (repo_id, path)).fetchall()])
        return {r[0]: FileRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], tuple(json.loads(r[7])))
                for r in rows}

    @staticmethod
    def put_file(conn: sqlite3.Connection, repo_id: str, row: FileRow) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO code_files (repo_id, path, file_hash, language, status, "
            "size, mtime_ns, line_count, imports) VALUES (?,?,?,?,?,?,?,?,?)",
            (repo_id, row.path, row.file_hash, row.language, row.status, row.size, row.mtime_ns,
             row.line_count, json.dumps(list(row.imports))))

    @staticmethod
    def drop_file(conn: sqlite3.Connection, repo_id: str, path: str) -> None:
        conn.execute("DELETE FROM code_files WHERE repo_id=? AND path=?", (repo_id, path))
        conn.execute("DELETE FROM code_entities WHERE repo_id=? AND path=?", (repo_id, path))
        refs_drop_file(conn, repo_id, path)

    # -- entities --------------------------------------------------------------------------------
    def entities(self, repo_id: str, path: str | None = None) -> list[EntityRow]:
        sql = ("SELECT memory_id, path, qualified_name, occurrence, entity_hash, point_id, "
               "vector FROM code_entities WHERE repo_id=?")
        args: list[str] = [repo_id]
        if path is not None:
            sql += " AND path=?"
            args.append(path)
        rows = self._run(lambda c: c.execute(sql + " ORDER BY rowid", args).fetchall())
        return [EntityRow(*r) for r in rows]

    def iter_entities(self, repo_id: str, chunk: int = 512) -> Iterator[list[EntityRow]]:
        """All entities of ``repo_id`` in chunks (bounded memory on large repositories)."""
        last = -1
        while True:
            rows = self._run(partial(_entity_page, repo_id, last, chunk))
            if not rows:
                return
            last = rows[-1][0]
            yield [EntityRow(*r[1:]) for r in rows]

    def entity(self, memory_id: str) -> tuple[str, EntityRow] | None:
        """``(repo_id, row)`` of the entity stored as ``memory_id``, or None."""
        row = self._run(lambda c: c.execute(
            "SELECT repo_id, memory_id, path, qualified_name, occurrence, entity_hash, "
            "point_id, vector FROM code_entities WHERE memory_id=?", (memory_id,)).fetchone())
        return (row[0], EntityRow(*row[1:])) if row else None

    def entity_ids(self, repo_id: str) -> list[str]:
        """Memory ids of every entity of ``repo_id``, oldest first (from the covering index)."""
        return [r[0] for r in self._run(lambda c: c.execute(
            "SELECT memory_id FROM code_entities INDEXED BY code_entities_ids WHERE repo_id=? "
            "ORDER BY rowid", (repo_id,)).fetchall())]

    def entity_count(self, repo_id: str | None = None) -> int:
        if repo_id is None:
            return int(self._run(lambda c: c.execute(
                "SELECT count(*) FROM code_entities").fetchone()[0]))
        return int(self._run(lambda c: c.execute(
            "SELECT count(*) FROM code_entities WHERE repo_id=?", (repo_id,)).fetchone()[0]))

    def entity_paths(self, repo_id: str) -> list[str]:
        """The paths that define at least one entity, sorted (from the ``(repo_id, path)``
        index: no entity row is read)."""
        return [r[0] for r in self._run(lambda c: c.execute(
            "SELECT DISTINCT path FROM code_entities WHERE repo_id=? ORDER BY path",
            (repo_id,)).fetchall())]

    def entity_names(self) -> list[str]:
        """The qualified names of every indexed entity, the repositories' and the sources'
        (from the ``qualified_name`` index: no entity row is read)."""
        return [r[0] for r in self._run(lambda c: c.execute(
            "SELECT DISTINCT qualified_name FROM code_entities").fetchall())]

    def sample_point_ids(self, repo_id: str, limit: int, total: int | None = None) -> list[str]:
        """Up to ``limit`` entity point ids spread over the whole repository (every n-th);
        ``total`` is the repository's entity count when the caller has it."""
        count = self.entity_count(repo_id) if total is None else total
        step = max(1, count // max(1, limit))
        return [r[0] for r in self._run(lambda c: c.execute(
            "SELECT point_id FROM (SELECT point_id, row_number() OVER (ORDER BY rowid) AS n "
            "FROM code_entities WHERE repo_id=?) WHERE (n - 1) % ? = 0 LIMIT ?",
            (repo_id, step, limit)).fetchall())]

    @staticmethod
    def put_entities(conn: sqlite3.Connection, repo_id: str, rows: Iterable[EntityRow]) -> None:
        conn.executemany(
            "INSERT OR REPLACE INTO code_entities (memory_id, repo_id, path, qualified_name, "
            "occurrence, entity_hash, point_id, vector) VALUES (?,?,?,?,?,?,?,?)",
            [(r.memory_id, repo_id, r.path, r.qualified_name, r.occurrence, r.entity_hash,
              r.point_id, r.vector) for r in rows])

    @staticmethod
    def drop_entities(conn: sqlite3.Connection, memory_ids: Sequence[str]) -> None:
        conn.executemany("DELETE FROM code_entities WHERE memory_id=?",
                         [(m,) for m in memory_ids])

    def set_vectors(self, items: Sequence[tuple[str, bytes]]) -> None:
        """Replace the vectors of entities ``(memory_id, float32 bytes)`` (after re-embedding)."""
        self.transaction(lambda c: c.executemany(
            "UPDATE code_entities SET vector=? WHERE memory_id=?",
            [(blob, mid) for mid, blob in items]))

    def clear_vectors(self, repo_id: str) -> None:
        """Forget every entity vector of ``repo_id`` (they belong to an embedder no longer used)."""
        self.transaction(lambda c: c.execute(
            "UPDATE code_entities SET vector=NULL WHERE repo_id=?", (repo_id,)))

    def forget_memory(self, memory_id: str) -> None:
        """Drop the entity rows of a memory deleted through the plain ``MemorySystem`` API."""
        def forget(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM code_entities WHERE memory_id=?", (memory_id,))
            refs_forget_memory(conn, memory_id)
        self.transaction(forget)


def _entity_page(repo_id: str, after: int, chunk: int,
                 conn: sqlite3.Connection) -> list[tuple[Any, ...]]:  # Any: SQLite row values
    return conn.execute(
        "SELECT rowid, memory_id, path, qualified_name, occurrence, entity_hash, "
        "point_id, vector FROM code_entities WHERE repo_id=? AND rowid>? "
        "ORDER BY rowid LIMIT ?", (repo_id, after, chunk)).fetchall()
