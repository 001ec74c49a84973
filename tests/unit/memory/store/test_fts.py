"""The FTS5 candidate index (memory/store/fts.py) over a real store's SQLite file."""

from __future__ import annotations

import sqlite3

from codemem.memory.store.fts import (
    match_expression,
    meta_value,
    rebuild_batch,
    search,
    start_rebuild,
)
from codemem.memory.store.lexical import LEXICAL_VERSION, lexical_query
from codemem.memory.store.memory_store import MemoryStore, NewRow, canonical_json, content_hash

TEXTS = [("def parse_headers(raw): split the HTTP headers", {"kind": "function"}),
         ("class HeaderParser: parses headers", {"kind": "class"}),
         ("def render_page(tree): HTML output", {"kind": "function"})]


def filled_store(tmp_path) -> tuple[str, list[int]]:
    path = str(tmp_path / "m.db")
    store = MemoryStore(path)
    rows = []
    for n, (text, meta) in enumerate(TEXTS):
        meta_json = canonical_json(meta)
        rows.append(NewRow(f"id-{n}", text, meta_json, content_hash(text, meta_json)))
    seqs = [seq for _, seq, _ in store.insert_many(rows, None).value]
    store.close()
    return path, seqs


def test_search_ranks_matches_and_honours_filters(tmp_path):
    path, seqs = filled_store(tmp_path)
    with sqlite3.connect(path) as conn:
        assert meta_value(conn, "lexical_version") == LEXICAL_VERSION
        found = search(conn, lexical_query("parse the headers"), 10)
        assert set(found[:2]) == {seqs[0], seqs[1]} and seqs[2] not in found
        assert search(conn, lexical_query("parse the headers"), 10,
                      {"kind": "class"}) == [seqs[1]]
        assert search(conn, ["render"], 10) == [seqs[2]]  # analysed tokens work too
        assert search(conn, lexical_query("the"), 10) == []  # nothing searchable
        assert search(conn, lexical_query("headers"), 0) == []
        assert match_expression(conn, lexical_query("")) == ""
        assert meta_value(conn, "no such key") is None


def test_an_interrupted_or_outdated_index_is_rebuilt_in_batches(tmp_path):
    path, seqs = filled_store(tmp_path)
    with sqlite3.connect(path, isolation_level=None) as conn:
        assert not start_rebuild(conn)  # current: nothing to do
        conn.execute("UPDATE meta SET value='older' WHERE key='lexical_version'")
        assert start_rebuild(conn)
        assert conn.execute("SELECT count(*) FROM lexical_fts").fetchone()[0] == 0
        assert search(conn, ["render"], 10) == []
        assert rebuild_batch(conn, 0) == seqs[-1]
        assert start_rebuild(conn)  # still building (resumes, keeps what was done)
        assert conn.execute("SELECT count(*) FROM lexical_fts").fetchone()[0] == 3
        assert rebuild_batch(conn, seqs[-1]) == -1  # none left: marked complete
        assert meta_value(conn, "lexical_version") == LEXICAL_VERSION
        assert search(conn, ["render"], 10) == [seqs[2]]
