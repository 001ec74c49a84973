"""The SQLite store: schema and migrations, journal mode per filesystem, FTS tokens, locking."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from codemem.memory.errors import StoreError
from codemem.memory.store.lexical import LEXICAL_VERSION, query_tokens
from codemem.memory.store.memory_store import (
    MemoryStore,
    NewRow,
    canonical_json,
    content_hash,
    journal_mode_for,
    utc_now,
)
from codemem.memory.store.schema import MIGRATIONS, SCHEMA_VERSION

MOUNTINFO = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 253:1 / / rw,relatime - ext4 /dev/vda rw
40 27 0:50 / /app/cat/data rw,relatime - virtiofs data rw
41 27 0:51 / /mnt/share rw,relatime - nfs4 server:/x rw
42 27 0:52 / /mnt/fuse rw,relatime - fuse.grpcfuse grpcfuse rw
43 27 0:53 / /mnt/nine rw,relatime - 9p mount rw
44 27 0:54 / /mnt/smb\\040share rw,relatime - cifs //srv/x rw
45 40 0:55 / /app/cat/data/local rw,relatime - ext4 /dev/vdb rw
"""


@pytest.mark.parametrize("path,mode", [
    ("/home/u/memories.db", "wal"),
    ("/app/cat/data/plugin/memories.db", "delete"),
    ("/app/cat/data/local/memories.db", "wal"),  # the deeper mount wins
    ("/mnt/share/m.db", "delete"),
    ("/mnt/fuse/m.db", "delete"),
    ("/mnt/nine/a/b/m.db", "delete"),
    ("/mnt/smb share/m.db", "delete"),
    ("/mnt/sharedisk/m.db", "wal"),  # a prefix of a name is not the same mount
    (":memory:", "memory"),
])
def test_journal_mode_for_mounts(path, mode):
    assert journal_mode_for(path, MOUNTINFO) == mode


def test_real_db_uses_wal_with_normal_sync(tmp_path):
    store = MemoryStore(str(tmp_path / "m.db"))
    assert store.journal_mode == "wal"
    store.close()
    conn = sqlite3.connect(tmp_path / "m.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_schema_version_and_reopen_is_idempotent(tmp_path):
    path = str(tmp_path / "m.db")
    MemoryStore(path).close()
    MemoryStore(path).close()
    conn = sqlite3.connect(path)
    versions = [r[0] for r in conn.execute("SELECT version FROM schema_version ORDER BY version")]
    assert versions == [v for v, _ in MIGRATIONS] and versions[-1] == SCHEMA_VERSION
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"memories", "lexical_fts", "memory_history", "score_cache", "meta"} <= tables
    assert "memories_fts" not in tables  # the schema-2 index is gone


def test_newer_schema_is_refused(tmp_path):
    path = str(tmp_path / "m.db")
    MemoryStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_version VALUES (999)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer than"):
        MemoryStore(path)


def test_metadata_json_and_timestamps(tmp_path):
    store = MemoryStore(str(tmp_path / "m.db"))
    meta = canonical_json({"b": 1, "a": "é"})
    assert meta == '{"a": "é", "b": 1}'
    store.insert_many([NewRow("id1", "text", meta, content_hash("text", meta))], None)
    conn = sqlite3.connect(tmp_path / "m.db")
    stored, created = conn.execute("SELECT metadata, created_at FROM memories").fetchone()
    assert stored == meta and created.endswith("+00:00") and "T" in created
    assert utc_now() > created
    store.close()


def test_lexical_index_holds_identifier_parts_and_stems(tmp_path):
    store = MemoryStore(str(tmp_path / "m.db"))
    meta = canonical_json({"qualified_name": "auth.validateToken"})
    store.insert_many([NewRow("a", "def check_user_ids(): ...", meta,
                              content_hash("x", meta))], None)

    def finds(text, filters=None):
        return bool(store.lexical(query_tokens(text), 5, filters))
    assert finds("user") and finds("check_user_ids") and finds("checking user id")
    assert finds("tokens") and finds("validateToken") and finds("validation")
    assert finds("qualified_name")
    assert not finds("absent")
    assert finds("user", {"qualified_name": "auth.validateToken"})
    assert not finds("user", {"qualified_name": "other"})
    store.close()


def test_writer_waits_for_a_foreign_transaction_instead_of_failing(tmp_path):
    path = str(tmp_path / "m.db")
    store = MemoryStore(path, busy_timeout_ms=50, lock_timeout=20)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.5, lambda: other.execute("COMMIT"))
    release.start()
    start = time.monotonic()
    meta = canonical_json(None)
    result = store.insert_many([NewRow("x", "t", meta, content_hash("t", meta))], None)
    assert result.value[0][2] is True and time.monotonic() - start >= 0.3
    release.join()
    store.close()


def test_lock_held_too_long_becomes_store_error(tmp_path):
    path = str(tmp_path / "m.db")
    store = MemoryStore(path, busy_timeout_ms=20, lock_timeout=0.3)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    meta = canonical_json(None)
    with pytest.raises(StoreError, match="stayed locked"):
        store.insert_many([NewRow("x", "t", meta, content_hash("t", meta))], None)
    other.execute("ROLLBACK")
    store.close()


def test_integrity_check_and_generation(tmp_path):
    store = MemoryStore(str(tmp_path / "m.db"))
    assert store.integrity_check() == "ok"
    before = store.generation()
    meta = canonical_json(None)
    mutation = store.insert_many([NewRow("x", "t", meta, content_hash("t", meta))], None)
    assert (mutation.generation_before, mutation.generation_after) == (before, before + 1)
    assert store.generation() == before + 1
    store.close()


def test_version_1_database_is_migrated(tmp_path):
    path = str(tmp_path / "m.db")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for sql in MIGRATIONS[0][1]:
        conn.execute(sql)
    conn.execute("INSERT INTO schema_version VALUES (1)")
    meta = canonical_json(None)
    conn.execute("INSERT INTO memories (id, text, metadata, content_hash, created_at, updated_at)"
                 " VALUES ('old', 'legacy text', ?, ?, 't', 't')",
                 (meta, content_hash("legacy text", meta)))
    conn.close()
    store = MemoryStore(path)
    assert store.get("old").text == "legacy text"
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT max(version) FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("SELECT count(*) FROM lexical_vocab").fetchone()[0] > 0
    assert store.lexical(query_tokens("legacy"), 5) == [1]
    store.close()


def _schema_2_database(path, rows):
    """A database as the released schema 2 left it: rows in ``memories`` and its old FTS."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for version, statements in MIGRATIONS[:2]:
        for sql in statements:
            conn.execute(sql)
        conn.execute("INSERT INTO schema_version VALUES (?)", (version,))
    for i, (text, meta) in enumerate(rows):
        meta_json = canonical_json(meta)
        conn.execute("INSERT INTO memories (id, text, metadata, content_hash, created_at, "
                     "updated_at) VALUES (?, ?, ?, ?, 't', 't')",
                     (f"m{i}", text, meta_json, content_hash(text, meta_json)))
        conn.execute("INSERT INTO memories_fts (rowid, text, meta, tokens) VALUES (?, ?, ?, '')",
                     (i + 1, text, meta_json))
    conn.close()


def test_schema_2_database_is_migrated_and_its_lexical_index_rebuilt(tmp_path):
    path = str(tmp_path / "m.db")
    code = {"type": "code_entity", "kind": "function", "name": "parseHeaders",
            "qualified_name": "http.parseHeaders", "path": "http/client.py"}
    _schema_2_database(path, [("def parseHeaders(raw):\n    return dict(raw)", code),
                              ("a plain note about caching", {"topic": "perf"})] * 700)
    store = MemoryStore(path)
    conn = sqlite3.connect(path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "memories_fts" not in tables and "memories_vocab" not in tables
    assert conn.execute("SELECT count(*) FROM lexical_fts").fetchone()[0] == 1400
    assert store.meta_value("lexical_version") == LEXICAL_VERSION
    assert len(store.lexical(query_tokens("parse the header"), 2000)) == 700
    assert len(store.lexical(query_tokens("cached"), 2000)) == 700
    store.close()
    MemoryStore(path).close()  # reopening does not rebuild again
    assert conn.execute("SELECT count(*) FROM lexical_fts").fetchone()[0] == 1400


def test_an_interrupted_lexical_rebuild_resumes(tmp_path):
    path = str(tmp_path / "m.db")
    store = MemoryStore(path)
    meta = canonical_json(None)
    store.insert_many([NewRow(f"id{i}", f"note {i}", meta, content_hash(f"note {i}", meta))
                       for i in range(30)], None)
    store.close()
    conn = sqlite3.connect(path, isolation_level=None)  # a rebuild killed after 10 rows
    conn.execute("DELETE FROM lexical_fts WHERE rowid > 10")
    conn.execute("UPDATE meta SET value = ? WHERE key = 'lexical_version'",
                 ("building:" + LEXICAL_VERSION,))
    store = MemoryStore(path)
    assert conn.execute("SELECT count(*) FROM lexical_fts").fetchone()[0] == 30
    assert len(store.lexical(query_tokens("note"), 100)) == 30
    conn.execute("UPDATE meta SET value = 'an-older-analysis' WHERE key = 'lexical_version'")
    store.close()
    store = MemoryStore(path)  # another analysis version: rebuilt from scratch
    assert conn.execute("SELECT count(*) FROM lexical_fts").fetchone()[0] == 30
    assert store.meta_value("lexical_version") == LEXICAL_VERSION
    store.close()


def test_common_terms_are_pruned_or_anded(tmp_path):
    store = MemoryStore(str(tmp_path / "m.db"))
    meta = canonical_json(None)
    texts = [f"common word filler{i}" + (" rare" if i % 500 == 0 else "")
             + (" extra" if i % 5 else "") for i in range(5000)]
    store.insert_many([NewRow(f"id{i}", t, meta, content_hash(t, meta))
                       for i, t in enumerate(texts)], None)
    rare_rows = {i + 1 for i in range(0, 5000, 500)}
    assert set(store.lexical(["common", "rare"], 100)) == rare_rows
    both = store.lexical(["common", "extra"], 5000)  # both common: AND
    assert len(both) == 4000
    assert store.lexical(["filler7"], 10) == [8]
    store.close()
