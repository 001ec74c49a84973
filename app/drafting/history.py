"""The draft history in chat (list, roll back, redo) and "apply".

Thin over ``memory.commits.CommitIndex``; restoring a draft also restores the working-memory
snapshot its commit carries into the user's scratchpad. "apply" writes the current draft into
the repository, only on the user's own word, and compares every file with what the previous
apply wrote (or, before any apply, with the task's base): a repeated "apply" is reported as done,
a newer draft can be applied over an older one, and a file the user edited is never overwritten.
"""

from __future__ import annotations

import re

from ...codegen import DRAFT_NAME, is_apply
from ...memory import CodeMemoryError, CommitInfo, TaskNotFound, WriteBackRefused, write_back
from ..projects.registry import Project
from ..projects.workspace import Turn
from .draft_diff import off_line, task_drafts
from .session import Session


def _history_target(session: Session, turn: Turn) -> Project | str:
    """The project of the user's current task, or why there is none."""
    if not session.state.task_id:
        return "There is no code task yet: ask me to write some code first."
    try:
        return turn.workspace.project()
    except CodeMemoryError as err:
        return f"Cannot read the draft history: {err}"


def draft_history(session: Session, turn: Turn) -> str:
    """The current task's drafts, newest first, with the one in use marked.

    A draft is shown by its commit's own name ("draft 2: slugify passes all checks"): its
    number is the one "roll back to draft 2" takes.
    """
    project = _history_target(session, turn)
    if isinstance(project, str):
        return project
    task = session.state.task_id
    entries = _log(project, task)
    if not entries:
        return f"Task `{task}` has no drafts yet."
    head = project.commits.head(task)
    lines = [f"Drafts of task `{task}` (newest first):"]
    for info in entries:
        mark = " ← current" if info.id == head else ""
        lines.append(f"- {info.name} `{info.id[:10]}` [{info.verdict}]{mark}")
    seen = {info.id for info in entries}
    for title, heads in (
            ("Rolled back, restorable with **redo** (most recent first):",
             project.commits.undo_stack(task)),
            ("Tried and set aside (most recent first):", _set_aside(project, task))):
        listed = [info for commit in heads for info in off_line(project.commits, commit, seen)]
        if listed:
            lines.append(title)
            lines.extend(f"- {info.name} `{info.id[:10]}` [{info.verdict}]" for info in listed)
    return "\n".join(lines)


def _set_aside(project: Project, task: str) -> list[str]:
    """Drafts no longer on the task's line nor redoable: rejected drafts the loop rolled back,
    and lines a newer draft superseded (each head listed, most recent first)."""
    return list(dict.fromkeys(project.commits.attic(task)))


def _log(project: Project, task: str) -> list[CommitInfo]:
    try:
        return list(project.commits.log(task))
    except TaskNotFound:  # a proposal not confirmed yet: nothing committed
        return []


def redo_draft(session: Session, turn: Turn) -> str:
    """Undo the latest roll-back and restore that draft's notes."""
    project = _history_target(session, turn)
    if isinstance(project, str):
        return project
    try:
        commit = project.commits.redo(session.state.task_id)
    except CodeMemoryError as err:
        return f"Nothing to redo: {err}"
    return _restored(session, turn, project, commit, "Restored")


#: Words naming the newest good draft before the current one ("the last good draft").
LAST_GOOD = re.compile(r"^(?:the\s+)?(?:last|latest|previous|newest)(?:\s+good)?"
                       r"(?:\s+(?:one|draft|version))?$|^good(?:\s+draft)?$")
#: Words naming the task's first commit (the file as it was).
START = re.compile(r"^(?:the\s+)?(?:start|beginning|original|first\s+commit|draft\s+0|0)"
                   r"(?:\s+(?:one|draft|version))?$")
COMMIT_ID = re.compile(r"^[0-9a-f]{7,40}$")


def roll_back_draft(session: Session, turn: Turn, which: str) -> str:
    """Go back to a draft (number, commit id, the start, or the last good one) and restore its
    notes; anything else is answered with the history, never taken for a commit id."""
    project = _history_target(session, turn)
    if isinstance(project, str):
        return project
    task = session.state.task_id
    if not _log(project, task):
        return f"Task `{task}` has no drafts yet."
    target = _rollback_target(project, task, which)
    if target is None:
        said = " ".join((which or "").split())
        return (f"I do not know which draft {said!r} is: {_why_unknown(said, task)}say a draft "
                f"number, a commit id, or **the last good draft**.\n\n"
                f"{draft_history(session, turn)}")
    try:
        if _only_set_aside(project, task, target):
            return _restore_set_aside(session, turn, project, task, target)
        commit = _move_to(project, task, target)
    except CodeMemoryError as err:
        return f"Cannot roll back: {err}"
    return _restored(session, turn, project, commit, "Back at") + (
        " The newer drafts are kept: say **redo** to restore them.")


def _why_unknown(said: str, task: str) -> str:
    number = re.search(r"\d+", said)
    return f"task `{task}` has no draft {number.group(0)}; " if number else ""


def _only_set_aside(project: Project, task: str, commit: str) -> bool:
    """Whether ``commit`` is a draft set aside: neither on the task's line nor redoable."""
    return any(d.info.id == commit and d.where == "set aside"
               for d in task_drafts(project.commits, task))


def _restore_set_aside(session: Session, turn: Turn, project: Project, task: str,
                       commit: str) -> str:
    """A draft set aside made the working draft again (its notes too), saying why it was set
    aside; the draft the user was on stays redo-able, as after any roll back."""
    info = project.commits.show(commit)
    project.commits.checkout(task, commit)
    if info.good:
        why = "it was set aside when a newer draft replaced it"
    else:
        failed = [line.strip("- ").strip() for line in info.reason.splitlines() if line.strip()]
        why = "it failed its checks" + (f" ({'; '.join(failed[:3])})" if failed else "")
    return (f"{info.name} `{commit[:10]}` was set aside: {why}. "
            + _restored(session, turn, project, commit, "It is the working draft again:")
            + " The draft you were on is kept: say **redo** to go back to it.")


def _move_to(project: Project, task: str, target: str) -> str:
    """Roll back to ``target`` ("": the last good draft), or forward to a rolled-back draft
    ("roll back to draft 4" after going back from draft 5 to draft 3) by redoing until it is
    on the line again."""
    commits = project.commits
    if not target or target in {c.id for c in _log(project, task)}:
        return commits.rollback(task, to=target or None)
    for _ in range(len(commits.undo_stack(task))):
        head = commits.redo(task)
        if target in {c.id for c in _log(project, task)}:
            return commits.rollback(task, to=target) if head != target else head
    return commits.rollback(task, to=target)


def _rollback_target(project: Project, task: str, which: str) -> str | None:
    """"" for the last good draft, a commit id, or None when ``which`` names nothing."""
    wanted = " ".join((which or "").strip().strip("`").lower().split())
    wanted = re.sub(r"^(?:to\s+)", "", wanted)
    if not wanted or LAST_GOOD.match(wanted):
        return ""
    entries = _log(project, task)
    if START.match(wanted):
        return entries[-1].id if entries else None
    drafts = task_drafts(project.commits, task)
    number = re.fullmatch(r"(?:draft\s*(?:no\.?|number|#)?\s*)?#?(\d+)", wanted)
    if number:
        named = [d.info.id for d in drafts if _draft_number(d.info.name) == int(number.group(1))]
        if named or not COMMIT_ID.match(wanted):  # an all-digit commit prefix is still an id
            return named[0] if named else None
    if not COMMIT_ID.match(wanted):
        return None
    return next((d.info.id for d in drafts if d.info.id.startswith(wanted)), wanted)


def _draft_number(name: str) -> int | None:
    found = DRAFT_NAME.match(name or "")
    return int(found.group(1)) if found else None


def _restored(session: Session, turn: Turn, project: Project, commit: str, verb: str) -> str:
    """Put a commit's working-memory snapshot back into the user's scratchpad."""
    task = session.state.task_id
    snapshot = project.commits.snapshot_of(commit)
    with session.lock:
        if session.state.task_id == task:
            session.state.scratchpad.start_task(task, initial=snapshot)
            session.state.commit_id = commit
            session.save()
    info = project.commits.show(commit)
    return f"{verb} {info.name} `{commit[:10]}`; its working-memory notes are restored."


def apply_if_asked(session: Session, turn: Turn, text: str) -> str | None:
    """Write the current draft into the repository when its user says "apply" (its core phrase:
    ``codegen.is_apply``).

    ``None`` (the Cat answers as usual) unless the message is an apply word *and* the user has
    a draft: "apply" means nothing special to anyone else.
    """
    state = session.state
    # Read from the user's own message, never chosen by the LLM: repository content or a
    # model reply cannot trigger a write.
    if not is_apply(text) or not state.task_id or not state.commit_id:
        return None
    return apply_current(session, turn)


def apply_current(session: Session, turn: Turn) -> str:
    """Write the user's current draft (chat's "apply", and the REST route's): write-back must
    be on, the loop idle, and no file edited since the last apply (see the module docstring)."""
    if not turn.workspace.config.write_back:
        return ("Write-back is off (plugin settings, Write-back policy): copy the code from the "
                "result instead.")
    if session.drafting:
        return "The draft loop is still running: wait for its result, then say **apply**."
    project = _history_target(session, turn)
    if isinstance(project, str):
        return project
    with session.lock:
        return _apply(session, turn, project)


def _apply(session: Session, turn: Turn, project: Project) -> str:
    state = session.state
    draft = project.commits.show(state.commit_id).files or {}
    expected = _expected_files(project, state.task_id, state.applied_commit)
    changed = {path: text for path, text in draft.items() if expected.get(path) != text}
    if not changed:
        if state.applied_commit == state.commit_id:
            return (f"Draft `{state.commit_id[:10]}` is already applied: your files hold it. "
                    "Ask for a change to get a new draft.")
        return "The draft is identical to your files: nothing to apply."
    try:
        result = write_back(project.root, changed, {p: expected.get(p) for p in changed})
    except (WriteBackRefused, OSError) as err:
        return f"I did not write anything: {err}"
    state.applied_commit = state.commit_id
    session.save()
    written = ", ".join(f"`{p}`" for p in result.written)
    return (f"Applied draft `{state.commit_id[:10]}` to {written}. The previous content is "
            f"the first commit of task `{state.task_id}` in the draft history.")


def _expected_files(project: Project, task: str, applied_commit: str) -> dict[str, str]:
    """What each file should hold now: what the last apply wrote, else the task's base."""
    entries = project.commits.log(task)
    base = dict(project.commits.show(entries[-1].id).files or {}) if entries else {}
    if applied_commit:
        base.update(project.commits.show(applied_commit).files or {})
    return base
