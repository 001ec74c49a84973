"""What one draft-loop run is built from and the state it keeps while it runs.

Why a module of its own: the loop (``loop.py``) is the algorithm; this is everything it
reads and counts. ``LoopDeps`` names the outside world (the model, the draft store, the
optional sources and checkers), and ``RunState.start`` fills every missing checker with this
package's real one through ordinary imports, so what the loop depends on is visible here and to
the type checker. The state is declared in one place, typed, and mutated only by the loop's
thread; the concurrent steps touch only the meters (``llm/completer.py``) and the validation
clock, which lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...llm.completer import Metered
from ..checks.validate import select_related_tests, validate_draft
from ..defaults import DRAFT_RUN_DEFAULTS as DEFAULTS
from ..metacode.model import MetaCode
from ..ports import (
    ApiFacts,
    Completer,
    ContextSource,
    DraftStore,
    JsonObject,
    Notes,
    SandboxRun,
    TestSelector,
    Validator,
)
from ..report import ValidationReport
from ..sandbox.api import run_in_sandbox
from ..sandbox.protect import SandboxPolicy
from .extended import ExtendedConfig
from .scope_draft import SCOPE_BUDGET


@dataclass(frozen=True)
class LoopConfig:
    """Budget, stuck detection, sandbox limits and the extended steps' switches."""

    max_iterations: int = DEFAULTS.max_iterations
    #: Stop when this many iterations in a row fail the same way (0 switches it off).
    stuck_after: int = 2
    judge: bool = True
    #: The Python the REPOSITORY targets (drafts are parsed for it, not for the Cat's).
    python_version: str = DEFAULTS.python_version
    timeout_s: float = DEFAULTS.timeout_s
    memory_mb: int = DEFAULTS.memory_mb
    #: Which sandbox protections generated code and tests require (the admin's setting).
    sandbox_policy: SandboxPolicy = DEFAULTS.sandbox_policy
    context_limit: int = 6
    history_limit: int = 6
    #: calls per judge answer (the first included) before an unreadable one is disagreement
    judge_attempts: int = 2
    extended: ExtendedConfig = field(default_factory=lambda: ExtendedConfig(enabled=False))
    #: characters of the scope's code shown per generation (a goal with a scope only)
    scope_budget: int = SCOPE_BUDGET


@dataclass(frozen=True)
class ProgressEvent:
    """One progress notification; ``status`` is started, done, failed or info."""

    task_id: str
    #: The draft's number, counted over the whole task (its commit is "draft N: ...").
    iteration: int
    step: str
    status: str
    message: str = ""
    elapsed_s: float = 0.0


@dataclass(frozen=True)
class LoopStats:
    """Where the time went, for the user and the benchmark (LLM time excluded from overhead)."""

    llm_calls: int = 0
    llm_s: float = 0.0
    validation_s: float = 0.0
    wall_s: float = 0.0


@dataclass(frozen=True)
class LoopDeps:
    """What one loop run works with: the model, the draft store and the optional sources.

    Only ``llm`` and ``store`` are required; a missing validator, test selector or sandbox means
    this package's real one. ``repo_files`` are the repository files validation may need
    (read-only; the draft overlays them). When ``notes`` is given, the task's scratchpad entry
    must exist (``Scratchpad.start_task``).
    """

    llm: Completer
    store: DraftStore
    notes: Notes | None = None
    repo_files: Mapping[str, str] = field(default_factory=dict)
    repo_context: ContextSource | None = None
    associative: ContextSource | None = None
    validator: Validator | None = None
    select_tests: TestSelector | None = None
    sandbox: SandboxRun | None = None
    #: A separate model for the judge (default: ``llm``).
    judge_llm: Completer | None = None
    #: The indexed libraries' API: lets validation catch wrong library calls.
    api_facts: ApiFacts | None = None


@dataclass
class RunState:
    """One run: its inputs (resolved), its counters and where it reports.

    Built by :meth:`start`; only the loop's thread changes the counters, except
    ``validation_s`` (the two validation steps run concurrently: :meth:`add_validation_time`).
    """

    meta: MetaCode
    task_id: str
    config: LoopConfig
    store: DraftStore
    notes: Notes | None
    #: the model, and the judge's (the same object when the judge has no model of its own),
    #: each counting its calls and the seconds spent waiting for them (``stats``)
    llm: Metered
    judge_llm: Metered
    repo_files: dict[str, str]
    repo_context: ContextSource | None
    associative: ContextSource | None
    validator: Validator
    select_tests: TestSelector
    sandbox: SandboxRun
    api_facts: ApiFacts | None
    on_progress: Callable[[ProgressEvent], None] | None = None
    should_stop: Callable[[], bool] | None = None
    started: float = field(default_factory=time.perf_counter)
    #: iterations begun so far (the current one's number while it runs)
    iteration: int = 0
    #: drafts the task had before this run (a continued task keeps numbering its drafts)
    drafts_before: int = 0
    warnings: list[str] = field(default_factory=list)
    #: Library entities shown as API references to the latest iteration.
    api_refs: tuple[str, ...] = ()
    validation_s: float = 0.0
    #: the report of the extended checks that failed after the last commit (the next feedback)
    ext_failure: ValidationReport = field(default_factory=ValidationReport)
    _clock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def start(cls, meta: MetaCode, deps: LoopDeps, task_id: str, config: LoopConfig,
              on_progress: Callable[[ProgressEvent], None] | None = None,
              should_stop: Callable[[], bool] | None = None) -> RunState:
        """The state of a new run; missing checkers are this package's real ones."""
        llm = Metered(deps.llm)
        return cls(
            meta=meta, task_id=task_id, config=config, store=deps.store, notes=deps.notes,
            llm=llm, judge_llm=llm if deps.judge_llm is None else Metered(deps.judge_llm),
            repo_files=dict(deps.repo_files), repo_context=deps.repo_context,
            associative=deps.associative, validator=deps.validator or validate_draft,
            select_tests=deps.select_tests or select_related_tests,
            sandbox=deps.sandbox or run_in_sandbox, api_facts=deps.api_facts,
            on_progress=on_progress, should_stop=should_stop)

    @property
    def draft_no(self) -> int:
        """The number of the draft the current iteration makes, counted over the whole task."""
        return self.drafts_before + self.iteration

    def add_validation_time(self, seconds: float) -> None:
        with self._clock:
            self.validation_s += seconds

    def note(self, key: str, value: Any) -> None:
        """Write ``value`` under ``key`` in the task's scratchpad (when there is one)."""
        if self.notes is not None:
            self.notes.put(self.task_id, key, value)

    def recall(self, key: str, default: Any) -> Any:
        """The task's scratchpad note ``key`` (``default`` without a scratchpad): what the
        prompts show comes from the scratchpad, the task's one working memory."""
        if self.notes is None:
            return default
        return self.notes.get(self.task_id, key, default)

    def snapshot(self) -> JsonObject:
        """The scratchpad's snapshot, stored with each commit."""
        return dict(self.notes.snapshot(self.task_id)) if self.notes is not None else {}

    def emit(self, step: str, status: str, message: str = "") -> None:
        if self.on_progress is not None:
            self.on_progress(ProgressEvent(self.task_id, self.draft_no, step, status, message,
                                           round(time.perf_counter() - self.started, 3)))

    def files_of(self, commit_id: str) -> dict[str, str]:
        return dict(self.store.show(commit_id).files or {})

    def stats(self) -> LoopStats:
        meters = {id(m.meter): m.meter for m in (self.llm, self.judge_llm)}.values()
        return LoopStats(sum(m.calls for m in meters), sum(m.seconds for m in meters),
                         self.validation_s, time.perf_counter() - self.started)
