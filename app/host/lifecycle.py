"""Ending the plugin's work quickly, when the Cat stops or retires this code.

Python's exit joins every ``ThreadPoolExecutor`` worker ever started (``concurrent.futures``
registers that join with ``threading._register_atexit``), daemon or not the thread that created
the pool. The draft loop runs its steps on such pools, so a step blocked in an LLM call or a
sandboxed test run would hold the process for as long as that call lasts (docs/architecture.md,
"Shutdown", has the measurements). Hence:

* the plugin's LLM calls run in daemon threads, and the thread that waits for one gives up as
  soon as the work is to stop (:func:`call_abandonably`);
* a :class:`Lifecycle` holds the stop signal; ``app/process.py`` sets it and releases what the
  plugin started (draft loops, sandboxes, parser workers, projects) when the interpreter exits
  (before those joins) and when a newer import of the plugin takes over;
* a task interrupted this way keeps its phase, so the next turn reports it and offers
  "continue".
"""

from __future__ import annotations

import contextvars
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class ShuttingDown(RuntimeError):
    """The process is stopping: the call was abandoned (the work resumes after a restart)."""


class Lifecycle:
    """A stop signal, and a watch on the module the Cat would remove when it unloads this
    generation of the plugin (what the stop releases, ``process.Generation`` winds down)."""

    def __init__(self, watched: tuple[str, dict[str, object]] | None = None) -> None:
        self.stopping = threading.Event()
        #: Called once when the watched module was removed or replaced (see ``should_stop``).
        self.on_orphaned: Callable[[], None] | None = None
        self._watched = watched

    def shut_down(self) -> None:
        """Stop now: every abandonable call gives up, every loop ends at its next check."""
        self.stopping.set()

    @property
    def orphaned(self) -> bool:
        """The watched module is no longer the one in ``sys.modules``: the Cat unloaded (or
        replaced) this code without telling it, as a re-upload does."""
        if self._watched is None:
            return False
        name, namespace = self._watched
        module = sys.modules.get(name)
        return module is None or vars(module) is not namespace

    def should_stop(self) -> bool:
        """Whether work of this generation must end (checked by long-running loops)."""
        if self.stopping.is_set():
            return True
        if not self.orphaned:
            return False
        self.stopping.set()
        callback, self.on_orphaned = self.on_orphaned, None
        if callback is not None:
            callback()
        return True


#: This generation's lifecycle: ``app/process.py`` stops it at interpreter exit or when a newer
#: import of the plugin takes over; it notices by itself when the Cat unloaded this module.
LIFECYCLE = Lifecycle(watched=(__name__, globals()))


def call_abandonably(fn: Callable[[str], T], arg: str, stopping: threading.Event,
                     poll_s: float = 0.2) -> T:
    """``fn(arg)`` in a daemon thread; raises ``ShuttingDown`` if the process stops meanwhile.

    The caller may be a ``ThreadPoolExecutor`` worker, which the interpreter joins at exit: it
    must not stay blocked in a network call the process no longer needs. ``fn`` runs in the
    caller's context (its context variables: the turn's LLM, the request's meter).
    """
    if stopping.is_set():
        raise ShuttingDown("the Cat is stopping")
    done = threading.Event()
    box: dict[str, Any] = {}  # Any: ``fn``'s result (a ``T``) or the error it raised
    context = contextvars.copy_context()

    def run() -> None:
        try:
            box["value"] = context.run(fn, arg)
        except BaseException as err:  # handed to the caller below
            box["error"] = err
        finally:
            done.set()

    threading.Thread(target=run, name="codemem-llm-call", daemon=True).start()
    while not done.wait(poll_s):
        if stopping.is_set():
            raise ShuttingDown("the Cat is stopping")
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


def kill_children(markers: Iterable[str], folders: Iterable[str] = ()) -> list[int]:
    """Kill the process groups of this process's children started by the plugin.

    A child is the plugin's when its command line contains one of ``markers`` (the sandbox
    launcher's path, the parser worker's module alias) or its working directory is inside one
    of ``folders`` (git helpers run in the draft history's folder). Linux only (``/proc``);
    elsewhere nothing is found. Returns the pids signalled.
    """
    me = os.getpid()
    wanted = [m for m in markers if m]
    roots = [os.path.realpath(f).rstrip(os.sep) + os.sep for f in folders if f]
    killed = []
    for pid in _children(me):
        if _matches(pid, wanted, roots):
            _kill_group(pid)
            killed.append(pid)
    return killed


def _children(parent: int) -> list[int]:
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    found = []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and fields[1] == str(parent) and fields[0] != "Z":
            found.append(int(entry))
    return found


def _matches(pid: int, markers: list[str], roots: list[str]) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            cmdline = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return False
    if any(marker in cmdline for marker in markers):
        return True
    try:
        cwd = os.path.realpath(os.readlink(f"/proc/{pid}/cwd")) + os.sep
    except OSError:
        return False
    return any(cwd.startswith(root) for root in roots)


def _kill_group(pid: int) -> None:
    """SIGKILL the child's process group when it leads one, else the child alone."""
    try:
        group = os.getpgid(pid)
        if group == pid and group != os.getpgid(0):
            os.killpg(group, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
