"""One ``Session`` per user: its state, its lock, its worker thread, its stop event.

The session is the only place a user's code-generation state changes. It lives in a process
registry (``Sessions``) keyed by user id, so it can own what must not be pickled (the lock, the
worker thread, the per-task retrieval); its state is published as plain data into the user's
working memory after every change, which is what the Cat saves (and, with the ``file_system``
cache, what a restarted Cat finds). Within a process the session's state is the truth: a turn's
working memory may be a stale copy when a worker finished during that turn. Across processes
and imports the task ledger is: a worker records its run's outcome there first
(``task_record``), and ``recover`` adopts that record before it calls a task interrupted.

What a user can ask of it: ``propose`` (a request becomes proposed meta-code), ``reply`` to a
proposal ("go", "cancel", a correction), ``stop`` a running loop, ``resume`` the last task from
its last good draft ("continue"), ``recover`` after a restart (an interrupted task is reported
and repaired). "apply" and the draft history are in ``history.py``, the status in
``app/chat/status.py``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping

from ...codegen import (
    METACODE,
    CodegenError,
    CodegenPhase,
    LoopStatus,
    MetaCode,
    MetaCodeInvalid,
    ReplyIntent,
    classify_reply,
    is_resume,
)
from ...llm import LLMError, Meter, Metered
from ...memory import CodeMemoryError
from ..host.cat_types import Storage
from ..host.lifecycle import LIFECYCLE
from ..host.llm_port import PluginLLM
from ..host.model_advice import failure_text
from ..projects.registry import Project
from ..projects.workspace import Turn
from .proposal import (
    PROPOSAL_CONTEXT,
    PROPOSAL_HELP,
    metacode_query,
    proposal_text,
    propose,
    retrieval_query,
    task_impact,
)
from .state import SessionState, read_state, write_state
from .task_context import TaskContext
from .task_record import adopt_recorded, begin_run, finished_answer, stop_answer
from .worker import DraftWorker, interruption_report

log = logging.getLogger(__name__)

#: What a finished task leaves in long-term memory when the next request starts.
ARCHIVED_NOTES = ("request", "metacode", "loop.status", "loop.last_feedback")
#: How long "stop" waits for a worker that already has its outcome to record it (seconds).
FINISH_WAIT_S = 30.0
STOPPING = ("Stopping the draft loop after the current step; the drafts so far stay in the "
            "history.")


class Session:
    """One user's code-generation session (see the module docstring)."""

    def __init__(self, user_id: str, state: SessionState) -> None:
        self.user_id = user_id
        self.state = state
        self.lock = threading.RLock()
        self.worker: DraftWorker | None = None
        self.context: TaskContext | None = None
        self.meter = Meter(state.llm_calls)

    # -- state --------------------------------------------------------------------------------
    @property
    def drafting(self) -> bool:
        """A worker thread of this process runs the task's draft loop now."""
        return self.worker is not None and self.worker.alive

    def publish(self, working_memory: object) -> None:
        """Write the state into a turn's working memory (the Cat saves it after the turn)."""
        with self.lock:
            self.state.llm_calls = self.meter.calls
            write_state(working_memory, self.state)

    def _fail(self, turn: Turn, reason: str) -> None:
        with self.lock:
            if self.state.task_id and not self.state.phase.phase.terminal:
                self.state.phase.fail(reason)
            self.publish(turn.working_memory)

    # -- the request --------------------------------------------------------------------------
    def propose(self, turn: Turn, request: Mapping[str, str]) -> str:
        """Open a task for ``request`` and answer with proposed meta-code to confirm."""
        with self.lock:
            busy = self.busy()
            if busy is not None:
                return busy
            self._open_task(dict(request))
            self.publish(turn.working_memory)
            try:
                project = turn.workspace.project()
                self._archive_finished(project)
                project.ledger.open_task(self.state.task_id, self.user_id)
                self.context = self._task_context(turn, project, request)
                impact = task_impact(project, request)
                meta = propose(request, [], self._llm(turn),
                               self.context.code(PROPOSAL_CONTEXT), impact)
            except Exception as err:  # crash boundary: the model's client may raise anything
                reason = _reason(turn, err)
                self._fail(turn, f"could not prepare the request: {reason}")
                return f"I could not prepare the request: {reason}"
            finally:
                self.meter.begin(None)  # the action's budget ends with it
            self._remember_proposal(turn, meta, [])
            return proposal_text(meta, impact)

    def busy(self) -> str | None:
        """Why a new request cannot start now (a draft loop runs), or ``None``."""
        if not self.drafting:
            return None
        return (f"A draft is running for task `{self.state.task_id}`: say **stop** first, or "
                "wait for its result.")

    def _llm(self, turn: Turn) -> Metered:
        """The plugin's LLM for this action: counted within its time budget (which starts
        here), fitted into the model's window, native JSON as configured."""
        config = turn.workspace.config
        self.meter.begin(config.budget_s)
        return self.meter.wrap(PluginLLM.of(config))

    def _open_task(self, request: dict[str, str]) -> None:
        state = self.state
        phase = state.phase.phase
        if not phase.terminal and phase not in (CodegenPhase.IDLE, CodegenPhase.COLLECTING):
            state.phase.reset()  # a new request abandons the unfinished one (history keeps it)
        state.phase.advance(CodegenPhase.COLLECTING, "new request")
        state.task_id = state.scratchpad.start_task(initial={"request": request})
        state.commit_id = state.applied_commit = ""
        self.meter = Meter()
        self.context = None

    def _task_context(self, turn: Turn, project: Project,
                      request: Mapping[str, str]) -> TaskContext:
        return TaskContext(project, user=self.user_id, task_id=self.state.task_id,
                           query=retrieval_query(request),
                           current_file=str(request.get("target_path", "")),
                           share_finished=turn.workspace.config.share_task_notes,
                           meter=self.meter)

    def _archive_finished(self, project: Project) -> list[str]:
        """Complete every scratchpad task but the current one: archive its key notes (scoped
        to this user), mark it finished in the ledger, clear it from the working memory."""
        pad, done = self.state.scratchpad, []

        def sink(text: str, metadata: Mapping[str, object]) -> str:
            return project.code.add_memory(text, {**metadata, "type": "task_note",
                                                  "user": self.user_id})

        for task in pad.tasks():
            if task == self.state.task_id:
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

    def _remember_proposal(self, turn: Turn, meta: MetaCode, feedback: list[str]) -> None:
        with self.lock:
            task = self.state.task_id
            self.state.scratchpad.put(task, "metacode", meta.to_dict())
            self.state.scratchpad.put(task, "feedback", feedback)
            self.state.scratchpad.put(task, "awaiting", "metacode")
            self.publish(turn.working_memory)

    def reply(self, turn: Turn, text: str) -> str | None:
        """Answer a message while meta-code awaits confirmation; ``None`` when nothing awaits."""
        with self.lock:
            if not self.state.awaiting_confirmation:
                return None
            task = self.state.task_id
            intent = classify_reply(text)
            if intent is ReplyIntent.CANCEL:
                self._fail(turn, "cancelled by the user")
                return f"Cancelled the request (task `{task}`)."
            if intent is ReplyIntent.CONFIRM or is_resume(text):  # "continue" = go on
                return self.confirm(turn)
            return self._revise(turn, text)

    def _revise(self, turn: Turn, text: str) -> str:
        feedback = [*self.state.note("feedback", []), text.strip()]
        request = self.state.note("request")
        try:
            project = turn.workspace.project()
            if self.context is None or self.context.project is not project:
                self.context = self._task_context(turn, project, request)
            previous = self.state.note("metacode") or {}
            impact = task_impact(project, {**request, **{k: previous.get(k) or request.get(k)
                                                         for k in ("target_path", "symbol")}})
            meta = propose(request, feedback, self._llm(turn),
                           self.context.code(PROPOSAL_CONTEXT), impact)
        except Exception as err:  # crash boundary: the model's client may raise anything
            return f"I could not revise the proposal: {_reason(turn, err)} {PROPOSAL_HELP}"
        finally:
            self.meter.begin(None)  # the action's budget ends with it
        self._remember_proposal(turn, meta, feedback)
        return proposal_text(meta, impact, revised=True)

    def confirm(self, turn: Turn) -> str:
        """Start the draft loop for the confirmed meta-code, in a worker thread."""
        with self.lock:
            state = self.state
            state.phase.advance(CodegenPhase.METACODE_CONFIRMED, "confirmed by the user")
            state.scratchpad.put(state.task_id, "awaiting", "")
            return self._start(turn)

    def _start(self, turn: Turn) -> str:
        state = self.state
        try:
            project = turn.workspace.project()
        except CodeMemoryError as err:
            self._fail(turn, f"cannot start drafting: {err}")
            return f"Cannot start drafting: {err}"
        meta = MetaCode.from_dict(state.note("metacode"))
        if self.context is None or self.context.project is not project:
            self.context = self._task_context(turn, project, state.note("request") or {})
        self.context.refocus(metacode_query(meta), meta.target_path)  # what the user confirmed
        begin_run(state, project, self.user_id)
        self.worker = DraftWorker(self, turn.link, project, turn.workspace, meta)
        self.publish(turn.working_memory)
        self.worker.start()
        return (f"Drafting `{meta.symbol}` in `{meta.target_path}` (task `{state.task_id}`): I "
                "will report progress here and post the result when it is ready.")

    def start_prepared(self, turn: Turn, project: Project, text: str, meta: MetaCode,
                       files: Mapping[str, str]) -> str:
        """A task whose draft was made without a model (a rename, a move): its worker only
        validates and commits it."""
        with self.lock:
            self._open_task({"request": text, "target_path": meta.target_path,
                             "symbol": meta.symbol})
            project.ledger.open_task(self.state.task_id, self.user_id)
            self.state.scratchpad.put(self.state.task_id, "metacode", meta.to_dict())
            self.state.phase.advance(CodegenPhase.METACODE_CONFIRMED, "a structural change")
            begin_run(self.state, project, self.user_id)
            self.worker = DraftWorker(self, turn.link, project, turn.workspace, meta,
                                      prepared=files)
            self.publish(turn.working_memory)
            self.worker.start()
            what = meta.behaviour.split(":")[0]
            return (f"{what} (task `{self.state.task_id}`): validating it and committing it as "
                    "a draft; the result follows here.")

    # -- during and after the loop ------------------------------------------------------------
    def stop(self, text: str) -> str | None:
        """"stop" / "cancel" for the task's draft loop: end it after the current step; when the
        loop has (or already had) its outcome, say what it was."""
        worker = self.worker
        if (worker is None or worker.task_id != self.state.task_id
                or classify_reply(text) is not ReplyIntent.CANCEL):
            return None
        worker.stop_event.set()
        if worker.alive and worker.finishing.is_set():  # too late to stop: it is recording
            worker.thread.join(FINISH_WAIT_S)
        if worker.alive:
            return STOPPING
        with self.lock:
            return stop_answer(self.state, worker.record)

    @property
    def resumable(self) -> bool:
        """The task can go on from its last good draft (stopped, gave up or interrupted)."""
        state = self.state
        return (not self.drafting and state.phase.phase is CodegenPhase.FAILED
                and bool(state.note("metacode")))

    def resume(self, turn: Turn) -> str | None:
        """"continue": run the loop again from the task's last good draft."""
        with self.lock:
            if not self.drafting and self.state.phase.phase is CodegenPhase.DONE \
                    and self.state.task_id:
                return finished_answer(self.state)  # never drafts a finished task again
            if not self.resumable:
                return None
            self.state.phase.walk_to(CodegenPhase.METACODE_CONFIRMED, "continued by the user")
            return self._start(turn)

    def recover(self, turn: Turn) -> str | None:
        """After a restart: a task the state says is drafting but nothing runs takes the
        outcome the ledger recorded for it (nothing to report: the user had the result); one
        without an outcome is reported, and its phase repaired (failed, "interrupted"), so
        "continue" can resume it."""
        with self.lock:
            if not self.state.running or self.drafting or LIFECYCLE.stopping.is_set():
                return None
            task = self.state.task_id
            try:
                project: Project | None = turn.workspace.project()
            except CodeMemoryError:
                project = None
            if adopt_recorded(self.state, project) is not None:
                self.meter = Meter(self.state.llm_calls)
                self.publish(turn.working_memory)
                return None
            report, last_good = interruption_report(self.state, project)
            self.state.phase.fail("interrupted: the Cat stopped while the draft loop ran")
            self.state.scratchpad.put(task, "loop.status", LoopStatus.INTERRUPTED.value)
            if last_good:
                self.state.commit_id = last_good
            self.publish(turn.working_memory)
            return report


class Sessions:
    """The process's sessions, keyed by user id (created from the working memory on first use,
    e.g. after a restart)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, Session] = {}

    def of(self, user_id: str, working_memory: Storage) -> Session:
        with self._lock:
            session = self._sessions.get(user_id)
            if session is None:
                session = self._sessions[user_id] = Session(user_id, read_state(working_memory))
            return session

    def all(self) -> list[Session]:
        with self._lock:
            return list(self._sessions.values())

    def stop_all(self) -> None:
        """Ask every running loop to stop (at shutdown)."""
        for session in self.all():
            if session.worker is not None:
                session.worker.stop_event.set()


def _reason(turn: Turn, err: Exception) -> str:
    """Why preparing the request failed: the error itself when it is not the model's (the
    repository, the index), else what the user can change (``model_advice``)."""
    if isinstance(err, (CodeMemoryError, CodegenError)) and not isinstance(err, MetaCodeInvalid):
        return f"{err}."
    if not isinstance(err, (LLMError, CodegenError, TimeoutError, OSError)):
        log.warning("preparing the request failed", exc_info=err)
    return failure_text(METACODE, err, turn.workspace.config)
