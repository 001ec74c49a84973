"""Cross-process write lock of a history repository, and repair of what a crash leaves behind.

Every writer of the repository (all threads, all processes using ``CommitIndex``) first takes an
exclusive ``flock`` on ``<repo>/codemem.lock`` and writes its pid into it; a clean release empties
the file. The kernel drops the flock when a process dies, so the lock itself can never go stale;
what a SIGKILL leaves is (a) the dead holder's pid still in the file and (b) git's own ``*.lock``
files and temp objects. Finding a pid there on acquire therefore means "the previous writer
crashed mid-write" and every leftover under refs/ and objects/ is safe to remove: we hold the
lock, so no index writer can be using them. Leftovers without that evidence (a foreign ``git``
process) are only removed once older than ``stale_after`` seconds; otherwise ``RepositoryLocked``.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..oslocks import flock_within
from .errors import RepositoryLocked

LOCK_NAME = "codemem.lock"
_TOP_LOCKS = ("HEAD.lock", "packed-refs.lock", "config.lock", "shallow.lock")


class RepoLock:
    """Exclusive write lock on one repository (threads and processes)."""

    def __init__(self, git_dir: Path, *, timeout: float = 30.0) -> None:
        self._path = git_dir / LOCK_NAME
        self._timeout = timeout

    @contextmanager
    def hold(self) -> Iterator[int | None]:
        """Hold the lock; yields the pid of a holder that died without releasing, else None."""
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            self._acquire(fd)
            previous = os.pread(fd, 64, 0).decode("ascii", "replace").split()
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {int(time.time())}\n".encode(), 0)
            try:
                yield int(previous[0]) if previous and previous[0].isdigit() else None
            finally:
                os.ftruncate(fd, 0)  # clean release: nothing to repair for the next holder
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _acquire(self, fd: int) -> None:
        if not flock_within(fd, self._timeout):
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
            raise RepositoryLocked(
                f"{self._path} is held by another writer (pid/time: {holder or '?'}) "
                f"for over {self._timeout:.0f} s"
            )


def leftovers(git_dir: Path, *, objects: bool) -> list[Path]:
    """Lock and temp files a writer leaves when killed (refs always; objects when asked)."""
    found = [git_dir / name for name in _TOP_LOCKS if (git_dir / name).exists()]
    found += sorted((git_dir / "refs").rglob("*.lock"))
    if objects:
        store = git_dir / "objects"
        found += sorted(p for p in store.glob("obj*") if p.is_file())  # gitdb temp objects
        found += sorted(store.glob("??/*.lock"))  # dulwich temp objects
        found += sorted(store.glob("??/tmp_obj_*")) + sorted(store.glob("pack/tmp_*"))
    return found


def repair(git_dir: Path, *, crashed: bool, stale_after: float) -> list[str]:
    """Remove leftovers: all of them after a crash, else only those older than ``stale_after``.

    Returns the removed paths (relative to the repo) so they can be reported in stats and logs.
    Only lock and temp files are ever removed; objects and refs are never touched.
    """
    removed = []
    now = time.time()
    for path in leftovers(git_dir, objects=crashed):
        try:
            if crashed or now - path.stat().st_mtime > stale_after:
                path.unlink()
                removed.append(str(path.relative_to(git_dir)))
        except FileNotFoundError:
            continue
    return removed
