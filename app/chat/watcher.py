"""The index that follows the user's edits: the configured repository watched while the plugin
is active, each debounced batch of changes re-indexed at once (the incremental run: only files
whose content hash changed are parsed again).

Every call from the Cat (a turn, a tool, a REST route, the start-up) passes its workspace to
``follow_edits``: with the setting "Follow edits" on and a repository configured, one watcher
thread of this import's generation watches it (``memory.watch_changes``: file events, or
``stat`` polling on network mounts); a changed repository path, or the setting turned off, stops
the previous watcher. The thread ends with its generation (a toggle, a re-upload, the Cat's
shutdown: ``process.Generation`` joins it) or at its own stop. The newest workspace seen is the
one a re-index uses, so a run never applies stale settings to the project.

One run per burst of saves: a batch ends after the setting "Follow edits: quiet period" without
an event (``memory.watch_changes``), and runs never overlap: the watch's own runs follow one
another in its thread (what is saved meanwhile is the next batch), and a run waits for the
project's index lock, which a requested run holds.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field

from ...memory import CodeMemoryError, watch_changes, watch_source
from ..host.environment import cat_data_dir
from ..host.lifecycle import LIFECYCLE
from ..process import GENERATION
from ..projects.indexing import index_project
from ..projects.workspace import Workspace

log = logging.getLogger(__name__)


@dataclass
class Watch:
    """One watched repository: its thread, its stop, and what it did (for the status)."""

    root: str
    workspace: Workspace
    source: str
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    #: The quiet period that ends a batch (the setting, as it was when the watch started).
    quiet_s: float = 0.3
    runs: int = 0
    #: when the last batch of changes arrived, and when its re-index finished (time.time())
    last_change: float = 0.0
    last_indexed: float = 0.0

    @property
    def alive(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


class _Stopping:
    """The watch's stop: its own event, or this generation winding down."""

    def __init__(self, own: threading.Event) -> None:
        self._own = own

    def is_set(self) -> bool:
        return self._own.is_set() or LIFECYCLE.should_stop()

    def wait(self, timeout: float | None = None) -> bool:
        self._own.wait(timeout)
        return self.is_set()


_lock = threading.Lock()
_watches: dict[str, Watch] = {}


def follow_edits(workspace: Workspace) -> Watch | None:
    """Watch ``workspace``'s repository when the setting is on (and nothing else); the watch,
    or None. Cheap when nothing changes: a dictionary lookup and a ``stat``."""
    root = _watched_root(workspace)
    with _lock:
        for other in [r for r in _watches if r != root]:
            _watches.pop(other).stop.set()
        watch = _watches.get(root) if root else None
        if watch is not None and watch.alive and watch.quiet_s == _quiet(workspace):
            watch.workspace = workspace
            return watch
        if watch is not None:  # a new quiet period: the next watch takes over
            watch.stop.set()
        if not root or GENERATION.stale:
            return None
        watch = _watches[root] = Watch(root, workspace, watch_source(root),
                                       quiet_s=_quiet(workspace))
        watch.thread = GENERATION.start_thread(lambda: _run(watch),
                                               name=f"codemem-watch-{root}")
        return watch


def watching() -> list[Watch]:
    """This import's live watches."""
    with _lock:
        return [w for w in _watches.values() if w.alive]


def stop_watching(join_s: float = 0.0) -> None:
    """Stop every watch of this import (and wait up to ``join_s`` for each thread)."""
    with _lock:
        stopped = list(_watches.values())
        _watches.clear()
    for watch in stopped:
        watch.stop.set()
    for watch in stopped:
        if watch.thread is not None and watch.thread is not threading.current_thread():
            watch.thread.join(join_s)


def _quiet(workspace: Workspace) -> float:
    return workspace.settings.watch_quiet_s


def _watched_root(workspace: Workspace) -> str:
    path = workspace.config.repository_path
    if not workspace.settings.follow_edits or not path:
        return ""
    root = os.path.realpath(os.path.expanduser(path))
    return root if os.path.isdir(root) else ""


def _run(watch: Watch) -> None:
    stopping = _Stopping(watch.stop)
    try:
        for batch in watch_changes(watch.root, stopping, quiet_s=watch.quiet_s):
            if not _relevant(batch, watch.workspace):
                continue
            watch.last_change = time.time()
            _reindex(watch)
            watch.runs += 1
            watch.last_indexed = time.time()
    except Exception:  # crash boundary of a background thread: logged, the Cat runs on
        if not stopping.is_set():
            log.exception("watching %s failed; the index follows edits again after a restart",
                          watch.root)


def _relevant(batch: set[str], workspace: Workspace) -> bool:
    """Whether a batch holds a change of the user's: the plugin's own data folder (should it
    be inside the repository) never triggers a run, or a run would trigger the next."""
    skipped = [os.path.realpath(d) + os.sep for d in (workspace.config.data_dir, cat_data_dir())
               if d]
    return any(not os.path.realpath(p).startswith(tuple(skipped)) for p in batch)


def _reindex(watch: Watch) -> None:
    """One incremental run over the repository (unchanged files cost a ``stat``); a failed
    run is logged and the watch goes on (the next save tries again)."""
    try:
        project = watch.workspace.project()
        index_project(project, lambda _text: None, trigger="watcher")
    except CodeMemoryError as err:
        log.warning("re-indexing %s after an edit failed: %s", watch.root, err)
    except Exception as err:  # crash boundary of one run, e.g. the Cat shutting down
        if not LIFECYCLE.stopping.is_set():
            log.warning("re-indexing %s after an edit failed: %s: %s", watch.root,
                        type(err).__name__, err)
