"""Issue 4 item 4: each commit's name, reason and diff summary are searchable episodes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codemem.memory.commits.episodes import memory_search
from codemem.memory.commits.index import CommitIndex

from ....fakes import FunctionLLM, answer_scoring
from .conftest import Clock


class RecordingSink:
    """A real in-memory sink with the ``add_memory`` shape (the LLM is the only fake we use)."""

    def __init__(self, fail: bool = False) -> None:
        self.items: list[tuple[str, dict[str, Any]]] = []
        self.fail = fail

    def add_memory(self, text: str, metadata: dict[str, Any] | None = None) -> str:
        if self.fail:
            raise OSError("disk full")
        self.items.append((text, dict(metadata or {})))
        return f"m{len(self.items)}"


def _history(ix: CommitIndex) -> dict[str, str]:
    ids = {"start": ix.start_task("parse", {"p.py": "def parse(s):\n    pass\n"})}
    ids["regex"] = ix.commit(
        "parse", {"p.py": "import re\ndef parse(s):\n    return re.split(r'\\s+', s)\n"},
        name="Tokenize with a regex", reason="Simplest tokenizer; fails on quoted strings.",
        metacode={}, snapshot={}, verdict="failed",
    )  # fmt: skip
    ix.rollback("parse")
    ids["hand"] = ix.commit(
        "parse", {"p.py": "def parse(s):\n    return list(scan(s))\n"},
        name="Hand-written scanner", reason="Handles quotes; the regex attempt failed.",
        metacode={}, snapshot={}, verdict="passed",
    )  # fmt: skip
    ids["other"] = ix.commit("render", {"r.py": "x"}, name="Render output", reason="HTML table",
                             metacode={}, snapshot={}, verdict="passed")  # fmt: skip
    return ids


def test_builtin_search_finds_what_was_tried_and_why_it_failed(tmp_path: Path) -> None:
    ix = CommitIndex(tmp_path / "h.git", backend="dulwich", clock=Clock())
    ids = _history(ix)
    hits = ix.search_episodes("what did we try with the regex tokenizer, why failed?")
    assert hits[0].commit == ids["regex"]  # rolled back, still searchable
    assert hits[0].verdict == "failed" and "quoted strings" in hits[0].reason
    assert hits[0].summary == "p.py +2 -1"
    assert {h.commit for h in hits} >= {ids["regex"], ids["hand"]}
    assert ids["other"] not in {h.commit for h in hits}
    assert [h.commit for h in ix.search_episodes("", limit=2)] == [ids["other"], ids["hand"]]
    assert [h.task_id for h in ix.search_episodes("", task_id="render")] == ["render"]
    assert ix.search_episodes("zebra unicorn") == []
    assert "[parse #1 failed] Tokenize with a regex" in hits[0].as_text()


def test_every_commit_is_sent_to_the_sink_with_episode_metadata(tmp_path: Path) -> None:
    sink = RecordingSink()
    ix = CommitIndex(tmp_path / "h.git", backend="dulwich", clock=Clock(), episodes=sink)
    ids = _history(ix)
    assert len(sink.items) == 4
    text, meta = sink.items[1]
    assert meta == {"kind": "episode", "task_id": "parse", "commit": ids["regex"],
                    "verdict": "failed", "iteration": 1, "time": meta["time"],
                    "name": "Tokenize with a regex"}  # fmt: skip
    assert meta["time"] == ix.show(ids["regex"]).time
    assert "fails on quoted strings" in text and "Changes: p.py +2 -1" in text


def test_a_failing_sink_never_undoes_a_commit(tmp_path: Path) -> None:
    ix = CommitIndex(tmp_path / "h.git", backend="dulwich", episodes=RecordingSink(fail=True))
    sha = ix.start_task("t", {"a.py": "1"})
    assert ix.head("t") == sha and ix.stats()["episode_errors"] == 1


def test_injected_search_is_used_and_falls_back_when_it_fails(tmp_path: Path) -> None:
    calls: list[tuple[str, int]] = []

    def search(query: str, limit: int) -> list[Any]:
        calls.append((query, limit))
        if query.startswith("boom"):
            raise RuntimeError("retriever down")
        return ["f" * 40, {"metadata": {"commit": ids["hand"]}}, ids["regex"]]

    ix = CommitIndex(tmp_path / "h.git", backend="dulwich", clock=Clock(), episode_search=search)
    ids = _history(ix)
    hits = ix.search_episodes("anything", limit=5)
    assert [h.commit for h in hits] == [ids["hand"], ids["regex"]]  # the retriever's order
    assert calls == [("anything", 5)]
    assert ix.search_episodes("boom regex")[0].commit == ids["regex"]  # built-in fallback


def test_with_the_real_memory_system(tmp_path: Path) -> None:
    sync = pytest.importorskip("codemem.memory.synchronous")

    def judge(prompt: str) -> str:
        reply = answer_scoring(prompt, lambda m: (0.9 if "regex" in m.lower() else 0.1, "r"))
        assert reply is not None
        return reply

    llm = FunctionLLM(judge)
    memory = sync.SyncMemorySystem(llm, str(tmp_path / "m.db"), relevance_threshold=0.5,
                                   retry_delay=0.0)  # fmt: skip
    memory.add_memory("an unrelated note about regex", {"kind": "note"})
    ix = CommitIndex(tmp_path / "h.git", backend="dulwich", clock=Clock(), episodes=memory,
                     episode_search=memory_search(memory))  # fmt: skip
    ids = _history(ix)
    hits = ix.search_episodes("regex tokenizer")
    assert [h.commit for h in hits][:2] and hits[0].commit in (ids["regex"], ids["hand"])
    assert ids["regex"] in {h.commit for h in hits}
    assert ids["other"] not in {h.commit for h in hits}
    assert llm.calls > 0 and all("unrelated note" not in p for p in llm.prompts)
