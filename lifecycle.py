"""COMPOSITION: ending the plugin's work quickly when the Cat stops.

Why the Cat used to need over 30 s to stop (measured, docs/architecture.md "Shutdown"): uvicorn
returns promptly on SIGTERM, but Python's exit then joins every ``ThreadPoolExecutor`` worker
ever started (``concurrent.futures`` registers that join with ``threading._register_atexit``),
daemon or not the thread that created the pool. The draft loop runs its steps on such pools, and
a step blocked in an LLM call or a sandboxed test run kept the process alive until that call
ended (up to the test timeout, 60 s by default). Meanwhile the parser workers and git helpers,
started in their own sessions, outlived the Cat.

The fix, in three parts:

* the plugin's LLM calls run in daemon threads, and the pool thread that waits for one gives up
  as soon as the process stops (:func:`call_abandonably`);
* :class:`Lifecycle` registers one callback that runs *before* those joins (threading-atexit
  callbacks run last registered first): it sets ``stopping``, asks every session to stop, kills
  the sandboxes and parser workers still running and closes the projects;
* a task interrupted this way keeps its phase, so the next Cat reports it and offers "continue".
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class ShuttingDown(RuntimeError):
    """The process is stopping: the call was abandoned (the work resumes after a restart)."""


class Lifecycle:
    """The process-wide stop signal and the callbacks that release the plugin's resources."""

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[tuple[str, Callable[[], None]]] = []
        self._installed = False

    def on_shutdown(self, name: str, callback: Callable[[], None]) -> None:
        """Run ``callback`` when the process stops (in registration order)."""
        with self._lock:
            self._callbacks.append((name, callback))

    def install(self) -> None:
        """Hook into the interpreter's exit once (never at import: the Cat imports every file)."""
        with self._lock:
            if self._installed:
                return
            self._installed = True
        register = getattr(threading, "_register_atexit", None)
        try:
            if register is None:
                raise RuntimeError("threading._register_atexit is unavailable")
            register(self.shut_down)  # runs before the executor and thread joins
        except RuntimeError:  # already shutting down, or another Python: the late hook
            atexit.register(self.shut_down)

    def shut_down(self) -> None:
        """Stop everything now; each callback is isolated so one failure cannot block the rest."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        with self._lock:
            callbacks = list(self._callbacks)
        for name, callback in callbacks:
            try:
                callback()
            except Exception as err:  # crash boundary: shutdown must go on
                log.warning("shutdown step %s failed: %s", name, err)


def call_abandonably(fn: Callable[[str], T], arg: str, stopping: threading.Event,
                     poll_s: float = 0.2) -> T:
    """``fn(arg)`` in a daemon thread; raises ``ShuttingDown`` if the process stops meanwhile.

    The caller may be a ``ThreadPoolExecutor`` worker, which the interpreter joins at exit: it
    must not stay blocked in a network call the process no longer needs.
    """
    if stopping.is_set():
        raise ShuttingDown("the Cat is stopping")
    done = threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn(arg)
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
