"""The SQLite connection under ``MemoryStore``: opened, checked, set up and migrated; one writer
at a time; transactions retried while the file is busy; a damaged file replaced.

Why this shape (docs/threat-model.md):
- One writer at a time: a process-wide lock per database file, then ``BEGIN IMMEDIATE`` retried
  on SQLITE_BUSY, because ``busy_timeout`` alone still let "database is locked" through under
  contention. Callers never see that error; after ``lock_timeout`` seconds they get
  ``StoreError``.
- WAL + ``synchronous=NORMAL`` survives kill -9 with every committed row; on network and
  Docker-Desktop mounts (nfs, cifs, 9p, virtiofs, fuse) the WAL shared memory is not coherent,
  so those use ``journal_mode=DELETE`` + ``synchronous=FULL`` (``support.journal_mode_for``).
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from ..errors import StoreCorrupt, StoreError
from .fts import meta_value
from .integrity import DamageControl, connect, first_problem, is_corruption
from .schema import MIGRATIONS, SCHEMA_VERSION
from .support import journal_mode_for, utc_now

T = TypeVar("T")

_FILE_LOCKS: dict[str, threading.RLock] = {}
_FILE_LOCKS_GUARD = threading.Lock()


def _file_lock(path: str) -> threading.RLock:
    key = path if path == ":memory:" else os.path.realpath(path)
    with _FILE_LOCKS_GUARD:
        return _FILE_LOCKS.setdefault(key, threading.RLock())


def _is_busy(err: sqlite3.OperationalError) -> bool:
    text = str(err).lower()
    return "locked" in text or "busy" in text


class StoreClosed(StoreError):
    """The store (or the ``MemorySystem`` owning it) was closed; create a new one."""


class StoreConnection:
    """One connection guarded by a lock, writes serialised per file (see the module)."""

    def __init__(self, path: str, *, now: Callable[[], str] = utc_now,
                 busy_timeout_ms: int = 5000, lock_timeout: float = 60.0,
                 lost_on_corruption: str) -> None:
        self.path = path
        self._now = now
        self._lock_timeout = lock_timeout
        self._busy_timeout_ms = busy_timeout_ms
        self._lock = threading.RLock()
        self._file_lock = _file_lock(path)
        self._closed = False
        problem = self._open_checked()
        #: damage found and repaired: ``damage.notice``, ``damage.listeners`` (``integrity``)
        self.damage = DamageControl(path, self._lock, lambda: self._conn.close(),
                                              self._open_checked, lost_on_corruption)
        if problem is not None:
            self._replace_damaged(problem)

    # -- connection plumbing ---------------------------------------------------------------
    def _open_checked(self) -> str | None:
        """Connect, set up and migrate; the damage found on the way (``None``: sound)."""
        self._conn, self._identity = connect(self.path, self._busy_timeout_ms)
        return first_problem(self.path, self._conn, self._set_up)

    def _set_up(self) -> None:
        self._conn.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_ms)}")
        self.journal_mode = self._retrying(self._set_journal_mode)
        with self._file_lock, self._lock:
            self._retrying(lambda: self._transaction(self._migrate, "BEGIN IMMEDIATE"))

    def _replace_damaged(self, reason: str) -> StoreCorrupt:
        """Set the damaged file aside and start a new database in place (``integrity``)."""
        with self._file_lock, self._lock:
            notice = self.damage.replace(reason, self._identity)
        return self.damage.announce(notice)

    def damage_found(self, err: sqlite3.Error) -> StoreCorrupt:
        """Recover from a corruption error met in use (here or on another connection to the
        same file); returns the ``StoreCorrupt`` to raise for the failed operation."""
        return self._replace_damaged(str(err))

    @contextmanager
    def _damage_handled(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as err:
            if is_corruption(err):
                raise self.damage_found(err) from err
            raise

    def _set_journal_mode(self) -> str:
        wanted = journal_mode_for(self.path)
        with self._file_lock, self._lock:
            mode = self._conn.execute(f"PRAGMA journal_mode={wanted}").fetchone()[0]
            sync = "NORMAL" if mode == "wal" else "FULL"
            self._conn.execute(f"PRAGMA synchronous={sync}")
        return str(mode)

    def _retrying(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` until it does not fail with SQLITE_BUSY/LOCKED, up to ``lock_timeout``."""
        deadline = time.monotonic() + self._lock_timeout
        pause = 0.002
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as err:
                if not _is_busy(err):
                    raise StoreError(f"memory database {self.path!r}: {err}") from err
                if time.monotonic() > deadline:
                    raise StoreError(f"memory database {self.path!r} stayed locked for "
                                     f"{self._lock_timeout:.0f} s; is another program holding "
                                     "a transaction open?") from err
                time.sleep(pause * (0.5 + random.random()))
                pause = min(pause * 2, 0.1)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed(f"memory database {self.path!r} is closed")

    def _write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in one ``BEGIN IMMEDIATE`` transaction; retried as a whole when busy."""
        with self._damage_handled(), self._file_lock, self._lock:
            self._check_open()
            return self._retrying(lambda: self._transaction(fn, "BEGIN IMMEDIATE"))

    def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in one read transaction (a consistent snapshot)."""
        with self._damage_handled(), self._lock:
            self._check_open()
            return self._retrying(lambda: self._transaction(fn, "BEGIN"))

    def _transaction(self, fn: Callable[[sqlite3.Connection], T], begin: str) -> T:
        conn = self._conn
        conn.execute(begin)
        try:
            result = fn(conn)
            conn.execute("COMMIT")
            return result
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _migrate(self, conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        current = row[0] or 0
        if current > SCHEMA_VERSION:
            raise StoreError(f"memory database {self.path!r} has schema {current}, newer than "
                             f"this code ({SCHEMA_VERSION}); upgrade the plugin")
        for version, statements in MIGRATIONS:
            if version > current:
                for sql in statements:
                    conn.execute(sql)
                conn.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))

    def close(self) -> None:
        """Close the connection; idempotent. Later calls raise ``StoreClosed``."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self.damage.leave()
                self._conn.close()

    @property
    def closed(self) -> bool:
        return self._closed

    # -- generation ----------------------------------------------------------------------------
    @staticmethod
    def _bump(conn: sqlite3.Connection) -> tuple[int, int]:
        before = int(conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])
        conn.execute("UPDATE meta SET value = ? WHERE key='generation'", (str(before + 1),))
        return before, before + 1

    def meta_value(self, key: str) -> str | None:
        """A value of the store's small key/value table (None if unset)."""
        return self._read(lambda c: meta_value(c, key))

    def set_meta_value(self, key: str, value: str) -> None:
        self._write(lambda c: c.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value)))

    def generation(self) -> int:
        """Counter bumped by every memory change, from any connection or process."""
        return self._read(lambda c: int(
            c.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0]))
