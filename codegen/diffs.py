"""The change a draft makes, file by file, as unified diffs (the result message shows them).

A draft of a change with a scope, or a rename, touches several files; the user reads each
file's diff before saying "apply", which writes all of them or none
(``memory/repository/writeback.py``). ``before`` is what the draft started from (the task's
baseline commit, i.e. the repository's versions), ``after`` the draft.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass

ADDED, MODIFIED, DELETED = "added", "modified", "deleted"


@dataclass(frozen=True)
class FileDiff:
    """One file's change: ``status`` added, modified or deleted, and its unified diff."""

    path: str
    status: str
    diff: str


def file_diffs(before: Mapping[str, str], after: Mapping[str, str], *,
               context: int = 3) -> list[FileDiff]:
    """The diff of every file that differs, sorted by path (unchanged files are left out)."""
    out = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        status = ADDED if old is None else DELETED if new is None else MODIFIED
        lines = difflib.unified_diff(
            (old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True),
            fromfile="/dev/null" if old is None else f"a/{path}",
            tofile="/dev/null" if new is None else f"b/{path}", n=context)
        out.append(FileDiff(path, status, "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in lines)))
    return out


def render_diffs(diffs: list[FileDiff]) -> str:
    """Markdown: a line per file, then its diff in a fenced block."""
    if not diffs:
        return "No file changed."
    parts = [f"{len(diffs)} file(s) changed: " + ", ".join(
        f"`{d.path}` ({d.status})" for d in diffs)]
    parts += [f"**`{d.path}`** ({d.status})\n```diff\n{d.diff.rstrip()}\n```" for d in diffs]
    return "\n\n".join(parts)
