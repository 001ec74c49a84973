"""Diffs between the drafts of a task: "show the diff of draft 2" in chat and the REST routes.

A draft is named as the history names it (``memory.commits.CommitIndex``): a number ("draft
2"), the task's first commit ("start", "0": the files as they were), the current draft
("current", or nothing) or a commit id of the task. The diff of one draft is against its
parent commit; of two, from the older to the newer as given. Chat shows it per file, fenced as
``diff``, capped in size with a note of what was left out; the REST layer returns the same
``DraftDiff`` whole (``app/rest/routes.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...codegen import DRAFT_NAME, FileDiff, file_diffs
from ...memory import CodeMemoryError, CommitIndex, CommitInfo, TaskNotFound
from ..projects.workspace import Turn
from .session import Session

#: Lines of diff a chat answer shows at most (the rest is named, not shown).
CHAT_DIFF_LINES = 160
_START = re.compile(r"^(?:the\s+)?(?:start|beginning|original|0)$")
_CURRENT = re.compile(r"^(?:|current|head|latest|the\s+current(?:\s+draft)?)$")
_NUMBER = re.compile(r"^(?:draft\s*#?\s*)?(\d+)$")
_COMMIT_ID = re.compile(r"^[0-9a-f]{7,40}$")


class UnknownDraft(LookupError):
    """A draft that the task does not have (the message says which and what to say instead)."""


@dataclass(frozen=True)
class Draft:
    """One commit of a task's history, as listed: ``where`` is "line" (the task's current
    line, newest first), "rolled back" (redo restores it) or "set aside"."""

    info: CommitInfo
    where: str
    current: bool


@dataclass(frozen=True)
class DraftDiff:
    """The change from ``old`` to ``new`` (``old`` is None for a first commit), file by file."""

    old: CommitInfo | None
    new: CommitInfo
    files: list[FileDiff]

    @property
    def unified(self) -> str:
        """Every file's unified diff, one after the other (what ``git diff`` prints, headers
        aside)."""
        return "".join(d.diff for d in self.files)


def task_drafts(commits: CommitIndex, task: str) -> list[Draft]:
    """Every draft of ``task``: its line newest first, then the rolled-back and set-aside ones,
    each head with the drafts under it down to the line (after rolling back from draft 5 to
    draft 3, draft 4 is listed, and named, with draft 5)."""
    try:
        line = commits.log(task)
    except TaskNotFound:
        return []
    head = line[0].id if line else ""
    out = [Draft(info, "line", info.id == head) for info in line]
    seen = {info.id for info in line}
    for where, heads in (("rolled back", commits.undo_stack(task)),
                         ("set aside", commits.attic(task))):
        for commit in heads:
            out.extend(Draft(info, where, False) for info in off_line(commits, commit, seen))
    return out


def off_line(commits: CommitIndex, head: str, seen: set[str]) -> list[CommitInfo]:
    """``head`` and its first-parent ancestors not in ``seen`` (the task's line and what was
    listed already), newest first; ``seen`` takes them."""
    found: list[CommitInfo] = []
    sha: str | None = head
    while sha is not None and sha not in seen:
        seen.add(sha)
        info = commits.show(sha)
        found.append(info)
        sha = info.parent
    return found


def find_draft(commits: CommitIndex, task: str, which: str) -> str:
    """The commit id ``which`` names in ``task`` (see the module docstring); ``UnknownDraft``."""
    drafts = task_drafts(commits, task)
    if not drafts:
        raise UnknownDraft(f"task `{task}` has no drafts yet")
    wanted = " ".join((which or "").strip().strip("`").lower().split())
    line = [d for d in drafts if d.where == "line"]
    if _CURRENT.match(wanted):
        return line[0].info.id
    if _START.match(wanted) or wanted == "draft 0":
        return line[-1].info.id
    number = _NUMBER.match(wanted)
    if number:
        named = [d.info.id for d in drafts if _draft_number(d.info.name) == int(number.group(1))]
        if named:
            return named[0]
        if not _COMMIT_ID.match(wanted):  # an all-digit commit prefix is still a commit id
            raise UnknownDraft(f"task `{task}` has no draft {number.group(1)}")
    if _COMMIT_ID.match(wanted):
        return _own_commit(commits, task, drafts, wanted)
    raise UnknownDraft(f"{which!r} names no draft: say a draft number, \"start\" or a commit id")


def _own_commit(commits: CommitIndex, task: str, drafts: list[Draft], wanted: str) -> str:
    """A commit id (or prefix) of this task only: another task's commit is unknown here."""
    listed = [d.info.id for d in drafts if d.info.id.startswith(wanted)]
    if len(listed) == 1:
        return listed[0]
    try:
        info = commits.show(wanted)
    except CodeMemoryError:
        info = None
    if info is None or info.task_id != task or len(listed) > 1:
        raise UnknownDraft(f"task `{task}` has no commit `{wanted}`")
    return str(info.id)


def _draft_number(name: str) -> int | None:
    found = DRAFT_NAME.match(name or "")
    return int(found.group(1)) if found else None


def diff_drafts(commits: CommitIndex, task: str, new: str, old: str | None = None) -> DraftDiff:
    """The diff of draft ``new`` against draft ``old`` or, without one, against its parent."""
    after = commits.show(find_draft(commits, task, new))
    if old is None:
        before = commits.show(after.parent) if after.parent else None
    else:
        before = commits.show(find_draft(commits, task, old))
    files = file_diffs(dict(before.files or {}) if before else {}, dict(after.files or {}))
    return DraftDiff(before, after, files)


def render_capped(diff: DraftDiff, max_lines: int | None = None) -> str:
    """Markdown: what is compared, then each file's diff fenced as ``diff``, until
    ``max_lines`` lines are shown; a file cut short, and every file left out, is named."""
    origin = f"{diff.old.name} `{diff.old.short_id}`" if diff.old else "nothing (first commit)"
    head = f"Changes from {origin} to {diff.new.name} `{diff.new.short_id}`:"
    if not diff.files:
        return f"{head} no file changed."
    budget = CHAT_DIFF_LINES if max_lines is None else max_lines
    parts: list[str] = [head]
    left_out: list[str] = []
    for file in diff.files:
        lines = file.diff.rstrip("\n").split("\n")
        if budget <= 0:
            left_out.append(f"`{file.path}` ({file.status}, {len(lines)} lines)")
            continue
        shown = lines[:budget]
        budget -= len(shown)
        cut = (f"\n… {len(lines) - len(shown)} more lines of `{file.path}` left out."
               if len(shown) < len(lines) else "")
        parts.append(f"**`{file.path}`** ({file.status})\n```diff\n" + "\n".join(shown)
                     + f"\n```{cut}")
    if left_out:
        parts.append("Left out (over the size limit of a chat answer): " + ", ".join(left_out)
                     + ". Ask for one draft at a time, or read the diff over the REST API.")
    return "\n\n".join(parts)


def chat_diff(session: Session, turn: Turn, argument: str) -> str:
    """"show the diff of draft 2" (``argument`` "2": against its parent), "what changed since
    draft 1" ("since 1": to the current draft), "diff draft 1 and 3" ("1..3"), "show the diff"
    (""; the current draft against its parent)."""
    task = session.state.task_id
    if not task:
        return "There is no code task yet: ask me to write some code first."
    try:
        commits = turn.workspace.project().commits
        new, old = _pair(argument)
        return render_capped(diff_drafts(commits, task, new, old))
    except UnknownDraft as err:
        return f"I cannot show that diff: {err}. Say **show the draft history** for the list."
    except CodeMemoryError as err:
        return f"Cannot read the draft history: {err}"


def _pair(argument: str) -> tuple[str, str | None]:
    """(new, old) from a command's argument; old None: against the parent."""
    argument = argument.strip()
    if argument.startswith("since "):
        return "current", argument[len("since "):]
    if ".." in argument:
        old, new = argument.split("..", 1)
        return new, old
    return argument or "current", None
