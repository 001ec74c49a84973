"""Pure parts: import resolution, dependency relations, context rendering, sink adapter fallback,
argument errors."""

from __future__ import annotations

import asyncio

import pytest
from qdrant_client import QdrantClient

from codemem.memory.code_context import CodeContext, describe, render_context
from codemem.memory.codeindex.modules import module_of, resolve_import
from codemem.memory.codeindex.vector_sink import (
    CatVectorSink,
    NamedEmbedder,
    SinkPoint,
    payload_metadata,
)
from codemem.memory.embedding import HashingEmbedder
from codemem.memory.retrieval.dependencies import (
    CALLED,
    CALLS_IN,
    IMPORTED,
    DependencyFocus,
)

from .catlike import CatLikeCollection
from .helpers import make_system


def test_import_resolution():
    assert resolve_import(".store.MemoryStore", "memory/codebase.py") == \
        "memory.store.MemoryStore"
    assert resolve_import("..util", "a/b/c.py") == "a.util"
    assert resolve_import("./auth", "src/api/x.ts") == "src.api.auth"
    assert resolve_import("std::io::Read", "src/main.rs") == "std.io.Read"
    assert module_of("pkg/__init__.py") == "pkg" and module_of("src/a/b.go") == "src.a.b"


def test_dependency_relations():
    focus = DependencyFocus.build("app/views.py", [".models.User", "os"],
                                  [{"name": "show", "calls": ["render", "self.db.get"]}], "r")
    assert focus.relation({"repo_id": "r", "path": "app/models.py",
                           "qualified_name": "User.save", "name": "save"}) == IMPORTED
    assert focus.relation({"repo_id": "r", "path": "lib/tpl.py", "qualified_name": "render",
                           "name": "render"}) == CALLED
    assert focus.relation({"repo_id": "r", "path": "lib/urls.py", "qualified_name": "route",
                           "name": "route", "calls": ["views.show"]}) == CALLS_IN
    assert focus.relation({"repo_id": "r", "path": "app/views.py", "qualified_name": "show",
                           "name": "show"}) is None  # the current file itself
    assert focus.relation({"repo_id": "other", "path": "lib/tpl.py",
                           "qualified_name": "render", "name": "render"}) is None


def test_render_context_and_describe():
    text = render_context(CodeContext("Fix it", current_file="a.py", errors="E1",
                                      accessed_files=["a.py", "b.py"]), {"a.py": "abc123"})
    assert text.splitlines() == ["Query: Fix it", "Current file: a.py", "Errors: E1",
                                 "Recently viewed files: a.py, b.py",
                                 "File versions: a.py@abc123"]
    assert describe({"type": "code_entity", "language": "go", "kind": "function",
                     "path": "m.go", "start_line": 3, "end_line": 9,
                     "qualified_name": "Run"}) == "[go function] m.go:3-9 Run"


def test_sink_falls_back_to_add_point_without_a_client():
    client = QdrantClient(":memory:")
    real = CatLikeCollection(client, "declarative", "E", 8)

    class NoClient:  # a collection object that only offers the Cat's methods
        collection_name, embedder_name, embedder_size = "declarative", "E", 8
        add_point = real.add_point
        get_all_points = real.get_all_points

    sink = CatVectorSink(NoClient())
    sink.upsert([SinkPoint("7d28987d-ae41-53c4-a176-28947b780801", "def f(): pass",
                           payload_metadata("r", "m", {"path": "a.py"}), [1.0] * 8)])
    assert sink.status("r").point_count == 1 and sink.status("x").point_count == 0
    client.close()


def test_named_embedder_changes_the_vector_space_key(tmp_path, pool):
    inner = HashingEmbedder(32)
    system = make_system(tmp_path, pool, embedder=NamedEmbedder(inner, "OpenAIEmbedderConfig"))
    assert system.get_stats()["embedder"] == "OpenAIEmbedderConfig:32"
    system.close()


def test_argument_errors(tmp_path, pool):
    system = make_system(tmp_path, pool)
    with pytest.raises(ValueError):
        system.add_documentation_memory("", "content")
    with pytest.raises(ValueError):
        system.add_debugging_session("d", "", "s")
    with pytest.raises(ValueError):
        asyncio.run(system.retrieve_relevant_memories(CodeContext(user_query="  ")))
    with pytest.raises(FileNotFoundError):
        system.index_repository(str(tmp_path / "missing"))
    with pytest.raises(ValueError):
        make_system(tmp_path, pool, dependency_boost_amount=1.5)
    system.close()


def test_one_config_object_holds_the_retrieval_knobs_and_the_boosts(tmp_path, pool):
    """The constructor's keyword arguments (the memory API's) build one ``CodeRetrievalConfig``;
    ``update_retrieval_config`` changes a boost as it changes any knob, all-or-nothing."""
    from codemem.memory.system_config import CodeRetrievalConfig
    (tmp_path / "bad").mkdir()
    with pytest.raises(ValueError, match="recency_days"):
        make_system(tmp_path / "bad", pool, recency_days=-1)
    assert list((tmp_path / "bad").iterdir()) == []  # refused before the store was opened
    system = make_system(tmp_path, pool, max_memories=20, recency_days=3)
    assert system.config == CodeRetrievalConfig(max_memories=20, recency_days=3,
                                                candidate_limit=system.config.candidate_limit)
    system.update_retrieval_config(recency_boost_amount=0.3, recency_days=14)
    assert (system.recency_boost_amount, system.recency_days) == (0.3, 14)
    assert system._recency.window_days == 14
    with pytest.raises(ValueError, match="dependency_boost_amount"):
        system.update_retrieval_config(relevance_threshold=0.5, dependency_boost_amount=2)
    assert system.relevance_threshold == 0.7 and system.dependency_boost_amount == 0.15
    assert system.get_stats()["recency_days"] == 14
    system.close()
