"""The contract every backend must meet (parametrised over dulwich and GitPython).

Every test ends with a real ``git fsck --strict --full`` of the repository (fixture teardown).
Also run by ``test_nogit.py`` in a subprocess whose PATH has no git (gitpython cases skip there).
"""

from __future__ import annotations

import pytest

from codemem.memory.commits.errors import (
    CommitNotFound,
    InvalidDraft,
    NothingToRedo,
    NothingToRollback,
    NotInHistory,
    TaskExists,
    TaskNotFound,
    UnsafeInput,
)
from codemem.memory.commits.index import CommitIndex

from .conftest import Clock, fsck, git_available, git_out

META = {"goal": "add a parser", "steps": ["a", "b"]}


def draft(ix: CommitIndex, task: str, text: str, verdict: str = "passed", **kw: object) -> str:
    """Commit ``text`` as pkg/mod.py (or ``files=``), with a name and reason derived from it."""
    files = kw.pop("files", {"pkg/mod.py": text})
    name = kw.pop("name", f"draft {text.strip()}")
    reason = kw.pop("reason", f"why {text.strip()}")
    snapshot = {"text": text, "n": [1, 2.5, None, True]}
    return ix.commit(
        task, files, name=name, reason=reason, metacode=META, snapshot=snapshot, verdict=verdict,
        **kw,
    )  # type: ignore[arg-type]  # fmt: skip


def test_backend_is_reported(index: CommitIndex, backend: str) -> None:
    assert index.backend == backend
    assert index.stats()["backend"] == backend


def test_start_task_imports_user_files_as_first_commit(index: CommitIndex) -> None:
    user = {"app/main.py": "print('hi')\r\n", "README.md": "héllo ✓\n"}
    first = index.start_task("t1", user, snapshot={"scratch": {"k": "v"}})
    shown = index.show(first)
    assert shown.files == user  # bytes-exact, CRLF kept
    assert (shown.verdict, shown.iteration, shown.parent, shown.good) == ("imported", 0, None, True)
    assert shown.snapshot == {"scratch": {"k": "v"}} and shown.metacode == {}
    with pytest.raises(TaskExists):
        index.start_task("t1", user)


def test_log_is_newest_first_with_header_fields(index: CommitIndex) -> None:
    a = index.start_task("t", {"pkg/mod.py": "v0\n"})
    b = draft(index, "t", "v1\n", "failed", reason="try  regex\r\nsecond line")
    c = draft(index, "t", "v2\n")
    entries = index.log("t")
    assert [e.id for e in entries] == [c, b, a]
    assert [e.iteration for e in entries] == [2, 1, 0]
    assert [e.parent for e in entries] == [b, a, None]
    assert entries[1].verdict == "failed" and entries[1].reason == "try  regex\nsecond line"
    assert entries[0].time > entries[1].time > entries[2].time
    assert entries[0].task_id == "t" and entries[0].snapshot_digest.startswith("sha256:")
    assert entries[0].files is None  # log is headers only; show() has the payload


def test_log_filters_by_verdict_text_and_limit(index: CommitIndex) -> None:
    index.start_task("t", {"pkg/mod.py": "v0\n"})
    draft(index, "t", "v1\n", "failed", name="Use a regex tokenizer")
    draft(index, "t", "v2\n", "passed", name="Hand-written tokenizer")
    draft(index, "t", "v3\n", "failed", name="Speed up", reason="The TOKENIZER was slow")
    assert [e.name for e in index.log("t", verdict="FAILED")] == [
        "Speed up",
        "Use a regex tokenizer",
    ]
    assert [e.iteration for e in index.log("t", verdict="good")] == [2, 0]
    assert [e.iteration for e in index.log("t", text="tokenizer")] == [3, 2, 1]
    assert len(index.log("t", limit=2)) == 2
    with pytest.raises(TaskNotFound):
        index.log("missing")


def test_show_returns_exact_files_metacode_and_snapshot(index: CommitIndex) -> None:
    files = {"a.py": "x = 1\n", "deep/er/b.py": "no newline", "deep/c.txt": "\t tabs \r\n"}
    snapshot = {"values": {"plan": "p", "nested": {"list": [1, {"x": None}]}}, "unicode": "ü"}
    sha = index.commit("t", files, name="n", reason="r", metacode=META, snapshot=snapshot,
                       verdict="passed")  # fmt: skip
    shown = index.show(sha)
    assert shown.files == files and shown.metacode == META and shown.snapshot == snapshot
    assert index.show(sha[:7]).id == sha
    assert index.snapshot_of(sha) == snapshot and index.snapshot_of(sha) is not shown.snapshot


def test_commit_stores_tree_layout_and_trailers_git_can_read(index: CommitIndex) -> None:
    if not git_available():
        pytest.skip("needs git to inspect")
    sha = draft(index, "t", "v1\n", name="First draft", reason="Because.")
    tree = git_out(index.root, "ls-tree", "-r", "--name-only", "--end-of-options", sha).split()
    assert tree == ["metacode.json", "pkg/mod.py", "working_memory.json"]
    body = git_out(index.root, "log", "-1", "--format=%B", "--end-of-options", sha)
    assert body.startswith("First draft\n\nBecause.\n\nTask: t\nIteration: 0\nVerdict: passed\n")
    assert "Snapshot-Digest: sha256:" in body
    who = git_out(index.root, "log", "-1", "--format=%an <%ae>|%cn <%ce>", "tasks/t").strip()
    assert who == "Code Working Memory <codemem@localhost>|Code Working Memory <codemem@localhost>"
    verdict = git_out(index.root, "log", "-1", "--format=%(trailers:key=Verdict,valueonly)", sha)
    assert verdict.strip() == "passed"


def test_diff_is_unified(index: CommitIndex) -> None:
    a = draft(index, "t", "x = 1\ny = 2\n", files={"m.py": "x = 1\ny = 2\n", "old.py": "o\n"})
    b = draft(index, "t", "", files={"m.py": "x = 1\ny = 3\n", "new.py": "n\n"})
    text = index.diff(a, b)
    assert "--- a/m.py\n+++ b/m.py\n" in text and "-y = 2\n+y = 3\n" in text
    assert "--- /dev/null\n+++ b/new.py\n" in text and "--- a/old.py\n+++ /dev/null\n" in text
    assert index.diff(a, a) == ""
    assert "metacode.json" not in text
    assert index.summary(b) == "m.py +1 -1; new.py added (+1); old.py removed (-1)"


def test_rollback_to_last_good_keeps_history_and_redo_restores(index: CommitIndex) -> None:
    good = index.start_task("t", {"pkg/mod.py": "v0\n"})
    ok = draft(index, "t", "v1\n", "passed")
    bad1 = draft(index, "t", "v2\n", "failed")
    bad2 = draft(index, "t", "v3\n", "failed")
    assert index.rollback("t") == ok  # newest good strictly before the head
    assert index.head("t") == ok and index.undo_stack("t") == [bad2]
    assert index.rollback("t") == good  # again: ok is the head now, so go further back
    assert index.undo_stack("t") == [ok, bad2]
    assert index.redo("t") == ok and index.redo("t") == bad2
    assert [e.id for e in index.log("t")][:2] == [bad2, bad1]
    with pytest.raises(NothingToRedo):
        index.redo("t")


def test_rollback_to_explicit_commit_and_refusals(index: CommitIndex) -> None:
    first = index.start_task("t", {"pkg/mod.py": "v0\n"})
    mid = draft(index, "t", "v1\n", "failed")
    head = draft(index, "t", "v2\n", "failed")
    other = index.start_task("u", {"x.py": "u\n"})
    with pytest.raises(NotInHistory):
        index.rollback("t", to=other)
    with pytest.raises(UnsafeInput):
        index.rollback("t", to="HEAD~1")
    assert index.rollback("t", to=head) == head and index.undo_stack("t") == []  # no-op
    assert index.rollback("t", to=mid[:10]) == mid
    assert index.rollback("t", to=first) == first
    with pytest.raises(NothingToRollback):
        index.rollback("t")  # nothing good before the first commit
    assert index.undo_stack("t") == [mid, head]


def test_commit_after_rollback_moves_redo_entries_to_the_attic(index: CommitIndex) -> None:
    index.start_task("t", {"pkg/mod.py": "v0\n"})
    lost = draft(index, "t", "v1\n", "failed")
    index.rollback("t")
    new = draft(index, "t", "v1b\n", "passed")
    assert index.undo_stack("t") == [] and index.attic("t") == [lost]
    with pytest.raises(NothingToRedo):
        index.redo("t")
    assert index.show(lost).files == {"pkg/mod.py": "v1\n"}  # still readable
    if git_available():
        listed = git_out(index.root, "log", "--all", "--format=%H").split()
        assert lost in listed and new in listed  # reachable: git gc keeps it
    assert index.log("t")[0].iteration == 1  # the new line continues from the good commit


def test_checkout_of_a_set_aside_draft_keeps_the_left_one_redoable(index: CommitIndex) -> None:
    index.start_task("t", {"pkg/mod.py": "v0\n"})
    aside = draft(index, "t", "v1\n", "failed")
    index.rollback("t")
    good = draft(index, "t", "v1b\n", "passed")
    assert index.attic("t") == [aside]
    assert index.checkout("t", aside[:10]) == aside
    assert index.head("t") == aside and index.attic("t") == [] and index.undo_stack("t") == [good]
    assert index.redo("t") == good and index.attic("t") == [aside]  # never lost
    assert index.checkout("t", good) == good  # the head itself: nothing moves
    other = index.start_task("u", {"x.py": "u\n"})
    with pytest.raises(NotInHistory):
        index.checkout("t", other)


def test_branch_from_any_commit_of_the_task(index: CommitIndex) -> None:
    a = index.start_task("t", {"pkg/mod.py": "v0\n"})
    b = draft(index, "t", "v1\n", "failed")
    index.rollback("t")
    assert index.branch("t", b, "t-retry") == b  # from a rolled-back commit
    assert index.branch("t", a[:8], "t-alt") == a
    c = draft(index, "t-alt", "alt\n")
    assert [e.id for e in index.log("t-alt")] == [c, a]
    assert index.log("t-alt")[0].task_id == "t-alt" and index.log("t-alt")[1].task_id == "t"
    assert index.tasks() == ["t", "t-alt", "t-retry"]
    with pytest.raises(TaskExists):
        index.branch("t", a, "t-alt")
    with pytest.raises(NotInHistory):
        index.branch("t", c, "y")  # c is only in t-alt's history


def test_tag_final_and_delete_task(index: CommitIndex) -> None:
    index.start_task("t", {"pkg/mod.py": "v0\n"})
    done = draft(index, "t", "v1\n")
    index.tag_final("t", done)
    assert index.final("t") == done
    if git_available():
        assert (
            git_out(index.root, "rev-parse", "--verify", "--end-of-options", "final/t").strip()
            == done
        )
    draft(index, "t", "v2\n", "failed")
    index.rollback("t")
    assert index.delete_task("t") == 3  # branch, undo entry, final tag
    assert index.tasks() == [] and index.final("t") is None
    with pytest.raises(TaskNotFound):
        index.head("t")
    with pytest.raises(TaskNotFound):
        index.delete_task("t")
    with pytest.raises(CommitNotFound):
        index.show(done[:10])  # prefixes only resolve among live commits


def test_invalid_drafts_are_refused_before_anything_is_written(index: CommitIndex) -> None:
    bad_calls = [
        ({"a.py": b"bytes"}, META, {}),
        ({"a": "file", "a/b.py": "clash"}, META, {}),
        ({"a.py": "x"}, {"t": (1, 2)}, {}),
        ({"a.py": "x"}, META, {1: "int key"}),
        ({"a.py": "x"}, META, {"nan": float("nan")}),
        ({"a.py": "x"}, [], {}),
        ({"a.py": "\ud800"}, META, {}),
    ]
    for files, meta, snap in bad_calls:
        with pytest.raises(InvalidDraft):
            index.commit("t", files, name="n", reason="r", metacode=meta, snapshot=snap,  # type: ignore[arg-type]
                         verdict="passed")  # fmt: skip
    with pytest.raises(InvalidDraft):
        index.commit("t", {}, name="  ", reason="r", metacode={}, snapshot={}, verdict="passed")
    assert index.tasks() == []


def test_empty_draft_and_clock_going_backwards(tmp_path, backend: str) -> None:
    clock = Clock()
    ix = CommitIndex(tmp_path / "h.git", backend=backend, clock=clock)
    a = ix.commit("t", {}, name="empty", reason="", metacode={}, snapshot={}, verdict="passed")
    clock.now -= 1000
    b = ix.commit("t", {"a.py": "x"}, name="later", reason="", metacode={}, snapshot={},
                  verdict="passed")  # fmt: skip
    assert ix.show(a).files == {} and ix.show(b).reason == ""
    assert ix.show(b).time >= ix.show(a).time
    ix.close()
    fsck(ix.root)


def test_history_survives_reopening(tmp_path, backend: str) -> None:
    path = tmp_path / "h.git"
    with CommitIndex(path, backend=backend) as ix:
        sha = ix.start_task("t", {"a.py": "1\n"})
    with CommitIndex(path, backend=backend) as again:
        assert again.head("t") == sha and again.show(sha).files == {"a.py": "1\n"}


def test_round_trip_commit_rollback_redo_branch_diff_restore(index: CommitIndex) -> None:
    """Issue 4 "must show": the exact files and working-memory dict come back."""
    user = {"src/calc.py": "def add(a, b):\n    return a + b\n"}
    wm0 = {"task": {"goal": "mul"}, "values": {"plan": ["read", "write"]}}
    c0 = index.start_task("rt", user, snapshot=wm0, metacode={"target": "mul"})
    v1 = {**user, "src/calc.py": user["src/calc.py"] + "\ndef mul(a, b):\n    return a * b\n"}
    wm1 = {**wm0, "values": {"plan": ["read", "write"], "draft": 1}}
    c1 = index.commit("rt", v1, name="Add mul", reason="goal", metacode={"target": "mul"},
                      snapshot=wm1, verdict="passed")  # fmt: skip
    v2 = {**v1, "tests/test_calc.py": "from src.calc import mul\n"}
    c2 = index.commit("rt", v2, name="Add test", reason="coverage", metacode={"target": "mul"},
                      snapshot={**wm1, "values": {"draft": 2}}, verdict="failed")  # fmt: skip
    assert index.rollback("rt") == c1
    assert index.show(index.head("rt")).files == v1
    assert index.redo("rt") == c2 and index.show(c2).files == v2
    assert index.branch("rt", c1, "rt-b") == c1
    patch = index.diff(c1, c2)
    assert patch.startswith("diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- /dev/null\n")
    assert index.snapshot_of(c1) == wm1 and index.snapshot_of(c0) == wm0
    assert index.show(index.head("rt-b")).files == v1
    assert index.show(c0).files == user


def test_identical_input_gives_identical_commit_ids_on_both_backends(tmp_path) -> None:
    if not git_available():
        pytest.skip("needs both backends")
    ids = []
    for name in ("dulwich", "gitpython"):
        with CommitIndex(tmp_path / f"{name}.git", backend=name, clock=Clock()) as ix:
            ix.start_task("t", {"a/b.py": "x\n", "a.py": "y\n", "a-b.py": "z\n"})
            ids.append([draft(ix, "t", "v1\n"), ix.head("t")])
        fsck(ix.root)
    assert ids[0] == ids[1]


def test_history_keeps_working_after_git_gc_packs_it(index: CommitIndex) -> None:
    """Users may run ``git gc``: packed objects and packed refs must stay readable and writable."""
    if not git_available():
        pytest.skip("needs git to pack the repository")
    first = index.start_task("t", {"pkg/mod.py": "v0\n"})
    bad = draft(index, "t", "v1\n", "failed")
    index.rollback("t")
    index.start_task("t2", {"x.py": "0\n"})
    other = draft(index, "t2", "w\n", "failed")
    index.rollback("t2")
    git_out(index.root, "gc", "--quiet", "--prune=now")
    assert index.undo_stack("t2") == [other]  # packed "t2" refs never leak into task "t"
    assert (index.root / "packed-refs").exists() and not (
        index.root / "refs/heads/tasks/t"
    ).exists()
    assert index.show(bad).files == {"pkg/mod.py": "v1\n"} and index.undo_stack("t") == [bad]
    assert index.redo("t") == bad
    nxt = draft(index, "t", "v2\n")
    assert [e.id for e in index.log("t")] == [nxt, bad, first]
    assert index.delete_task("t") == 1 and index.tasks() == ["t2"]
