"""Stale locks are repaired, live locks are waited on, corruption is reported and never reset."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from codemem.memory.commits.errors import RepositoryCorrupt, RepositoryLocked, TaskNotFound
from codemem.memory.commits.index import CommitIndex
from codemem.memory.commits.objects import build_commit, build_tree

from .conftest import fsck

ROOT = Path(__file__).resolve().parents[4]


def _commit(ix: CommitIndex, task: str, text: str) -> str:
    return ix.commit(task, {"a.py": text}, name=text, reason="", metacode={}, snapshot={"t": text},
                     verdict="passed")  # fmt: skip


def test_leftovers_of_a_crashed_writer_are_removed(tmp_path: Path, backend: str) -> None:
    repo = tmp_path / "h.git"
    with CommitIndex(repo, backend=backend) as ix:
        head = _commit(ix, "t", "1")
    (repo / "codemem.lock").write_text("999999 1700000000\n")  # pid of a writer that died
    planted = [repo / "refs/heads/tasks/t.lock", repo / "packed-refs.lock",
               repo / "objects/ab/cdef.lock", repo / "objects/obj_tmp123"]  # fmt: skip
    for path in planted:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("partial")
    with CommitIndex(repo, backend=backend) as ix:
        assert sorted(ix.repaired) == sorted(str(p.relative_to(repo)) for p in planted)
        assert ix.stats()["repaired_lock_files"] == 4
        assert ix.head("t") == head  # refs untouched
        assert ix.log("t")[0].id != _commit(ix, "t", "2")  # the next commit succeeds
    assert not any(p.exists() for p in planted)
    fsck(repo)


def test_fresh_foreign_lock_is_respected_and_old_one_repaired(tmp_path: Path, backend: str) -> None:
    repo = tmp_path / "h.git"
    ix = CommitIndex(repo, backend=backend, stale_lock_after=60)
    head = _commit(ix, "t", "1")
    lock = repo / "refs/heads/tasks/t.lock"
    lock.write_text("someone else's git")
    with pytest.raises(RepositoryLocked) as caught:
        _commit(ix, "t", "2")
    assert "t.lock" in str(caught.value) and ix.head("t") == head and lock.exists()
    old = time.time() - 3600
    os.utime(lock, (old, old))
    new = _commit(ix, "t", "2")
    assert ix.head("t") == new and not lock.exists() and ix.repaired == ["refs/heads/tasks/t.lock"]
    ix.close()
    fsck(repo)


HOLDER = """
import sys, time
sys.path.insert(0, {root!r})
import tests
from pathlib import Path
from codemem.memory.commits.locks import RepoLock
with RepoLock(Path({repo!r})).hold():
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_live_writer_in_another_process_blocks_then_releases(tmp_path: Path, backend: str) -> None:
    repo = tmp_path / "h.git"
    ix = CommitIndex(repo, backend=backend, lock_timeout=0.3)
    script = tmp_path / "holder.py"
    script.write_text(textwrap.dedent(HOLDER.format(root=str(ROOT), repo=str(repo))))
    child = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        with pytest.raises(RepositoryLocked) as caught:
            _commit(ix, "t", "1")
        assert str(child.pid) in str(caught.value)
    finally:
        child.communicate("go\n", timeout=30)
    sha = _commit(ix, "t", "1")
    assert ix.head("t") == sha and ix.repaired == []  # a clean release leaves nothing to repair
    ix.close()


def test_a_folder_that_is_not_a_repository_is_refused_untouched(
    tmp_path: Path, backend: str
) -> None:
    folder = tmp_path / "not-a-repo"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(RepositoryCorrupt) as caught:
        CommitIndex(folder, backend=backend)
    assert "nothing was changed" in str(caught.value)
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]


def test_damaged_objects_and_dangling_refs_are_reported(tmp_path: Path, backend: str) -> None:
    repo = tmp_path / "h.git"
    ix = CommitIndex(repo, backend=backend)
    first = _commit(ix, "t", "1")
    head = _commit(ix, "t", "2")
    loose = repo / "objects" / head[:2] / head[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"\x78\x9cgarbage that is not zlib")
    with pytest.raises(RepositoryCorrupt):
        ix.log("t")
    assert loose.read_bytes().startswith(b"\x78\x9cgarbage")  # reported, never "fixed" away
    assert ix.show(first).files == {"a.py": "1"}  # the rest stays readable
    (repo / "refs/heads/tasks/u").write_text("1234567" * 5 + "89abc\n")
    with pytest.raises(RepositoryCorrupt) as caught:
        ix.log("u")
    assert "refs/heads/tasks/u" in str(caught.value)
    with pytest.raises(TaskNotFound):
        ix.log("nobody")
    ix.close()


def test_snapshot_digest_mismatch_is_corruption(tmp_path: Path, backend: str) -> None:
    repo = tmp_path / "h.git"
    ix = CommitIndex(repo, backend=backend)
    tree, objects = build_tree({"metacode.json": b"{}\n", "working_memory.json": b'{"a": 1}\n'})
    message = "forged\n\nTask: t\nIteration: 0\nVerdict: passed\nSnapshot-Digest: sha256:00\n"
    commit = build_commit(tree, (), message, 1_700_000_000)
    ix._backend.write_objects([*objects, commit])
    assert ix._backend.cas_ref("refs/heads/tasks/t", None, commit.sha)
    assert ix.log("t")[0].name == "forged"
    with pytest.raises(RepositoryCorrupt) as caught:
        ix.show(commit.sha)
    assert "digest" in str(caught.value)
    ix.close()
