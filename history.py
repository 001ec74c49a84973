"""GLUE (composition): the draft history in chat: list, roll back, redo.

Thin over ``memory.commits.CommitIndex``; restoring a draft also restores the working-memory
snapshot its commit carries into the user's scratchpad.
"""

from __future__ import annotations

from typing import Any

from . import runtime
from .memory.errors import CodeMemoryError


def _history_target(cat: Any) -> tuple[Any, runtime.SessionState] | str:
    """The project and state of the user's current task, or why there is none."""
    state = runtime.load_state(cat)
    if not state.task_id:
        return "There is no code task yet: ask me to write some code first."
    try:
        project, _ = runtime.project_of(cat)
    except CodeMemoryError as err:
        return f"Cannot read the draft history: {err}"
    return project, state


def draft_history(cat: Any) -> str:
    """The current task's drafts, newest first, with the one in use marked."""
    target = _history_target(cat)
    if isinstance(target, str):
        return target
    project, state = target
    entries = project.commits.log(state.task_id)
    if not entries:
        return f"Task `{state.task_id}` has no drafts yet."
    head = project.commits.head(state.task_id)
    lines = [f"Drafts of task `{state.task_id}` (newest first):"]
    for info in entries:
        mark = " ← current" if info.id == head else ""
        lines.append(f"- draft {info.iteration} `{info.id[:10]}` [{info.verdict}] "
                     f"{info.name}{mark}")
    undone = project.commits.undo_stack(state.task_id)
    if undone:
        lines.append("Rolled back, restorable with **redo** (most recent first):")
        for commit in undone:
            info = project.commits.show(commit)
            lines.append(f"- draft {info.iteration} `{commit[:10]}` [{info.verdict}] {info.name}")
    return "\n".join(lines)


def redo_draft(cat: Any) -> str:
    """Undo the latest roll-back and restore that draft's notes."""
    target = _history_target(cat)
    if isinstance(target, str):
        return target
    project, state = target
    try:
        commit = project.commits.redo(state.task_id)
    except CodeMemoryError as err:
        return f"Nothing to redo: {err}"
    return _restored(cat, project, state.task_id, commit, "Restored")


def roll_back_draft(cat: Any, which: str) -> str:
    """Go back to a draft (number, commit id, or the last good one) and restore its notes."""
    target = _history_target(cat)
    if isinstance(target, str):
        return target
    project, state = target
    task = state.task_id
    wanted = (which or "").strip().strip("`").lower().removeprefix("draft").strip()
    try:
        to = None
        if wanted.isdigit():
            match = [c for c in project.commits.log(task) if c.iteration == int(wanted)]
            if not match:
                return f"Task `{task}` has no draft {wanted}.\n\n{draft_history(cat)}"
            to = match[0].id
        elif wanted and wanted not in ("last good", "previous", "last", "the last good one"):
            to = wanted
        commit = project.commits.rollback(task, to=to)
    except CodeMemoryError as err:
        return f"Cannot roll back: {err}"
    return _restored(cat, project, task, commit, "Back at") + (
        " The newer drafts are kept: say **redo** to restore them.")


def _restored(cat: Any, project: Any, task: str, commit: str, verb: str) -> str:
    """Put a commit's working-memory snapshot back into the user's scratchpad."""
    snapshot = project.commits.snapshot_of(commit)
    with runtime.user_lock(cat):
        state = runtime.load_state(cat)
        if state.task_id == task:
            state.scratchpad.start_task(task, initial=snapshot)
            state.commit_id = commit
            runtime.save_state(cat, state)
    info = project.commits.show(commit)
    return (f"{verb} draft {info.iteration} `{commit[:10]}` ({info.name}); its working-memory "
            "notes are restored.")


#: The only messages that write a draft into the repository. Matched exactly on the user's own
#: text, never chosen by the LLM: repository content or a model reply cannot trigger a write.
APPLY_WORDS = frozenset({"apply", "apply it", "apply the draft", "apply draft"})


def apply_if_asked(cat: Any, text: str) -> str | None:
    """Write the current draft into the repository when the user says exactly "apply"."""
    from .memory.writeback import WriteBackRefused, write_back
    from .settings import WriteBackPolicy

    if " ".join((text or "").lower().strip(" .!").split()) not in APPLY_WORDS:
        return None
    target = _history_target(cat)
    if isinstance(target, str):
        return target
    project, state = target
    settings, _ = runtime.plugin_settings(cat)
    if settings.write_back is WriteBackPolicy.never:
        return ("Write-back is off (plugin settings, Write-back policy): copy the code from the "
                "result instead.")
    if not state.commit_id:
        return "There is no finished draft to apply yet."
    entries = project.commits.log(state.task_id)
    base_files = project.commits.show(entries[-1].id).files if entries else {}
    draft = project.commits.show(state.commit_id).files
    changed = {path: text for path, text in draft.items() if base_files.get(path) != text}
    if not changed:
        return "The draft is identical to your files: nothing to apply."
    try:
        result = write_back(project.root, changed, {p: base_files.get(p) for p in changed})
    except (WriteBackRefused, OSError) as err:
        return f"I did not write anything: {err}"
    written = ", ".join(f"`{p}`" for p in result.written)
    return (f"Applied draft `{state.commit_id[:10]}` to {written}. The previous content is "
            f"the first commit of task `{state.task_id}` in the draft history.")
