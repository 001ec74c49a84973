"""Schema migrations of the memory database, applied in order inside one write transaction.

Append a new ``(version, [statements])`` entry to change the schema; never edit a released
entry, because databases in the field already ran it.
"""

from __future__ import annotations

MIGRATIONS: list[tuple[int, list[str]]] = [
    (1, [
        """CREATE TABLE memories (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            text TEXT NOT NULL,
            metadata TEXT NOT NULL DEFAULT '{}',
            content_hash TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            embedding BLOB,
            embedder TEXT
        )""",
        "CREATE INDEX memories_content_hash ON memories (content_hash)",
        # `tokens` holds identifier parts (getUser -> get user) so lexical search finds them.
        "CREATE VIRTUAL TABLE memories_fts USING fts5 (text, meta, tokens, "
        "tokenize = \"unicode61 tokenchars '_'\")",
        """CREATE TABLE memory_history (
            seq INTEGER PRIMARY KEY,
            memory_id TEXT NOT NULL,
            action TEXT NOT NULL,
            old_text TEXT, old_metadata TEXT,
            new_text TEXT, new_metadata TEXT,
            at TEXT NOT NULL
        )""",
        "CREATE INDEX memory_history_memory ON memory_history (memory_id, seq)",
        """CREATE TABLE score_cache (
            context_hash TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            score REAL NOT NULL,
            reasoning TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (context_hash, content_hash)
        ) WITHOUT ROWID""",
        "CREATE INDEX score_cache_content ON score_cache (content_hash)",
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "INSERT INTO meta (key, value) VALUES ('generation', '0')",
    ]),
    (2, [
        # Document frequency per term: lets lexical search skip terms that match most rows.
        "CREATE VIRTUAL TABLE memories_vocab USING fts5vocab (memories_fts, 'row')",
    ]),
    (3, [
        # Code-aware fields (memory/store/lexical.py), filled by the store from Python because the
        # tokens (identifier parts, stems, operators) are computed there; the old index is
        # dropped. The tokenizer only splits the space-separated tokens it is given.
        "DROP TABLE memories_vocab",
        "DROP TABLE memories_fts",
        "CREATE VIRTUAL TABLE lexical_fts USING fts5 (name, qualname, signature, body, calls, "
        "meta, tokenize = \"unicode61 tokenchars '_-+*/%@&|^~<>=!'\")",
        "CREATE VIRTUAL TABLE lexical_vocab USING fts5vocab (lexical_fts, 'row')",
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('lexical_version', '')",
    ]),
]

SCHEMA_VERSION = MIGRATIONS[-1][0]
