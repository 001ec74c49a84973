"""Abbreviated commit ids, resolved only among commits this index can reach.

Resolving against our own refs (instead of asking git to rev-parse) means no revision syntax ever
reaches git, and a prefix can never name an unrelated object that happens to live in the store.
"""

from __future__ import annotations

from collections.abc import Mapping

from .errors import AmbiguousCommit, CommitNotFound
from .info import CommitInfo


def resolve_commit(prefix: str, commits: Mapping[str, CommitInfo]) -> str:
    """The one commit id starting with ``prefix`` (already validated as 7-39 lower-case hex)."""
    matches = sorted(sha for sha in commits if sha.startswith(prefix))
    if not matches:
        raise CommitNotFound(f"no commit {prefix} in this history")
    if len(matches) > 1:
        shown = ", ".join(m[:12] for m in matches[:5])
        raise AmbiguousCommit(f"commit id {prefix} is ambiguous ({shown}); give more digits")
    return matches[0]
