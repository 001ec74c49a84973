"""Episodic memory (the draft history, ``CommitIndex``): every draft is a git commit.

Importing this package loads neither GitPython nor dulwich; backends load on first use.
"""

from __future__ import annotations

from .episodes import Episode, EpisodeSearch, EpisodeSink
from .errors import (
    AmbiguousCommit,
    CommitIndexError,
    CommitNotFound,
    HistoryBusy,
    InvalidDraft,
    NothingToRedo,
    NothingToRollback,
    NotInHistory,
    RefConflict,
    RepositoryCorrupt,
    RepositoryLocked,
    TaskExists,
    TaskNotFound,
    UnknownVerdict,
    UnsafeInput,
)
from .index import CommitIndex
from .info import CommitInfo
from .message import GOOD_VERDICTS, Verdict, is_good
from .names import check_commit_id, check_path, check_ref_name, check_task_id, slug_task_id

__all__ = [
    "GOOD_VERDICTS",
    "AmbiguousCommit",
    "CommitIndex",
    "CommitIndexError",
    "CommitInfo",
    "CommitNotFound",
    "Episode",
    "EpisodeSearch",
    "EpisodeSink",
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
    "Verdict",
    "check_commit_id",
    "check_path",
    "check_ref_name",
    "check_task_id",
    "is_good",
    "slug_task_id",
]
