"""CodeFocus (memory/retrieval/code_focus.py): locating the current file, boosts, file-hash
cache keys."""

from __future__ import annotations

import os
import time

from codemem.memory.code_context import CodeContext
from codemem.memory.retrieval.code_focus import Boosts, CodeFocus
from codemem.memory.retrieval.dependencies import CALLED
from codemem.memory.retrieval.recency import RecencyTracker
from codemem.memory.retrieval.results import ScoredMemory

from ..codebase.sinkworld import REPO, World

BOOSTS = Boosts(dependency=True, dependency_amount=0.15, recency=True, recency_amount=0.1,
                recency_days=7)


def focus_world(tmp_path):
    world = World(tmp_path)
    world.memories["mem-3"][1]["calls"] = ["parse"]  # b.render calls a.parse
    for rel in ("pkg/a.py", "pkg/b.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n", encoding="utf-8")
    month_ago = time.time() - 30 * 86400
    os.utime(tmp_path / "pkg/b.py", (month_ago, month_ago))

    def list_memories(filters):
        return [{"id": mid, "text": text, "metadata": meta}
                for mid, (text, meta) in world.memories.items()
                if all(meta.get(k) == v for k, v in filters.items())]

    return world, CodeFocus(world.manifest, RecencyTracker(7), list_memories)


def scored(world, mid, score=0.6, error=None):
    text, meta = world.memories[mid]
    return ScoredMemory(mid, text, meta, "t", score, "LLM said so", error)


def test_paths_resolve_absolute_relative_or_by_suffix(tmp_path):
    _, focus = focus_world(tmp_path)
    assert focus.resolve_path(str(tmp_path / "pkg" / "b.py")) == (REPO, "pkg/b.py")
    assert focus.resolve_path("pkg/b.py") == (REPO, "pkg/b.py")
    assert focus.resolve_path("checkout/pkg/b.py") == (REPO, "pkg/b.py")
    assert focus.resolve_path("nope.py") is None


def test_file_hashes_of_current_and_accessed_files(tmp_path):
    _, focus = focus_world(tmp_path)
    ctx = CodeContext("q", current_file="pkg/b.py", accessed_files=["pkg/a.py", "zzz.py"])
    assert focus.file_hashes(ctx) == {"pkg/b.py": "f-pkg/b.py", "pkg/a.py": "f-pkg/a.py"}
    assert focus.file_hashes(CodeContext("q")) == {}


def test_related_and_recent_entities_are_boosted_and_capped(tmp_path):
    world, focus = focus_world(tmp_path)
    ctx = CodeContext("fix rendering", current_file="pkg/b.py")
    assert focus.focus(ctx) is not None and "parse" in focus.focus(ctx).names()
    note = ScoredMemory("n", "a note", {"type": "documentation"}, "t", 0.6, "r")
    failed = scored(world, "mem-1", 0.0, error="timed out")
    out = focus.adjust(ctx, [scored(world, "mem-0"), scored(world, "mem-0", 0.95),
                             scored(world, "mem-3"), note, failed], BOOSTS)
    assert round(out[0].relevance_score, 6) == 0.85  # called by b.py, and a.py is recent
    assert out[0].reasoning == ("LLM said so (boosted: " + CALLED
                                + "; changed in the last 7 days)")
    assert out[1].relevance_score == 1.0  # capped
    assert out[2:] == [scored(world, "mem-3"), note, failed]  # b.py is old; others untouched
    quiet = Boosts(False, 0.15, False, 0.1, 7)
    assert focus.adjust(ctx, [scored(world, "mem-0")], quiet) == [scored(world, "mem-0")]


def test_no_focus_for_a_file_that_is_not_indexed(tmp_path):
    _, focus = focus_world(tmp_path)
    assert focus.focus(CodeContext("q", current_file="elsewhere.py")) is None
    assert focus.focus(CodeContext("q")) is None
    assert focus.is_recent({"repo_id": REPO, "path": "pkg/a.py"})
    assert not focus.is_recent({"repo_id": REPO, "path": "pkg/b.py"})
    assert not focus.is_recent({"repo_id": "unknown", "path": "pkg/a.py"})
