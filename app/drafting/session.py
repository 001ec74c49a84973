"""One ``Session`` per user: its state, its lock, its worker thread, its stop event.

The session is the one writer of its user's state, and ``state_store.StateStore`` (a file per
user in the data folder) is where that state lives: every change is made under the session's
lock and saved there at once, by the Cat's thread in a turn or by the draft's worker thread.
Nothing reads the state back from the Cat's working memory, which only gets a view of it at the
end of each turn (``publish``, from the Cat's own thread): a stale, torn or missing cache file
changes nothing (docs/architecture.md, "One owner"). A user seen for the first time whose
working memory holds the state an older version of the plugin kept there has it adopted once.

What a user can ask of it: ``open_request`` (a request becomes proposed meta-code, or the file
question), ``answer_file``, ``revise``, ``confirm`` ("go"), ``cancel``, ``stop`` a running
loop, ``resume`` from the last good draft ("continue"), ``report_interruption`` after a
restart. "apply" and the draft history are in ``history.py``, the status in
``app/chat/status.py``; what a message means is read once per turn (``app/chat/routing.py``).
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
    Situation,
    Stage,
)
from ...llm import LLMError, Meter, Metered
from ...memory import CodeMemoryError
from ..host.lifecycle import LIFECYCLE
from ..host.llm_port import PluginLLM
from ..host.model_advice import failure_text
from ..projects.registry import Project
from ..projects.workspace import Turn
from .archive import archive_finished
from .proposal import (
    PROPOSAL_CONTEXT,
    PROPOSAL_HELP,
    metacode_query,
    proposal_text,
    propose,
    retrieval_query,
    task_impact,
)
from .state import SessionState, write_view
from .state_store import StateStore
from .task_context import TaskContext
from .task_record import begin_run, finished_answer, stop_answer
from .worker import DraftWorker, interruption_report

log = logging.getLogger(__name__)

#: How long "stop" waits for a worker that already has its outcome to record it (seconds).
FINISH_WAIT_S = 30.0
STOPPING = ("Stopping the draft loop after the current step; the drafts so far stay in the "
            "history.")


class Session:
    """One user's code-generation session (see the module docstring)."""

    def __init__(self, user_id: str, state: SessionState, store: StateStore | None = None
                 ) -> None:
        self.user_id = user_id
        self.state = state
        self.store = store
        self.lock = threading.RLock()
        self.worker: DraftWorker | None = None
        self.context: TaskContext | None = None
        self.meter = Meter(state.llm_calls)

    # -- the state and its owner --------------------------------------------------------------
    @property
    def drafting(self) -> bool:
        """A worker thread of this process runs the task's draft loop now."""
        return self.worker is not None and self.worker.alive

    def save(self, *, durable: bool = False) -> None:
        """Write the state to its owner (``durable``: on disk before returning). A retired
        import of the plugin writes nothing: the next import owns the state now."""
        with self.lock:
            self.state.llm_calls = self.meter.calls
            if self.store is None or LIFECYCLE.stopping.is_set():
                return
            try:
                self.store.save(self.user_id, self.state.to_dict(), durable=durable)
            except OSError as err:  # the state in this process still has it
                log.warning("could not save the state of %s: %s", self.user_id, err)

    def publish(self, working_memory: object) -> None:
        """The state's view into a turn's working memory (the Cat's thread, end of a turn)."""
        with self.lock:
            self.state.llm_calls = self.meter.calls
            write_view(working_memory, self.state)

    def situation(self, *, repository: bool, foreign_form: bool = False) -> Situation:
        """Where the user stands, for the reading of this turn's message."""
        with self.lock:
            state = self.state
            meta = (state.note("metacode") or {}) if state.awaiting_confirmation else {}
            return Situation(
                stage=self._stage(), repository=repository, has_task=bool(state.task_id),
                has_draft=bool(state.task_id and state.commit_id),
                proposal=(str(meta.get("target_path", "")), str(meta.get("symbol", ""))),
                suggestion=state.suggestion, foreign_form=foreign_form)

    def _stage(self) -> Stage:
        state = self.state
        if self.drafting:
            return Stage.DRAFTING
        if state.running and not LIFECYCLE.stopping.is_set():
            return Stage.INTERRUPTED
        if state.asking:
            return Stage.ASKED_FILE
        if state.awaiting_confirmation:
            return Stage.PROPOSED
        return Stage.ENDED if state.task_id else Stage.NO_TASK

    def _fail(self, reason: str) -> None:
        with self.lock:
            if self.state.task_id and not self.state.phase.phase.terminal:
                self.state.phase.fail(reason)
            self.save()

    # -- the request --------------------------------------------------------------------------
    def ask_for_file(self, request: Mapping[str, str]) -> None:
        """Keep ``request`` waiting for its file: the next message is first read as the answer.
        A proposal waiting meanwhile is replaced by this request."""
        with self.lock:
            self._replace_proposal()
            self.state.asking = {k: str(v) for k, v in request.items() if v}
            self.save()

    def drop_question(self) -> str:
        with self.lock:
            self.state.asking = {}
            self.save()
        return "Dropped the code request."

    def ask_suggestion(self, phrase: str) -> str:
        with self.lock:
            self.state.suggestion = phrase
            self.save()
        return f"Did you mean: **{phrase}**? Say **yes** to do it."

    def clear_pending(self, *, question: bool = False) -> None:
        """Forget "Did you mean ...?" (answered or passed over), and the file question when a
        new request or a change by structure replaces it."""
        with self.lock:
            changed = bool(self.state.suggestion) or (question and bool(self.state.asking))
            self.state.suggestion = ""
            if question:
                self.state.asking = {}
            if changed:
                self.save()

    def _replace_proposal(self) -> None:
        if self.state.awaiting_confirmation:
            self._fail("replaced by a new request")

    def propose(self, turn: Turn, request: Mapping[str, str]) -> str:
        """Open a task for ``request`` (it replaces a waiting proposal and the file question)
        and answer with proposed meta-code to confirm."""
        with self.lock:
            busy = self.busy()
            if busy is not None:
                return busy
            self._replace_proposal()
            self.state.asking = {}
            self._open_task(dict(request))
            self.save()
            try:
                project = turn.workspace.project()
                archive_finished(self.state, project, self.user_id)
                project.ledger.open_task(self.state.task_id, self.user_id)
                self.context = self._task_context(turn, project, request)
                impact = task_impact(project, request)
                meta = propose(request, [], self._llm(turn),
                               self.context.code(PROPOSAL_CONTEXT), impact)
            except Exception as err:  # crash boundary: the model's client may raise anything
                reason = _reason(turn, err)
                self._fail(f"could not prepare the request: {reason}")
                return f"I could not prepare the request: {reason}"
            finally:
                self.meter.begin(None)  # the action's budget ends with it
            self._remember_proposal(meta, [])
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
        state.run, state.last_run = 0, {}
        self.meter = Meter()
        self.context = None

    def _task_context(self, turn: Turn, project: Project,
                      request: Mapping[str, str]) -> TaskContext:
        return TaskContext(project, user=self.user_id, task_id=self.state.task_id,
                           query=retrieval_query(request),
                           current_file=str(request.get("target_path", "")),
                           share_finished=turn.workspace.config.share_task_notes,
                           meter=self.meter)

    def _remember_proposal(self, meta: MetaCode, feedback: list[str]) -> None:
        with self.lock:
            task = self.state.task_id
            self.state.scratchpad.put(task, "metacode", meta.to_dict())
            self.state.scratchpad.put(task, "feedback", feedback)
            self.state.scratchpad.put(task, "awaiting", "metacode")
            self.save()

    def cancel(self) -> str:
        """"cancel" while a proposal waits."""
        with self.lock:
            task = self.state.task_id
            self._fail("cancelled by the user")
        return f"Cancelled the request (task `{task}`)."

    def revise(self, turn: Turn, text: str, new_file: str = "") -> str:
        """A change to the waiting proposal: a revised one, with every change so far
        (``new_file``: the change names another file for it, "put it in text/words.py")."""
        with self.lock:
            feedback = [*self.state.note("feedback", []), text.strip()]
            request = {str(k): str(v) for k, v in (self.state.note("request") or {}).items()}
            if new_file:
                request["target_path"] = new_file
                self.state.scratchpad.put(self.state.task_id, "request", request)
            try:
                project = turn.workspace.project()
                if self.context is None or self.context.project is not project:
                    self.context = self._task_context(turn, project, request)
                previous = self.state.note("metacode") or {}
                impact = task_impact(project, {**request, **{
                    k: str(previous.get(k) or request.get(k) or "")
                    for k in ("target_path", "symbol")}})
                meta = propose(request, feedback, self._llm(turn),
                               self.context.code(PROPOSAL_CONTEXT), impact)
            except Exception as err:  # crash boundary: the model's client may raise anything
                return f"I could not revise the proposal: {_reason(turn, err)} {PROPOSAL_HELP}"
            finally:
                self.meter.begin(None)  # the action's budget ends with it
            self._remember_proposal(meta, feedback)
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
            self._fail(f"cannot start drafting: {err}")
            return f"Cannot start drafting: {err}"
        meta = MetaCode.from_dict(state.note("metacode"))
        if self.context is None or self.context.project is not project:
            self.context = self._task_context(turn, project, state.note("request") or {})
        self.context.refocus(metacode_query(meta), meta.target_path)  # what the user confirmed
        begin_run(state)
        self.worker = DraftWorker(self, turn.link, project, turn.workspace, meta)
        self.save(durable=True)
        self.worker.start()
        return (f"Drafting `{meta.symbol}` in `{meta.target_path}` (task `{state.task_id}`): I "
                "will report progress here and post the result when it is ready.")

    def start_prepared(self, turn: Turn, project: Project, text: str, meta: MetaCode,
                       files: Mapping[str, str]) -> str:
        """A task whose draft was made without a model (a rename, a move): its worker only
        validates and commits it. It replaces a waiting proposal or file question."""
        with self.lock:
            self._replace_proposal()
            self.state.asking = {}
            self._open_task({"request": text, "target_path": meta.target_path,
                             "symbol": meta.symbol})
            project.ledger.open_task(self.state.task_id, self.user_id)
            self.state.scratchpad.put(self.state.task_id, "metacode", meta.to_dict())
            self.state.phase.advance(CodegenPhase.METACODE_CONFIRMED, "a structural change")
            begin_run(self.state)
            self.worker = DraftWorker(self, turn.link, project, turn.workspace, meta,
                                      prepared=files)
            self.save(durable=True)
            self.worker.start()
            what = meta.behaviour.split(":")[0]
            return (f"{what} (task `{self.state.task_id}`): validating it and committing it as "
                    "a draft; the result follows here.")

    # -- during and after the loop ------------------------------------------------------------
    def stop(self) -> str:
        """"stop" / "cancel" while the task's draft loop runs: end it after the current step;
        when the loop had its outcome already, say what it was."""
        worker = self.worker
        if worker is None:
            return self.late_stop() or STOPPING
        worker.stop_event.set()
        if worker.alive and worker.finishing.is_set():  # too late to stop: it is recording
            worker.thread.join(FINISH_WAIT_S)
        if worker.alive:
            return STOPPING
        return self.late_stop() or STOPPING

    def late_stop(self) -> str | None:
        """"stop" after the task's loop ended: how it ended (``None`` when no loop ran)."""
        with self.lock:
            if not self.state.last_run:
                return None
            return stop_answer(self.state)

    @property
    def resumable(self) -> bool:
        """The task can go on from its last good draft (stopped, gave up or interrupted)."""
        state = self.state
        return (not self.drafting and state.phase.phase is CodegenPhase.FAILED
                and bool(state.note("metacode")))

    def resume(self, turn: Turn) -> str | None:
        """"continue": run the loop again from the task's last good draft (``None``: there
        is nothing to continue)."""
        with self.lock:
            if self.state.running and not self.drafting:
                self.report_interruption(turn)  # repaired: failed, "interrupted"
            if not self.drafting and self.state.phase.phase is CodegenPhase.DONE \
                    and self.state.task_id:
                return finished_answer(self.state)  # never drafts a finished task again
            if not self.resumable:
                return None
            self.state.phase.walk_to(CodegenPhase.METACODE_CONFIRMED, "continued by the user")
            return self._start(turn)

    def report_interruption(self, turn: Turn) -> str:
        """After a restart or a toggle: the task the state says is drafting, while nothing
        runs it, is reported, and its phase repaired (failed, "interrupted") so "continue" can
        resume it."""
        with self.lock:
            task = self.state.task_id
            try:
                project: Project | None = turn.workspace.project()
            except CodeMemoryError:
                project = None
            report, last_good = interruption_report(self.state, project)
            self.state.phase.fail("interrupted: the Cat stopped while the draft loop ran")
            self.state.scratchpad.put(task, "loop.status", LoopStatus.INTERRUPTED.value)
            if last_good:
                self.state.commit_id = last_good
            self.save()
            return report


def _reason(turn: Turn, err: Exception) -> str:
    """Why preparing the request failed: the error itself when it is not the model's (the
    repository, the index), else what the user can change (``model_advice``)."""
    if isinstance(err, (CodeMemoryError, CodegenError)) and not isinstance(err, MetaCodeInvalid):
        return f"{err}."
    if not isinstance(err, (LLMError, CodegenError, TimeoutError, OSError)):
        log.warning("preparing the request failed", exc_info=err)
    return failure_text(METACODE, err, turn.workspace.config)
