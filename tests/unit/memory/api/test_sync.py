"""SyncMemorySystem: the API from synchronous code with a synchronous LLM (Cat hooks/tools)."""

from __future__ import annotations

import asyncio
import inspect
import threading

import pytest

from codemem import memory as memory_pkg
from codemem.memory.synchronous import SyncMemorySystem
from codemem.memory.system import MemorySystem

from ....fakes import LISTWISE_MARK, POINTWISE_MARK, FunctionLLM
from .helpers import FakeSleep, keyword_scorer, reply


def cat_like_llm(rules=None):
    score = keyword_scorer(rules or {"python": 0.9})

    def answer(prompt: str) -> str:
        scoring = POINTWISE_MARK in prompt or LISTWISE_MARK in prompt
        return score(prompt) if scoring else "PRIMARY ANSWER"

    return FunctionLLM(answer)


def make(tmp_path, llm=None, **kwargs):
    kwargs.setdefault("sleep", FakeSleep())
    return SyncMemorySystem(llm or cat_like_llm(), str(tmp_path / "m.db"), **kwargs)


def test_exported_and_signature_mirrors_memory_system():
    assert memory_pkg.SyncMemorySystem is SyncMemorySystem
    sync_params = list(inspect.signature(SyncMemorySystem).parameters)[:7]
    async_params = list(inspect.signature(MemorySystem).parameters)[:7]
    assert sync_params[1:] == async_params[1:] and sync_params[0] == "llm"


def test_plain_thread_without_loop(tmp_path):
    llm = cat_like_llm()
    with make(tmp_path, llm) as memory:
        memory.add_memory("python uses dynamic typing", {"lang": "python"})
        memory.add_memory("go has goroutines")
        found = memory.retrieve_relevant_memories("python typing")
        assert [(m.text, m.relevance_score) for m in found] == [
            ("python uses dynamic typing", 0.9)]
        assert memory.query("python typing", "explain") == "PRIMARY ANSWER"
        assert "Task: explain" in llm.prompts[-1]
        assert memory.query("python", "explain", lambda p: "OTHER") == "OTHER"
        assert memory.retrieve_relevant_memories("python", filters={"lang": "go"}) == []


def test_inside_a_running_event_loop(tmp_path):
    with make(tmp_path) as memory:
        memory.add_memory("python uses dynamic typing")

        async def handler():
            # A hook running in a thread whose loop is running: asyncio.run() would fail here.
            return memory.retrieve_relevant_memories("python")

        found = asyncio.run(handler())
        assert [m.text for m in found] == ["python uses dynamic typing"]


def test_from_worker_threads(tmp_path):
    results, errors = [], []
    with make(tmp_path, cat_like_llm(), retry_attempts=1) as memory:
        memory.add_memories([f"python note {i}" for i in range(5)])

        def work():
            try:
                results.append(len(memory.retrieve_relevant_memories("python")))
            except Exception as err:  # noqa: BLE001 - reported below
                errors.append(err)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert errors == [] and results == [5, 5, 5, 5]


def test_sync_llm_calls_run_concurrently_up_to_batch_size(tmp_path):
    barrier = threading.Barrier(3, timeout=20)
    state = {"now": 0, "peak": 0}
    lock = threading.Lock()

    def llm(prompt: str) -> str:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        barrier.wait()  # only passes when 3 calls are in flight together
        with lock:
            state["now"] -= 1
        return reply(0.9)

    with make(tmp_path, FunctionLLM(llm), batch_size=3, candidate_limit=6,
              scoring_mode="pointwise") as memory:
        memory.add_memories([f"shared topic {i}" for i in range(6)])
        assert len(memory.retrieve_relevant_memories("topic")) == 6
    assert state["peak"] == 3


def test_delegated_methods(tmp_path):
    with make(tmp_path) as memory:
        memory_id = memory.add_memory("x one", {"k": 1})
        assert memory.get_memory(memory_id)["text"] == "x one"
        assert memory.update_memory(memory_id, text="x two") is True
        assert [h["action"] for h in memory.history(memory_id)] == ["add", "update"]
        assert memory.add_memories(["y", "z"]) and memory.count_memories() == 3
        assert [c.text for c in memory.candidates("two", filters={"k": 1})] == ["x two"]
        assert [m["text"] for m in memory.list_memories({"k": 1})] == ["x two"]
        assert memory.delete_memories({"k": 1}) == 1
        assert memory.delete_memory("missing") is False
        memory.update_retrieval_config(max_memories=3)
        assert memory.get_stats()["max_memories"] == 3
        memory.clear_cache()
        assert memory.format_memories_for_prompt([]) == ""
        with pytest.raises(ValueError):
            memory.update_retrieval_config(batch_size=0)


def test_llm_must_be_callable(tmp_path):
    with pytest.raises(ValueError):
        SyncMemorySystem(None, str(tmp_path / "m.db"))


def test_wraps_a_subclass(tmp_path):
    class Boosted(MemorySystem):
        def _adjust_scores(self, context, scored):
            return [s for s in scored if "keep" in s.text]

    with make(tmp_path, cat_like_llm({"note": 0.9}), system_cls=Boosted) as memory:
        memory.add_memories(["keep this note", "drop this note"])
        assert isinstance(memory.system, Boosted)
        assert [m.text for m in memory.retrieve_relevant_memories("note")] == ["keep this note"]


def test_around_keeps_the_subclass_defaults(tmp_path):
    class Other(MemorySystem):
        def __init__(self, small_model_fn, db_path="other.db", enable_caching=False,
                     max_memories=15, **kwargs):
            super().__init__(small_model_fn, db_path, max_memories=max_memories,
                             enable_caching=enable_caching, **kwargs)

    llm = cat_like_llm({"note": 0.9})
    face = SyncMemorySystem.around(llm, lambda fn: Other(fn, db_path=str(tmp_path / "o.db")))
    with face:
        assert isinstance(face.system, Other) and face.system.max_memories == 15
        assert face.system.config.enable_caching is False
        face.add_memory("a note")
        assert [m.text for m in face.retrieve_relevant_memories("note")] == ["a note"]
        assert llm.calls == 1
    with pytest.raises(ValueError):
        SyncMemorySystem.around(None, lambda fn: Other(fn))
