"""lifeline: workers start from one launcher thread and die with the process that started them."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from codemem.memory.extract.lifeline import launch

ROOT = Path(__file__).resolve().parents[4]
LINUX = sys.platform.startswith("linux")

# A child that asks to die with its parent (pid in argv[1]), says so, then waits.
_CHILD = """
import sys, time
sys.path.insert(0, {root!r})
import tests
from codemem.memory.extract.lifeline import die_with_parent
die_with_parent(int(sys.argv[1]))
print("alive", flush=True)
time.sleep(float(sys.argv[2]))
"""
# A middle process: starts the child above with itself as the parent, prints its pid, waits.
_MIDDLE = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], str(os.getpid()), "60"],
                         stdout=subprocess.PIPE, text=True)
assert child.stdout.readline() == "alive\\n"
print(child.pid, flush=True)
time.sleep(60)
"""


def _child_code() -> str:
    return _CHILD.format(root=str(ROOT))


def _gone(pid: int) -> bool:
    """True once ``pid`` has exited (a zombie nobody reaped has exited too)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def test_launch_runs_on_one_long_lived_launcher_thread():
    names = {launch(lambda: threading.current_thread().name) for _ in range(3)}
    assert names == {"codemem-launcher"}
    idents = {launch(threading.get_ident) for _ in range(3)}
    assert len(idents) == 1 and threading.get_ident() not in idents


def test_launch_hands_back_the_value_and_the_error():
    assert launch(lambda: ("started", 42)) == ("started", 42)

    def broken() -> None:
        raise OSError("fork failed")

    with pytest.raises(OSError, match="fork failed"):
        launch(broken)
    assert launch(lambda: "still serving") == "still serving"


@pytest.mark.skipif(not LINUX, reason="PR_SET_PDEATHSIG is Linux only")
def test_a_child_whose_parent_is_already_gone_exits_at_once():
    alive = subprocess.run([sys.executable, "-c", _child_code(), str(os.getpid()), "0"],
                           capture_output=True, text=True, timeout=60)
    assert alive.returncode == 0 and alive.stdout == "alive\n"
    orphan = subprocess.run([sys.executable, "-c", _child_code(), "1", "30"],
                            capture_output=True, text=True, timeout=60)
    assert orphan.returncode == 0 and orphan.stdout == ""  # "parent" pid 1 is not its parent


@pytest.mark.skipif(not LINUX, reason="PR_SET_PDEATHSIG is Linux only")
def test_a_child_dies_when_its_parent_is_killed():
    middle = subprocess.Popen([sys.executable, "-c", _MIDDLE, _child_code()],
                              stdout=subprocess.PIPE, text=True)
    try:
        child_pid = int(middle.stdout.readline())
        assert not _gone(child_pid)
        middle.kill()  # SIGKILL: no cleanup code of the middle process runs
        middle.wait(30)
        deadline = time.monotonic() + 20
        while not _gone(child_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(child_pid)
    finally:
        middle.kill()
        middle.stdout.close()
