"""The process's sessions, one per user and data folder, each loaded from its state's owner.

A session is made the first time a user is seen in this import of the plugin (after a restart,
a toggle or a re-upload too): its state comes from ``state_store.StateStore``, the one owner;
a user the owner does not know yet, whose working memory holds the state an older version of
the plugin kept there, has it adopted once (saved to the owner, never read again).
"""

from __future__ import annotations

import logging
import threading

from ..host.cat_types import Storage
from .session import Session
from .state import SessionState, state_in
from .state_store import StateStore

log = logging.getLogger(__name__)


class Sessions:
    """The process's sessions, keyed by data folder and user id; each one's state is read from
    its owner the first time (a user unknown there adopts what an older plugin left in the
    working memory)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[tuple[str, str], Session] = {}
        self._stores: dict[str, StateStore] = {}

    def of(self, user_id: str, data_dir: str, working_memory: Storage) -> Session:
        with self._lock:
            session = self._sessions.get((data_dir, user_id))
            if session is None:
                store = self._stores.setdefault(data_dir, StateStore(data_dir))
                session = Session(user_id, _owned_state(store, user_id, working_memory), store)
                self._sessions[(data_dir, user_id)] = session
            return session

    def of_user(self, user_id: str) -> Session | None:
        """The user's session made last in this import (any data folder), if any."""
        with self._lock:
            found = [s for (_, user), s in self._sessions.items() if user == user_id]
            return found[-1] if found else None

    def all(self) -> list[Session]:
        with self._lock:
            return list(self._sessions.values())

    def stop_all(self) -> None:
        """Ask every running loop to stop (at shutdown)."""
        for session in self.all():
            if session.worker is not None:
                session.worker.stop_event.set()


def _owned_state(store: StateStore, user: str, working_memory: Storage) -> SessionState:
    """The user's state from its owner; on first sight, the working memory's (an older
    plugin's), adopted and saved; else a fresh one."""
    try:
        stored = store.load(user)
    except OSError as err:
        log.warning("could not read the state of %s: %s", user, err)
        stored = None
    if stored is not None:
        state = SessionState.from_dict(stored)
        if not state.warnings:
            return state
    adopted = state_in(working_memory)
    if adopted is None:
        return SessionState()
    try:
        store.save(user, adopted.to_dict(), durable=True)
    except OSError as err:
        log.warning("could not save the adopted state of %s: %s", user, err)
    return adopted
