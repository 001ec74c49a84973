"""What was indexed from each associative source: one row per source, one per file.

Why in the project's own SQLite file: the sources' entities live in the project's store (so
they are retrieved and scored with the repository's), and the catalog must stay consistent
with them across restarts. The per-file rows hold the module facts (``api_facts``) by content
hash, so re-indexing a source re-reads only changed files, and the entity count per file, so
the per-source entity cap holds across incremental runs.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import StoreError
from .api_facts import ModuleFact

T = TypeVar("T")

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS assoc_sources (
        repo_id TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL, spec TEXT NOT NULL,
        version TEXT NOT NULL DEFAULT '', origin TEXT NOT NULL DEFAULT '',
        root TEXT NOT NULL DEFAULT '', labels TEXT NOT NULL DEFAULT '',
        entities INTEGER NOT NULL DEFAULT 0, indexed_at TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL DEFAULT '', detail TEXT NOT NULL DEFAULT '')""",
    """CREATE TABLE IF NOT EXISTS assoc_files (
        repo_id TEXT NOT NULL, path TEXT NOT NULL, module TEXT NOT NULL DEFAULT '',
        size INTEGER, mtime_ns INTEGER, facts TEXT, public_hash TEXT NOT NULL DEFAULT '',
        entities INTEGER NOT NULL DEFAULT 0, capped INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (repo_id, path)) WITHOUT ROWID""",
]
#: Columns added after the first release, with their declaration (added when missing).
_ADDED = {"assoc_sources": (("revision", "TEXT NOT NULL DEFAULT ''"),)}


@dataclass(frozen=True)
class SourceRow:
    """One indexed source as the status and the commands show it."""

    repo_id: str
    name: str
    kind: str
    spec: str
    version: str = ""
    origin: str = ""
    root: str = ""
    #: What the entity labels were built from (version, options): a change re-labels all.
    labels: str = ""
    entities: int = 0
    indexed_at: str = ""
    #: ``ok``, ``capped`` or ``error``; ``detail`` says what happened.
    status: str = ""
    detail: str = ""
    #: The commit a repository by URL was indexed at ("" for other sources).
    revision: str = ""


@dataclass(frozen=True)
class FileFacts:
    """One file of a source: its module facts (None for non-Python files) and counts."""

    path: str
    module: str = ""
    size: int | None = None
    mtime_ns: int | None = None
    facts: ModuleFact | None = None
    public_hash: str = ""
    entities: int = 0
    capped: bool = False


class SourceCatalog:
    """Thread-safe access to the ``assoc_*`` tables (one connection, one lock)."""

    def __init__(self, db_path: str) -> None:
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(db_path, timeout=30.0, check_same_thread=False,
                                         isolation_level=None)
            for statement in _SCHEMA:
                self._conn.execute(statement)
            for table, columns in _ADDED.items():
                have = {r[1] for r in self._conn.execute(f"PRAGMA table_info({table})")}
                for name, declaration in columns:
                    if name not in have:
                        self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} "
                                           f"{declaration}")
        except sqlite3.Error as err:
            raise StoreError(f"cannot open the source catalog in {db_path!r}: {err}") from err

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            try:
                return fn(self._conn)
            except sqlite3.Error as err:
                raise StoreError(f"source catalog: {err}") from err

    def _write(self, fn: Callable[[sqlite3.Connection], object]) -> None:
        def run(conn: sqlite3.Connection) -> None:
            conn.execute("BEGIN IMMEDIATE")
            try:
                fn(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        self._run(run)

    # -- sources ---------------------------------------------------------------------------------
    def sources(self) -> list[SourceRow]:
        rows = self._run(lambda c: c.execute(
            "SELECT repo_id, name, kind, spec, version, origin, root, labels, entities, "
            "indexed_at, status, detail, revision FROM assoc_sources ORDER BY name").fetchall())
        return [SourceRow(*r) for r in rows]

    def source(self, repo_id: str) -> SourceRow | None:
        return next((r for r in self.sources() if r.repo_id == repo_id), None)

    def put_source(self, row: SourceRow) -> None:
        self._write(lambda c: c.execute(
            "INSERT OR REPLACE INTO assoc_sources (repo_id, name, kind, spec, version, origin, "
            "root, labels, entities, indexed_at, status, detail, revision) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (row.repo_id, row.name, row.kind, row.spec, row.version, row.origin, row.root,
             row.labels, row.entities, row.indexed_at, row.status, row.detail, row.revision)))

    def drop_source(self, repo_id: str) -> None:
        def drop(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM assoc_files WHERE repo_id=?", (repo_id,))
            conn.execute("DELETE FROM assoc_sources WHERE repo_id=?", (repo_id,))
        self._write(drop)

    # -- files -----------------------------------------------------------------------------------
    def files(self, repo_id: str) -> dict[str, FileFacts]:
        rows = self._run(lambda c: c.execute(
            "SELECT path, module, size, mtime_ns, facts, public_hash, entities, capped "
            "FROM assoc_files WHERE repo_id=?", (repo_id,)).fetchall())
        return {r[0]: _file(r) for r in rows}

    def replace_files(self, repo_id: str, rows: Sequence[FileFacts]) -> None:
        """The source's file rows become exactly ``rows`` (one transaction)."""
        def write(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM assoc_files WHERE repo_id=?", (repo_id,))
            conn.executemany(
                "INSERT INTO assoc_files (repo_id, path, module, size, mtime_ns, facts, "
                "public_hash, entities, capped) VALUES (?,?,?,?,?,?,?,?,?)",
                [(repo_id, r.path, r.module, r.size, r.mtime_ns,
                  None if r.facts is None else json.dumps(r.facts.to_dict()),
                  r.public_hash, r.entities, int(r.capped)) for r in rows])
        self._write(write)

    def module_facts(self) -> list[tuple[str, ModuleFact]]:
        """``(repo_id, facts)`` of every Python module of every source."""
        rows = self._run(lambda c: c.execute(
            "SELECT repo_id, facts FROM assoc_files WHERE facts IS NOT NULL").fetchall())
        out = []
        for repo_id, blob in rows:
            fact = _facts(blob)
            if fact is not None:
                out.append((repo_id, fact))
        return out


def _facts(blob: str | None) -> ModuleFact | None:
    if not blob:
        return None
    try:
        data: Any = json.loads(blob)  # JSON written by replace_files; from_dict checks it
        return ModuleFact.from_dict(data)
    except (ValueError, KeyError, TypeError):
        return None  # a damaged row reads as "unknown": the next run rewrites it


def _file(row: Sequence[Any]) -> FileFacts:  # an sqlite3 row: its columns are untyped
    return FileFacts(row[0], row[1], row[2], row[3], _facts(row[4]), row[5], row[6],
                     bool(row[7]))
