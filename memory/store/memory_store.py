"""SQLite persistence for ``MemorySystem``: memories, FTS5, vectors, change history, score cache.

Why this shape:
- One writer at a time: a process-wide lock per database file, then ``BEGIN IMMEDIATE`` retried
  on SQLITE_BUSY, because ``busy_timeout`` alone still let "database is locked" through under
  contention (docs/threat-model.md). Callers never see that error; after ``lock_timeout`` seconds
  they get ``StoreError``.
- WAL + ``synchronous=NORMAL`` survives kill -9 with every committed row (measured there); on
  network and Docker-Desktop mounts (nfs, cifs, 9p, virtiofs, fuse) the WAL shared memory is not
  coherent, so those use ``journal_mode=DELETE`` + ``synchronous=FULL``.
- A ``generation`` counter bumps on every memory change so in-memory vector indexes (ours or
  another process's) know when they are stale.
"""

from __future__ import annotations

import json
import math
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

from ..errors import StoreCorrupt, StoreError
from .fts import index_row, meta_value, rebuild_batch, search, start_rebuild
from .integrity import DamageControl, connect, first_problem, is_corruption
from .lexical import LexicalQuery
from .primitives import compile_filter
from .schema import MIGRATIONS, SCHEMA_VERSION
from .support import (
    Filters,
    JSONDict,
    canonical_json,
    content_hash,
    journal_mode_for,
    utc_now,
)

__all__ = ["MemoryRecord", "MemoryStore", "Mutation", "NewRow", "StoreClosed", "canonical_json",
           "content_hash", "journal_mode_for", "utc_now"]

_Loaded = TypeVar("_Loaded")
T = TypeVar("T")
#: what a write produced (covariant: a ``Mutation[list[int]]`` is a ``Mutation[object]``)
V_co = TypeVar("V_co", covariant=True)

_FILE_LOCKS: dict[str, threading.RLock] = {}
_FILE_LOCKS_GUARD = threading.Lock()


class StoreClosed(StoreError):
    """The store (or the ``MemorySystem`` owning it) was closed; create a new one."""


def _file_lock(path: str) -> threading.RLock:
    key = path if path == ":memory:" else os.path.realpath(path)
    with _FILE_LOCKS_GUARD:
        return _FILE_LOCKS.setdefault(key, threading.RLock())


def _is_busy(err: sqlite3.OperationalError) -> bool:
    text = str(err).lower()
    return "locked" in text or "busy" in text


@dataclass(frozen=True)
class MemoryRecord:
    """One stored memory as the store returns it."""

    seq: int
    id: str
    text: str
    metadata: JSONDict
    content_hash: str
    created_at: str
    updated_at: str

    def as_dict(self) -> JSONDict:
        """``get_memory``'s shape (docs/memory-api.md): ``{id, text, metadata, timestamp}``."""
        return {"id": self.id, "text": self.text, "metadata": self.metadata,
                "timestamp": self.updated_at}


@dataclass(frozen=True)
class NewRow:
    """A memory ready to insert: validated text, canonical metadata, optional vector blob."""

    id: str
    text: str
    metadata_json: str
    content_hash: str
    embedding: bytes | None = None


@dataclass(frozen=True)
class Mutation(Generic[V_co]):
    """A write's result plus the generation before and after it (for vector-index upkeep)."""

    value: V_co
    generation_before: int
    generation_after: int


_COLUMNS = "seq, id, text, metadata, content_hash, created_at, updated_at"


def _record(row: Sequence[Any]) -> MemoryRecord:  # Any: an SQLite row
    return MemoryRecord(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5], row[6])


class MemoryStore:
    """Thread-safe SQLite store; one connection guarded by a lock, writes serialised per file."""

    def __init__(self, path: str, *, now: Callable[[], str] = utc_now,
                 busy_timeout_ms: int = 5000, lock_timeout: float = 60.0,
                 lost_on_corruption: str = "every memory, its change history and the score cache"
                 ) -> None:
        self.path = path
        self._now = now
        self._lock_timeout = lock_timeout
        self._busy_timeout_ms = busy_timeout_ms
        self._lock = threading.RLock()
        self._file_lock = _file_lock(path)
        self._closed = False
        problem = self._open_checked()
        #: damage found and repaired: ``damage.notice``, ``damage.listeners`` (``integrity``)
        self.damage = DamageControl(path, self._lock, lambda: self._conn.close(),
                                              self._open_checked, lost_on_corruption)
        if problem is not None:
            self._replace_damaged(problem)
        self._ensure_lexical()

    # -- connection plumbing ---------------------------------------------------------------
    def _open_checked(self) -> str | None:
        """Connect, set up and migrate; the damage found on the way (``None``: sound)."""
        self._conn, self._identity = connect(self.path, self._busy_timeout_ms)
        return first_problem(self.path, self._conn, self._set_up)

    def _set_up(self) -> None:
        self._conn.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_ms)}")
        self.journal_mode = self._retrying(self._set_journal_mode)
        with self._file_lock, self._lock:
            self._retrying(lambda: self._transaction(self._migrate, "BEGIN IMMEDIATE"))

    def _replace_damaged(self, reason: str) -> StoreCorrupt:
        """Set the damaged file aside and start a new database in place (``integrity``)."""
        with self._file_lock, self._lock:
            notice = self.damage.replace(reason, self._identity)
        return self.damage.announce(notice)

    def damage_found(self, err: sqlite3.Error) -> StoreCorrupt:
        """Recover from a corruption error met in use (here or on another connection to the
        same file); returns the ``StoreCorrupt`` to raise for the failed operation."""
        return self._replace_damaged(str(err))

    @contextmanager
    def _damage_handled(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as err:
            if is_corruption(err):
                raise self.damage_found(err) from err
            raise

    def _set_journal_mode(self) -> str:
        wanted = journal_mode_for(self.path)
        with self._file_lock, self._lock:
            mode = self._conn.execute(f"PRAGMA journal_mode={wanted}").fetchone()[0]
            sync = "NORMAL" if mode == "wal" else "FULL"
            self._conn.execute(f"PRAGMA synchronous={sync}")
        return str(mode)

    def _retrying(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` until it does not fail with SQLITE_BUSY/LOCKED, up to ``lock_timeout``."""
        deadline = time.monotonic() + self._lock_timeout
        pause = 0.002
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as err:
                if not _is_busy(err):
                    raise StoreError(f"memory database {self.path!r}: {err}") from err
                if time.monotonic() > deadline:
                    raise StoreError(f"memory database {self.path!r} stayed locked for "
                                     f"{self._lock_timeout:.0f} s; is another program holding "
                                     "a transaction open?") from err
                time.sleep(pause * (0.5 + random.random()))
                pause = min(pause * 2, 0.1)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed(f"memory database {self.path!r} is closed")

    def _write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in one ``BEGIN IMMEDIATE`` transaction; retried as a whole when busy."""
        with self._damage_handled(), self._file_lock, self._lock:
            self._check_open()
            return self._retrying(lambda: self._transaction(fn, "BEGIN IMMEDIATE"))

    def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in one read transaction (a consistent snapshot)."""
        with self._damage_handled(), self._lock:
            self._check_open()
            return self._retrying(lambda: self._transaction(fn, "BEGIN"))

    def _transaction(self, fn: Callable[[sqlite3.Connection], T], begin: str) -> T:
        conn = self._conn
        conn.execute(begin)
        try:
            result = fn(conn)
            conn.execute("COMMIT")
            return result
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _migrate(self, conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        current = row[0] or 0
        if current > SCHEMA_VERSION:
            raise StoreError(f"memory database {self.path!r} has schema {current}, newer than "
                             f"this code ({SCHEMA_VERSION}); upgrade the plugin")
        for version, statements in MIGRATIONS:
            if version > current:
                for sql in statements:
                    conn.execute(sql)
                conn.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))

    def close(self) -> None:
        """Close the connection; idempotent. Later calls raise ``StoreClosed``."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self.damage.leave()
                self._conn.close()

    @property
    def closed(self) -> bool:
        return self._closed

    # -- generation ----------------------------------------------------------------------------
    @staticmethod
    def _bump(conn: sqlite3.Connection) -> tuple[int, int]:
        before = int(conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])
        conn.execute("UPDATE meta SET value = ? WHERE key='generation'", (str(before + 1),))
        return before, before + 1

    def meta_value(self, key: str) -> str | None:
        """A value of the store's small key/value table (None if unset)."""
        return self._read(lambda c: meta_value(c, key))

    def set_meta_value(self, key: str, value: str) -> None:
        self._write(lambda c: c.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value)))

    def generation(self) -> int:
        """Counter bumped by every memory change, from any connection or process."""
        return self._read(lambda c: int(
            c.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0]))

    # -- memories ------------------------------------------------------------------------------
    def insert_many(self, rows: Sequence[NewRow],
                    embedder: str | None) -> Mutation[list[tuple[str, int, bool]]]:
        """Insert ``rows`` in one transaction; value = ``[(id, seq, created)]``.

        An exact duplicate (same content hash, already stored or earlier in ``rows``) is not
        inserted; its existing id comes back with ``created=False``.
        """
        def run(conn: sqlite3.Connection) -> Mutation[list[tuple[str, int, bool]]]:
            before, after = self._bump(conn)
            now, out = self._now(), []
            for row in rows:
                found = conn.execute("SELECT id, seq FROM memories WHERE content_hash=? LIMIT 1",
                                     (row.content_hash,)).fetchone()
                if found:
                    out.append((found[0], found[1], False))
                    continue
                cur = conn.execute(
                    "INSERT INTO memories (id, text, metadata, content_hash, created_at, "
                    "updated_at, embedding, embedder) VALUES (?,?,?,?,?,?,?,?)",
                    (row.id, row.text, row.metadata_json, row.content_hash, now, now,
                     row.embedding, embedder if row.embedding is not None else None))
                seq = cur.lastrowid
                if seq is None:  # never after a successful INSERT into a rowid table
                    raise StoreError("SQLite gave no rowid for a new memory")
                index_row(conn, seq, row.text, row.metadata_json)
                self._log(conn, row.id, "add", None, None, row.text, row.metadata_json, now)
                out.append((row.id, seq, True))
            return Mutation(out, before, after)
        return self._write(run)

    @staticmethod
    def _log(conn: sqlite3.Connection, memory_id: str, action: str, old_text: str | None,
             old_meta: str | None, new_text: str | None, new_meta: str | None, at: str) -> None:
        conn.execute("INSERT INTO memory_history (memory_id, action, old_text, old_metadata, "
                     "new_text, new_metadata, at) VALUES (?,?,?,?,?,?,?)",
                     (memory_id, action, old_text, old_meta, new_text, new_meta, at))

    def get(self, memory_id: str) -> MemoryRecord | None:
        row = self._read(lambda c: c.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE id=?", (memory_id,)).fetchone())
        return _record(row) if row else None

    def get_by_seq(self, seqs: Sequence[int]) -> dict[int, MemoryRecord]:
        if not seqs:
            return {}
        marks = ",".join("?" * len(seqs))
        rows = self._read(lambda c: c.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE seq IN ({marks})", list(seqs)).fetchall())
        return {row[0]: _record(row) for row in rows}

    def update(self, memory_id: str, text: str | None, metadata_json: str | None,
               embedding: bytes | None, embedder: str | None) -> Mutation[MemoryRecord | None]:
        """Replace text and/or metadata; value = new record or ``None`` if the id is unknown.

        ``embedding`` (the new text's vector) is stored only when the text changes.
        """
        def run(conn: sqlite3.Connection) -> Mutation[MemoryRecord | None]:
            row = conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE id=?",
                               (memory_id,)).fetchone()
            if row is None:
                return Mutation(None, -1, -1)
            old = _record(row)
            old_meta = json.dumps(old.metadata, sort_keys=True, ensure_ascii=False)
            new_text = old.text if text is None else text
            new_meta = old_meta if metadata_json is None else metadata_json
            if new_text == old.text and new_meta == old_meta:
                return Mutation(old, -1, -1)
            before, after = self._bump(conn)
            now, new_hash = self._now(), content_hash(new_text, new_meta)
            conn.execute("UPDATE memories SET text=?, metadata=?, content_hash=?, updated_at=? "
                         "WHERE seq=?", (new_text, new_meta, new_hash, now, old.seq))
            if new_text != old.text:
                conn.execute("UPDATE memories SET embedding=?, embedder=? WHERE seq=?",
                             (embedding, embedder if embedding is not None else None, old.seq))
            conn.execute("DELETE FROM lexical_fts WHERE rowid=?", (old.seq,))
            index_row(conn, old.seq, new_text, new_meta)
            self._drop_cache_for(conn, old.content_hash)
            self._log(conn, memory_id, "update", old.text, old_meta, new_text, new_meta, now)
            new = MemoryRecord(old.seq, old.id, new_text, json.loads(new_meta), new_hash,
                               old.created_at, now)
            return Mutation(new, before, after)
        return self._write(run)

    @staticmethod
    def _drop_cache_for(conn: sqlite3.Connection, old_hash: str) -> None:
        """Invalidate cached scores of content no memory has any more."""
        conn.execute("DELETE FROM score_cache WHERE content_hash=? AND NOT EXISTS "
                     "(SELECT 1 FROM memories WHERE content_hash=?)", (old_hash, old_hash))

    def delete_where(self, where: str, params: Sequence[object]) -> Mutation[list[int]]:
        """Delete every memory matching the SQL condition; value = deleted seqs."""
        def run(conn: sqlite3.Connection) -> Mutation[list[int]]:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE {where}",
                                list(params)).fetchall()
            if not rows:
                return Mutation([], -1, -1)
            before, after = self._bump(conn)
            now = self._now()
            for row in rows:
                old = _record(row)
                conn.execute("DELETE FROM memories WHERE seq=?", (old.seq,))
                conn.execute("DELETE FROM lexical_fts WHERE rowid=?", (old.seq,))
                self._drop_cache_for(conn, old.content_hash)
                self._log(conn, old.id, "delete", old.text, row[3], None, None, now)
            return Mutation([row[0] for row in rows], before, after)
        return self._write(run)

    def delete(self, memory_id: str) -> Mutation[list[int]]:
        return self.delete_where("id = ?", [memory_id])

    def delete_matching(self, filters: Filters | None) -> Mutation[list[int]]:
        where, params = compile_filter(filters)
        return self.delete_where(where, params)

    def select(self, filters: Filters | None, limit: int | None = None,
               offset: int = 0) -> list[MemoryRecord]:
        """Memories matching ``filters`` in insertion order."""
        where, params = compile_filter(filters)
        sql = f"SELECT {_COLUMNS} FROM memories WHERE {where} ORDER BY seq LIMIT ? OFFSET ?"
        rows = self._read(lambda c: c.execute(
            sql, [*params, -1 if limit is None else limit, offset]).fetchall())
        return [_record(r) for r in rows]

    def count(self, filters: Filters | None = None) -> int:
        where, params = compile_filter(filters)
        return int(self._read(lambda c: c.execute(
            f"SELECT count(*) FROM memories WHERE {where}", params).fetchone()[0]))

    def matching_seqs(self, filters: Filters) -> list[int]:
        where, params = compile_filter(filters)
        return [r[0] for r in self._read(lambda c: c.execute(
            f"SELECT seq FROM memories WHERE {where}", params).fetchall())]

    def filter_seqs(self, seqs: Sequence[int], filters: Filters) -> list[int]:
        """The subset of ``seqs`` whose metadata matches ``filters``."""
        if not seqs:
            return []
        where, params = compile_filter(filters)
        marks = ",".join("?" * len(seqs))
        return [r[0] for r in self._read(lambda c: c.execute(
            f"SELECT seq FROM memories WHERE seq IN ({marks}) AND {where}",
            [*seqs, *params]).fetchall())]

    def history(self, memory_id: str) -> list[JSONDict]:
        """Every change of ``memory_id``, oldest first (kept after deletion)."""
        rows = self._read(lambda c: c.execute(
            "SELECT action, old_text, old_metadata, new_text, new_metadata, at FROM "
            "memory_history WHERE memory_id=? ORDER BY seq", (memory_id,)).fetchall())
        return [{"action": a, "old_text": ot,
                 "old_metadata": None if om is None else json.loads(om), "new_text": nt,
                 "new_metadata": None if nm is None else json.loads(nm), "timestamp": at}
                for a, ot, om, nt, nm, at in rows]

    # -- candidate stages ----------------------------------------------------------------------
    def _ensure_lexical(self) -> None:
        """Build the lexical index after an upgrade or a change of its analysis, in resumable
        batches (``fts``); other writers may interleave."""
        if not self._write(start_rebuild):
            return
        after = 0
        while after >= 0:
            after = self._write(partial(rebuild_batch, after=after))

    def lexical(self, query: LexicalQuery | Sequence[str], limit: int,
                filters: Filters | None = None) -> list[int]:
        """Seqs of the best matches for ``query`` (``lexical.lexical_query``, or analysed
        tokens), restricted by ``filters``; see ``fts.search``."""
        return self._read(lambda c: search(c, query, limit, filters))

    def vectors(self, embedder: str,
                load: Callable[[int, Iterable[tuple[int, bytes]]], _Loaded]
                ) -> tuple[int, _Loaded, list[tuple[int, str, str]]]:
        """Snapshot: (generation, ``load(capacity, rows)``, [(seq, text, hash)] missing).

        ``load`` consumes the ``(seq, blob)`` rows of ``embedder`` as the database yields them
        (never all blobs in memory at once); ``capacity`` is an upper bound of their number.
        """
        def run(conn: sqlite3.Connection) -> tuple[int, _Loaded, list[tuple[int, str, str]]]:
            gen = int(conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])
            capacity = int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])
            have = load(capacity, conn.execute(
                "SELECT seq, embedding FROM memories WHERE embedder=?", (embedder,)))
            missing = conn.execute("SELECT seq, text, content_hash FROM memories WHERE embedder IS "
                                   "NULL OR embedder != ?", (embedder,)).fetchall()
            return gen, have, missing
        return self._read(run)

    def set_vectors(self, items: Sequence[tuple[int, str, bytes]], embedder: str) -> None:
        """Store re-computed vectors ``(seq, content_hash, blob)``; rows changed since are skipped.

        No generation bump: the content did not change.
        """
        self._write(lambda c: c.executemany(
            "UPDATE memories SET embedding=?, embedder=? WHERE seq=? AND content_hash=?",
            [(blob, embedder, seq, h) for seq, h, blob in items]))

    # -- score cache ---------------------------------------------------------------------------
    def cached_scores(self, context_hash: str,
                      hashes: Sequence[str]) -> dict[str, tuple[float, str]]:
        if not hashes:
            return {}
        marks = ",".join("?" * len(hashes))
        rows = self._read(lambda c: c.execute(
            "SELECT content_hash, score, reasoning FROM score_cache WHERE context_hash=? AND "
            f"content_hash IN ({marks})", [context_hash, *hashes]).fetchall())
        return {h: (s, r) for h, s, r in rows}

    def cache_scores(self, context_hash: str, items: Sequence[tuple[str, float, str]]) -> None:
        """Remember scores of content that is still stored (skips content changed meanwhile)."""
        now = self._now()
        self._write(lambda c: c.executemany(
            "INSERT OR REPLACE INTO score_cache (context_hash, content_hash, score, reasoning, "
            "created_at) SELECT ?,?,?,?,? WHERE EXISTS "
            "(SELECT 1 FROM memories WHERE content_hash=?)",
            [(context_hash, h, s, r, now, h) for h, s, r in items if math.isfinite(s)]))

    def clear_cache(self) -> None:
        self._write(lambda c: c.execute("DELETE FROM score_cache"))

    def cache_size(self) -> int:
        return int(self._read(lambda c: c.execute("SELECT count(*) FROM score_cache")
                              .fetchone()[0]))

    def integrity_check(self) -> str:
        return str(self._read(lambda c: c.execute("PRAGMA integrity_check").fetchone()[0]))

    @contextmanager
    def write_lock(self) -> Iterator[None]:
        """Hold this file's in-process writer lock (for callers batching several writes)."""
        with self._file_lock:
            yield
