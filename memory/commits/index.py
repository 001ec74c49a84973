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
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .backend import open_backend
from .diffs import json_text, summarize, unified_diff
from .episodes import (
    Episode,
    EpisodeSearch,
    EpisodeSink,
    episode_metadata,
    episode_text,
    injected_episodes,
    rank,
)
from .errors import (
    HistoryBusy,
    InvalidDraft,
    NothingToRedo,
    NothingToRollback,
    NotInHistory,
    RefConflict,
    RepositoryLocked,
    TaskExists,
    TaskNotFound,
)
from .info import CommitInfo
from .locks import RepoLock, repair
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
from .names import (
    FULL_SHA_RE,
    attic_prefix,
    check_commit_id,
    check_task_id,
    final_ref,
    task_ref,
    undo_prefix,
)
from .objects import build_commit
from .reader import HistoryReader
from .resolve import resolve_commit

log = logging.getLogger(__name__)
TASKS = "refs/heads/tasks/"
ALL_PREFIXES = (TASKS, "refs/codemem/", "refs/tags/final/")


class CommitIndex:
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

    def __init__(
        self,
        root_dir: str | Path,
        *,
        backend: str = "auto",
        episodes: EpisodeSink | None = None,
        episode_search: EpisodeSearch | None = None,
        clock: Callable[[], float] = time.time,
        lock_timeout: float = 30.0,
        stale_lock_after: float = 120.0,
    ) -> None:
        self.root = Path(root_dir).expanduser().resolve()
        self._backend = open_backend(self.root, backend)
        self.backend: str = self._backend.name
        self._reader = HistoryReader(self._backend)
        self._mutex = threading.RLock()
        self._lock_timeout = lock_timeout
        self._lock = RepoLock(self.root, timeout=lock_timeout)
        self._stale_after = stale_lock_after
        self._clock = clock
        self._sink = episodes
        self._search = episode_search
        self._summaries: dict[str, str] = {}
        self.repaired: list[str] = []
        self.episode_errors = 0
        with self._writing():  # startup recovery: clears what a crashed writer left
            pass

    # -- locking -------------------------------------------------------------------------------

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """This index's mutex (every backend call runs under it), waited for at most
        ``lock_timeout`` seconds: a stuck draft makes the others fail clearly, never hang."""
        if not self._mutex.acquire(timeout=self._lock_timeout):
            raise HistoryBusy(f"the draft history {self.root} has been busy for over "
                              f"{self._lock_timeout:.0f} s (another draft holds it); nothing "
                              "was changed: try again in a moment")
        try:
            yield
        finally:
            self._mutex.release()

    @contextmanager
    def _writing(self) -> Iterator[None]:
        with self._guard(), self._lock.hold() as crashed_pid:
            if crashed_pid is not None:
                self._note_repair(repair(self.root, crashed=True, stale_after=self._stale_after),
                                  f"writer pid {crashed_pid} died holding the lock")  # fmt: skip
            yield

    def _note_repair(self, removed: list[str], why: str) -> None:
        if removed:
            log.warning("commit history %s: %s; removed %s", self.root, why, ", ".join(removed))
            self.repaired.extend(removed)

    def _cas(self, ref: str, old: str | None, new: str | None) -> None:
        """Move a ref or raise ``RefConflict``; a stale foreign lock file is repaired once."""
        try:
            moved = self._backend.cas_ref(ref, old, new)
        except RepositoryLocked:
            removed = repair(self.root, crashed=False, stale_after=self._stale_after)
            if not removed:
                raise
            self._note_repair(removed, f"stale lock files older than {self._stale_after:.0f} s")
            moved = self._backend.cas_ref(ref, old, new)
        if not moved:
            raise RefConflict(
                f"{ref} moved while we were writing (expected {old}); nothing changed"
            )

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

    def head(self, task_id: str) -> str:
        """The current commit of a task; ``TaskNotFound`` when it has no history."""
        ref = task_ref(task_id)
        with self._guard():
            sha = self._backend.get_ref(ref)
        if sha is None:
            raise TaskNotFound(f"no history for task {task_id!r}")
        return sha

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

    def _resolve(self, commit_id: str) -> str:
        commit_id = check_commit_id(commit_id)
        if FULL_SHA_RE.fullmatch(commit_id):
            self._reader.info(commit_id)  # CommitNotFound if absent or not a commit
            return commit_id
        return resolve_commit(commit_id, self._all_commits())

    def commits(self) -> dict[str, CommitInfo]:
        """Every commit reachable from the index's refs (tasks, undo, attic, final tags)."""
        with self._guard():
            return dict(self._all_commits())

    def _all_commits(self) -> dict[str, CommitInfo]:
        heads = []
        for prefix in ALL_PREFIXES:
            for ref, sha in self._backend.list_refs(prefix).items():
                self._reader.at_ref(ref, sha)
                heads.append(sha)
        return self._reader.reachable(heads)

    # -- rollback / redo / branch / tag / delete ----------------------------------------------

    def rollback(self, task_id: str, to: str | None = None) -> str:
        """Move the task's head back; return the new head. The old head stays redo-able.

        ``to=None`` goes to the newest *good* commit strictly before the head on the task's line
        (good = verdict in ``GOOD_VERDICTS``: passed, committed, imported, final). ``to`` may be any
        ancestor of the head; use ``branch`` for other commits.
        """
        with self._writing():
            head = self.head(task_id)
            if to is None:
                target = next((i.id for i in self._reader.chain(head) if i.id != head and i.good),
                              None)  # fmt: skip
                if target is None:
                    raise NothingToRollback(f"task {task_id!r} has no good commit before {head}")
            else:
                target = self._resolve(to)
                if not self._reader.is_ancestor(target, head):
                    raise NotInHistory(f"{target} is not in the history of task {task_id!r}")
            if target == head:
                return head
            self._cas(undo_prefix(task_id) + self._next_seq(task_id), None, head)
            self._cas(task_ref(task_id), head, target)
            return target

    def redo(self, task_id: str) -> str:
        """Undo the latest rollback; return the restored head. ``NothingToRedo`` if none."""
        with self._writing():
            head = self.head(task_id)
            stack = sorted(self._backend.list_refs(undo_prefix(task_id)).items())
            while stack:
                ref, target = stack.pop()
                if target != head:
                    if not self._reader.is_ancestor(head, target):  # never strand the current line
                        self._cas(attic_prefix(task_id) + self._next_seq(task_id), None, head)
                    self._cas(task_ref(task_id), head, target)
                self._cas(ref, target, None)
                if target != head:
                    return target
            raise NothingToRedo(f"task {task_id!r} has nothing to redo")

    def undo_stack(self, task_id: str) -> list[str]:
        """Heads that ``redo`` would restore, most recent first."""
        with self._guard():
            refs = self._backend.list_refs(undo_prefix(task_id))
        return [sha for _, sha in sorted(refs.items(), reverse=True)]

    def attic(self, task_id: str) -> list[str]:
        """Abandoned heads (rolled back, then superseded by a new commit), most recent first."""
        with self._guard():
            refs = self._backend.list_refs(attic_prefix(task_id))
        return [sha for _, sha in sorted(refs.items(), reverse=True)]

    def _next_seq(self, task_id: str) -> str:
        refs = [*self._backend.list_refs(undo_prefix(task_id)),
                *self._backend.list_refs(attic_prefix(task_id))]  # fmt: skip
        last = max((int(r.rsplit("/", 1)[1]) for r in refs), default=0)
        return f"{last + 1:08d}"

    def _archive_redo(self, task_id: str) -> None:
        """After a commit, redo entries are moved (not deleted) to the attic."""
        for ref, sha in sorted(self._backend.list_refs(undo_prefix(task_id)).items()):
            self._cas(attic_prefix(task_id) + self._next_seq(task_id), None, sha)
            self._cas(ref, sha, None)

    def branch(self, task_id: str, from_commit: str, new_task_id: str) -> str:
        """Start task ``new_task_id`` at ``from_commit`` (in ``task_id``'s history, including its
        rolled-back commits); return that commit id."""
        new_ref = task_ref(new_task_id)
        with self._writing():
            target = self._resolve(from_commit)
            heads = [self.head(task_id), *self.undo_stack(task_id), *self.attic(task_id)]
            if target not in self._reader.reachable(heads):
                raise NotInHistory(f"{target} is not in the history of task {task_id!r}")
            if self._backend.get_ref(new_ref) is not None:
                raise TaskExists(f"task {new_task_id!r} already has a history")
            self._cas(new_ref, None, target)
            return target

    def tag_final(self, task_id: str, commit_id: str) -> None:
        """Tag the accepted draft (``refs/tags/final/<task id>``); it must be in the task's line."""
        with self._writing():
            head, target = self.head(task_id), self._resolve(commit_id)
            if not self._reader.is_ancestor(target, head):
                raise NotInHistory(f"{target} is not in the history of task {task_id!r}")
            ref = final_ref(task_id)
            self._cas(ref, self._backend.get_ref(ref), target)

    def final(self, task_id: str) -> str | None:
        """The commit tagged final for a task, if any."""
        with self._guard():
            return self._backend.get_ref(final_ref(task_id))

    def delete_task(self, task_id: str) -> int:
        """Delete every ref of a task (branch, undo, attic, final tag); return how many.

        Objects stay in the repository until ``git gc --prune=now`` (documented); they are no
        longer listed, searched or resolvable by prefix.
        """
        with self._writing():
            refs = {task_ref(task_id): self._backend.get_ref(task_ref(task_id)),
                    final_ref(task_id): self._backend.get_ref(final_ref(task_id))}  # fmt: skip
            refs.update(self._backend.list_refs(undo_prefix(task_id)))
            refs.update(self._backend.list_refs(attic_prefix(task_id)))
            present = {ref: sha for ref, sha in refs.items() if sha is not None}
            if not present:
                raise TaskNotFound(f"no history for task {task_id!r}")
            for ref, sha in present.items():
                self._cas(ref, sha, None)
            return len(present)

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
