"""Changes to a repository's files, in debounced batches: what the plugin's watcher re-indexes.

Two sources, one contract (``watch_changes`` yields sets of changed paths until ``stop`` is set):

* **events** (``watchfiles``: inotify on Linux, FSEvents, ReadDirectoryChangesW), when the
  package is importable (it comes with the Cat's ``uvicorn[standard]``) and the folder is on a
  local filesystem; a save costs nothing until it happens. Editors' temporary files, ``.git``,
  ``__pycache__``, virtual environments and ``node_modules`` are ignored by its default filter;
* **polling** with ``stat`` (``PollingWatch``): where events are unavailable or unreliable (a
  network or VM-shared mount such as nfs, cifs, 9p, virtiofs, fuse, where another machine's
  writes raise no local event; the package missing; the inotify watch limit reached). Each poll
  walks the folder with ``os.scandir`` and compares size and modification time, skipping the
  same folders as the event filter and hidden ones.

Either way a batch is yielded once the folder has been quiet for ``quiet_s`` (an editor's
save is often a write, a rename and a chmod, and an editor saving as you type writes the same
file many times a second), so one save, or one burst of saves, is one batch; a stream that never
pauses is still yielded every ``longest_wait_s``. Quiet means no event at all: ``watchfiles``'
own grouping (``step``) ends a group when its *set* of changes stops growing, so a file saved
again and again (the same change) ends a group every step; here every group restarts the quiet
period. No file is read here.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from ..store.support import journal_mode_for

log = logging.getLogger(__name__)

#: Folders never watched (the event filter's list, for polling too).
SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".tox", ".venv", "venv", ".idea",
                          "node_modules", ".mypy_cache", ".pytest_cache", ".hypothesis"})

@dataclass(frozen=True)
class WatchDefaults:
    """The watch's timing, one table (the plugin's settings read it)."""

    #: How often polling looks at the folder.
    poll_s: float = 1.0
    #: The quiet time that ends a batch.
    quiet_s: float = 0.3
    #: The longest a batch waits from its first change, so a continuous stream is indexed.
    longest_wait_s: float = 2.0


WATCH_DEFAULTS = WatchDefaults()
POLL_S = WATCH_DEFAULTS.poll_s
QUIET_S = WATCH_DEFAULTS.quiet_s
LONGEST_WAIT_S = WATCH_DEFAULTS.longest_wait_s
#: How long one wait inside ``watchfiles`` lasts at most: the clock of the quiet check.
_TICK_MS = 50


class StopFlag(Protocol):
    """What stops a watch (a ``threading.Event``, or anything answering ``is_set``/``wait``)."""

    def is_set(self) -> bool: ...

    def wait(self, timeout: float | None = None) -> bool: ...


def on_network_mount(root: str) -> bool:
    """Whether ``root`` is on a network or VM-shared filesystem (no reliable local events)."""
    return journal_mode_for(os.path.join(root, ".probe")) == "delete"


def watch_changes(root: str, stop: StopFlag, *, events: bool = True, poll_s: float = POLL_S,
                  quiet_s: float = QUIET_S,
                  longest_wait_s: float = LONGEST_WAIT_S) -> Iterator[set[str]]:
    """Batches of changed absolute paths under ``root`` until ``stop`` is set (see the module
    docstring for which source is used; ``events=False`` forces polling)."""
    if events and not on_network_mount(root):
        try:
            yield from _events(root, stop, quiet_s, longest_wait_s)
            return
        except ImportError:
            log.info("watchfiles is not installed: polling %s", root)
        except (OSError, RuntimeError) as err:  # e.g. the inotify watch limit
            log.warning("file events unavailable for %s (%s): polling instead", root, err)
    yield from PollingWatch(root, poll_s=poll_s, quiet_s=quiet_s,
                            longest_wait_s=longest_wait_s).batches(stop)


def watch_source(root: str, *, events: bool = True) -> str:
    """Which source ``watch_changes`` would use: "events" or "polling" (for the status)."""
    if not events or on_network_mount(root):
        return "polling"
    try:
        import watchfiles  # noqa: F401
    except ImportError:
        return "polling"
    return "events"


def _events(root: str, stop: StopFlag, quiet_s: float,
            longest_wait_s: float) -> Iterator[set[str]]:
    import watchfiles  # the Cat has it (uvicorn[standard]); imported only when watching

    # short groups (a step of 50 ms) and a timeout tick, so that this loop sees the clock
    groups = watchfiles.watch(root, stop_event=stop, debounce=_TICK_MS * 2, step=_TICK_MS,
                              rust_timeout=_TICK_MS, yield_on_timeout=True,
                              raise_interrupt=False, ignore_permission_denied=True)
    yield from quiet_batches(({path for _, path in changes} for changes in groups), stop,
                             quiet_s, longest_wait_s)


def quiet_batches(groups: Iterable[set[str]], stop: StopFlag, quiet_s: float,
                  longest_wait_s: float,
                  clock: Callable[[], float] = time.monotonic) -> Iterator[set[str]]:
    """Groups of changes (an empty group: time passed with none) merged into batches: one is
    yielded once ``quiet_s`` passed without a group, or ``longest_wait_s`` after its first."""
    pending: set[str] = set()
    first = last = 0.0
    for group in groups:
        if stop.is_set():
            return
        now = clock()
        if group:
            if not pending:
                first = now
            pending |= group
            last = now
        if pending and (now - last >= quiet_s or now - first >= longest_wait_s):
            yield pending
            pending = set()


class PollingWatch:
    """Change detection by ``stat`` snapshots (size, modification time) of every file."""

    def __init__(self, root: str, *, poll_s: float = POLL_S, quiet_s: float = QUIET_S,
                 longest_wait_s: float = LONGEST_WAIT_S) -> None:
        self.root = root
        self.poll_s = poll_s
        self.quiet_s = quiet_s
        self.longest_wait_s = longest_wait_s

    def snapshot(self) -> dict[str, tuple[int, int]]:
        """Every watched file's (size, mtime in ns), by absolute path."""
        out: dict[str, tuple[int, int]] = {}
        stack = [self.root]
        while stack:
            try:
                entries = list(os.scandir(stack.pop()))
            except OSError:  # removed meanwhile, or unreadable
                continue
            for entry in entries:
                if entry.name.startswith(".") or entry.name in SKIPPED_DIRS:
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        info = entry.stat(follow_symlinks=False)
                        out[entry.path] = (info.st_size, info.st_mtime_ns)
                except OSError:
                    continue
        return out

    def batches(self, stop: StopFlag) -> Iterator[set[str]]:
        before = self.snapshot()
        while not stop.wait(self.poll_s):
            now = self.snapshot()
            if now == before:
                continue
            first = time.monotonic()
            while not stop.wait(self.quiet_s):  # until the folder is quiet (or too long)
                again = self.snapshot()
                if again == now:
                    break
                now = again
                if time.monotonic() - first >= self.longest_wait_s:
                    break
            if stop.is_set():
                return
            changed = {p for p in before.keys() | now.keys() if before.get(p) != now.get(p)}
            before = now
            yield changed
