"""The store: memories, their vectors and the FTS5 candidate index, in one SQLite file.

``memory_store.MemoryStore`` is the source of truth of every memory (docs/memory-api.md) and of the
code entities of GitMemory; ``schema`` and ``support`` are its tables and helpers,
``integrity`` notices and replaces a damaged database, ``fts`` keeps the lexical index, whose
tokens ``lexical`` analyses from code (identifiers split, stems, fields), and ``primitives``
holds the pure pieces the store and the ranking share (identifier splitting, FTS5 quoting,
metadata filters, rank fusion). Nothing here calls an LLM or an embedder.
"""
