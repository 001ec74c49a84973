"""The code index: a repository turned into entity memories, kept in step incrementally.

``indexer`` indexes by stat, then hash (a one-file change costs about one file), with the
files walked by ``walk``; ``manifest`` records files, entities and what was pushed; the Cat's
declarative memory receives what the ``SinkMode`` says (``sink_sync``, through the
``vector_sink`` adapter; file outlines from ``file_points``), checked and repaired at each run.
"""
