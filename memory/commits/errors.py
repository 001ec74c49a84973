"""Narrow errors of the commit index, all deriving from ``memory.errors``.

Callers catch ``CommitIndexError`` for "the draft history could not do that"; the subclasses say
exactly what, so the loop can react (``NothingToRedo`` is normal, ``RepositoryCorrupt`` is not).
"""

from __future__ import annotations

from ..errors import CommitIndexError, RepositoryCorrupt, TaskNotFound, UnsafeInput

__all__ = [
    "AmbiguousCommit",
    "CommitIndexError",
    "CommitNotFound",
    "HistoryBusy",
    "InvalidDraft",
    "NotInHistory",
    "NothingToRedo",
    "NothingToRollback",
    "RefConflict",
    "RepositoryCorrupt",
    "RepositoryLocked",
    "TaskExists",
    "TaskNotFound",
    "UnknownVerdict",
    "UnsafeInput",
]


class CommitNotFound(CommitIndexError, KeyError):
    """A (validated) commit id that names no commit in this repository."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else "commit not found"


class AmbiguousCommit(CommitIndexError, ValueError):
    """An abbreviated commit id that matches more than one commit; give more hex digits."""


class InvalidDraft(CommitIndexError, ValueError):
    """Draft content that cannot be stored faithfully (non-JSON snapshot, oversized reason...)."""


class UnknownVerdict(InvalidDraft):
    """A new commit's verdict is not a ``Verdict``; it would never count as good, so it is
    refused rather than stored."""


class TaskExists(CommitIndexError):
    """``start_task``/``branch`` onto a task id that already has a history."""


class NothingToRollback(CommitIndexError):
    """``rollback(to=None)`` found no good commit before the current head."""


class NothingToRedo(CommitIndexError):
    """``redo`` with an empty redo stack (nothing rolled back since the last commit)."""


class NotInHistory(CommitIndexError, ValueError):
    """A commit that is not an ancestor of the task's head (use ``branch`` to start from it)."""


class RefConflict(CommitIndexError):
    """The branch moved under us (another writer outside this index); nothing was changed."""


class RepositoryLocked(CommitIndexError):
    """A live writer (or a fresh foreign ``*.lock`` file) holds the repository; retry later."""


class HistoryBusy(RepositoryLocked):
    """Another draft of this process held the history longer than the lock timeout; nothing
    was changed. Raised instead of waiting forever, so the user is told and can retry."""
