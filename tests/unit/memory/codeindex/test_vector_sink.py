"""Qdrant round trip against a real local collection created exactly as Cat 1.9.2 creates it."""

from __future__ import annotations

import os
import uuid

import pytest
from qdrant_client import QdrantClient

from codemem.memory.codeindex.vector_sink import (
    MARKER_KEY,
    CatVectorSink,
    VectorSpaceMismatch,
    is_code_point,
    point_id,
)

from ..codebase.catlike import CatLikeCollection
from ..codebase.helpers import make_system, write_tree

DIM = 64


def _all_points(collection) -> list:
    records, offset = collection.get_all_points()
    assert offset is None
    return records


def _code_points(collection, repo_id: str) -> dict[str, object]:
    return {str(r.id): r for r in _all_points(collection)
            if (r.payload.get("metadata") or {}).get("repo_id") == repo_id}


@pytest.fixture
def qdrant():
    client = QdrantClient(":memory:")
    yield client
    client.close()


def _indexed_sample(tmp_path, pool, qdrant):
    """A sample repository indexed into a Cat-like collection that also holds a chat memory."""
    repo = tmp_path / "repo"
    write_tree(repo)
    collection = CatLikeCollection(qdrant, "declarative", "HashingEmbedder", DIM)
    collection.add_point("The user likes tea", [1.0] + [0.0] * (DIM - 1),
                         {"source": "chat", "when": 1.0})  # an ordinary declarative memory
    system = make_system(tmp_path, pool, vector_sink=CatVectorSink(collection, batch_size=3),
                         repository_id="sample")
    ids = system.index_repository(str(repo))
    return repo, collection, system, ids


def test_round_trip_payload_and_recall(tmp_path, pool, qdrant):
    _repo, collection, system, ids = _indexed_sample(tmp_path, pool, qdrant)
    points = _code_points(collection, "sample")
    assert len(points) == len(ids)
    login = next(m for m in system.list_memories({"qualified_name": "login"}))
    pid = point_id("sample", "api/auth.py", "login")
    assert pid == str(uuid.uuid5(uuid.NAMESPACE_URL, "codemem:sample:api/auth.py::login"))
    payload = points[pid].payload
    assert set(payload) == {"page_content", "metadata"}
    assert payload["page_content"] == login["text"]
    meta = payload["metadata"]
    assert meta["source"] == "code_working_memory:api/auth.py"
    assert meta[MARKER_KEY] is True and is_code_point(meta)
    assert {k: meta[k] for k in ("repo_id", "path", "qualified_name", "kind", "language",
                                 "start_line", "end_line", "memory_id")} == {
        "repo_id": "sample", "path": "api/auth.py", "qualified_name": "login",
        "kind": "function", "language": "python", "start_line": 5, "end_line": 8,
        "memory_id": login["id"]}
    assert meta["hash"] == login["metadata"]["entity_hash"]

    # recall by embedding with a metadata filter, as the Cat does
    vector = system._dense._embedder.embed_query(login["text"])
    hits = collection.recall_memories_from_embedding(
        [float(x) for x in vector], metadata={MARKER_KEY: True, "repo_id": "sample"}, k=3)
    assert hits[0][0].metadata["qualified_name"] == "login" and str(hits[0][3]) == pid
    assert all(is_code_point(doc.metadata) for doc, *_ in hits)
    system.close()


def test_wipe_repush_repair_delete_rename(tmp_path, pool, qdrant):
    repo, _collection, system, ids = _indexed_sample(tmp_path, pool, qdrant)
    pid = point_id("sample", "api/auth.py", "login")

    # the collection is wiped and re-created (what the Cat does on an embedder change)
    qdrant.delete_collection("declarative")
    collection = CatLikeCollection(qdrant, "declarative", "HashingEmbedder", DIM)
    collection.add_point("The user likes coffee now", [1.0] + [0.0] * (DIM - 1),
                         {"source": "chat", "when": 2.0})
    system.attach_vector_sink(CatVectorSink(collection))
    result = system.sync_vector_sink()["sample"]
    assert result.action == "repushed" and result.pushed == len(ids)
    assert len(_code_points(collection, "sample")) == len(ids)
    assert system.sync_vector_sink()["sample"].action == "in_sync"

    # the admin deletes some points: the next index run notices and repairs
    collection.delete_points([pid])
    system.index_repository(str(repo))
    assert pid in _code_points(collection, "sample")

    # delete a file: its stale points go
    os.remove(repo / "api" / "auth.py")
    system.index_repository(str(repo))
    remaining = _code_points(collection, "sample")
    assert pid not in remaining
    assert not any(p.payload["metadata"]["path"] == "api/auth.py" for p in remaining.values())
    assert len(remaining) == system.count_memories({"type": "code_entity"})

    # rename: new point ids, old ones gone, no orphan
    os.rename(repo / "api" / "users.py", repo / "api" / "people.py")
    system.index_repository(str(repo))
    remaining = _code_points(collection, "sample")
    assert point_id("sample", "api/people.py", "get_user") in remaining
    assert point_id("sample", "api/users.py", "get_user") not in remaining
    assert len(remaining) == system.count_memories({"type": "code_entity"})

    # delete_memory through the Memory API removes the point too
    victim = system.list_memories({"qualified_name": "get_user"})[0]["id"]
    assert system.delete_memory(victim)
    assert point_id("sample", "api/people.py", "get_user") not in _code_points(collection,
                                                                                 "sample")
    assert system.sync_vector_sink()["sample"].action == "in_sync"
    # the ordinary memory was never touched by repairs, deletions and renames
    assert any(r.payload["metadata"].get("source") == "chat" for r in _all_points(collection))
    system.close()


def test_collection_of_another_size_is_refused(tmp_path, pool, qdrant):
    repo = tmp_path / "repo"
    write_tree(repo)
    collection = CatLikeCollection(qdrant, "declarative", "OtherEmbedder", DIM * 2)
    system = make_system(tmp_path, pool, vector_sink=CatVectorSink(collection))
    with pytest.raises(VectorSpaceMismatch):
        system.index_repository(str(repo))
    system.close()


def test_sink_attached_after_indexing_receives_everything(tmp_path, pool, qdrant):
    repo = tmp_path / "repo"
    write_tree(repo)
    system = make_system(tmp_path, pool, repository_id="late")
    ids = system.index_repository(str(repo))
    collection = CatLikeCollection(qdrant, "declarative", "HashingEmbedder", DIM)
    system.attach_vector_sink(CatVectorSink(collection))
    assert system.sync_vector_sink()["late"].pushed == len(ids)
    assert len(_code_points(collection, "late")) == len(ids)
    system.close()


def test_deleting_ids_the_embedded_qdrant_does_not_hold_is_not_an_error(qdrant):
    """qdrant_client's local mode (the Cat's embedded Qdrant) raises KeyError for unknown ids
    where a server ignores them: the sink deletes only what the collection holds."""
    collection = CatLikeCollection(qdrant, "declarative", "TestEmbedder", DIM)
    sink = CatVectorSink(collection)
    kept, gone = str(uuid.uuid4()), str(uuid.uuid4())
    for pid in (kept, gone):
        collection.add_point("text", [0.1] * DIM, {"source": "x"}, id=pid)
    never = str(uuid.uuid4())
    sink.delete([gone, never])
    assert {str(r.id) for r in _all_points(collection)} == {kept}
    assert sink.present([kept, gone, never]) == 1


def test_files_mode_with_files_that_define_nothing(tmp_path, pool, qdrant):
    """An empty ``__init__.py`` has no entities: its file point is absent, never deleted."""
    write_tree(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/core.py": "def f():\n    return 1\n",
                                    "pkg/empty.py": "# nothing here\n"})
    collection = CatLikeCollection(qdrant, "declarative", "TestEmbedder", DIM)
    system = make_system(tmp_path, pool, vector_sink=CatVectorSink(collection),
                         sink_mode="files")
    system.index_repository(str(tmp_path / "repo"))
    outlines = [r.payload["page_content"] for r in _all_points(collection)]
    assert outlines == ["File pkg/core.py: 1 definition\ndef f():"]
    (tmp_path / "repo" / "pkg" / "core.py").write_text("# emptied\n")
    system.index_repository(str(tmp_path / "repo"))  # core.py now defines nothing
    assert _all_points(collection) == []
