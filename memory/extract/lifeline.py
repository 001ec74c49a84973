"""Parsing workers die with the process that started them, whatever kills it.

Why: after ``docker stop`` (or a SIGKILL of the Cat) a worker busy on a slow file, or one whose
pipes another process still held, outlived the Cat. A worker now asks the kernel for SIGKILL when
its parent goes (``PR_SET_PDEATHSIG``; delivered by the kernel, so a worker stuck in native parser
code dies too). The kernel sends that signal when the *thread* that forked the worker ends, not
the process, so every worker is started from one long-lived launcher thread: the signal then
fires exactly when the whole process dies.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import queue
import signal
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

PR_SET_PDEATHSIG = 1
T = TypeVar("T")

#: Jobs for the launcher thread; each one records its own outcome for the caller waiting on it.
_requests: queue.Queue[Callable[[], None]] = queue.Queue()
_launcher: threading.Thread | None = None
_launcher_guard = threading.Lock()


def _serve() -> None:
    while True:
        _requests.get()()


def launch(start: Callable[[], T]) -> T:
    """Run ``start`` (which forks a child) on the launcher thread; return what it returns."""
    global _launcher
    with _launcher_guard:
        if _launcher is None or not _launcher.is_alive():
            _launcher = threading.Thread(target=_serve, name="codemem-launcher", daemon=True)
            _launcher.start()
    values: list[T] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def job() -> None:
        try:
            values.append(start())
        except BaseException as err:  # noqa: BLE001 - handed back to the caller's thread
            errors.append(err)
        finally:
            done.set()

    _requests.put(job)
    done.wait()
    if errors:
        raise errors[0]
    return values[0]


def die_with_parent(parent_pid: int) -> None:
    """In a child: be SIGKILLed when the parent dies; exit now if it already has.

    Linux only (``prctl``); elsewhere the worker still exits when its pipes close.
    """
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os._exit(0)
