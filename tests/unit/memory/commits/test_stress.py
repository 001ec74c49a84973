"""Several users drafting at once must finish or fail, never hang.

The users run in a child process (real threads, real repositories, both history backends) while
this test watches it: if the child does not finish in time, its thread stacks are dumped (through
``faulthandler`` on SIGUSR1) into the failure message and it is killed, so a hang fails the test
instead of hanging CI.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from codemem.memory.commits.errors import HistoryBusy, RepositoryLocked
from codemem.memory.commits.index import CommitIndex

from .conftest import fsck, git_available

ROOT = Path(__file__).resolve().parents[4]
WATCHDOG_S = 180

USERS = """
import faulthandler, json, signal, sys, threading, time
faulthandler.register(signal.SIGUSR1, all_threads=True)
sys.path.insert(0, {root!r})
import tests
from codemem.memory.commits.index import CommitIndex
from codemem.memory.commits.errors import CommitIndexError

backend, base, rounds = {backend!r}, {base!r}, {rounds}


class Episodes:
    '''An episode sink like the plugin's: every commit is read back and stored.'''

    def __init__(self):
        self.count = 0

    def add_memory(self, text, metadata):
        self.count += 1


def draft(ix, task, who, results):
    try:
        ix.start_task(task, {{"m.py": "# start\\n"}})
        previous = ix.head(task)
        for i in range(rounds):
            files = {{"m.py": f"# {{who}} {{i}}\\n", f"{{who}}.py": "x = %d\\n" % i}}
            head = ix.commit(task, files, name=f"{{who}} {{i}}", reason="stress",
                             metacode={{"who": who}}, snapshot={{"i": i}}, verdict="passed")
            ix.log(task)
            ix.show(head)
            ix.diff(previous, head)
            ix.summary(head)
            if i % 3 == 2:
                ix.rollback(task)
                ix.redo(task)
            if i % 4 == 3:
                ix.search_episodes(f"{{who}} {{i}}", limit=3)
            previous = head
        results[who] = len(ix.log(task))
    except CommitIndexError as err:  # a clear, reported failure is allowed; a hang is not
        results[who] = f"error: {{type(err).__name__}}: {{err}}"


shared = CommitIndex(f"{{base}}/shared.git", backend=backend, episodes=Episodes())
second = CommitIndex(f"{{base}}/shared.git", backend=backend, episodes=Episodes())
own = [CommitIndex(f"{{base}}/own{{n}}.git", backend=backend, episodes=Episodes())
       for n in range(2)]
plan = [(shared, "alpha", "a1"), (shared, "alpha-2", "a2"), (shared, "beta", "b1"),
        (second, "gamma", "g1"), (own[0], "delta", "d1"), (own[1], "eps", "e1")]
results = {{}}
threads = [threading.Thread(target=draft, args=(ix, task, who, results), name=who)
           for ix, task, who in plan]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
for ix in (shared, second, *own):
    ix.close()
print(json.dumps(results), flush=True)
"""


def _run_users(tmp_path: Path, backend: str, rounds: int) -> dict[str, object]:
    script = tmp_path / "users.txt"
    script.write_text(USERS.format(root=str(ROOT), backend=backend, base=str(tmp_path),
                                   rounds=rounds))
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        out, err = child.communicate(timeout=WATCHDOG_S)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGUSR1)  # faulthandler: every thread's stack to stderr
        try:
            out, err = child.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()
            out, err = child.communicate()
        child.kill()
        child.wait()
        raise AssertionError(
            f"drafting users hung for {WATCHDOG_S} s; stacks:\n{err[-20000:]}") from None
    assert child.returncode == 0, err[-5000:]
    return json.loads(out.strip().splitlines()[-1])


def test_users_drafting_at_once_finish(tmp_path: Path, backend: str) -> None:
    rounds = 12
    results = _run_users(tmp_path, backend, rounds)
    assert sorted(results) == ["a1", "a2", "b1", "d1", "e1", "g1"]
    problems = {who: said for who, said in results.items() if not isinstance(said, int)}
    assert problems == {}, problems
    assert all(count == rounds + 1 for count in results.values()), results
    for repo in ("shared.git", "own0.git", "own1.git"):
        fsck(tmp_path / repo)


def _stuck_draft(ix: CommitIndex, head: str) -> tuple[threading.Thread, threading.Event]:
    """A draft thread stuck inside the history (as on the cat-file pipe), made deterministic:
    its object read waits until the returned event is set."""
    stuck, release = threading.Event(), threading.Event()
    real_read = ix._backend.read_object

    def read_that_never_returns(sha: str):
        stuck.set()
        release.wait(30)
        return real_read(sha)

    ix._reader._infos.clear()
    ix._backend.read_object = read_that_never_returns
    holder = threading.Thread(target=ix.show, args=(head,), daemon=True)
    holder.start()
    assert stuck.wait(10)
    return holder, release


def test_a_draft_stuck_inside_the_history_makes_others_fail_clearly(tmp_path: Path,
                                                                    backend: str) -> None:
    ix = CommitIndex(tmp_path / "h.git", backend=backend, lock_timeout=0.5)
    head = ix.start_task("t", {"m.py": "x = 1\n"})
    real_read = ix._backend.read_object
    holder, release = _stuck_draft(ix, head)
    started = time.monotonic()
    with pytest.raises(HistoryBusy, match="has been busy for over"):
        ix.log("t")
    with pytest.raises(RepositoryLocked):  # callers that handle "locked" handle this too
        ix.commit("t", {"m.py": "x = 2\n"}, name="n", reason="r", metacode={}, snapshot={},
                  verdict="passed")
    assert time.monotonic() - started < 5
    release.set()
    holder.join(10)
    ix._backend.read_object = real_read
    assert [e.id for e in ix.log("t")] == [head]  # nothing was changed by the refused commit
    ix.close()


def test_close_does_not_wait_for_a_stuck_draft(tmp_path: Path, backend: str) -> None:
    ix = CommitIndex(tmp_path / "h.git", backend=backend, lock_timeout=60)
    holder, release = _stuck_draft(ix, ix.start_task("t", {"m.py": "x = 1\n"}))
    started = time.monotonic()
    ix.close()
    assert time.monotonic() - started < 2.0
    release.set()
    holder.join(10)


def test_the_gitpython_backend_starts_no_long_lived_git_process(tmp_path: Path) -> None:
    psutil = pytest.importorskip("psutil")
    if not git_available():
        pytest.skip("no git executable on PATH: the GitPython backend cannot run here")
    ix = CommitIndex(tmp_path / "h.git", backend="gitpython")
    head = ix.start_task("t", {"m.py": "x = 1\n"})
    ix.commit("t", {"m.py": "x = 2\n"}, name="n", reason="r", metacode={}, snapshot={},
              verdict="passed")
    ix.show(head)
    ix.log("t")
    ix.diff(head, ix.head("t"))
    children = [p.cmdline() for p in psutil.Process().children(recursive=True)
                if "git" in " ".join(p.cmdline())]
    assert children == [], children
    ix.close()
