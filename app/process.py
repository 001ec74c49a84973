"""The plugin's process-wide state, and the hand-over between imports of its code.

The Cat imports the plugin's modules when it activates the plugin and removes them from
``sys.modules`` when it deactivates it (a toggle in the admin panel, a re-uploaded zip); the
next activation imports them again (docs/cat-plugin-api.md, "Toggles and re-uploads"). Each
import is a *generation*: its own module globals, its own classes, its own threads. Two
generations must never serve users side by side (a proposal recorded in one registry, the
"go" read from another), and nothing the old one started may keep running for nobody.

What lives here:

* ``GENERATION``: this import's projects (``registry``), users (``sessions``), stop signal
  (``lifecycle``) and background threads;
* the process's *home*, an entry of ``sys.modules`` that no re-import replaces, keyed by the
  plugin's package name: it records which generation is live and holds the one hook that stops
  the live generation when the interpreter exits;
* ``Generation.claim``: every entry point calls it; the first call makes this generation the
  live one, after retiring the previous one (its loops stopped, its sandboxes and parser
  workers killed, its threads joined for a few seconds, its projects closed). The new sessions
  read each user's state from the working memory: a draft the old generation was running is
  reported as interrupted there, and "continue" resumes it from its last good draft;
* ``Generation.stale``: retired, or orphaned (its modules are no longer the ones the Cat has
  imported, e.g. after a re-upload that left the plugin off): such code only winds down.
"""

from __future__ import annotations

import atexit
import functools
import logging
import sys
import threading
import time
import types
from collections.abc import Callable

from ..codegen import SANDBOX_LAUNCHER
from ..memory import CLONE_WORKER, EXTRACT_WORKER_MARKER
from .drafting.sessions import Sessions
from .host.environment import PLUGIN_PACKAGE
from .host.lifecycle import LIFECYCLE, Lifecycle, kill_children
from .projects.registry import Registry

log = logging.getLogger(__name__)

#: Where the home lives in ``sys.modules``: not a module name the Cat imports or removes, keyed
#: by the plugin's package (``cat.plugins.<id>`` in the Cat, the test alias under pytest).
HOME_KEY = f"code_working_memory.process-home:{PLUGIN_PACKAGE}"
#: Processes the plugin starts, recognised on the command line when they must be stopped.
CHILD_MARKERS = (SANDBOX_LAUNCHER, EXTRACT_WORKER_MARKER, CLONE_WORKER)
#: How long a retiring generation waits for its threads before closing its projects.
RETIRE_JOIN_S = 5.0


class Generation:
    """One import of the plugin's modules (see the module docstring)."""

    def __init__(self, lifecycle: Lifecycle, registry: Registry, sessions: Sessions) -> None:
        self.lifecycle = lifecycle
        self.registry = registry
        self.sessions = sessions
        self._claim_lock = threading.Lock()
        self._retire_lock = threading.Lock()
        self._claimed = False
        self._retired = False
        self._threads: list[threading.Thread] = []
        lifecycle.on_orphaned = self.retire_soon

    # -- who is live ------------------------------------------------------------------------
    @property
    def stale(self) -> bool:
        """Retired or orphaned: this code must not start work or answer for the plugin."""
        return self.lifecycle.should_stop()

    def claim(self) -> None:
        """Make this generation the live one (idempotent; cheap after the first call)."""
        if self._claimed:
            return
        with self._claim_lock:
            if self._claimed:
                return
            home = _home()
            with home.lock:
                previous, home.live = home.live, self
                _install_exit_hook(home)
            if previous is not None and previous is not self:
                log.info("code working memory: a new import of the plugin takes over")
                previous.retire()
            self._claimed = True

    # -- background work --------------------------------------------------------------------
    def start_thread(self, target: Callable[[], None], *, name: str) -> threading.Thread:
        """A daemon thread this generation joins when it retires."""
        thread = threading.Thread(target=target, name=name, daemon=True)
        with self._claim_lock:
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return thread

    def retire_soon(self) -> None:
        """Retire from another thread (callable from a thread this generation would join)."""
        if not self._retired:
            threading.Thread(target=self.retire, name="codemem-retire", daemon=True).start()

    # -- winding down -----------------------------------------------------------------------
    def retire(self, join_s: float = RETIRE_JOIN_S) -> None:
        """Stop everything this generation started, wait for its threads, close its projects."""
        with self._retire_lock:
            if self._retired:
                return
            self._wind_down(join_s)
            self._retired = True

    def exit(self) -> None:
        """At interpreter exit: stop everything now, without waiting for threads."""
        self._wind_down(0.0)

    def _wind_down(self, join_s: float) -> None:
        steps: list[tuple[str, Callable[[], None]]] = [
            ("stop signal", self.lifecycle.shut_down),
            ("stop draft loops", self.sessions.stop_all),
            ("kill sandboxes and parser workers", self._kill_children),
            ("wait for threads", lambda: self._join(join_s)),
            ("close projects", self.registry.close_all),
        ]
        for name, step in steps:
            try:
                step()
            except Exception as err:  # crash boundary: winding down must go on
                log.warning("winding down (%s) failed: %s", name, err)

    def _kill_children(self) -> None:
        kill_children(CHILD_MARKERS, self.registry.data_folders())

    def _join(self, seconds: float) -> None:
        if seconds <= 0:
            return
        deadline = time.monotonic() + seconds
        with self._claim_lock:
            threads = list(self._threads)
        threads += [s.worker.thread for s in self.sessions.all() if s.worker is not None]
        threads += [p.indexer for p in self.registry.projects() if p.indexer is not None]
        for thread in threads:
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))


class _Home(types.ModuleType):
    """The process-wide record (a module object, so it can sit in ``sys.modules``)."""

    lock: threading.Lock
    live: Generation | None
    exit_hook: bool


_HOME_GUARD = threading.Lock()


def _home() -> _Home:
    """The process's home, created by the first generation that needs it."""
    with _HOME_GUARD:
        home = sys.modules.get(HOME_KEY)
        if not isinstance(getattr(home, "lock", None), type(threading.Lock())):
            home = _Home(HOME_KEY, "Code Working Memory's process-wide state")
            home.lock, home.live, home.exit_hook = threading.Lock(), None, False
            sys.modules[HOME_KEY] = home
        return home  # type: ignore[return-value]


def _install_exit_hook(home: _Home) -> None:
    """Once per process: stop the live generation before Python joins executor threads."""
    if home.exit_hook:
        return
    home.exit_hook = True
    hook = functools.partial(_exit_live, home)
    register = getattr(threading, "_register_atexit", None)
    try:
        if register is None:
            raise RuntimeError("threading._register_atexit is unavailable")
        register(hook)  # runs before the executor and thread joins
    except RuntimeError:  # already shutting down, or another Python: the late hook
        atexit.register(hook)


def _exit_live(home: _Home) -> None:
    live = home.live
    if live is not None:
        live.exit()


def retire_live() -> None:
    """The Cat deactivates the plugin: the live generation winds down in the background."""
    home = sys.modules.get(HOME_KEY)
    live = getattr(home, "live", None)
    if live is not None:
        live.retire_soon()


GENERATION = Generation(LIFECYCLE, Registry(), Sessions())
