"""Bounded waits on OS file locks (``flock``), shared by every cross-process lock of ``memory``.

A ``flock`` belongs to an open file description, so two threads that each ``os.open`` the same
file conflict exactly like two processes do: one primitive serialises both. The kernel drops the
lock when its holder dies, so such a lock can never go stale. Waiting is bounded: a caller that
cannot get the lock in time gets ``False`` and raises its own, clear error.
"""

from __future__ import annotations

import errno
import fcntl
import time

_BUSY = (errno.EAGAIN, errno.EACCES)


def flock_within(fd: int, timeout: float) -> bool:
    """Take an exclusive ``flock`` on ``fd``, waiting at most ``timeout`` seconds.

    Returns ``False`` when another holder kept it that long. Other ``OSError`` (a file system
    without ``flock``) propagates, so the caller can choose another lock.
    """
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError as err:
            if err.errno not in _BUSY:
                raise
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
