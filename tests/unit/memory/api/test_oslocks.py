"""Bounded flock waits (memory/oslocks.py): two open files of one path conflict like processes."""

from __future__ import annotations

import os
import time

from codemem.memory.oslocks import flock_within


def test_second_holder_waits_at_most_its_timeout_then_gets_the_lock_once_freed(tmp_path):
    path = str(tmp_path / "lock")
    first = os.open(path, os.O_CREAT | os.O_RDWR)
    second = os.open(path, os.O_RDWR)
    try:
        assert flock_within(first, 1.0)
        started = time.monotonic()
        assert not flock_within(second, 0.1)
        assert 0.1 <= time.monotonic() - started < 2.0
        os.close(first)  # the kernel drops the lock with its holder
        first = -1
        assert flock_within(second, 1.0)
    finally:
        for fd in (first, second):
            if fd >= 0:
                os.close(fd)
