"""Fixtures of the commit-index suite. No side effects at import (the Cat imports this file)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codemem.memory.commits.index import CommitIndex

BACKENDS = ["dulwich", "gitpython"]
CLOCK_START = 1_790_000_000


def git_available() -> bool:
    return shutil.which("git") is not None


def fsck(repo: Path) -> list[str]:
    """Run real ``git fsck --strict --full``; fail on any error or warning. Skips without git.

    Returns the "dangling <object>" lines: unreferenced objects are legal (a crash between object
    and ref write, a deleted task) and are not errors.
    """
    if not git_available():
        return []
    env = {"PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "HOME": str(repo)}  # fmt: skip
    done = subprocess.run(
        ["git", f"--git-dir={repo}", "fsck", "--strict", "--full", "--no-progress"],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    problems = [
        line for line in (done.stdout + done.stderr).splitlines()
        if line and not line.startswith(("notice: ", "dangling "))
    ]  # fmt: skip
    assert done.returncode == 0 and not problems, f"git fsck failed on {repo}:\n{problems}"
    return [line for line in done.stdout.splitlines() if line.startswith("dangling ")]


def git_out(repo: Path, *args: str) -> str:
    """Output of a read-only git command on the history repo (proves stock git reads it)."""
    env = {"PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(
        ["git", f"--git-dir={repo}", *args], capture_output=True, text=True, env=env,
        timeout=60, check=True,
    ).stdout  # fmt: skip


class Clock:
    """A settable clock: commit times are deterministic and tests can move time."""

    def __init__(self, start: int = CLOCK_START) -> None:
        self.now = float(start)

    def __call__(self) -> float:
        self.now += 1
        return self.now


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "gitpython" and not git_available():
        pytest.skip("no git executable on PATH: the GitPython backend cannot run here")
    return request.param


@pytest.fixture
def index(tmp_path: Path, backend: str):
    ix = CommitIndex(tmp_path / "history" / "proj.git", backend=backend, clock=Clock())
    yield ix
    ix.close()
    fsck(ix.root)
