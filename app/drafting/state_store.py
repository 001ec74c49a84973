"""The one owner of each user's code-generation state: a file per user in the data folder.

Why here and not in the Cat's working memory: the Cat loads a user's working memory when a
message arrives and writes its own copy back when the turn ends, with the ``file_system`` cache
by pickling it into a file it does not write atomically; a worker thread that read or wrote that
file raced the Cat (a copy loaded before a draft finished overwrote the outcome; a file read
while the Cat was writing it raised ``EOFError`` and killed the draft's thread). So the state
(phase, task, proposal, the file question, drafts, the last run's outcome, the scratchpad) lives
here: ``conversations/<key>.json`` in the plugin's data folder, written whole and atomically
(temporary file, rename; ``fsync`` when ``durable``) under a lock held across threads and
processes. The session (``session.Session``) is its one writer, under the session's lock; the
working memory gets a view of it from the Cat's own thread at the end of a turn
(docs/architecture.md, "One owner"). A file that cannot be read is set aside and reported,
never fatal.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import tempfile
import threading
import time
from typing import Any

log = logging.getLogger(__name__)

#: The folder under the plugin's data folder.
FOLDER = "conversations"
#: Version of the file's layout (the state's own layout carries its version too).
FILE_VERSION = 1


class StateStore:
    """Every user's state under one data folder (thread-safe; one per folder and process)."""

    def __init__(self, data_dir: str) -> None:
        self.folder = os.path.join(data_dir, FOLDER)
        self._lock = threading.Lock()

    def path_of(self, user: str) -> str:
        """The user's file: named by a hash (a user id may hold any character)."""
        key = hashlib.sha256(user.encode("utf-8")).hexdigest()[:24]
        return os.path.join(self.folder, f"{key}.json")

    def load(self, user: str) -> dict[str, Any] | None:  # Any: JSON
        """The user's stored state (``None``: none yet, or unreadable and set aside)."""
        path = self.path_of(user)
        with self._lock, self._locked():
            try:
                with open(path, encoding="utf-8") as handle:
                    data = json.load(handle)
            except FileNotFoundError:
                return None
            except (OSError, ValueError) as err:
                self._set_aside(path, err)
                return None
        if not isinstance(data, dict) or data.get("user") != user \
                or not isinstance(data.get("state"), dict):
            log.warning("code working memory: %s holds no state of this user; ignored", path)
            return None
        state: dict[str, Any] = data["state"]
        return state

    def save(self, user: str, state: dict[str, Any], *, durable: bool = False) -> None:  # Any
        """Replace the user's state (atomically; ``durable``: on disk before returning)."""
        path = self.path_of(user)
        body = json.dumps({"version": FILE_VERSION, "user": user, "state": state})
        with self._lock, self._locked():
            fd, tmp = tempfile.mkstemp(prefix=".state-", dir=self.folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(body)
                    if durable:
                        handle.flush()
                        os.fsync(handle.fileno())
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise

    @contextlib.contextmanager
    def _locked(self):  # type: ignore[no-untyped-def]
        """The folder's lock file, held exclusively (other imports and processes wait)."""
        os.makedirs(self.folder, exist_ok=True)
        with open(os.path.join(self.folder, ".lock"), "a", encoding="utf-8") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            yield

    @staticmethod
    def _set_aside(path: str, err: Exception) -> None:
        aside = f"{path}.unreadable-{int(time.time())}"
        with contextlib.suppress(OSError):
            os.replace(path, aside)
        log.warning("code working memory: state file %s unreadable (%s); set aside as %s",
                    path, err, aside)
