"""A damaged memory database: how it is detected, set aside and replaced, never overwritten.

Why these checks and not ``PRAGMA integrity_check`` at every open: on a 100k-memory database
(835 MiB) ``quick_check`` takes about 0.5 s and ``integrity_check`` 0.9-1.3 s with a warm page
cache, and a cold disk reads the whole file (about 80 MiB/s here), at every start of the Cat
(docs/benchmarks.md, "Store integrity at open"). So every open runs the cheap checks (the file
header: an SQLite file, not truncated below the size it declares; the schema readable), and
``quick_check`` only on files up to ``QUICK_CHECK_MAX_BYTES``. Damage these miss (a bad page
deep in a large file) is caught at first use: every store and manifest operation maps SQLite's
corruption errors to the same recovery.

Recovery: the damaged file and its ``-wal``/``-shm``/``-journal`` companions are moved aside to
``<name>.corrupt-<UTC time>`` (hard link then unlink: an existing file is never replaced), a new
empty database is started in place, and the caller gets ``StoreCorrupt`` naming both files,
what could not be recovered and what to do. Two processes finding the same damage serialise on
an ``flock`` next to the database; the second sees the file was already replaced and only
reconnects.
"""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..errors import StoreCorrupt, StoreError
from ..oslocks import flock_within

log = logging.getLogger(__name__)

#: Files up to this size get ``PRAGMA quick_check`` at open: about 20 ms with a warm page cache,
#: 0.3 s from a cold disk at this size (bench/store_open_bench.py).
QUICK_CHECK_MAX_BYTES = 16 << 20
COMPANIONS = ("", "-wal", "-shm", "-journal")
_MAGIC = b"SQLite format 3\x00"
_CORRUPTION_MARKERS = ("malformed", "file is not a database", "disk image", "corrupt")


def is_corruption(err: BaseException) -> bool:
    """True for SQLite's "the file is damaged" errors (SQLITE_CORRUPT, SQLITE_NOTADB).

    Python 3.10's ``sqlite3`` exposes no error codes, so the message decides; "database is
    locked" and other operational errors are not corruption.
    """
    if not isinstance(err, sqlite3.DatabaseError):
        return False
    text = str(err).lower()
    return any(marker in text for marker in _CORRUPTION_MARKERS)


def header_problem(path: str) -> str | None:
    """What is wrong with the file's 100-byte header, or ``None`` (also for a new, empty file).

    Catches a file that is not SQLite at all and a file truncated below the page count its
    header declares (only trusted when SQLite marked that count valid).
    """
    try:
        with open(path, "rb") as handle:
            header = handle.read(100)
            size = os.fstat(handle.fileno()).st_size
    except FileNotFoundError:
        return None
    if not header:
        return None
    if len(header) < 100 or not header.startswith(_MAGIC):
        return "it is not an SQLite database (bad header)"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    count_valid = header[24:28] == header[92:96]
    if count_valid and pages * page_size > size:
        return f"it is truncated ({size} bytes of the {pages * page_size} its header declares)"
    return None


def quick_check(conn: sqlite3.Connection, path: str) -> str | None:
    """``PRAGMA quick_check`` on small files; the first problems it reports, or ``None``."""
    if path == ":memory:" or os.path.getsize(path) > QUICK_CHECK_MAX_BYTES:
        return None
    rows = [row[0] for row in conn.execute("PRAGMA quick_check(3)").fetchall()]
    return None if rows == ["ok"] else "quick_check: " + "; ".join(rows)


def connect(path: str, busy_timeout_ms: int) -> tuple[sqlite3.Connection, tuple[int, int] | None]:
    """A connection to ``path`` (folders created) and the identity of the file it opened."""
    try:
        if path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                               timeout=busy_timeout_ms / 1000)
    except (sqlite3.Error, OSError) as err:
        raise StoreError(f"cannot open memory database {path!r}: {err}") from err
    return conn, file_identity(path)


def first_problem(path: str, conn: sqlite3.Connection, set_up: Callable[[], None]) -> str | None:
    """Run the open-time checks around ``set_up`` (pragmas, migrations); the damage found."""
    if path != ":memory:":
        problem = header_problem(path)
        if problem is not None:
            return problem
    try:
        set_up()
        return quick_check(conn, path)
    except sqlite3.DatabaseError as err:
        if is_corruption(err):
            return str(err)
        raise StoreError(f"memory database {path!r}: {err}") from err


def file_identity(path: str) -> tuple[int, int] | None:
    """``(device, inode)`` of the database file, to notice it was replaced by someone else."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return info.st_dev, info.st_ino


@contextmanager
def recovery_lock(path: str, timeout: float = 60.0) -> Iterator[None]:
    """Serialise recoveries of one database across processes (``<db>.recovery.lock``)."""
    fd = os.open(f"{path}.recovery.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        if not flock_within(fd, timeout):
            raise StoreCorrupt(f"memory database {path!r} is damaged and another process has "
                               f"been recovering it for over {timeout:.0f} s; restart the Cat",
                               path=path)
        yield
    finally:
        os.close(fd)


def _free_stem(path: str) -> str:
    """``<path>.corrupt-<UTC time>[-n]`` such that no companion name is taken yet."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    for n in range(1, 1000):
        stem = f"{path}.corrupt-{stamp}" + ("" if n == 1 else f"-{n}")
        if not any(os.path.lexists(stem + suffix) for suffix in COMPANIONS):
            return stem
    raise FileExistsError(errno.EEXIST, "no free name to keep the damaged database", path)


def _move_without_replacing(source: str, target: str) -> None:
    try:
        os.link(source, target)  # fails if target exists: nothing is ever overwritten
    except OSError as err:
        if err.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if os.path.lexists(target):  # no hard links here: check, then rename
            raise
        os.rename(source, target)
        return
    os.unlink(source)


def set_aside(path: str) -> tuple[str, ...]:
    """Move the database and its companions to a new ``.corrupt-`` name; the names used."""
    stem = _free_stem(path)
    moved = []
    for suffix in COMPANIONS:
        if os.path.lexists(path + suffix):
            _move_without_replacing(path + suffix, stem + suffix)
            moved.append(stem + suffix)
    return tuple(moved)


def describe(path: str, reason: str, kept: tuple[str, ...], lost: str) -> StoreCorrupt:
    """The error (or notice) the user gets: what, where, what was lost and what to do.

    ``kept`` empty: another connection or process had already set the file aside.
    """
    if kept:
        main = kept[0]
        moved = f"It was moved aside to {main} (nothing was overwritten or deleted)"
    else:
        main = f"{path}.corrupt-<time>"
        moved = f"Another process had already moved it aside to {main}"
    return StoreCorrupt(
        f"the memory database {path} is damaged ({reason}). {moved} and a new, empty database "
        f"was started in its place. Not recovered: {lost}. To salvage them, stop the Cat and "
        f"run `sqlite3 {main} .recover > salvage.sql`, or put a backup back at {path}.",
        path=path, kept_as=kept, reason=reason)


class _FileRepair:
    """Every connection this process has open on one database file, for one repair at a time.

    SQLite deletes a WAL file by name when its last connection closes, so a connection still
    open on the damaged file would, on closing later, delete the new database's WAL: every
    connection of this process is closed before the file is moved, and reopened after.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.members: weakref.WeakSet[DamageControl] = weakref.WeakSet()


_REPAIRS: weakref.WeakValueDictionary[str, _FileRepair] = weakref.WeakValueDictionary()
_REPAIRS_GUARD = threading.Lock()


def _repair_of(path: str) -> _FileRepair:
    if path == ":memory:":
        return _FileRepair(path)  # each in-memory database is its own
    key = os.path.realpath(path)
    with _REPAIRS_GUARD:
        repair = _REPAIRS.get(key)
        if repair is None:
            repair = _REPAIRS[key] = _FileRepair(path)
        return repair


class DamageControl:
    """One connection's part in repairing its database file (a store's or the manifest's).

    ``close`` and ``reopen`` are called under ``lock`` (the owner's connection lock);
    ``reopen`` returns the damage it still finds, if any. ``listeners`` are called with the
    notice once the new database is in place, outside every lock: dense indexes and caches
    built from the old file start over.
    """

    def __init__(self, path: str, lock: threading.RLock, close: Callable[[], None],
                 reopen: Callable[[], str | None], lost: str = "") -> None:
        self.lost = lost
        #: the last ``StoreCorrupt`` notice while this member was open (``None``: none)
        self.notice: StoreCorrupt | None = None
        self.listeners: list[Callable[[StoreCorrupt], None]] = []
        self._lock, self._close, self._reopen = lock, close, reopen
        self._repair = _repair_of(path)
        self._repair.members.add(self)

    def leave(self) -> None:
        """The owner closed its connection: leave the repairs of this file."""
        self._repair.members.discard(self)

    def replace(self, reason: str, opened: tuple[int, int] | None) -> StoreCorrupt:
        """Close every connection, set the file aside (unless another process did), reopen.

        ``opened`` is the identity of the file the failing connection opened; when the file
        at ``path`` is no longer that one, another process has replaced it and only the
        reconnect is needed. Call with the owner's locks held (and the file's writer lock).
        """
        path = self._repair.path
        members = [self, *(m for m in list(self._repair.members) if m is not self)]
        with recovery_lock(path):
            for member in members:
                with member._lock:
                    member._close()
            same = opened is not None and file_identity(path) == opened
            kept = set_aside(path) if same else ()
            problems = []
            for member in members:
                with member._lock:
                    problems.append(member._reopen())
        if problems[0] is not None:
            raise StoreError(f"memory database {path!r}: a new database could not be started "
                             f"after the old one was found damaged: {problems[0]}")
        return describe(path, reason, kept, self.lost)

    def announce(self, notice: StoreCorrupt) -> StoreCorrupt:
        """Keep the notice, log it, tell every member's listeners; returns it to raise."""
        log.error("%s", notice)
        self.notice = notice
        for member in list(self._repair.members):
            member.notice = notice
            for listener in list(member.listeners):
                listener(notice)
        return notice
