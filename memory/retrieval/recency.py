"""When each file of a repository last changed, for the recency boost.

Why git first: file modification times lie after a clone, a checkout or a copy into a
container (every file looks brand new). When the repository is a git work tree, the commits of
the last ``window`` seconds say which files really changed; files edited but not committed
(their stat differs from the git index, or they are untracked) count as changed at their mtime.
Read with dulwich, because the Cat's image has no ``git`` binary. Anywhere else, mtimes are all
there is.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # dulwich is imported when a snapshot is taken, never at import time
    from dulwich.diff_tree import TreeChange
    from dulwich.repo import Repo

GIT = "git"
MTIME = "mtime"

#: Commits walked at most per snapshot; keeps the cost bounded on busy repositories.
MAX_COMMITS = 2000


@dataclass(frozen=True)
class RecencySnapshot:
    """Last-changed times (epoch seconds) of the files that changed since ``since``.

    ``source`` is ``"git"`` or ``"mtime"``. A path missing from ``changed_at`` did not change
    within the window (or is unknown).
    """

    source: str
    since: float
    changed_at: Mapping[str, float] = field(default_factory=dict)

    def is_recent(self, path: str) -> bool:
        """True if ``path`` (relative to the indexed root, posix) changed since ``since``."""
        when = self.changed_at.get(path)
        return when is not None and when >= self.since


def _find_git_root(root: str) -> str | None:
    """The work tree containing ``root`` (``root`` itself or a parent), or None."""
    current = os.path.realpath(root)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def last_changed(root: str, paths: Iterable[str], *, since: float,
                 now: float | None = None) -> RecencySnapshot:
    """Which of ``paths`` (relative to ``root``) changed since ``since``, and when.

    Uses git history when ``root`` is inside a git work tree that dulwich can read; otherwise
    (or when the repository cannot be read) the files' mtimes.
    """
    paths = list(paths)
    git_root = _find_git_root(root)
    if git_root is not None:
        snapshot = _from_git(git_root, os.path.realpath(root), paths, since)
        if snapshot is not None:
            return snapshot
    return _from_mtimes(root, paths, since)


def _from_mtimes(root: str, paths: Iterable[str], since: float) -> RecencySnapshot:
    changed: dict[str, float] = {}
    for rel in paths:
        try:
            st = os.lstat(os.path.join(root, rel))
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_mtime >= since:
            changed[rel] = st.st_mtime
    return RecencySnapshot(MTIME, since, changed)


def _prefix_mapper(git_root: str, root: str) -> Callable[[str], str | None]:
    """Map a git path (relative to the work tree) to a path relative to ``root`` (or None)."""
    rel = os.path.relpath(root, git_root).replace(os.sep, "/")
    prefix = "" if rel == "." else rel.rstrip("/") + "/"

    def mapped(git_path: str) -> str | None:
        if not prefix:
            return git_path
        return git_path[len(prefix):] if git_path.startswith(prefix) else None
    return mapped


def _from_git(git_root: str, root: str, paths: list[str],
              since: float) -> RecencySnapshot | None:
    try:
        from dulwich.errors import NotGitRepository
        from dulwich.repo import Repo
    except ImportError:
        return None
    try:
        repo = Repo(git_root)
    except (NotGitRepository, OSError, ValueError):
        return None
    try:
        mapped = _prefix_mapper(git_root, root)
        changed = _committed_changes(repo, mapped, since)
        for rel, when in _worktree_changes(repo, git_root, root, paths, mapped).items():
            changed[rel] = max(when, changed.get(rel, when))
        return RecencySnapshot(GIT, since, changed)
    except (KeyError, OSError, ValueError):  # damaged or shallow history: fall back to mtimes
        return None
    finally:
        repo.close()


def _committed_changes(repo: Repo, mapped: Callable[[str], str | None],
                       since: float) -> dict[str, float]:
    changed: dict[str, float] = {}
    try:
        head = repo.head()
    except KeyError:  # no commits yet
        return changed
    walker = repo.get_walker(include=[head], since=int(since), max_entries=MAX_COMMITS)
    for entry in walker:
        when = float(entry.commit.commit_time)
        for change in _flatten(entry.changes()):
            for side in (change.old, change.new):
                name = getattr(side, "path", None)
                if name is None:
                    continue
                rel = mapped(name.decode("utf-8", "surrogateescape"))
                if rel is not None and when >= since:
                    changed[rel] = max(when, changed.get(rel, when))
    return changed


def _flatten(changes: list[TreeChange] | list[list[TreeChange]] | None) -> list[TreeChange]:
    """A merge commit's changes come as one list per parent: one flat list."""
    out: list[TreeChange] = []
    for item in changes or []:
        out.extend(item if isinstance(item, list) else [item])
    return out


def _worktree_changes(repo: Repo, git_root: str, root: str, paths: list[str],
                      mapped: Callable[[str], str | None]) -> dict[str, float]:
    """Files whose stat differs from the git index (edited, not committed) or untracked."""
    index = repo.open_index()
    tracked: dict[str, object] = {}
    for name, indexed in index.items():
        rel = mapped(name.decode("utf-8", "surrogateescape"))
        if rel is not None:
            tracked[rel] = indexed
    out: dict[str, float] = {}
    for rel in paths:
        try:
            st = os.lstat(os.path.join(root, rel))
        except OSError:
            continue
        entry = tracked.get(rel)
        if entry is None or _stat_differs(st, entry):
            out[rel] = st.st_mtime
    return out


def _stat_differs(st: os.stat_result, entry: object) -> bool:
    mtime = getattr(entry, "mtime", None)
    seconds = mtime[0] if isinstance(mtime, tuple) else mtime
    size = getattr(entry, "size", None)
    return size != st.st_size or seconds is None or int(st.st_mtime) != int(seconds)


class RecencyTracker:
    """Caches one ``RecencySnapshot`` per root for ``ttl`` seconds (git walks are not free)."""

    def __init__(self, window_days: float, *, ttl: float = 30.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.window_days = window_days
        self.ttl = ttl
        self._clock = clock
        self._cache: dict[str, tuple[float, RecencySnapshot]] = {}

    def snapshot(self, root: str, paths: Iterable[str]) -> RecencySnapshot:
        now = self._clock()
        hit = self._cache.get(root)
        if hit is not None and now - hit[0] < self.ttl:
            return hit[1]
        snap = last_changed(root, paths, since=now - self.window_days * 86400.0)
        self._cache[root] = (now, snap)
        return snap

    def invalidate(self) -> None:
        self._cache.clear()
