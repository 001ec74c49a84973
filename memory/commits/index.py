"""``CommitIndex``: the episodic memory of the draft loop, one git commit per draft.

One bare repository per indexed project; one branch ``refs/heads/tasks/<task id>`` per task. Each
commit's tree holds the draft files, ``metacode.json`` and ``working_memory.json``; its message
holds the name, the reason and trailers (``message.py``). Nothing is ever checked out.

Writes take the repository lock (threads and processes, ``locks.py``), write objects first and
then move the ref with compare-and-swap, so a crash at any point leaves either the old or the new
head and at worst some lock/temp files, which the next writer removes. Rolled-back heads stay
reachable under ``refs/codemem/undo/<task>/`` (for ``redo``) and, once a new commit makes them
un-redoable, under ``refs/codemem/attic/<task>/``: history is never lost.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from .diffs import json_text, summarize, unified_diff
from .episodes import (
    Episode,
    episode_metadata,
    episode_text,
    injected_episodes,
    rank,
)
from .errors import (
    InvalidDraft,
    TaskExists,
)
from .guarded import TASKS
from .info import CommitInfo
from .message import (
    Trailers,
    Verdict,
    check_verdict,
    digest,
    encode_draft,
    format_message,
    normalize_name,
    normalize_reason,
)
from .moves import HistoryMoves
from .names import (
    check_task_id,
    task_ref,
)
from .objects import build_commit

log = logging.getLogger(__name__)


class CommitIndex(HistoryMoves):
    """Draft history of one project. Thread-safe; safe across processes sharing ``root_dir``.

    Args:
        root_dir: the bare repository, e.g. ``<plugin data>/history/<repo id>.git`` (created).
        backend: ``"auto"`` (GitPython if a ``git`` executable exists, else dulwich),
            ``"gitpython"`` or ``"dulwich"``.
        episodes: optional sink (``MemorySystem``-shaped) that receives every commit as an
            episode memory.
        episode_search: optional ``search(query, limit)`` over those memories; when absent,
            ``search_episodes`` ranks the history itself.
        clock: seconds since the epoch (tests pin it); commit times never go backwards in a task.
        lock_timeout: seconds to wait for another writer (``RepositoryLocked``) or for another
            thread of this process holding the history (``HistoryBusy``) before giving up.
        stale_lock_after: age in seconds after which a foreign ``*.lock`` file counts as stale.
    """

    # -- writing ---------------------------------------------------------------------------------

    def commit(
        self,
        task_id: str,
        files: Mapping[str, str],
        *,
        name: str,
        reason: str,
        metacode: dict[str, Any],
        snapshot: dict[str, Any],
        verdict: Verdict | str,
        iteration: int | None = None,
    ) -> str:
        """Record a draft (the COMPLETE set of files) on the task's branch; return the commit id.

        ``iteration`` defaults to the parent's plus one (0 for the first commit). A task without
        history is created. A new commit clears the redo stack (the entries move to the attic).
        """
        ref = task_ref(task_id)
        tree, objects, snap = encode_draft(files, metacode, snapshot)
        name, reason, label = (
            normalize_name(name),
            normalize_reason(reason),
            check_verdict(verdict).value,
        )
        if iteration is not None and (not isinstance(iteration, int) or iteration < 0):
            raise InvalidDraft(f"iteration must be a non-negative int, got {iteration!r}")
        with self._writing():
            parent = self._backend.get_ref(ref)
            info = self._reader.at_ref(ref, parent) if parent else None
            number = iteration if iteration is not None else (info.iteration + 1 if info else 0)
            when = max(int(self._clock()), info.time if info else 0)
            message = format_message(name, reason, Trailers(task_id, number, label, digest(snap)))
            commit = build_commit(tree, (parent,) if parent else (), message, when)
            self._backend.write_objects([*objects, commit])
            self._cas(ref, parent, commit.sha)
            self._archive_redo(task_id)
        self._emit(commit.sha)
        return commit.sha

    def start_task(
        self,
        task_id: str,
        files: Mapping[str, str],
        *,
        name: str = "Import current files",
        reason: str = "The user's files as they were when the task started.",
        metacode: dict[str, Any] | None = None,
        snapshot: dict[str, Any] | None = None,
    ) -> str:
        """Import the user's current file contents as the first commit (verdict ``imported``)."""
        with self._guard():
            exists = self._backend.get_ref(task_ref(task_id)) is not None
        if exists:
            raise TaskExists(f"task {task_id!r} already has a history; use commit() or branch()")
        return self.commit(task_id, files, name=name, reason=reason, metacode=metacode or {},
                           snapshot=snapshot or {}, verdict=Verdict.IMPORTED, iteration=0)

    # -- reading ---------------------------------------------------------------------------------

    def tasks(self) -> list[str]:
        """Task ids with a history, sorted."""
        with self._guard():
            return sorted(ref[len(TASKS) :] for ref in self._backend.list_refs(TASKS))

    def log(
        self,
        task_id: str,
        *,
        verdict: str | None = None,
        text: str | None = None,
        limit: int | None = None,
    ) -> list[CommitInfo]:
        """The task's commits, newest first (its first-parent line).

        ``verdict`` keeps commits with that verdict (case-insensitive; ``"good"`` keeps every good
        verdict); ``text`` keeps commits whose name or reason contains it (case-insensitive).
        """
        needle = text.lower() if text else None
        out: list[CommitInfo] = []
        with self._guard():
            head = self.head(task_id)
            self._reader.at_ref(task_ref(task_id), head)
            for info in self._reader.chain(head):
                if verdict is not None and not info.matches(verdict):
                    continue
                if needle is not None and needle not in f"{info.name}\n{info.reason}".lower():
                    continue
                out.append(info)
                if limit is not None and len(out) >= limit:
                    break
        return out

    def show(self, commit_id: str) -> CommitInfo:
        """A commit with its ``files``, ``metacode`` and ``snapshot``."""
        with self._guard():
            return self._reader.full(self._resolve(commit_id))

    def snapshot_of(self, commit_id: str) -> dict[str, Any]:
        """The working-memory dict of a commit (a fresh copy, for ``Scratchpad.from_dict``)."""
        snapshot = self.show(commit_id).snapshot
        assert snapshot is not None
        return snapshot

    def diff(self, a: str, b: str, *, context: int = 3, include_meta: bool = False) -> str:
        """Unified diff of the draft files from commit ``a`` to commit ``b``."""
        with self._guard():
            old, new = self.show(a), self.show(b)
        assert old.files is not None and new.files is not None
        before, after = dict(old.files), dict(new.files)
        if include_meta:
            before["metacode.json"] = json_text(old.metacode)
            after["metacode.json"] = json_text(new.metacode)
        return unified_diff(before, after, context=context)

    def commits(self) -> dict[str, CommitInfo]:
        """Every commit reachable from the index's refs (tasks, undo, attic, final tags)."""
        with self._guard():
            return dict(self._all_commits())

    # -- episodes and stats ------------------------------------------------------------------

    def summary(self, commit_id: str) -> str:
        """One-line diff summary of a commit against its first parent (cached)."""
        with self._guard():
            sha = self._resolve(commit_id)
            if sha not in self._summaries:
                parent = self._reader.info(sha).parent
                before = self._reader.files(parent) if parent else {}
                self._summaries[sha] = summarize(before, self._reader.files(sha))
            return self._summaries[sha]

    def _emit(self, sha: str) -> None:
        """Send the new commit to the episode sink. The commit is already durable, so a failing
        sink is logged and counted, never raised: this is a documented crash boundary."""
        if self._sink is None:
            return
        with self._guard():  # the reader and the backend are used under the mutex only
            info = self._reader.info(sha)
        text = episode_text(info.task_id, info.iteration, info.verdict, info.name, info.reason,
                               self.summary(sha))  # fmt: skip
        try:
            self._sink.add_memory(text, episode_metadata(info))
        except Exception as err:  # noqa: BLE001 - a foreign sink must not undo a durable commit
            self.episode_errors += 1
            log.warning("episode for commit %s not stored: %s", sha, err)

    def search_episodes(
        self, query: str, task_id: str | None = None, limit: int = 10
    ) -> list[Episode]:
        """ "What did we try for this, and why did it fail": episodes by text and recency.

        Searches every commit ever made (including rolled-back ones), optionally of one task.
        Uses the injected ``episode_search`` when there is one and it names known commits;
        otherwise the built-in token + recency ranking.
        """
        if task_id is not None:
            check_task_id(task_id)
        with self._guard():
            commits = self._all_commits()
            if task_id is not None:
                commits = {s: i for s, i in commits.items() if i.task_id == task_id}
            injected = injected_episodes(
                self._search, query, limit * 3 if task_id else limit, commits, self.summary
            )
            if injected:
                return injected[:limit]
            return rank(query, [(i, self.summary(s)) for s, i in commits.items()], limit=limit)

    def stats(self) -> dict[str, Any]:
        """Backend in use, repository path and sizes, repairs and episode errors."""
        with self._guard():
            tasks = self.tasks()
            return {
                "backend": self.backend, "path": str(self.root), "tasks": len(tasks),
                "commits": len(self._all_commits()),
                "redo_entries": len(self._backend.list_refs("refs/codemem/undo/")),
                "attic_entries": len(self._backend.list_refs("refs/codemem/attic/")),
                "repaired_lock_files": len(self.repaired), "episode_errors": self.episode_errors,
                "episode_sink": self._sink is not None,
            }  # fmt: skip

    def close(self) -> None:
        """Release the backend's files; returns within about a second even while a stuck
        draft holds the history (shutdown must not wait for it; that draft then fails)."""
        held = self._mutex.acquire(timeout=1.0)
        try:
            self._backend.close()
        finally:
            if held:
                self._mutex.release()

    def __enter__(self) -> CommitIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
