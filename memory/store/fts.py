"""The FTS5 candidate index of the memory database: rows in, ranked seqs out.

Functions over an open connection, called by ``MemoryStore`` inside its transactions (it owns
locking and retries). What goes into a row and what a query looks for is ``lexical.py``'s
business; this module knows the table (``lexical_fts``, schema 3) and how to search it cheaply.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from .lexical import (
    COLUMN_WEIGHTS,
    COLUMNS,
    CONTAINER_LIFT,
    LEXICAL_VERSION,
    LexicalQuery,
    document_fields,
    with_container_prior,
)
from .primitives import compile_filter, fts_match_expression, reciprocal_rank_fusion
from .support import Filters

#: A term in more than this share of the rows (and more than COMMON_MIN rows) is "common".
#: Measured on the standard library (19k entities): 5 % / 1,000 cost 0.04 R@10; 15 % / 3,000
#: loses nothing against no cut and keeps queries at ~10-25 ms up to 68k entities.
COMMON_FRACTION = 0.15
COMMON_MIN = 3000
#: Rows analysed per transaction when the index is (re)built after an upgrade.
REBUILD_BATCH = 500

_INSERT = (f"INSERT INTO lexical_fts (rowid, {', '.join(COLUMNS)}) "
           f"VALUES (?{', ?' * len(COLUMNS)})")
_BM25 = f"bm25(lexical_fts, {', '.join(str(w) for w in COLUMN_WEIGHTS)})"
_BUILDING = "building:" + LEXICAL_VERSION


def meta_value(conn: sqlite3.Connection, key: str) -> str | None:
    """A value of the database's ``meta`` table (None if unset)."""
    row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return None if row is None else str(row[0])


def index_row(conn: sqlite3.Connection, seq: int, text: str, metadata_json: str) -> None:
    """Add one memory's row (delete the old one first when replacing)."""
    conn.execute(_INSERT, (seq, *document_fields(text, json.loads(metadata_json))))


def start_rebuild(conn: sqlite3.Connection) -> bool:
    """True if the index must be (re)built; empties it unless a build of this version was
    interrupted (then it resumes). Run in a write transaction."""
    state = meta_value(conn, "lexical_version")
    if state == LEXICAL_VERSION:
        return False
    if state != _BUILDING:
        conn.execute("DELETE FROM lexical_fts")
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('lexical_version', ?)",
                     (_BUILDING,))
    return True


def rebuild_batch(conn: sqlite3.Connection, after: int) -> int:
    """Index up to ``REBUILD_BATCH`` rows past seq ``after`` that the index lacks; returns the
    last seq done, or -1 when none was left (the build is then marked complete)."""
    rows = conn.execute("SELECT seq, text, metadata FROM memories WHERE seq > ? AND seq NOT IN "
                        "(SELECT rowid FROM lexical_fts) ORDER BY seq LIMIT ?",
                        (after, REBUILD_BATCH)).fetchall()
    for seq, text, metadata in rows:
        index_row(conn, seq, text, metadata)
    if rows:
        return int(rows[-1][0])
    conn.execute("UPDATE meta SET value=? WHERE key='lexical_version'", (LEXICAL_VERSION,))
    return -1


def search(conn: sqlite3.Connection, query: LexicalQuery | Sequence[str], limit: int,
           filters: Filters | None = None) -> list[int]:
    """Seqs of the best bm25 matches for ``query`` (or plain analysed tokens), best first.

    Hits in names weigh most (``lexical.COLUMN_WEIGHTS``); containers are lowered by
    ``lexical.CONTAINER_PRIOR``, and for a query that may ask for a class (``container_lift``)
    that ranking is fused with one lifting them (``lexical.CONTAINER_LIFT``). The metadata
    join runs only when there is a filter.
    """
    if not isinstance(query, LexicalQuery):
        query = LexicalQuery(tuple(query))
    if not (query.terms or query.compounds) or limit <= 0:
        return []
    where, params = compile_filter(filters, "m.metadata")
    expression = match_expression(conn, query)
    if not expression:
        return []
    join = "JOIN memories m ON m.seq = f.rowid" if filters else ""
    # The priors move a row by a fraction of its score, so the best ``limit`` after them are
    # (nearly always) among the best 3 x ``limit`` by bm25; kinds are read for those only.
    scored = conn.execute(f"SELECT f.rowid, {_BM25} FROM lexical_fts f {join} WHERE "
                          f"lexical_fts MATCH ? AND {where} ORDER BY 2 LIMIT ?",
                          [expression, *params, 3 * limit]).fetchall()
    if not scored:
        return []
    marks = ",".join("?" * len(scored))
    kinds = dict(conn.execute(f"SELECT seq, json_extract(metadata, '$.kind') FROM memories "
                              f"WHERE seq IN ({marks})", [seq for seq, _ in scored]).fetchall())
    ranked = with_container_prior(scored, kinds)
    if query.container_lift:
        ranked = reciprocal_rank_fusion([ranked, with_container_prior(scored, kinds,
                                                                      CONTAINER_LIFT)])
    return ranked[:limit]


def match_expression(conn: sqlite3.Connection, query: LexicalQuery) -> str:
    """The FTS5 MATCH expression for ``query`` ("" when nothing is searchable).

    bm25 ranks every row that matches, so a term found in most rows makes a query cost O(N).
    Terms in more than ``COMMON_FRACTION`` of the rows (and over ``COMMON_MIN`` rows) are left
    out of the OR; if only such terms remain, they are ANDed instead, which matches few rows.
    Compound tokens join (in names only) if the index holds them; the phrase always joins.
    """
    # max(seq) is O(1) and close to the row count (it over-counts only after deletions).
    total = conn.execute("SELECT max(seq) FROM memories").fetchone()[0] or 0
    cutoff = max(COMMON_MIN, int(total * COMMON_FRACTION))
    terms, df = list(query.terms), {}
    if total > cutoff or query.compounds:
        wanted = list(dict.fromkeys([*terms, *query.compounds]))
        marks = ",".join("?" * len(wanted))
        df = dict(conn.execute(f"SELECT term, doc FROM lexical_vocab WHERE term IN ({marks})",
                               wanted).fetchall())
    names = [t for t in query.compounds if 0 < df.get(t, 0) <= cutoff]
    parts = [f"{{name qualname}} : ({fts_match_expression(names)})" if names else ""]
    if total > cutoff and terms:
        rare = [t for t in terms if df.get(t, 0) <= cutoff]  # unknown terms stay
        parts.append(fts_match_expression(rare) if rare
                     else f"({fts_match_expression(terms, 'AND')})")
    elif terms:
        parts.append(fts_match_expression(terms))
    if query.phrase and any(parts):
        parts.append(fts_match_expression([query.phrase]))  # quoted: an FTS5 phrase
    return " OR ".join(p for p in parts if p)
