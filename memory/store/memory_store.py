"""SQLite persistence for ``MemorySystem``: memories, FTS5, vectors, change history, score cache.

Why this shape: the connection under it (``connection.py``) serialises writers per file and
retries busy transactions, with WAL or a rollback journal by mount type;
- A ``generation`` counter bumps on every memory change so in-memory vector indexes (ours or
  another process's) know when they are stale.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

from ..errors import StoreError
from .connection import StoreClosed, StoreConnection
from .fts import index_row, rebuild_batch, search, start_rebuild
from .lexical import LexicalQuery
from .primitives import compile_filter
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


class MemoryStore(StoreConnection):
    """Thread-safe SQLite store; one connection guarded by a lock, writes serialised per file."""

    def __init__(self, path: str, *, now: Callable[[], str] = utc_now,
                 busy_timeout_ms: int = 5000, lock_timeout: float = 60.0,
                 lost_on_corruption: str = "every memory, its change history and the score cache"
                 ) -> None:
        super().__init__(path, now=now, busy_timeout_ms=busy_timeout_ms,
                         lock_timeout=lock_timeout, lost_on_corruption=lost_on_corruption)
        self._ensure_lexical()

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
