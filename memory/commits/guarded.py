"""The guarded access under ``CommitIndex``: the backend opened, this index's mutex (waited for
at most ``lock_timeout``), the repository lock of every write (crashed writers' leftovers
repaired), refs moved by compare-and-swap, and the lookups every operation starts from (a
task's head, a commit id resolved, every reachable commit).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .backend import open_backend
from .episodes import EpisodeSearch, EpisodeSink
from .errors import HistoryBusy, RefConflict, RepositoryLocked, TaskNotFound
from .info import CommitInfo
from .locks import RepoLock, repair
from .names import FULL_SHA_RE, check_commit_id, task_ref
from .reader import HistoryReader
from .resolve import resolve_commit

log = logging.getLogger(__name__)
TASKS = "refs/heads/tasks/"
ALL_PREFIXES = (TASKS, "refs/codemem/", "refs/tags/final/")


class GuardedHistory:
    """A draft history's repository under its locks (``CommitIndex`` documents the arguments)."""

    def __init__(
        self,
        root_dir: str | Path,
        *,
        backend: str = "auto",
        episodes: EpisodeSink | None = None,
        episode_search: EpisodeSearch | None = None,
        clock: Callable[[], float] = time.time,
        lock_timeout: float = 30.0,
        stale_lock_after: float = 120.0,
    ) -> None:
        self.root = Path(root_dir).expanduser().resolve()
        self._backend = open_backend(self.root, backend)
        self.backend: str = self._backend.name
        self._reader = HistoryReader(self._backend)
        self._mutex = threading.RLock()
        self._lock_timeout = lock_timeout
        self._lock = RepoLock(self.root, timeout=lock_timeout)
        self._stale_after = stale_lock_after
        self._clock = clock
        self._sink = episodes
        self._search = episode_search
        self._summaries: dict[str, str] = {}
        self.repaired: list[str] = []
        self.episode_errors = 0
        with self._writing():  # startup recovery: clears what a crashed writer left
            pass

    # -- locking -------------------------------------------------------------------------------

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """This index's mutex (every backend call runs under it), waited for at most
        ``lock_timeout`` seconds: a stuck draft makes the others fail clearly, never hang."""
        if not self._mutex.acquire(timeout=self._lock_timeout):
            raise HistoryBusy(f"the draft history {self.root} has been busy for over "
                              f"{self._lock_timeout:.0f} s (another draft holds it); nothing "
                              "was changed: try again in a moment")
        try:
            yield
        finally:
            self._mutex.release()

    @contextmanager
    def _writing(self) -> Iterator[None]:
        with self._guard(), self._lock.hold() as crashed_pid:
            if crashed_pid is not None:
                self._note_repair(repair(self.root, crashed=True, stale_after=self._stale_after),
                                  f"writer pid {crashed_pid} died holding the lock")  # fmt: skip
            yield

    def _note_repair(self, removed: list[str], why: str) -> None:
        if removed:
            log.warning("commit history %s: %s; removed %s", self.root, why, ", ".join(removed))
            self.repaired.extend(removed)

    def _cas(self, ref: str, old: str | None, new: str | None) -> None:
        """Move a ref or raise ``RefConflict``; a stale foreign lock file is repaired once."""
        try:
            moved = self._backend.cas_ref(ref, old, new)
        except RepositoryLocked:
            removed = repair(self.root, crashed=False, stale_after=self._stale_after)
            if not removed:
                raise
            self._note_repair(removed, f"stale lock files older than {self._stale_after:.0f} s")
            moved = self._backend.cas_ref(ref, old, new)
        if not moved:
            raise RefConflict(
                f"{ref} moved while we were writing (expected {old}); nothing changed"
            )

    # -- lookups ----------------------------------------------------------------------------------

    def head(self, task_id: str) -> str:
        """The current commit of a task; ``TaskNotFound`` when it has no history."""
        ref = task_ref(task_id)
        with self._guard():
            sha = self._backend.get_ref(ref)
        if sha is None:
            raise TaskNotFound(f"no history for task {task_id!r}")
        return sha

    def _resolve(self, commit_id: str) -> str:
        commit_id = check_commit_id(commit_id)
        if FULL_SHA_RE.fullmatch(commit_id):
            self._reader.info(commit_id)  # CommitNotFound if absent or not a commit
            return commit_id
        return resolve_commit(commit_id, self._all_commits())

    def _all_commits(self) -> dict[str, CommitInfo]:
        heads = []
        for prefix in ALL_PREFIXES:
            for ref, sha in self._backend.list_refs(prefix).items():
                self._reader.at_ref(ref, sha)
                heads.append(sha)
        return self._reader.reachable(heads)
