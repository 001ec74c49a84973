"""Moving a task's line in a draft history: roll back (the old head kept for ``redo``), check
out any commit the task had (a draft set aside), redo, the undo stack and the attic (heads no
longer redo-able, never deleted), a branch from any commit a task ever had, the final tag, and
deleting a task's refs.
"""

from __future__ import annotations

from .errors import NothingToRedo, NothingToRollback, NotInHistory, TaskExists, TaskNotFound
from .guarded import GuardedHistory
from .names import attic_prefix, final_ref, task_ref, undo_prefix


class HistoryMoves(GuardedHistory):
    """Rollback, redo, branch, tag and delete (``CommitIndex`` adds commits and reading)."""

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

    def checkout(self, task_id: str, commit: str) -> str:
        """Make ``commit``, any commit the task ever had (a draft set aside included), its head;
        the old head stays redo-able, as after a rollback, and ``commit`` leaves the attic."""
        with self._writing():
            head = self.head(task_id)
            target = self._resolve(commit)
            if target == head:
                return head
            if not self._reader.is_ancestor(target, head):
                ever = [head, *self.undo_stack(task_id), *self.attic(task_id)]
                if target not in self._reader.reachable(ever):
                    raise NotInHistory(f"{target} is not in the history of task {task_id!r}")
                for ref, sha in self._backend.list_refs(attic_prefix(task_id)).items():
                    if sha == target:
                        self._cas(ref, sha, None)
            self._cas(undo_prefix(task_id) + self._next_seq(task_id), None, head)
            self._cas(task_ref(task_id), head, target)
            return target

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
