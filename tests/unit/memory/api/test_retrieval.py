"""Candidate stages: identifier tokens, RRF, metadata filters, and the bound on LLM calls."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import numpy as np
import pytest

from codemem.memory.embedding import HashingEmbedder, VectorIndex
from codemem.memory.store.primitives import (
    compile_filter,
    fts_match_expression,
    reciprocal_rank_fusion,
    split_identifier,
)

from .helpers import async_llm, make_system


def test_split_identifier():
    assert split_identifier("getUserName") == ["get", "user", "name"]
    assert split_identifier("get_user_name") == ["get", "user", "name"]
    assert split_identifier("HTTPServer2") == ["http", "server", "2"]
    assert split_identifier("plain") == ["plain"]


def test_fts_expression_quotes_terms():
    assert fts_match_expression(['a"b', "OR"]) == '"a""b" OR "OR"'


def test_reciprocal_rank_fusion_k60():
    fused = reciprocal_rank_fusion([[1, 2, 3], [3, 1, 4]])
    assert fused == [1, 3, 2, 4]
    assert reciprocal_rank_fusion([[7, 8]]) == [7, 8]
    assert reciprocal_rank_fusion([]) == []


ROWS = [
    {"lang": "python", "lines": 10, "tags": "a"},
    {"lang": "go", "lines": 250},
    {"lang": "python", "lines": 40, "draft": True},
    {"lines": 5},
]


def _matches(filters):
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (i INTEGER, metadata TEXT)")
    conn.executemany("INSERT INTO t VALUES (?, ?)",
                     [(i, json.dumps(r)) for i, r in enumerate(ROWS)])
    where, params = compile_filter(filters)
    return [r[0] for r in conn.execute(f"SELECT i FROM t WHERE {where} ORDER BY i", params)]


@pytest.mark.parametrize("filters,expected", [
    (None, [0, 1, 2, 3]),
    ({"lang": "python"}, [0, 2]),
    ({"lang": None}, [3]),
    ({"lang": {"$ne": "python"}}, [1, 3]),
    ({"lang": {"$in": ["go", "rust"]}}, [1]),
    ({"lang": {"$nin": ["go"]}}, [0, 2, 3]),
    ({"lang": {"$in": []}}, []),
    ({"lines": {"$gt": 10}}, [1, 2]),
    ({"lines": {"$gte": 10, "$lt": 250}}, [0, 2]),
    ({"lines": {"$lte": 5}}, [3]),
    ({"draft": True}, [2]),
    ({"lang": "python", "lines": {"$gt": 20}}, [2]),
    ({"$or": [{"lang": "go"}, {"lines": {"$lt": 6}}]}, [1, 3]),
    ({"$and": [{"lang": "python"}, {"$or": [{"tags": "a"}, {"draft": True}]}]}, [0, 2]),
])
def test_filters(filters, expected):
    assert _matches(filters) == expected


@pytest.mark.parametrize("bad", [
    ["lang"], {"$not": {}}, {"lang": {"$regex": "p"}}, {"$or": []}, {"$and": {"a": 1}},
    {"lang": {"$in": "python"}}, {"lang": {}}, {"": 1}, {'a"b': 1}, {"lang": [1, 2]},
    {"lines": {"$gt": None}}, {"lines": float("inf")},
])
def test_bad_filters_raise_value_error(bad):
    with pytest.raises(ValueError):
        compile_filter(bad)


def test_hashing_embedder_is_deterministic_and_normalised():
    embedder = HashingEmbedder(64)
    assert embedder.name == "hashing-v1-64" and embedder.dimension == 64
    docs = embedder.embed_documents(["getUserName returns the name", ""])
    assert docs.shape == (2, 64)
    assert np.isclose(np.linalg.norm(docs[0]), 1.0) and not docs[1].any()
    assert np.array_equal(embedder.embed_query("getUserName returns the name"), docs[0])
    close = float(embedder.embed_query("user name") @ docs[0])
    far = float(embedder.embed_query("zebra crossing") @ docs[0])
    assert close > far
    with pytest.raises(ValueError):
        HashingEmbedder(4)


def test_vector_index_put_remove_search():
    index = VectorIndex(2)
    index.put([10, 20, 30], np.array([[1, 0], [0, 1], [0.7, 0.7]], dtype=np.float32))
    assert index.search(np.array([1, 0.1]), 2) == [10, 30]
    index.remove([10, 99])
    assert len(index) == 2 and index.search(np.array([1, 0.1]), 5) == [30, 20]
    assert index.search(np.array([0.5, 0.5]), 5, allowed=[20]) == [20]
    assert index.search(np.array([1, 0]), 5, allowed=[20]) == []  # orthogonal: nothing shared
    assert index.search(np.array([1, 0]), 5, allowed=[]) == []


def test_lexical_stage_finds_identifier_parts(tmp_path):
    llm = async_llm({"validate_token": 0.9, "getUserName": 0.9})
    with make_system(tmp_path, llm, use_dense=False) as system:
        system.add_memories(["def validate_token(token): ...", "def getUserName(): ...",
                             "unrelated prose about gardening"])
        found = asyncio.run(system.retrieve_relevant_memories("where is the user name read?"))
        assert [m.text for m in found] == ["def getUserName(): ..."]
        found = asyncio.run(system.retrieve_relevant_memories("token validation"))
        assert [m.text for m in found] == ["def validate_token(token): ..."]
        assert llm.calls == 2  # gardening never matched lexically, so it was never scored


def test_metadata_is_searchable_lexically(tmp_path):
    llm = async_llm(default=0.9)
    with make_system(tmp_path, llm, use_dense=False) as system:
        system.add_memory("thirty days", {"category": "returns"})
        system.add_memory("fifty dollars", {"category": "shipping"})
        found = asyncio.run(system.retrieve_relevant_memories("returns"))
        assert [m.text for m in found] == ["thirty days"]


def test_filters_on_retrieval(tmp_path):
    with make_system(tmp_path, async_llm(default=0.9)) as system:
        system.add_memory("auth in python", {"lang": "python", "year": 2024})
        system.add_memory("auth in go", {"lang": "go", "year": 2025})
        system.add_memory("auth in rust", {"lang": "rust", "year": 2026})
        run = lambda f: sorted(m.text for m in asyncio.run(  # noqa: E731
            system.retrieve_relevant_memories("auth", filters=f)))
        assert run({"lang": "go"}) == ["auth in go"]
        assert run({"year": {"$gte": 2025}}) == ["auth in go", "auth in rust"]
        assert run({"$or": [{"lang": "python"}, {"year": 2026}]}) == [
            "auth in python", "auth in rust"]
        assert run({"lang": {"$in": ["java"]}}) == []
        with pytest.raises(ValueError):
            run({"lang": {"$like": "g%"}})


class SynonymEmbedder:
    """A toy semantic embedder: words of one synonym group share a direction."""

    name = "synonyms"
    dimension = 3
    groups = ({"car", "automobile", "vehicle"}, {"bank", "money", "loan"}, {"cat", "kitten"})

    def __init__(self) -> None:
        self.documents = 0

    def _vec(self, text):
        words = set(text.lower().replace("?", " ").split())
        return [float(bool(words & g)) for g in self.groups]

    def embed_documents(self, texts):
        self.documents += len(texts)
        return [self._vec(t) for t in texts]

    def embed_query(self, text):
        return self._vec(text)


def test_injected_embedder_drives_the_dense_stage(tmp_path):
    embedder = SynonymEmbedder()
    with make_system(tmp_path / "dense", async_llm(default=0.9), embedder=embedder,
                     dense_ranking="always") as system:
        system.add_memories(["my automobile is red", "a kitten sleeps", "the loan was paid"])
        found = asyncio.run(system.retrieve_relevant_memories("which car?"))
        assert [m.text for m in found] == ["my automobile is red"]
        assert system.get_stats()["embedder"] == "synonyms:3"
    with make_system(tmp_path / "lex", async_llm(default=0.9), use_dense=False) as system:
        system.add_memories(["my automobile is red", "a kitten sleeps"])
        assert asyncio.run(system.retrieve_relevant_memories("which car?")) == []
        assert system.get_stats()["embedder"] is None


def test_precomputed_embeddings_are_used_and_checked(tmp_path):
    embedder = SynonymEmbedder()
    with make_system(tmp_path, async_llm(default=0.9), embedder=embedder,
                     dense_ranking="always") as system:
        system.add_memories([("opaque text one", None, [0.0, 0.0, 1.0]),
                             {"text": "opaque text two", "embedding": [1.0, 0.0, 0.0]}])
        assert embedder.documents == 0
        found = asyncio.run(system.retrieve_relevant_memories("kitten"))
        assert [m.text for m in found] == ["opaque text one"]
        with pytest.raises(ValueError):
            system.add_memories([("bad vector", None, [1.0, 2.0])])
        with pytest.raises(ValueError):
            system.add_memories([("nan vector", None, [float("nan"), 0.0, 0.0])])


def test_changing_the_embedder_reembeds_stored_memories(tmp_path):
    with make_system(tmp_path, async_llm(default=0.9), use_dense=False) as system:
        system.add_memories(["my automobile is red", "a kitten sleeps"])
    embedder = SynonymEmbedder()
    with make_system(tmp_path, async_llm(default=0.9), embedder=embedder,
                     dense_ranking="always") as system:
        found = asyncio.run(system.retrieve_relevant_memories("which car?"))
        assert [m.text for m in found] == ["my automobile is red"]
        assert embedder.documents == 2
    embedder = SynonymEmbedder()
    with make_system(tmp_path, async_llm(default=0.9), embedder=embedder,
                     dense_ranking="always") as system:
        asyncio.run(system.retrieve_relevant_memories("which car?"))
        assert embedder.documents == 0  # vectors were persisted


def test_index_follows_writes_from_another_instance(tmp_path):
    embedder = SynonymEmbedder()
    with make_system(tmp_path, async_llm(default=0.9), embedder=embedder,
                     dense_ranking="always") as one, \
            make_system(tmp_path, async_llm(default=0.9), embedder=embedder,
                        dense_ranking="always") as two:
        one.add_memory("a kitten sleeps")
        assert asyncio.run(two.retrieve_relevant_memories("cat?"))[0].text == "a kitten sleeps"
        memory_id = two.add_memory("my automobile is red")
        one.add_memory("the loan was paid")
        assert [m.text for m in asyncio.run(one.retrieve_relevant_memories("car?"))] == [
            "my automobile is red"]
        one.update_memory(memory_id, text="my bank is near")
        assert asyncio.run(two.retrieve_relevant_memories("car?")) == []
        one.delete_memory(memory_id)
        assert [m.text for m in asyncio.run(two.retrieve_relevant_memories("money?"))] == [
            "the loan was paid"]


@pytest.mark.parametrize(("mode", "expected_calls"), [("pointwise", 15), ("listwise", 1)])
def test_llm_calls_per_query_do_not_grow_with_store_size(tmp_path, mode, expected_calls):
    calls = []
    for n in (50, 1000):
        llm = async_llm(default=0.9)
        with make_system(tmp_path / str(n), llm, candidate_limit=15,
                         scoring_mode=mode) as system:
            system.add_memories([f"memory {i} about topic {i % 7} and search" for i in range(n)])
            result = asyncio.run(system.retrieve_relevant_memories("search topic 3"))
            assert len(result) == 10
            calls.append(llm.calls)
            assert system.get_stats()["llm_calls"] == llm.calls
    assert calls == [expected_calls, expected_calls]


@pytest.mark.parametrize(("mode", "expected_calls"), [("pointwise", 8), ("listwise", 2)])
def test_max_memories_above_candidate_limit_widens_the_scored_set(tmp_path, mode,
                                                                  expected_calls):
    llm = async_llm(default=0.9)
    with make_system(tmp_path, llm, candidate_limit=5, max_memories=8,
                     scoring_mode=mode) as system:
        system.add_memories([f"note {i} on caching" for i in range(30)])
        assert len(asyncio.run(system.retrieve_relevant_memories("caching"))) == 8
        assert llm.calls == expected_calls  # listwise: chunks of candidate_limit


def test_dense_filter_falls_back_to_a_full_scan_for_rare_matches(tmp_path):
    llm = async_llm(default=0.9)
    with make_system(tmp_path, llm, use_dense=True, candidate_limit=5, max_memories=5) as system:
        items = [(f"shared words entry {i}", {"group": "many"}) for i in range(1300)]
        items.append(("shared words entry special", {"group": "rare"}))
        system.add_memories(items)
        found = asyncio.run(system.retrieve_relevant_memories(
            "shared words", filters={"group": "rare"}))
        assert [m.text for m in found] == ["shared words entry special"]
        dense = system._dense.search("shared words", 60, {"group": "rare"})  # the fallback path
        assert [system._store.get_by_seq(dense)[s].text for s in dense] == [
            "shared words entry special"]
        many = asyncio.run(system.retrieve_relevant_memories(
            "shared words", filters={"group": "many"}))
        assert len(many) == 5 and all(m.metadata == {"group": "many"} for m in many)
