"""CodeManifest (memory/codeindex/manifest.py) on a real SQLite file: rows in, rows out."""

from __future__ import annotations

import sqlite3

import pytest

from codemem.memory.codeindex.manifest import CodeManifest, EntityRow, FileRow
from codemem.memory.errors import StoreError

from ..codebase.sinkworld import REPO, World


def test_repositories_files_and_entities_round_trip(tmp_path):
    world = World(tmp_path)
    manifest = world.manifest
    repo = manifest.repo(REPO)
    assert (repo.root, repo.dimension, repo.sink_count) == (str(tmp_path), 16, 0)
    assert [r.repo_id for r in manifest.repos()] == [REPO]
    files = manifest.files(REPO)
    assert sorted(files) == ["pkg/a.py", "pkg/b.py"]
    assert files["pkg/a.py"] == FileRow("pkg/a.py", "f-pkg/a.py", "python", "indexed", 10, 1, 3,
                                        ())
    assert list(manifest.files(REPO, ["pkg/b.py", "missing.py"])) == ["pkg/b.py"]
    assert manifest.entity_ids(REPO) == ["mem-0", "mem-1", "mem-2", "mem-3"]  # insertion order
    assert manifest.entity_count(REPO) == manifest.entity_count() == 4
    assert manifest.entity_paths(REPO) == ["pkg/a.py", "pkg/b.py"]
    assert [r.qualified_name for r in manifest.entities(REPO, "pkg/a.py")] == [
        "parse", "Parser", "Parser.feed"]
    found = manifest.entity("mem-3")
    assert found is not None and found[0] == REPO and found[1].path == "pkg/b.py"
    assert manifest.entity("nope") is None


def test_iter_entities_pages_and_sample_spreads_over_the_repository(tmp_path):
    manifest = World(tmp_path).manifest
    pages = list(manifest.iter_entities(REPO, chunk=3))
    assert [len(p) for p in pages] == [3, 1]
    assert [r.memory_id for p in pages for r in p] == manifest.entity_ids(REPO)
    every_other = manifest.sample_point_ids(REPO, 2)
    rows = manifest.entities(REPO)
    assert every_other == [rows[0].point_id, rows[2].point_id]


def test_vectors_sink_state_and_forgetting(tmp_path):
    manifest = World(tmp_path).manifest
    manifest.set_vectors([("mem-0", b"\x00" * 64)])
    assert manifest.entity("mem-0")[1].vector == b"\x00" * 64
    manifest.clear_vectors(REPO)
    assert all(r.vector is None for r in manifest.entities(REPO))
    manifest.set_sink_state(REPO, 7, "E", 16)
    repo = manifest.repo(REPO)
    assert (repo.sink_count, repo.sink_embedder, repo.sink_size) == (7, "E", 16)
    manifest.forget_memory("mem-3")
    assert manifest.entity_paths(REPO) == ["pkg/a.py"]
    manifest.transaction(lambda c: CodeManifest.drop_file(c, REPO, "pkg/a.py"))
    assert manifest.entity_count(REPO) == 0 and list(manifest.files(REPO)) == ["pkg/b.py"]
    manifest.drop_repo(REPO)
    assert manifest.repo(REPO) is None and manifest.files(REPO) == {}


def test_a_failed_transaction_writes_nothing_and_sql_errors_become_store_errors(tmp_path):
    manifest = World(tmp_path).manifest

    def half(conn: sqlite3.Connection) -> None:
        CodeManifest.put_entities(conn, REPO, [EntityRow("new", "c.py", "f", 0, "h", "p", None)])
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        manifest.transaction(half)
    assert manifest.entity("new") is None  # rolled back
    with pytest.raises(StoreError, match="code manifest"):
        manifest.transaction(lambda c: c.execute("SELECT * FROM no_such_table"))
    manifest.close()
