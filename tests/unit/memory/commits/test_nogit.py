"""The stock Cat has no ``git``: the dulwich path must work with git absent from PATH.

Two subprocesses whose PATH holds no ``git``: one runs the whole contract suite (the GitPython
cases skip, the dulwich ones must pass), one builds a history through ``backend="auto"`` which the
parent then checks with the real ``git fsck --strict``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import fsck, git_available, git_out

ROOT = Path(__file__).resolve().parents[4]


def _env_without_git() -> dict[str, str]:
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    kept = [d for d in dirs if not os.access(os.path.join(d, "git"), os.X_OK)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PYTEST_"))}
    env["PATH"] = os.pathsep.join(kept) or "/nonexistent"
    return env


def test_contract_suite_passes_without_git_on_path() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider", "-rs",
         "tests/unit/memory/commits/test_contract.py"],
        cwd=ROOT, env=_env_without_git(), capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
    assert int(summary.split(" passed")[0].split()[-1]) >= 15
    assert "no git executable on PATH" in done.stdout  # the GitPython half really was skipped


SCRIPT = """
import shutil, sys
sys.path.insert(0, {root!r})
import tests
from codemem.memory.commits.index import CommitIndex
from codemem.memory.errors import BackendUnavailable
assert shutil.which("git") is None
ix = CommitIndex({repo!r})
assert ix.backend == "dulwich" and ix.stats()["backend"] == "dulwich"
a = ix.start_task("t", {{"app/x.py": "x = 1\\n"}}, snapshot={{"k": [1]}})
b = ix.commit("t", {{"app/x.py": "x = 2\\n"}}, name="two", reason="why", metacode={{}},
              snapshot={{"k": [2]}}, verdict="failed")
assert ix.rollback("t") == a and ix.redo("t") == b and "+x = 2" in ix.diff(a, b)
ix.branch("t", a, "u")
try:
    CommitIndex({repo!r}, backend="gitpython")
except BackendUnavailable as err:
    print("refused:", err)
assert "git" not in sys.modules, "GitPython must never be imported without git"
print("OK", a, b)
"""


def test_auto_backend_without_git_writes_a_repo_git_accepts(tmp_path: Path) -> None:
    repo = tmp_path / "history.git"
    script = tmp_path / "nogit_probe.py"
    script.write_text(textwrap.dedent(SCRIPT.format(root=str(ROOT), repo=str(repo))))
    done = subprocess.run([sys.executable, str(script)], env=_env_without_git(),
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("refused: git executable not found")
    _, a, b = lines[-1].split()
    if not git_available():
        pytest.skip("the parent has no git either: cannot cross-check")
    fsck(repo)
    assert git_out(repo, "log", "--format=%H", "tasks/t").split() == [b, a]
    assert git_out(repo, "show", f"{b}:app/x.py") == "x = 2\n"
