"""A task's draft-loop runs as its state records them, and what the user is told of them.

Each run of a task's loop is numbered when it starts (``begin_run``: the state's ``run``, its
``last_run`` marked running) and its outcome is recorded by its worker the moment it ends
(``outcome_record``, saved durably by the session, the state's one owner, before the result is
sent): so a run whose state still says *running* with no worker alive is one the Cat stopped,
reported as interrupted, and a kill -9 right after a draft finished loses nothing.
``stop_answer`` and ``finished_answer`` say what happened to a task whose loop has ended, for a
"stop" that came too late and a "continue" on a finished task.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ...codegen import CodegenPhase, Committed, GaveUp, LoopStatus
from .state import SessionState

DONE = "done"
FAILED = "failed"
RUNNING = "running"


@dataclass(frozen=True)
class LastRun:
    """How one run of a task's draft loop ended (``running`` until its worker records it)."""

    run: int
    phase: str = RUNNING
    commit_id: str = ""
    failure: str = ""
    #: the scratchpad's ``loop.status`` the outcome leaves (committed, gave_up)
    loop_status: str = ""
    iterations: int = 0
    llm_calls: int = 0

    def to_dict(self) -> dict[str, Any]:  # Any: JSON
        return asdict(self)

    @classmethod
    def of(cls, data: object) -> LastRun | None:
        if not isinstance(data, dict) or "run" not in data:
            return None
        try:
            return cls(run=int(data["run"]), phase=str(data.get("phase", RUNNING)),
                       commit_id=str(data.get("commit_id", "")),
                       failure=str(data.get("failure", "")),
                       loop_status=str(data.get("loop_status", "")),
                       iterations=int(data.get("iterations", 0)),
                       llm_calls=int(data.get("llm_calls", 0)))
        except (TypeError, ValueError):
            return None


def begin_run(state: SessionState) -> None:
    """A draft loop is about to run for the state's task: number the run."""
    state.run += 1
    state.last_run = LastRun(state.run).to_dict()


def outcome_record(run: int, outcome: Committed | GaveUp, llm_calls: int) -> LastRun:
    """The record of a run that ended with ``outcome``."""
    if isinstance(outcome, Committed):
        return LastRun(run, DONE, commit_id=outcome.commit_id,
                       loop_status=LoopStatus.COMMITTED.value,
                       iterations=outcome.iterations, llm_calls=llm_calls)
    return LastRun(run, FAILED, commit_id=outcome.last_good, failure=outcome.reason,
                   loop_status=LoopStatus.GAVE_UP.value, iterations=outcome.iterations,
                   llm_calls=llm_calls)


def _what(state: SessionState) -> str:
    meta = state.note("metacode") or {}
    return (f"`{meta.get('symbol') or '?'}` in `{meta.get('target_path') or '?'}` "
            f"(task `{state.task_id}`)")


def _after(record: LastRun | None) -> str:
    return f" after {record.iterations} iteration(s)" if record and record.iterations else ""


def stop_answer(state: SessionState) -> str:
    """"stop" when the task's loop has already ended: what happened to it."""
    record = LastRun.of(state.last_run)
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
