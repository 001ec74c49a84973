"""The worker thread that runs one task's draft loop for a ``Session``.

The loop runs for minutes, so it runs in a daemon thread of its own (a turn must not block the
user's socket). Progress moves the task's phase through legal transitions and reaches the user
as throttled notifications; the result arrives as a chat message. The loop's notes go straight
into the task's scratchpad in the session's state (``TaskNotes``: the one copy the prompts read),
and every update is made under the session's lock and saved to the state's owner
(``state_store``); the outcome is saved durably *before* the result is sent, so a restart or a
kill -9 right after finds it. The worker never touches the Cat's working memory or its cache.
When the process stops, the worker leaves the state alone: the task stays "drafting", and the
next Cat reports it as interrupted (``interruption_report``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Protocol

from ...codegen import GENERATE, CodegenPhase, Committed, GaveUp, MetaCode, ProgressEvent
from ...llm import LLMError, Meter
from ...memory import CommitInfo, TaskNotFound, is_good
from ..host.lifecycle import LIFECYCLE, ShuttingDown
from ..host.model_advice import failure_text, unreadable_verdict_advice
from ..projects.indexing import PROGRESS_INTERVAL_S, Throttle
from ..projects.registry import Project
from ..projects.workspace import UserLink, Workspace
from .loop_run import (
    draft_diffs,
    first_commit,
    outcome_message,
    phase_for,
    run_loop,
    run_prepared,
)
from .state import SessionState
from .task_context import TaskContext
from .task_record import FAILED, LastRun, outcome_record

log = logging.getLogger(__name__)


class TaskOwner(Protocol):
    """What the worker needs of its user's ``session.Session``: the state it writes under the
    session's lock and saves to its owner, the request's meter and the task's retrieval."""

    @property
    def state(self) -> SessionState: ...
    @property
    def lock(self) -> threading.RLock: ...
    @property
    def meter(self) -> Meter: ...
    @property
    def context(self) -> TaskContext | None: ...
    def save(self, *, durable: bool = False) -> None: ...


class TaskNotes:
    """The loop's ``Notes``: the task's scratchpad in the session's state, written under the
    session's lock and saved (what the prompts and the commits' snapshots read: one copy). A
    task no longer in the scratchpad (archived meanwhile) takes no more notes."""

    def __init__(self, session: TaskOwner, task_id: str) -> None:
        self.session = session
        self.task_id = task_id

    def put(self, task_id: str, key: str, value: object) -> None:
        with self.session.lock:
            pad = self.session.state.scratchpad
            if task_id in pad.tasks():
                pad.put(task_id, key, value)
                self.session.save()

    def get(self, task_id: str, key: str, default: object = None) -> object:
        with self.session.lock:
            pad = self.session.state.scratchpad
            return pad.get(task_id, key, default) if task_id in pad.tasks() else default

    def snapshot(self, task_id: str) -> dict[str, object]:
        with self.session.lock:
            pad = self.session.state.scratchpad
            return dict(pad.snapshot(task_id)) if task_id in pad.tasks() else {}


class DraftWorker:
    """One draft-loop run for ``session``'s current task, in a daemon thread."""

    def __init__(self, session: TaskOwner, link: UserLink, project: Project, workspace: Workspace,
                 meta: MetaCode, prepared: Mapping[str, str] | None = None) -> None:
        self.session = session
        #: A draft made without a model (a rename or a move): validated and committed only.
        self.prepared = prepared
        self.link = link
        self.project = project
        self.workspace = workspace
        self.meta = meta
        self.task_id = session.state.task_id
        #: The run's number (``task_record.begin_run``).
        self.run = session.state.run
        self.stop_event = threading.Event()
        #: Set once the loop has its outcome: from then on a stop cannot change it.
        self.finishing = threading.Event()
        #: The outcome, once the worker recorded it.
        self.record: LastRun | None = None
        self.notes = TaskNotes(session, self.task_id)
        self._throttle = Throttle(PROGRESS_INTERVAL_S)
        self._thread = threading.Thread(target=self._run, name=f"codemem-draft-{self.task_id}",
                                        daemon=True)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    def start(self) -> None:
        self._thread.start()

    def _should_stop(self) -> bool:
        return self.stop_event.is_set() or LIFECYCLE.should_stop()

    def _outcome(self) -> Committed | GaveUp:
        config = self.workspace.config
        if self.prepared is not None:
            return run_prepared(self.project, config, self.meta, self.prepared, self.task_id,
                                self.notes, self._progress)
        context = self.session.context
        assert context is not None, "the session builds the task's context before starting"
        return run_loop(self.project, config, self.meta, self.task_id, self.notes, context,
                        self.session.meter, self._progress, self._should_stop)

    def _run(self) -> None:
        try:
            with self.workspace.registry.lease(self.project):
                outcome = self._outcome()
                self.finishing.set()
                diff = self._diff(outcome)
            if LIFECYCLE.stopping.is_set():
                return  # leave the phase: the next Cat reports the interrupted task
            self._finish(outcome, diff)
        except ShuttingDown:
            log.info("draft loop of task %s abandoned: the Cat is stopping", self.task_id)
        except Exception as err:  # crash boundary of a background thread: report, never lose
            if LIFECYCLE.stopping.is_set():
                return
            log.exception("draft loop of task %s failed", self.task_id)
            self.finishing.set()
            self.record = LastRun(self.run, FAILED, failure=f"{type(err).__name__}: {err}",
                                  llm_calls=self.session.meter.calls)
            self._update(failure=self.record.failure, record=self.record)
            said = (_sentence(failure_text(GENERATE, err, self.workspace.config))
                    if isinstance(err, (LLMError, TimeoutError)) else
                    f"The draft loop stopped with an error: {type(err).__name__}: {err}.")
            self.link.send(f"{said} The drafts so far are kept in the history of task "
                           f"`{self.task_id}`.", "chat")

    def _diff(self, outcome: Committed | GaveUp) -> str:
        if not isinstance(outcome, Committed):
            return ""
        base = first_commit(self.project, self.task_id)
        return draft_diffs(self.project, base, outcome.commit_id) if base else ""

    def _finish(self, outcome: Committed | GaveUp, diff: str) -> None:
        """Record the outcome in the session's state, saved durably, then tell the user."""
        self.record = outcome_record(self.run, outcome, self.session.meter.calls)
        if isinstance(outcome, Committed):
            self._update(CodegenPhase.DONE, outcome.commit_id, record=self.record)
        else:
            self._update(commit_id=outcome.last_good, failure=outcome.reason,
                         record=self.record)
        advice = "" if isinstance(outcome, Committed) else unreadable_verdict_advice(
            ((r.check, r.message) for r in outcome.last_report.results), self.workspace.config)
        message = outcome_message(outcome, self.meta, diff, self.session.meter.calls, advice)
        if isinstance(outcome, Committed) and self.stop_event.is_set():
            first, _, rest = message.partition("\n\n")
            message = (f"{first} It had finished before your **stop** could take effect."
                       f"\n\n{rest}")
        self.link.send(message, "chat")

    def _progress(self, event: ProgressEvent) -> None:
        if LIFECYCLE.stopping.is_set():
            return
        phase = phase_for(event)
        if phase is not None:
            self._update(phase)
        if self._throttle.ready():
            self.link.send(f"Draft {event.iteration}: {event.step} {event.status}"
                           + (f" ({event.message[:120]})" if event.message else ""))

    def _update(self, phase: CodegenPhase | None = None, commit_id: str = "",
                failure: str = "", record: LastRun | None = None) -> None:
        """Move the task's phase in the session's state and save it (durably with the run's
        outcome, ``record``)."""
        session = self.session
        with session.lock:
            state = session.state
            if state.task_id != self.task_id:
                return  # the user moved on to another task; the history keeps this one
            if phase is not None and state.phase.phase is not phase:
                state.phase.walk_to(phase, "draft loop")
            if failure and not state.phase.phase.terminal:
                state.phase.fail(failure)
            if commit_id:
                state.commit_id = commit_id
            if record is not None:
                state.last_run = record.to_dict()
                if record.loop_status and self.task_id in state.scratchpad.tasks():
                    state.scratchpad.put(self.task_id, "loop.status", record.loop_status)
            session.save(durable=record is not None)


def interruption_report(state: SessionState, project: Project | None) -> tuple[str, str]:
    """What to tell the user about a task interrupted by a restart, and its last good draft."""
    meta = state.note("metacode") or {}
    what = f"`{meta.get('symbol') or '?'}` in `{meta.get('target_path') or '?'}`"
    lines = [f"Your draft of {what} (task `{state.task_id}`) was interrupted: the Cat stopped "
             f"while the draft loop was {state.phase.phase.value.replace('_', ' ')}."]
    last_good = ""
    try:
        entries: list[CommitInfo] = list(project.commits.log(state.task_id)) if project else []
    except TaskNotFound:  # stopped before the first commit
        entries = []
    if entries:
        last = entries[0]
        good = next((e for e in entries if is_good(str(e.verdict))), None)
        last_good = good.id if good is not None else ""
        lines.append(f"Last draft: draft {last.iteration} `{last.id[:10]}` [{last.verdict}] "
                     f"{last.name}.")
        if good is not None and good.id != last.id:
            lines.append(f"Last good draft: `{good.id[:10]}` [{good.verdict}].")
    else:
        lines.append("No draft had been committed yet.")
    lines.append("Say **continue** to resume from the last good draft, or ask for something "
                 "else.")
    return " ".join(lines), last_good


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
