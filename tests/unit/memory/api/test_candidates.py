"""The public pre-LLM ranking (``MemorySystem.candidates``) and what the scorer receives."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from codemem.memory.embedding import VectorIndex
from codemem.memory.store.primitives import MAX_FILTER_DEPTH, compile_filter

from .helpers import async_llm, context_of, make_system, memories_of

NOTES = [f"note {i} about caching strategies" for i in range(30)] + [
    "a short story about gardening"]


def test_candidates_are_exactly_what_the_scorer_receives(tmp_path):
    llm = async_llm(default=0.9)
    with make_system(tmp_path, llm, candidate_limit=12, max_memories=5) as system:
        system.add_memories(NOTES)
        ranked = system.candidates("caching strategies")
        assert len(ranked) == 12 and [c.rank for c in ranked] == list(range(1, 13))
        assert all(c.lexical_rank is not None and c.dense_rank is None for c in ranked)
        asyncio.run(system.retrieve_relevant_memories("caching strategies"))
        assert memories_of(llm.prompts) == {c.text for c in ranked}
        assert [c.text for c in system.candidates("caching strategies", limit=3)] == [
            c.text for c in ranked[:3]]
        assert llm.calls == 1  # one listwise call; candidates() itself never calls the LLM


def test_candidates_honour_filters_and_refuse_a_bad_limit(tmp_path):
    with make_system(tmp_path, async_llm()) as system:
        system.add_memory("auth in python", {"lang": "python"})
        system.add_memory("auth in go", {"lang": "go"})
        assert [c.text for c in system.candidates("auth", filters={"lang": "go"})] == [
            "auth in go"]
        assert [c.metadata for c in system.candidates("auth", limit=1)] in (
            [{"lang": "python"}], [{"lang": "go"}])
        for bad in (0, -1, True, 2.5, "3"):
            with pytest.raises(ValueError, match="limit"):
                system.candidates("auth", limit=bad)
        with pytest.raises(ValueError):
            system.candidates("   ")


def test_stemmed_and_split_words_find_code(tmp_path):
    with make_system(tmp_path, async_llm()) as system:
        system.add_memories(["def parseHttpHeaders(raw): ...", "def render_pages(): ..."])
        assert system.candidates("parsing the HTTP header")[0].text.startswith("def parseHttp")
        assert system.candidates("rendered page")[0].text.startswith("def render_pages")


def _nested(depth: int) -> dict:
    condition: dict = {"lang": "python"}
    for _ in range(depth):
        condition = {"$and": [condition, {"lines": {"$gte": 0}}]}
    return condition


def test_deep_filters_get_a_clear_error_not_a_recursion_error(tmp_path):
    with pytest.raises(ValueError, match=f"deeper than {MAX_FILTER_DEPTH}"):
        compile_filter(_nested(3000))
    with pytest.raises(ValueError, match="not None"):
        compile_filter({"$or": [None]})
    with make_system(tmp_path, async_llm()) as system:
        system.add_memory("auth in python", {"lang": "python", "lines": 3})
        assert [c.text for c in system.candidates("auth", filters=_nested(MAX_FILTER_DEPTH))] \
            == ["auth in python"]
        assert len(system.list_memories(_nested(MAX_FILTER_DEPTH))) == 1
        for call in (lambda f: system.candidates("auth", filters=f), system.list_memories,
                     system.count_memories, system.delete_memories):
            with pytest.raises(ValueError, match="deeper than"):
                call(_nested(3000))
        assert system.count_memories() == 1


def test_vector_index_loads_in_one_pass():
    rows = [(seq, np.full(4, seq, dtype=np.float32).tobytes()) for seq in range(1, 6)]
    rows.insert(2, (99, b"short"))  # a damaged blob is skipped, not loaded
    index = VectorIndex.load(4, 3, iter(rows))  # fewer announced than given: grows once
    assert len(index) == 5
    assert index.search(np.ones(4, dtype=np.float32), 2) == [5, 4]
    index.remove([1, 2])
    index.put([7], np.ones((1, 4), dtype=np.float32))
    assert len(index) == 4 and 7 in index.search(np.ones(4, dtype=np.float32), 10)
    empty = VectorIndex.load(4, 0, iter([]))
    assert len(empty) == 0 and empty.search(np.ones(4), 3) == []


def test_renderings_add_candidates_the_question_alone_misses(tmp_path):
    llm = async_llm(default=0.9)
    code = ["def readlink(path): return os.readlink(path)",
            "def follow_symlinks(tree): return tree.resolve()",
            "def parse_qs(query): return dict(pairs(query))"]
    with make_system(tmp_path, llm, candidate_limit=2, max_memories=2) as system:
        system.add_memories(code)
        plain = [c.text for c in system.candidates("where does a shortcut point to")]
        assert plain == []  # no word in common with any memory
        extra = system.candidates("where does a shortcut point to",
                                  renderings=["readlink(path) -> str", "  "])
        assert [c.text for c in extra] == [code[0]]
        assert extra[0].lexical_rank is None  # found by the rendering, not the question
        both = system.candidates("parse the query string", renderings=["readlink"])
        assert [c.text for c in both] == [code[2], code[0]]  # the question's own hit first
        memories = asyncio.run(system.retrieve_relevant_memories(
            "where does a shortcut point to", renderings=["readlink(path) -> str"]))
        assert [m.text for m in memories] == [code[0]]
        assert context_of(llm.prompts[-1]).strip() == "where does a shortcut point to"
        assert llm.calls == 1  # renderings cost no LLM call of their own


def test_renderings_must_be_a_short_list_of_strings(tmp_path):
    with make_system(tmp_path, async_llm()) as system:
        system.add_memory("def readlink(path): ...")
        for bad, message in (("readlink", "list or tuple"), ([1], "string"),
                             (["x"] * 9, "at most 8")):
            with pytest.raises(ValueError, match=message):
                system.candidates("link", renderings=bad)
