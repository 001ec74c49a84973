"""A finished task's notes into long-term memory, when the user's next request starts.

The scratchpad holds the notes of the user's tasks (namespaced by task id) until the next
request: then every task but the current one is completed (seed M05's task completion): its
key notes are archived as ``task_note`` memories of the project, scoped to the user (and to
everyone once the admin shares finished tasks), marked finished in the ledger, and cleared.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from ..projects.registry import Project
from .state import SessionState

log = logging.getLogger(__name__)

#: What a finished task leaves in long-term memory when the next request starts.
ARCHIVED_NOTES = ("request", "metacode", "loop.status", "loop.last_feedback")


def archive_finished(state: SessionState, project: Project, user: str) -> list[str]:
    """Complete every scratchpad task but the current one (see the module docstring); the
    tasks completed."""
    pad, done = state.scratchpad, []

    def sink(text: str, metadata: Mapping[str, object]) -> str:
        return project.code.add_memory(text, {**metadata, "type": "task_note", "user": user})

    for task in pad.tasks():
        if task == state.task_id:
            continue
        keys = [k for k in ARCHIVED_NOTES if pad.query(task, k).found]
        try:
            pad.complete(task, archive_keys=keys, sink=sink)
        except Exception as err:  # the sink is a database: keep the task, say why
            log.warning("could not archive scratchpad task %s: %s", task, err)
            continue
        project.ledger.finish(task)
        done.append(task)
    return done
