"""Length-prefixed framing between the host and its parsing workers.

Host -> worker frames are pickles (the worker trusts its host). Worker -> host frames are
JSON: a worker that parsed hostile input is not trusted, and ``json.loads`` cannot run code.
"""

from __future__ import annotations

import os
import select
import struct
import time
from typing import IO, TypedDict

HEADER = struct.Struct("!Q")
MAX_FRAME = 1 << 31


class WorkerSettings(TypedDict):
    """The first frame the host sends a worker (a pickle): how to parse."""

    engine: str
    limits: dict[str, int]  # ``dataclasses.asdict`` of a ``safety.Limits``
    memory_limit: int | None
    test_faults: dict[str, str] | None


class ChannelClosed(EOFError):
    """The other side closed the pipe (a worker that died)."""


class ChannelTimeout(TimeoutError):
    """No complete frame arrived before the deadline."""


def write_frame(stream: IO[bytes], payload: bytes) -> None:
    """Write one frame and flush."""
    stream.write(HEADER.pack(len(payload)))
    stream.write(payload)
    stream.flush()


def read_frame_blocking(stream: IO[bytes]) -> bytes | None:
    """Read one frame (worker side); None at end of input."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    if size > MAX_FRAME:
        raise ValueError(f"frame of {size} bytes")
    payload = stream.read(size)
    if len(payload) < size:
        return None
    return payload


class FrameReader:
    """Reads frames from a raw pipe descriptor with a deadline (host side)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()

    def _fill(self, need: int, deadline: float) -> None:
        while len(self.buffer) < need:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChannelTimeout()
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                raise ChannelTimeout()
            chunk = os.read(self.fd, max(need - len(self.buffer), 1 << 16))
            if not chunk:
                raise ChannelClosed()
            self.buffer += chunk

    def read(self, timeout: float) -> bytes:
        """One frame's payload; raises ``ChannelTimeout`` or ``ChannelClosed``."""
        deadline = time.monotonic() + timeout
        self._fill(HEADER.size, deadline)
        (size,) = HEADER.unpack(bytes(self.buffer[: HEADER.size]))
        if size > MAX_FRAME:
            raise ChannelClosed(f"oversized frame {size}")
        self._fill(HEADER.size + size, deadline)
        payload = bytes(self.buffer[HEADER.size : HEADER.size + size])
        del self.buffer[: HEADER.size + size]
        return payload
