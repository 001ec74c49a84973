"""Repositories by URL indexed into a real code memory (SQLite, the parsing pool, a Cat-shaped
Qdrant collection) from a real git server on loopback: the commit recorded, "update" parsing
only what changed (or nothing when the ref did not move), a failed update losing nothing, and
"remove" deleting the clone and every entity; with both fetch engines (dulwich, and the git
binary where there is one)."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
from qdrant_client import QdrantClient

from codemem.memory.codeindex.vector_sink import CatVectorSink
from codemem.memory.sources.clone import CloneLimits
from codemem.memory.sources.indexing import AssociativeMemory, SourceOptions, clone_folder
from codemem.memory.sources.spec import parse_item

from ..codebase.catlike import CatLikeCollection
from ..codebase.helpers import CountingExtractor, make_system
from .git_server import commit_files, git_http_server

KIT = {
    "kit/__init__.py": "from .greet import greet\n",
    "kit/greet.py": 'def greet(name: str, *, loud: bool = False) -> str:\n    """Say hello."""\n'
                    "    return name\n",
    "kit/wave.py": "def wave(times: int) -> str:\n    return 'o/' * times\n",
    "docs/guide.md": "# Guide\n\nCall `greet`.\n",
}


@pytest.fixture
def env(tmp_path, source_pool, engine):
    client = QdrantClient(":memory:")
    collection = CatLikeCollection(client, "declarative", "HashingEmbedder", 64)
    extractor = CountingExtractor(source_pool)
    code = make_system(tmp_path, source_pool, extractor=extractor,
                       vector_sink=CatVectorSink(collection), repository_id="project")
    memory = AssociativeMemory(code)
    data = tmp_path / "data"
    options = SourceOptions(cache_dir=str(data / "downloads"), protected=(str(data),),
                            clones_dir=str(data / "clones"),
                            clone_limits=CloneLimits(engine=engine))
    repo = str(tmp_path / "served" / "kit")
    first = commit_files(repo, KIT, tag="v1")
    with git_http_server({"kit.git": repo}) as base:
        yield memory, options, extractor, base, repo, first, collection
    memory.close()
    client.close()


def _names(memory, repo_id) -> set[str]:
    return {m["metadata"].get("qualified_name") or m["metadata"].get("name")
            for m in memory.code.list_memories({"repo_id": repo_id})}


def test_a_url_source_is_cloned_indexed_and_updated_with_only_what_changed(env):
    memory, options, extractor, base, repo, first, collection = env
    source = parse_item(f"{base}/kit.git")
    result = memory.index(source, options)
    row = result.row
    assert row.status == "ok" and row.kind == "git" and row.revision == first, row
    assert row.version == "master" and row.spec == f"{base}/kit.git"
    assert {"kit.greet", "kit.wave.wave"} <= {m["metadata"].get("public_name") for m in
                                              memory.code.list_memories({"repo_id":
                                                                         source.repo_id})}
    assert memory.api_table().lookup("kit.greet").exists
    clone = clone_folder(source, options)
    assert clone.startswith(options.clones_dir) and os.path.isdir(os.path.join(clone, ".git"))
    extractor.reset()
    same = memory.update(source, options)
    assert same.unchanged and same.previous == first and extractor.parsed == []
    second = commit_files(repo, {"kit/wave.py": "def wave(times: int, hand: str = 'o') -> str:"
                                                "\n    return hand * times\n"})
    moved = memory.update(source, options)
    assert not moved.unchanged and moved.previous == first
    assert moved.result.row.revision == second
    assert extractor.parsed == ["kit/wave.py"], extractor.parsed  # only the changed file
    assert moved.result.report is not None and moved.result.report.parsed == 1
    wave = memory.api_table().lookup("kit.wave.wave")
    assert "hand" in (wave.signature or "")
    assert memory.remove(source.repo_id, options.clones_dir) > 0
    assert not os.path.exists(os.path.dirname(clone)) and memory.rows() == []
    assert memory.code.list_memories({"repo_id": source.repo_id}) == []
    points, _ = collection.get_all_points()
    assert not [p for p in points if p.payload["metadata"].get("repo_id") == source.repo_id]


def test_a_source_at_a_tag_stays_there_and_the_index_run_does_not_fetch(env):
    memory, options, extractor, base, repo, first, _ = env
    source = parse_item(f"{base}/kit.git@v1")
    assert memory.index(source, options).row.revision == first
    commit_files(repo, {"kit/new.py": "def new():\n    return 1\n"})
    extractor.reset()
    again = memory.index(source, options)  # "index my repository": the clone as it is
    assert again.row.revision == first and extractor.parsed == []
    assert memory.update(source, options).unchanged  # the tag did not move


def test_a_failed_update_keeps_the_clone_and_the_entities(env):
    memory, options, _, base, repo, first, _ = env
    source = parse_item(f"{base}/kit.git")
    entities = memory.index(source, options).row.entities
    clone = clone_folder(source, options)
    commit_files(repo, {"kit/new.py": "def new():\n    return 1\n"})
    broken = replace(options, clone_limits=replace(options.clone_limits, max_bytes=1))
    update = memory.update(source, broken)
    row = update.result.row
    assert row.status == "error" and "update failed" in row.detail and "clone cap" in row.detail
    assert row.entities == entities and row.revision == first
    assert os.path.isdir(os.path.join(clone, ".git"))
    assert os.listdir(os.path.dirname(clone)) == [os.path.basename(clone)]
    assert memory.update(source, options).result.row.status == "ok"  # fetched again


def test_a_url_that_cannot_be_cloned_gets_an_error_row_and_leaves_nothing(env):
    memory, options, _, base, _, _, _ = env
    source = parse_item(f"{base}/missing.git")
    row = memory.index(source, options).row
    assert row.status == "error" and "no repository at that URL" in row.detail
    assert not os.path.exists(clone_folder(source, options))
