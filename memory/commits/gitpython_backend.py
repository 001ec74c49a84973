"""GitPython backend: used when a ``git`` executable exists (developer machines, custom images).

GitPython is imported lazily here and nowhere else: at module level ``import git`` raises without
a git binary, and the Cat imports every file of the plugin. Objects are written through gitdb (pure
Python, temp file + rename, then we fsync) and read through dulwich's object store (pure Python: no
long-lived ``git cat-file`` process, whose shared pipe could hang a reader forever); refs move
through ``git update-ref --stdin -z``, which gives an atomic compare-and-swap under git's own lock
file. Every git call gets a scrubbed environment, no
system/global config, ``core.hooksPath=/dev/null`` (``update-ref`` runs the reference-transaction
hook otherwise) and a timeout; arguments come after ``--end-of-options`` or on stdin, never as
options.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import BackendUnavailable
from .dulwich_backend import read_object
from .errors import CommitIndexError, RepositoryCorrupt, RepositoryLocked
from .objects import RawObject

MIN_VERSION = (3, 1, 43)
GIT_TIMEOUT = 30.0
ZERO = "0" * 40


def _import_git() -> Any:
    """Import GitPython, refusing versions with known argument-injection advisories."""
    if shutil.which("git") is None:
        raise BackendUnavailable("git executable not found; use backend='dulwich' (pure Python)")
    os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
    try:
        import git
    except ImportError as err:
        raise BackendUnavailable(f"GitPython is not importable: {err}") from err
    version = tuple(int(p) for p in git.__version__.split(".")[:3] if p.isdigit())
    if version < MIN_VERSION:
        raise BackendUnavailable(
            f"GitPython {git.__version__} has known argument-injection advisories; "
            f"install >= {'.'.join(map(str, MIN_VERSION))} or use backend='dulwich'"
        )
    return git


def scrubbed_env(git_dir: Path) -> dict[str, str]:
    """Only what git needs: no GIT_* from the Cat's environment, no user or system config."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(git_dir),
        "LC_ALL": "C",
        "LANG": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
    }


#: Variables that would make ``git.Repo`` or git itself use objects other than our repo's.
REDIRECTING_ENV = ("GIT_DIR", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_INDEX_FILE")


def pinned_env(git_dir: Path) -> dict[str, str]:
    """Overrides for GitPython's long-running git processes (it cannot drop inherited vars)."""
    return {
        "GIT_DIR": str(git_dir),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": "",
        "GIT_TERMINAL_PROMPT": "0",
    }


def run_git(
    git_dir: Path, args: list[str], stdin: bytes = b"", *, select: bool = True
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git`` on the bare repo with hooks off and a timeout; never raises on exit status."""
    where = [f"--git-dir={git_dir}"] if select else []
    cmd = ["git", *where, "-c", "core.hooksPath=/dev/null",
           "-c", "core.fsync=reference,loose-object", *args]  # fmt: skip
    try:
        return subprocess.run(
            cmd, input=stdin, capture_output=True, env=scrubbed_env(git_dir),
            timeout=GIT_TIMEOUT, cwd=str(git_dir), check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as err:
        raise CommitIndexError(f"git {args[0]} failed on {git_dir}: {err}") from err


class GitPythonBackend:
    """``Backend`` over GitPython's object database plus ``git update-ref``."""

    name = "gitpython"

    def __init__(self, path: Path, *, create: bool) -> None:
        git = _import_git()
        self._git = git
        self._path = path.resolve()
        if create:
            args = ["init", "--bare", "--quiet", "--end-of-options", str(self._path)]
            done = run_git(self._path, args, select=False)
            if done.returncode:
                raise CommitIndexError(f"git init {self._path} failed: {done.stderr.decode()}")
        redirected = sorted(v for v in REDIRECTING_ENV if os.environ.get(v))
        if redirected:
            raise BackendUnavailable(
                f"{', '.join(redirected)} set in the environment would redirect GitPython to "
                "another repository; unset them or use backend='dulwich'"
            )
        try:
            self._repo = git.Repo(str(self._path))
        except (git.exc.InvalidGitRepositoryError, git.exc.NoSuchPathError) as err:
            raise RepositoryCorrupt(f"cannot open commit history {self._path}: {err}") from err
        # Any git process GitPython starts inherits os.environ: pin what could redirect it.
        self._repo.git.update_environment(**pinned_env(self._path))
        # Objects are read in this process (dulwich's object store), never through GitPython's
        # persistent ``git cat-file --batch`` pipe: a pipe left part-read goes out of step and
        # the next read waits forever for a header (a real hang with three users drafting),
        # and its process outlived the Cat. A read in this process completes or fails.
        from dulwich.object_store import DiskObjectStore

        self._objects = DiskObjectStore(str(self._path / "objects"))
        # Writes go straight to loose objects (temp file + rename, then our fsync): GitPython's
        # own ``store`` spawns ``git hash-object`` per object and skips objects already packed.
        from gitdb import LooseObjectDB

        self._loose = LooseObjectDB(str(self._path / "objects"))

    def write_objects(self, objects: Sequence[RawObject]) -> None:
        from gitdb import IStream

        for raw in objects:
            if self.has_object(raw.sha):
                continue
            stored = self._loose.store(IStream(raw.kind, len(raw.body), io.BytesIO(raw.body)))
            if stored.hexsha.decode() != raw.sha:
                raise CommitIndexError(f"gitdb hashed {raw.kind} {raw.sha} as {stored.hexsha!r}")
            fsync_path(self._path / "objects" / raw.sha[:2] / raw.sha[2:])

    def read_object(self, sha: str) -> tuple[str, bytes]:
        return read_object(self._objects, sha, self._path)

    def has_object(self, sha: str) -> bool:
        return sha.encode() in self._objects

    def get_ref(self, ref: str) -> str | None:
        try:
            sha = self._git.SymbolicReference.dereference_recursive(self._repo, ref)
        except ValueError:
            return None
        return str(sha)

    def list_refs(self, prefix: str) -> dict[str, str]:
        found: dict[str, str] = {}
        for item in self._git.Reference.iter_items(self._repo, common_path=prefix.rstrip("/")):
            sha = self.get_ref(item.path)
            if sha is not None and item.path.startswith(prefix):
                found[item.path] = sha
        return found

    def cas_ref(self, ref: str, old: str | None, new: str | None) -> bool:
        if new is None:
            line = f"delete {ref}\0{old or ''}\0"
        else:
            line = f"update {ref}\0{new}\0{old or ZERO}\0"
        done = run_git(self._path, ["update-ref", "--stdin", "-z"], line.encode())
        if done.returncode == 0:
            return True
        err = done.stderr.decode(errors="replace").strip()
        if "File exists" in err or ".lock'" in err:
            raise RepositoryLocked(f"ref {ref} is locked: {err}")
        if self.get_ref(ref) != old:
            return False
        raise CommitIndexError(f"git update-ref {ref} failed: {err}")

    def close(self) -> None:
        self._repo.close()
        self._objects.close()


def fsync_path(path: str | os.PathLike[str]) -> None:
    """fsync a file (or folder) by path: objects must be on disk before a ref points at them."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
