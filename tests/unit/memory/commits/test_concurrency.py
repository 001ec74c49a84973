"""Concurrent writers: threads of one process and several processes on one repository (T9).

Commits to different tasks are safe; commits to the same task are serialised (each new commit's
parent is the previous head, so nothing is lost and iterations are 0..n-1 without gaps).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from codemem.memory.commits.index import CommitIndex

from .conftest import fsck

ROOT = Path(__file__).resolve().parents[4]


def _commit(ix: CommitIndex, task: str, i: int, who: str) -> str:
    files = {"m.py": f"# {who} {i}\n", f"{who}.py": str(i)}
    return ix.commit(task, files, name=f"{who} {i}", reason="load", metacode={"who": who},
                     snapshot={"i": i}, verdict="passed")  # fmt: skip


def test_threads_on_different_and_same_tasks(tmp_path: Path, backend: str) -> None:
    ix = CommitIndex(tmp_path / "h.git", backend=backend)
    acked: dict[str, list[str]] = {}
    errors: list[BaseException] = []

    def worker(task: str, who: str) -> None:
        try:
            acked[who] = [_commit(ix, task, i, who) for i in range(8)]
        except BaseException as err:  # noqa: BLE001 - reported by the assertion below
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(f"own-{n}", f"w{n}")) for n in range(3)]
    threads += [threading.Thread(target=worker, args=("shared", f"s{n}")) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    for n in range(3):
        assert [e.id for e in ix.log(f"own-{n}")] == acked[f"w{n}"][::-1]
    shared = ix.log("shared")
    assert sorted(e.iteration for e in shared) == list(range(24))
    assert {e.id for e in shared} == {c for n in range(3) for c in acked[f"s{n}"]}
    ix.close()
    fsck(ix.root)


CHILD = """
import sys
sys.path.insert(0, {root!r})
import tests
from codemem.memory.commits.index import CommitIndex
ix = CommitIndex({repo!r}, backend={backend!r})
who = sys.argv[1]
for i in range({count}):
    task = "shared" if i % 2 == 0 else "own-" + who
    sha = ix.commit(task, {{"m.py": who + str(i)}}, name=who + " " + str(i), reason="",
                    metacode={{}}, snapshot={{"i": i}}, verdict="passed")
    print(task, sha, flush=True)
"""


def test_processes_share_one_repository(tmp_path: Path, backend: str) -> None:
    repo, count = tmp_path / "h.git", 12
    CommitIndex(repo, backend=backend).close()
    script = tmp_path / "writer_child.py"
    script.write_text(textwrap.dedent(CHILD.format(root=str(ROOT), repo=str(repo),
                                                   backend=backend, count=count)))  # fmt: skip
    procs = [subprocess.Popen([sys.executable, str(script), f"p{n}"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for n in range(3)]  # fmt: skip
    outputs = [p.communicate(timeout=180) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    acked = [line.split() for out, _ in outputs for line in out.splitlines()]
    with CommitIndex(repo, backend=backend) as ix:
        shared = ix.log("shared")
        assert len(shared) == 3 * count // 2
        assert sorted(e.iteration for e in shared) == list(range(len(shared)))
        for task, sha in acked:
            assert sha in {e.id for e in ix.log(task)}
    fsck(repo)
