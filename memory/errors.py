"""The one exception hierarchy of ``memory``.

Exceptions mean a developer or the environment is at fault; the model's mistakes are data.
Messages say what failed, where, and what to do. Constructors have no side effects.
Modules may define narrower subclasses next to their code, always deriving from these.
"""

from __future__ import annotations


class CodeMemoryError(Exception):
    """Base of every error raised on purpose by ``memory``."""


class TaskNotFound(CodeMemoryError, KeyError):
    """A scratchpad or commit-index task id that does not exist."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else "task not found"


class UnsafeInput(CodeMemoryError, ValueError):
    """A name or path from a user, the LLM or a repository was refused (traversal, injection)."""


class StoreError(CodeMemoryError):
    """The SQLite store failed in a way that retrying will not fix."""


class StoreCorrupt(StoreError):
    """The SQLite file is damaged. It was moved aside (``kept_as``), never overwritten, and a
    new empty database took its place; the message says what was lost and what to do."""

    def __init__(self, message: str, *, path: str = "", kept_as: tuple[str, ...] = (),
                 reason: str = "") -> None:
        super().__init__(message)
        self.path = path
        self.kept_as = kept_as
        self.reason = reason


class CommitIndexError(CodeMemoryError):
    """The draft history (git repository) could not be read or written."""


class RepositoryCorrupt(CommitIndexError):
    """The draft history repository is damaged; it is reported, never silently reset."""


class BackendUnavailable(CodeMemoryError):
    """An optional backend (git binary, a grammar) is not installed here."""
