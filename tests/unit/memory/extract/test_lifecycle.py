"""Processes the memory core starts end with it.

A real child Python process builds a parsing pool and a draft history with the GitPython backend
and works; then it is stopped the way ``docker stop`` and the OOM killer stop the Cat. No process
it started may survive it, whether idle or busy on a file that never finishes. And ``close()``
ends everything quickly, even a worker stuck on such a file.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from codemem.memory.errors import BackendUnavailable
from codemem.memory.extract.pool import ExtractionPool

ROOT = Path(__file__).resolve().parents[4]

CHILD = """
import shutil, sys, threading, time
sys.path.insert(0, {root!r})
import tests
from codemem.memory.commits.index import CommitIndex
from codemem.memory.extract.pool import ExtractionPool

pool = ExtractionPool(workers=2, file_timeout=600.0, test_faults={{"hang": "hang_me"}})
done = list(pool.extract([(f"m{{i}}.py", b"def f():\\n    return 1\\n") for i in range(8)]))
assert len(done) == 8
backend = "gitpython" if shutil.which("git") else "dulwich"
history = CommitIndex({repo!r}, backend=backend)
head = history.start_task("t", {{"m.py": "x = 1\\n"}})
history.show(head)
history.log("t")
if {busy!r}:  # a worker stuck on a file that never finishes
    threading.Thread(target=lambda: list(pool.extract([("hang_me.py", b"x = 1\\n")])),
                     daemon=True).start()
    time.sleep(1.0)
print("ready", flush=True)
time.sleep(600)
"""


@pytest.fixture
def psutil():
    """psutil (a test dependency), skipped where missing; imported lazily because the Cat
    imports this file too and has no psutil."""
    return pytest.importorskip("psutil")


def _alive(process) -> bool:
    import psutil

    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
@pytest.mark.parametrize("busy", [False, True])
def test_no_process_outlives_the_process_that_started_it(tmp_path, signum, busy, psutil):
    script = tmp_path / "child.txt"
    script.write_text(CHILD.format(root=str(ROOT), repo=str(tmp_path / "h.git"), busy=busy))
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        descendants = psutil.Process(child.pid).children(recursive=True)
        assert descendants  # the parsing worker(s) at least
        child.send_signal(signum)
        child.wait(10)
        deadline = time.monotonic() + 5
        while any(_alive(p) for p in descendants) and time.monotonic() < deadline:
            time.sleep(0.05)
        survivors = [(p.pid, p.cmdline()) for p in descendants if _alive(p)]
        assert survivors == [], f"outlived their parent ({signum.name}): {survivors}"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_close_ends_a_stuck_worker_well_under_a_second(psutil):
    pool = ExtractionPool(workers=1, file_timeout=600.0, test_faults={"hang": "hang_me"})
    list(pool.extract([("warm.py", b"x = 1\n")]))
    worker_pid = pool._workers[0].proc.pid
    outcome: list[BaseException] = []

    def extract() -> None:
        try:
            list(pool.extract([("hang_me.py", b"x = 1\n"), ("after.py", b"y = 2\n")]))
        except BaseException as err:  # noqa: BLE001 - checked below
            outcome.append(err)

    thread = threading.Thread(target=extract)
    thread.start()
    time.sleep(1.0)  # the worker is now asleep inside hang_me.py
    started = time.monotonic()
    pool.close()
    took = time.monotonic() - started
    thread.join(10)
    assert took < 1.0, f"close() took {took:.2f} s"
    assert not psutil.pid_exists(worker_pid) or not _alive(psutil.Process(worker_pid))
    assert outcome and isinstance(outcome[0], BackendUnavailable)  # never restarted after close
    assert "closed" in str(outcome[0])
