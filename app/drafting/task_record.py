"""A task's draft-loop outcome as the task ledger records it, and what the user is told of it.

The Cat loads a user's working memory when a message arrives and saves its own copy when the
turn ends, so a copy loaded before a draft loop finished can overwrite what the worker wrote
into the cache meanwhile (docs/cat-plugin-api.md, "Who owns a task's state"). The durable
record of a run is therefore the project's ``TaskLedger`` (``RunRecord``): ``begin_run`` numbers
a run when its worker starts, ``record_outcome`` is the worker's first act when it finishes, and
``adopt_recorded`` puts a finished record over a state that still says the loop runs (a stale
copy found after a restart or a toggle), so only a run nothing recorded is reported as
interrupted. ``stop_answer`` and ``finished_answer`` say what happened to a task whose loop
has ended, for a "stop" that came too late and a "continue" on a finished task.
"""

from __future__ import annotations

import logging

from ...codegen import CodegenPhase, Committed, GaveUp, LoopStatus
from ..projects.ledger import RunRecord
from ..projects.registry import Project
from .state import SessionState

log = logging.getLogger(__name__)

DONE = "done"
FAILED = "failed"


def begin_run(state: SessionState, project: Project, user: str) -> None:
    """A draft loop is about to run for the state's task: number the run in the ledger."""
    state.run = project.ledger.start_run(state.task_id, user)


def outcome_record(run: int, outcome: Committed | GaveUp, llm_calls: int) -> RunRecord:
    """The record of a run that ended with ``outcome``."""
    if isinstance(outcome, Committed):
        return RunRecord(run, DONE, commit_id=outcome.commit_id,
                         loop_status=LoopStatus.COMMITTED.value,
                         iterations=outcome.iterations, llm_calls=llm_calls)
    return RunRecord(run, FAILED, commit_id=outcome.last_good, failure=outcome.reason,
                     loop_status=LoopStatus.GAVE_UP.value, iterations=outcome.iterations,
                     llm_calls=llm_calls)


def record_outcome(project: Project, task_id: str, record: RunRecord) -> None:
    """Write a run's outcome into the ledger (a failure to write is logged: the state in this
    process still has it)."""
    try:
        project.ledger.record_run(task_id, record)
    except OSError as err:
        log.warning("could not record the outcome of task %s: %s", task_id, err)


def adopt_recorded(state: SessionState, project: Project | None) -> RunRecord | None:
    """Put the ledger's finished record of the state's task over the state, when the state
    still says the loop runs and the record is of its run or a later one; the record adopted."""
    if project is None or not state.running:
        return None
    try:
        record = project.ledger.run_of(state.task_id)
    except OSError as err:
        log.warning("could not read the ledger of task %s: %s", state.task_id, err)
        return None
    if record is None or not record.finished or record.run < state.run:
        return None
    if record.phase == DONE:
        state.phase.walk_to(CodegenPhase.DONE, "recorded by the draft loop")
    else:
        state.phase.fail(record.failure or "the draft loop failed")
    if record.commit_id:
        state.commit_id = record.commit_id
    if record.loop_status and state.task_id in state.scratchpad.tasks():
        state.scratchpad.put(state.task_id, "loop.status", record.loop_status)
    state.llm_calls = max(state.llm_calls, record.llm_calls)
    state.run = record.run
    return record


def _what(state: SessionState) -> str:
    meta = state.note("metacode") or {}
    return (f"`{meta.get('symbol') or '?'}` in `{meta.get('target_path') or '?'}` "
            f"(task `{state.task_id}`)")


def _after(record: RunRecord | None) -> str:
    return f" after {record.iterations} iteration(s)" if record and record.iterations else ""


def stop_answer(state: SessionState, record: RunRecord | None) -> str:
    """"stop" when the task's loop has already ended: what happened to it."""
    last = f"`{state.commit_id[:12]}`" if state.commit_id else "none"
    if state.phase.phase is CodegenPhase.DONE:
        return (f"Nothing to stop: the draft of {_what(state)} had already finished, committed "
                f"as {last}{_after(record)}. Say **apply** to write it into your repository, "
                "**show the draft history** to see every draft, or ask for something new.")
    reason = state.phase.failure_reason
    if reason.startswith("cancelled"):
        drafts = f" after draft {record.iterations}" if record and record.iterations else ""
        return (f"The draft loop of {_what(state)} is stopped{drafts}. Last good draft: {last}; "
                "every draft is in the history. Say **continue** to go on.")
    return (f"Nothing to stop: the draft loop of {_what(state)} had already ended{_after(record)}"
            f" ({reason or 'it failed'}). Last good draft: {last}. Say **continue** to try "
            "again from it, or ask for something new.")


def finished_answer(state: SessionState) -> str:
    """"continue" on a finished task: it is finished, and what can come next."""
    last = f"`{state.commit_id[:12]}`" if state.commit_id else "its last draft"
    return (f"The draft of {_what(state)} is finished: committed as {last}. There is nothing "
            "to continue: say **apply** to write it into your repository, **show the draft "
            "history** to see every draft, or ask for something new.")
