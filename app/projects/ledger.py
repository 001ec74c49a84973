"""What of one user's tasks another user's prompts may see.

A project (its memories, its draft history) is shared by every user who works on the same
repository. Three kinds of task material live there: the draft history's episodes (every commit,
also stored as an ``episode`` memory), the notes archived when a task is finished
(``task_note`` memories) and the scratchpad itself (only in its user's working memory). Without
a rule, user B's draft prompts would list the episodes of user A's *running* task ("related
episodes of other tasks") and the associative context would recall every user's task notes.

The rules: an unfinished task's material reaches its own user's prompts only; a finished
task's (one whose notes were archived) reaches its own user's, and everyone's when the admin
turns on "Share finished tasks with every user". ``TaskLedger`` records who owns which task and
whether it is finished, in the project's folder, so the rule holds across restarts.

Where a task's draft loop stands is not kept here: that is the user's state, whose one owner
is ``app/drafting/state_store.py``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ...codegen import EpisodeRecord
from ...memory import SOURCE_ENTITY, CommitIndex, Filters, Metadata

log = logging.getLogger(__name__)

#: Memory types every user may see (the code, its documentation, debugging sessions, and the
#: associative sources' entities: other repositories, libraries, docs).
SHARED_TYPES = ("code_entity", SOURCE_ENTITY, "documentation", "debugging_session")
TASK_NOTE = "task_note"


class TaskLedger:
    """Who owns each task of a project and which tasks are finished (a small JSON file, re-read
    under a file lock before every change, so two imports of the plugin in one process never
    undo each other's records)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._tasks: dict[str, dict[str, object]] = self._load()

    def _load(self) -> dict[str, dict[str, object]]:
        try:
            with open(self.path, encoding="utf-8") as handle:
                data = json.load(handle)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as err:  # a damaged ledger hides tasks, never shows them
            log.warning("task ledger %s unreadable (%s): starting an empty one", self.path, err)
            return {}
        tasks = data.get("tasks") if isinstance(data, dict) else None
        return {str(k): dict(v) for k, v in (tasks or {}).items() if isinstance(v, dict)}

    def _save(self) -> None:
        folder = os.path.dirname(self.path) or "."
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".ledger-", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({"version": 1, "tasks": self._tasks}, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    @contextlib.contextmanager
    def _changing(self) -> Iterator[dict[str, dict[str, object]]]:
        """The tasks as the file holds them now, saved atomically after the change."""
        folder = os.path.dirname(self.path) or "."
        os.makedirs(folder, exist_ok=True)
        with self._lock, open(self.path + ".lock", "a", encoding="utf-8") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            self._tasks = self._load()
            yield self._tasks
            self._save()

    def open_task(self, task_id: str, user: str) -> None:
        """Record ``user`` as the owner of a new, unfinished task."""
        with self._changing() as tasks:
            tasks[task_id] = {"user": user, "finished": False}

    def finish(self, task_id: str) -> None:
        """Mark a task finished (its notes were archived)."""
        with self._changing() as tasks:
            if task_id in tasks:
                tasks[task_id]["finished"] = True

    def owner(self, task_id: str) -> str | None:
        """The user who owns ``task_id``, or None for a task the ledger does not know."""
        with self._lock:
            entry = self._tasks.get(task_id)
            return None if entry is None else str(entry.get("user", ""))

    def tasks_of(self, user: str) -> dict[str, bool]:
        """``user``'s own tasks, each with whether it is finished."""
        with self._lock:
            return {task: bool(entry.get("finished")) for task, entry in self._tasks.items()
                    if entry.get("user") == user}

    def visible_tasks(self, user: str, *, share_finished: bool) -> frozenset[str]:
        """The tasks whose material ``user``'s prompts may contain."""
        with self._lock:
            return frozenset(task for task, entry in self._tasks.items()
                             if entry.get("user") == user
                             or (share_finished and entry.get("finished")))


def context_filter(user: str, visible: frozenset[str], *, share_finished: bool,
                   exclude_task: str = "") -> Filters:
    """The metadata filter of a task's combined retrieval: code, docs, and allowed task material.

    Task notes carry their user (``user``); episodes only their task id, so they are matched
    against the ledger's visible tasks. The running task's own episodes come from its history,
    not from here (``exclude_task``).
    """
    notes: dict[str, object] = {"type": TASK_NOTE}
    if not share_finished:
        notes["user"] = user
    clauses: list[Filters] = [{"type": {"$in": list(SHARED_TYPES)}}, notes]
    episodes = sorted(visible - {exclude_task})
    if episodes:
        clauses.append({"kind": "episode", "task_id": {"$in": episodes}})
    return {"$or": clauses}


@dataclass(frozen=True)
class RecalledEpisode:
    """An episode of another (allowed) task, as the loop's history context renders it."""

    task_id: str
    name: str
    verdict: str
    reason: str
    #: the commit's time (seconds since the epoch, as the draft history records it)
    time: int = 0
    iteration: int = 0

    @classmethod
    def from_memory(cls, metadata: Metadata, text: str) -> RecalledEpisode:
        return cls(task_id=str(metadata.get("task_id", "")), name=str(metadata.get("name", "")),
                   verdict=str(metadata.get("verdict", "")), reason=text,
                   time=int(float(metadata.get("time") or 0)),
                   iteration=int(metadata.get("iteration") or 0))


class ScopedDraftStore:
    """The draft history as one task's loop sees it: its own commits, other tasks' allowed ones.

    Everything is the shared ``CommitIndex``'s, except ``search_episodes`` across tasks, which
    returns only the episodes the task's combined retrieval recalled (already scoped by the
    ledger and scored with the rest of the context: no extra LLM call).
    """

    def __init__(self, commits: CommitIndex, task_id: str,
                 others: Callable[[], Sequence[RecalledEpisode]]) -> None:
        self._commits = commits
        self._task_id = task_id
        self._others = others

    def __getattr__(self, name: str) -> Any:  # Any: every other attribute is CommitIndex's
        return getattr(self._commits, name)

    def search_episodes(self, query: str, task_id: str | None = None,
                        limit: int = 10) -> Sequence[EpisodeRecord]:
        if task_id is not None:
            if task_id != self._task_id:
                return []  # another task's history is not this loop's business
            return list(self._commits.search_episodes(query, task_id=task_id, limit=limit))
        return list(self._others())[:limit]
