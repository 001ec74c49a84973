"""MemorySystem: the constructor, methods, return values and exceptions of docs/memory-api.md."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from datetime import datetime, timedelta, timezone

import pytest

from codemem import memory as memory_pkg
from codemem.llm.templates import DATA_RULE
from codemem.memory.store.memory_store import StoreClosed
from codemem.memory.system import MemorySystem, ScoredMemory

from .helpers import FakeSleep, async_llm, make_system


def test_package_exports_the_documented_names():
    assert memory_pkg.MemorySystem is MemorySystem
    assert memory_pkg.ScoredMemory is ScoredMemory


def test_constructor_signature_and_defaults_are_the_documented_ones():
    params = inspect.signature(MemorySystem).parameters
    documented = ["small_model_fn", "db_path", "relevance_threshold", "max_memories",
                  "batch_size", "retry_attempts", "retry_delay"]
    assert list(params)[:7] == documented
    assert params["small_model_fn"].default is inspect.Parameter.empty
    defaults = {n: params[n].default for n in documented[1:]}
    assert defaults == {"db_path": "memories.db", "relevance_threshold": 0.7,
                        "max_memories": 10, "batch_size": 10, "retry_attempts": 3,
                        "retry_delay": 1.0}
    extras = list(params)[7:]
    assert all(params[n].kind is inspect.Parameter.KEYWORD_ONLY for n in extras)
    assert params["candidate_limit"].default == 20


def test_defaults_are_applied(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with MemorySystem(async_llm()) as system:
        assert (system.relevance_threshold, system.max_memories, system.batch_size,
                system.retry_attempts, system.retry_delay) == (0.7, 10, 10, 3, 1.0)
        assert system.db_path == "memories.db"
    assert (tmp_path / "memories.db").exists()


def test_scored_memory_has_the_documented_fields_in_order():
    names = [f.name for f in dataclasses.fields(ScoredMemory)]
    assert names[:6] == ["memory_id", "text", "metadata", "timestamp", "relevance_score",
                         "reasoning"]
    extra = dataclasses.fields(ScoredMemory)[6:]
    assert all(f.default is not dataclasses.MISSING for f in extra)
    memory = ScoredMemory("id", "t", None, "2026-01-01T00:00:00+00:00", 0.5, "r")
    assert memory.error is None and memory.cached is False


@pytest.mark.parametrize("kwargs", [
    {"relevance_threshold": -0.1}, {"relevance_threshold": 1.5}, {"relevance_threshold": "x"},
    {"relevance_threshold": float("nan")}, {"max_memories": 0}, {"max_memories": 2.5},
    {"max_memories": True}, {"batch_size": 0}, {"retry_attempts": 0}, {"retry_delay": -1},
    {"candidate_limit": 0}, {"llm_timeout": 0}, {"enable_caching": "yes"},
])
def test_out_of_range_configuration_raises_value_error(tmp_path, kwargs):
    with pytest.raises(ValueError):
        make_system(tmp_path, **kwargs)


def test_small_model_fn_must_be_callable(tmp_path):
    with pytest.raises(ValueError):
        MemorySystem("not a function", str(tmp_path / "m.db"))


def test_boundary_configuration_is_accepted(tmp_path):
    with make_system(tmp_path, relevance_threshold=0.0, max_memories=1, batch_size=1,
                     retry_attempts=1, retry_delay=0) as system:
        system.update_retrieval_config(relevance_threshold=1.0)
        assert system.relevance_threshold == 1.0


def test_add_and_get_memory_round_trip(tmp_path):
    clock = lambda: datetime(2026, 11, 21, 13, 0, tzinfo=timezone(timedelta(hours=2)))  # noqa: E731
    with make_system(tmp_path, clock=clock) as system:
        memory_id = system.add_memory("Python type hints improve code clarity",
                                      metadata={"topic": "python", "subtopic": "typing"})
        assert isinstance(memory_id, str) and len(memory_id) >= 32
        got = system.get_memory(memory_id)
        assert got == {"id": memory_id, "text": "Python type hints improve code clarity",
                       "metadata": {"topic": "python", "subtopic": "typing"},
                       "timestamp": "2026-11-21T11:00:00.000000+00:00"}
        no_meta = system.get_memory(system.add_memory("plain"))
        assert no_meta["metadata"] == {}


@pytest.mark.parametrize("text", ["", "   \n", None, 42])
def test_add_memory_rejects_empty_text(tmp_path, text):
    with make_system(tmp_path) as system:
        with pytest.raises(ValueError):
            system.add_memory(text)
        assert system.get_stats()["total_memories"] == 0


@pytest.mark.parametrize("metadata", [["a"], {"x": float("nan")}, {"x": object()}])
def test_add_memory_rejects_bad_metadata(tmp_path, metadata):
    with make_system(tmp_path) as system, pytest.raises(ValueError):
        system.add_memory("text", metadata=metadata)


def test_exact_duplicate_returns_the_existing_id(tmp_path):
    with make_system(tmp_path) as system:
        first = system.add_memory("same text", {"a": 1, "b": 2})
        assert system.add_memory("same text", {"b": 2, "a": 1}) == first
        assert system.add_memory("same text", {"a": 2}) != first
        assert system.add_memory("same text") != first
        assert system.get_stats()["total_memories"] == 3


def test_get_update_delete_missing_ids(tmp_path):
    with make_system(tmp_path) as system:
        assert system.get_memory("nope") is None
        assert system.update_memory("nope", text="x") is False
        assert system.delete_memory("nope") is False
        assert system.get_memory(123) is None


def test_update_memory_semantics(tmp_path):
    with make_system(tmp_path) as system:
        memory_id = system.add_memory("old", {"k": 1})
        assert system.update_memory(memory_id, text="new") is True
        assert system.get_memory(memory_id)["metadata"] == {"k": 1}
        assert system.update_memory(memory_id, metadata={"updated": True}) is True
        assert system.get_memory(memory_id) | {"timestamp": None} == {
            "id": memory_id, "text": "new", "metadata": {"updated": True}, "timestamp": None}
        assert system.update_memory(memory_id) is True  # nothing to change, still found
        with pytest.raises(ValueError):
            system.update_memory(memory_id, text="  ")
        assert system.get_memory(memory_id)["text"] == "new"


def test_delete_memory(tmp_path):
    with make_system(tmp_path) as system:
        memory_id = system.add_memory("to delete")
        assert system.delete_memory(memory_id) is True
        assert system.get_memory(memory_id) is None
        assert system.delete_memory(memory_id) is False


def test_history_records_every_change(tmp_path):
    with make_system(tmp_path) as system:
        memory_id = system.add_memory("v1", {"n": 1})
        system.update_memory(memory_id, text="v2")
        system.update_memory(memory_id, metadata={"n": 2})
        system.delete_memory(memory_id)
        history = system.history(memory_id)
        assert [h["action"] for h in history] == ["add", "update", "update", "delete"]
        assert history[1] | {"timestamp": None} == {
            "action": "update", "old_text": "v1", "new_text": "v2", "old_metadata": {"n": 1},
            "new_metadata": {"n": 1}, "timestamp": None}
        assert history[2]["new_metadata"] == {"n": 2}
        assert history[3]["old_text"] == "v2" and history[3]["new_text"] is None
        stamps = [datetime.fromisoformat(h["timestamp"]) for h in history]
        assert stamps == sorted(stamps) and all(s.utcoffset() == timedelta(0) for s in stamps)
        assert system.history("unknown") == []


def test_add_memories_batch_list_count_and_delete_by_filter(tmp_path):
    with make_system(tmp_path) as system:
        ids = system.add_memories([
            "plain text",
            ("with meta", {"path": "a.py", "kind": "function"}),
            {"text": "dict item", "metadata": {"path": "b.py", "kind": "class"}},
            ("with meta", {"path": "a.py", "kind": "function"}),
        ])
        assert len(ids) == 4 and ids[1] == ids[3] and len(set(ids)) == 3
        assert system.count_memories() == 3
        assert [m["text"] for m in system.list_memories({"path": "a.py"})] == ["with meta"]
        assert len(system.list_memories(limit=2)) == 2
        assert [m["text"] for m in system.list_memories(offset=2)] == ["dict item"]
        assert system.count_memories({"kind": {"$in": ["class", "function"]}}) == 2
        assert system.delete_memories({"path": "a.py"}) == 1
        assert system.count_memories() == 2
        with pytest.raises(ValueError):
            system.delete_memories({})
        with pytest.raises(ValueError):
            system.add_memories(["ok", ""])  # validated before anything is written
        assert system.count_memories() == 2
        assert system.add_memories([]) == []


def test_format_memories_for_prompt(tmp_path):
    with make_system(tmp_path) as system:
        memories = [ScoredMemory("1", "first\nline two", {}, "t", 0.91, "r"),
                    ScoredMemory("2", "second", {}, "t", 0.0, "x", error="timed out")]
        assert system.format_memories_for_prompt(memories) == (
            "1. [relevance: 0.91] first\n   line two\n2. [relevance: unscored] second")
        assert system.format_memories_for_prompt(memories, include_scores=False) == (
            "1. first\n   line two\n2. second")
        assert system.format_memories_for_prompt([]) == ""


def test_retrieve_returns_sorted_scored_memories_above_threshold(tmp_path):
    llm = async_llm({"FastAPI": 0.95, "Flask": 0.8, "Django": 0.65})
    with make_system(tmp_path, llm) as system:
        for text in ["Flask is a micro web framework", "FastAPI is a modern web framework",
                     "Django is a batteries-included web framework", "Cats sleep a lot"]:
            system.add_memory(text, {"src": "test"})
        result = asyncio.run(system.retrieve_relevant_memories("Explain Python web frameworks"))
        assert [m.text.split()[0] for m in result] == ["FastAPI", "Flask"]
        assert all(isinstance(m, ScoredMemory) for m in result)
        top = result[0]
        assert top.relevance_score == 0.95 and top.reasoning == "mentions FastAPI"
        assert top.metadata == {"src": "test"} and top.error is None
        assert top.timestamp == system.get_memory(top.memory_id)["timestamp"]


def test_max_memories_caps_the_result(tmp_path):
    with make_system(tmp_path, async_llm(default=0.9), max_memories=3) as system:
        system.add_memories([f"note {i} about search" for i in range(10)])
        assert len(asyncio.run(system.retrieve_relevant_memories("search"))) == 3
        system.update_retrieval_config(max_memories=5)
        assert len(asyncio.run(system.retrieve_relevant_memories("search"))) == 5


def test_empty_store_and_bad_context(tmp_path):
    llm = async_llm()
    with make_system(tmp_path, llm) as system:
        assert asyncio.run(system.retrieve_relevant_memories("anything")) == []
        assert llm.calls == 0
        with pytest.raises(ValueError):
            asyncio.run(system.retrieve_relevant_memories("  "))


def test_query_sends_memories_and_task_to_the_primary_model(tmp_path):
    prompts: list[str] = []

    async def primary(prompt: str) -> str:
        prompts.append(prompt)
        return "ANSWER"

    with make_system(tmp_path, async_llm({"Python": 0.9})) as system:
        system.add_memory("Python uses dynamic typing")
        system.add_memory("FastAPI is a modern web framework")
        answer = asyncio.run(system.query(context="User asking about Python",
                                          task="Explain Python's key features",
                                          primary_model_fn=primary))
        assert answer == "ANSWER"
        assert prompts == ["Use the memories below where they help with the task.\n"
                           f"{DATA_RULE}\n\n"
                           'Context:\n<<<DATA kind="context" source="query">>>\n'
                           "User asking about Python\n<<<END DATA>>>\n\nRelevant memories:\n"
                           '<<<DATA kind="memory" source="memory 1">>>\n'
                           "[relevance: 0.90] Python uses dynamic typing\n<<<END DATA>>>\n\n"
                           "Task: Explain Python's key features"]
        with pytest.raises(ValueError):
            asyncio.run(system.query("c", "t", None))


def test_query_propagates_primary_model_errors(tmp_path):
    async def broken(prompt: str) -> str:
        raise RuntimeError("primary down")

    with make_system(tmp_path) as system, pytest.raises(RuntimeError, match="primary down"):
        asyncio.run(system.query("context", "task", broken))


def test_update_retrieval_config(tmp_path):
    with make_system(tmp_path) as system:
        system.update_retrieval_config(relevance_threshold=0.85, max_memories=5, batch_size=3,
                                       retry_attempts=5, retry_delay=2.0, candidate_limit=7)
        stats = system.get_stats()
        assert (stats["relevance_threshold"], stats["max_memories"], stats["batch_size"],
                stats["retry_attempts"], stats["retry_delay"], stats["candidate_limit"]) == (
            0.85, 5, 3, 5, 2.0, 7)
        with pytest.raises(ValueError):
            system.update_retrieval_config(max_memories=5, relevance_threshold=2.0)
        with pytest.raises(ValueError):
            system.update_retrieval_config(unknown_knob=1)
        assert system.max_memories == 5 and system.relevance_threshold == 0.85  # all-or-nothing


def test_get_stats_keys(tmp_path):
    with make_system(tmp_path) as system:
        system.add_memory("one")
        stats = system.get_stats()
        assert stats["total_memories"] == 1
        for key in ("relevance_threshold", "max_memories", "batch_size", "llm_calls",
                    "cache_hit_rate", "cache_hits", "cache_misses", "queries", "llm_failures"):
            assert key in stats
        assert stats["cache_stats"]["size"] == 0 and stats["cache_hit_rate"] == 0.0
        assert stats["journal_mode"] == "wal"


def test_close_and_context_manager(tmp_path):
    system = make_system(tmp_path)
    with system as entered:
        assert entered is system
        memory_id = system.add_memory("kept")
    with pytest.raises(StoreClosed):
        system.add_memory("after close")
    system.close()  # idempotent
    with make_system(tmp_path) as reopened:
        assert reopened.get_memory(memory_id)["text"] == "kept"


def test_async_context_manager(tmp_path):
    async def run() -> MemorySystem:
        async with make_system(tmp_path) as system:
            system.add_memory("x")
        return system

    system = asyncio.run(run())
    with pytest.raises(StoreClosed):
        system.get_memory("x")


def test_fake_sleep_helper_is_used_not_real_time(tmp_path):
    sleep = FakeSleep()
    with make_system(tmp_path, async_llm(), sleep=sleep) as system:
        system.add_memory("a memory")
        asyncio.run(system.retrieve_relevant_memories("memory"))
    assert sleep.calls == []
