"""The draft loop of seed 000: generate -> apply -> validate + judge -> commit or roll back.

One iteration follows the seed's three concurrent steps, run on a ThreadPoolExecutor: (1) context
from the repository, the task's commit history and associative sources; (2) generation of the
modifications and extraction of the source the validation needs; (3) validation (cheapest first,
repository tests in the sandbox) and comparison with the objective (the meta-code examples as tests
in the sandbox, then the LLM judge). Every draft is a commit: a passing one is ``passed``, a
failing one ``failed`` and immediately rolled back to the last good commit, so the task's history
says what was tried and why it failed. The exact failure is fed into the next iteration.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .edits import Applied, apply_reply
from .extended import ExtendedConfig, ExtendedDeps, ExtendedResult, Revised, run_extended
from .judge import JudgeVerdict, judge_draft
from .loop_context import load_context
from .metacode import MetaCode
from .outcomes import DraftOutcome, LoopStatus, commit_verdict, is_baseline
from .ports import (
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
from .prompts import data_block, draft_blocks, render
from .report import FAILED, CheckResult, ValidationReport
from .sandbox_protect import SandboxPolicy
from .testgen import example_tests


@dataclass(frozen=True)
class LoopConfig:
    """Budget, stuck detection, sandbox limits and the extended steps' switches."""

    max_iterations: int = 4
    #: Stop when this many iterations in a row fail the same way (0 switches it off).
    stuck_after: int = 2
    judge: bool = True
    #: The Python the REPOSITORY targets (drafts are parsed for it, not for the Cat's).
    python_version: str = "3.10"
    timeout_s: float = 60.0
    memory_mb: int = 1024
    #: Which sandbox protections generated code and tests require (the admin's setting).
    sandbox_policy: SandboxPolicy = SandboxPolicy.require_isolation
    context_limit: int = 6
    history_limit: int = 6
    #: calls per judge answer (the first included) before an unreadable one is disagreement
    judge_attempts: int = 2
    extended: ExtendedConfig = field(default_factory=lambda: ExtendedConfig(enabled=False))


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
class Committed:
    """A draft passed validation and the judge and is committed (and tagged when extended)."""

    commit_id: str
    iterations: int
    report: ValidationReport
    files: dict[str, str]
    stats: LoopStats = LoopStats()
    extended: ExtendedResult | None = None
    warnings: tuple[str, ...] = ()
    #: Library entities shown as API references to the iteration that wrote this draft.
    api_references: tuple[str, ...] = ()
    #: changes the peer reviewer asked for that are not in this draft (shown to the user)
    review_requests: tuple[str, ...] = ()


@dataclass(frozen=True)
class GaveUp:
    """No draft passed; ``reason`` says why (budget or stuck); the task is at ``last_good``."""

    reason: str
    last_report: ValidationReport
    iterations: int
    last_good: str = ""
    stats: LoopStats = LoopStats()
    warnings: tuple[str, ...] = ()
    #: Library entities shown as API references to the last iteration.
    api_references: tuple[str, ...] = ()


Outcome = Committed | GaveUp


@dataclass(frozen=True)
class _Attempt:
    files: dict[str, str] | None
    report: ValidationReport

    @property
    def passed(self) -> bool:
        return self.files is not None and self.report.ok


class _Meter:
    """Counts LLM calls and their time (thread-safe) so stats can exclude the model.

    A completer that can ask for JSON natively keeps that capability (``complete_json``).
    """

    def __init__(self, llm: Completer) -> None:
        self._llm, self._lock = llm, threading.Lock()
        self.calls, self.seconds = 0, 0.0
        native = getattr(llm, "complete_json", None)
        if callable(native):
            self.complete_json = lambda prompt, schema: self._timed(native, prompt, schema)

    def __call__(self, prompt: str) -> str:
        return self._timed(self._llm, prompt)

    def _timed(self, call: Callable[..., str], *args: Any) -> str:
        start = time.perf_counter()
        try:
            return call(*args)
        finally:
            with self._lock:
                self.calls += 1
                self.seconds += time.perf_counter() - start


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


def run_draft_loop(metacode: MetaCode, deps: LoopDeps, *, task_id: str,
                   config: LoopConfig | None = None,
                   on_progress: Callable[[ProgressEvent], None] | None = None,
                   should_stop: Callable[[], bool] | None = None) -> Outcome:
    """Iterate until a draft passes (Committed) or the budget/stuck detection stops (GaveUp).

    ``should_stop`` is asked before each iteration: True ends the run (GaveUp, "cancelled:").
    """
    return _Run(metacode, task_id, deps, config or LoopConfig(), on_progress, should_stop).go()


class _Run:
    """State of one loop run (not shared between threads except through futures)."""

    def __init__(self, meta: MetaCode, task_id: str, deps: LoopDeps, config: LoopConfig,
                 on_progress: Callable[[ProgressEvent], None] | None,
                 should_stop: Callable[[], bool] | None) -> None:
        self.meta, self.task_id, self.store, self.notes = meta, task_id, deps.store, deps.notes
        self.llm = _Meter(deps.llm)
        self.judge_llm = self.llm if deps.judge_llm is None else _Meter(deps.judge_llm)
        self.repo_files = dict(deps.repo_files)
        self.repo_context, self.associative = deps.repo_context, deps.associative
        self.validator = deps.validator or _default("validate_draft")
        self.select_tests = deps.select_tests or _default("select_related_tests")
        self.sandbox = deps.sandbox or _default("run_in_sandbox", ".sandbox")
        self.config, self.on_progress, self.should_stop = config, on_progress, should_stop
        self.started = time.perf_counter()
        self.validation_s, self._vlock = 0.0, threading.Lock()
        self.warnings: list[str] = []
        self.iteration = 0
        #: Drafts the task had before this run (a resumed task keeps numbering its drafts).
        self.drafts_before = 0
        self.api_facts = deps.api_facts
        self.api_refs: tuple[str, ...] = ()

    # -- driver -----------------------------------------------------------------------------
    def go(self) -> Outcome:
        head = self._base()
        self.drafts_before = self._drafts_so_far()
        feedback, last_sig, repeats = "", None, 0
        report = ValidationReport()
        self._note("loop.status", LoopStatus.RUNNING.value)
        while self.iteration < self.config.max_iterations:
            if self.should_stop is not None and self.should_stop():
                return self._gave_up("cancelled: stopped on request", report, head)
            self.iteration += 1
            attempt = self._attempt(head, feedback)
            report = attempt.report
            if attempt.passed:
                commit_id = self._commit(attempt, DraftOutcome.PASSED)
                outcome = self._after_commit(attempt, commit_id, head)
                if outcome is not None:
                    return outcome
                report = self._ext_failure
            else:
                self._reject(attempt, head)
            sig = report.signature()
            repeats = repeats + 1 if sig == last_sig else 1
            last_sig, feedback = sig, report.as_feedback()
            self._note("loop.last_feedback", feedback)
            if self.config.stuck_after and repeats >= self.config.stuck_after:
                return self._gave_up(f"stuck: {repeats} iterations in a row failed the same way",
                                     report, head)
        return self._gave_up(f"budget: no draft passed in {self.iteration} iteration(s)",
                             report, head)

    def _after_commit(self, attempt: _Attempt, commit_id: str, head: str) -> Outcome | None:
        ext_cfg = self.config.extended
        if not ext_cfg.enabled:
            return self._committed(commit_id, attempt, None)
        previous = self._files_of(head) if self._is_implementation(head) else None
        n = self.draft_no
        result = run_extended(self._ext_deps(), dict(attempt.files or {}), commit_id, previous,
                              ext_cfg)
        self._note(f"iter{n}.extended", {
            "ok": result.ok, "report": result.report.to_dict(), "final": result.final_commit_id,
            "review": getattr(result.review, "verdict", None), "warnings": list(result.warnings)})
        if result.ok:
            files = result.files
            return self._committed(result.final_commit_id, _Attempt(files, result.report), result)
        self.store.rollback(self.task_id, to=head)
        self._emit("rollback", "done", f"extended checks failed; back to {head[:10]}")
        self._ext_failure = result.report
        return None

    # -- one iteration ----------------------------------------------------------------------
    def _attempt(self, head: str, feedback: str) -> _Attempt:
        n = self.draft_no
        self._emit("context", "started")
        ctx = load_context(self.meta, self.task_id, self.store, self.repo_context,
                           self.associative, head, self.config)
        self.warnings += list(ctx.warnings)
        self.api_refs = ctx.api_refs
        self._note(f"iter{n}.context", ctx.summary())
        draft = self._files_of(head)
        prompt = render("generate", metacode=self.meta.render_for_prompt(),
                        draft=draft_blocks(draft, self.meta.target_path),
                        repo_context=ctx.repo_text, assoc_context=ctx.assoc_text,
                        api_context=ctx.api_text,
                        history=ctx.history_text, symbol=self.meta.symbol or "(module)",
                        target_path=self.meta.target_path,
                        feedback=data_block("feedback", "validator", feedback)
                        if feedback else "(first attempt)")
        self._emit("generate", "started")
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="codemem-gen") as pool:
            reply_f = pool.submit(self.llm, prompt)
            tests_f = pool.submit(self._extract_sources)
            reply, (repo_tests, ex_tests) = reply_f.result(), tests_f.result()
        self._note(f"iter{n}.generation", {"prompt_chars": len(prompt), "reply": reply[:4000]})
        result = apply_reply(draft, reply, default_target=(self.meta.target_path,
                                                           self.meta.symbol))
        if not isinstance(result, Applied):
            self._emit("apply", "failed", result.message)
            self._note(f"iter{n}.apply", {"status": "rejected", "message": result.message})
            return _Attempt(None, ValidationReport((CheckResult("edit", FAILED,
                                                                result.message),)))
        self._note(f"iter{n}.apply", {"status": "applied", "changed": list(result.changed)})
        self._emit("apply", "done", ", ".join(result.changed))
        return _Attempt(result.files, self._check(result.files, repo_tests, ex_tests))

    def _extract_sources(self) -> tuple[dict[str, str], dict[str, str]]:
        """The repository tests touching the target, and the meta-code examples as tests."""
        repo = self.select_tests(self.repo_files, self.meta.target_path, self.meta.symbol) \
            if self.repo_files else {}
        return dict(repo), example_tests(self.meta)

    def _check(self, files: dict[str, str], repo_tests: dict[str, str],
               ex_tests: dict[str, str]) -> ValidationReport:
        """Step 3 of the seed: validation and objective comparison, concurrently."""
        self._emit("validate", "started")
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="codemem-val") as pool:
            valid_f = pool.submit(self._validate, files, repo_tests, None)
            objective_f = pool.submit(self._objective, files, ex_tests)
            valid, (ex_report, verdict) = valid_f.result(), objective_f.result()
        report = valid.merge(ex_report)
        if verdict is not None:
            report = report.merge(verdict.as_report())
            self._note(f"iter{self.draft_no}.judge", verdict.to_dict())
        self._note(f"iter{self.draft_no}.validation", report.to_dict())
        self._emit("validate", "done" if report.ok else "failed",
                   "all checks passed" if report.ok else report.as_feedback(300))
        return report

    def _objective(self, files: dict[str, str], ex_tests: dict[str, str]
                   ) -> tuple[ValidationReport, JudgeVerdict | None]:
        ex_report = ValidationReport()
        if ex_tests:
            ex_report = self._validate(files, ex_tests, ("tests",))
            ex_report = ValidationReport(tuple(
                CheckResult("examples", r.status, r.message, r.where) for r in ex_report.results))
            if not ex_report.ok:
                return ex_report, None
        if not self.config.judge:
            return ex_report, None
        self._emit("judge", "started")
        return ex_report, judge_draft(self.meta, files, ex_report or "(no example tests)",
                                      llm=self.judge_llm, attempts=self.config.judge_attempts)

    def _validate(self, files: dict[str, str], tests: dict[str, str],
                  checks: tuple[str, ...] | None) -> ValidationReport:
        start = time.perf_counter()
        kwargs: dict[str, Any] = {} if checks is None else {"checks": checks}
        if self.api_facts is not None and checks is None:
            kwargs["api_facts"] = self.api_facts
        try:
            return self.validator({**self.repo_files, **files}, target_path=self.meta.target_path,
                                  expected_symbol=self.meta.symbol,
                                  expected_params=list(self.meta.params()), test_files=tests,
                                  expected_kind=self.meta.kind,
                                  python_version=self.config.python_version,
                                  timeout_s=self.config.timeout_s,
                                  memory_mb=self.config.memory_mb,
                                  sandbox_policy=self.config.sandbox_policy, **kwargs)
        finally:
            with self._vlock:
                self.validation_s += time.perf_counter() - start

    # -- commits ----------------------------------------------------------------------------
    def _base(self) -> str:
        """The last good commit of the task, or a first ``imported`` commit of the target."""
        try:
            history = list(self.store.log(self.task_id))  # newest first
        except KeyError:  # the port's "no such task" (memory.TaskNotFound is a KeyError)
            history = []
        good = next((c for c in history if c.good), None)
        if good is not None:
            return good.id
        path = self.meta.target_path
        files = {path: self.repo_files[path]} if path in self.repo_files else {}
        return self.store.commit(self.task_id, files, name=f"start: {self.meta.symbol or path}",
                                 reason="the repository's version of the target",
                                 metacode=self.meta.to_dict(), snapshot=self._snapshot(),
                                 verdict=commit_verdict(DraftOutcome.BASELINE))

    @property
    def draft_no(self) -> int:
        """The number of the draft this iteration makes, counted over the whole task."""
        return self.drafts_before + self.iteration

    def _drafts_so_far(self) -> int:
        """The task's highest draft number so far: on its branch (drafts are named "draft N:
        ..."), or noted by an earlier run (a rejected draft leaves the branch)."""
        numbers = [int(found.group(1)) for c in self.store.log(self.task_id)
                   if (found := DRAFT_NAME.match(c.name))]
        noted = self.notes.get(self.task_id, "loop.drafts", 0) if self.notes is not None else 0
        return max([*numbers, noted if isinstance(noted, int) else 0])

    def _commit(self, attempt: _Attempt, outcome: DraftOutcome) -> str:
        n, symbol = self.draft_no, self.meta.symbol or self.meta.target_path
        passed, verdict = outcome is DraftOutcome.PASSED, commit_verdict(outcome)
        name = f"draft {n}: {symbol} {'passes all checks' if passed else 'rejected'}"
        reason = ("All checks passed:\n" + "\n".join(
            f"- {r.check}: {r.message or r.status.value}" for r in attempt.report.results)
            if passed else attempt.report.as_feedback())
        commit_id = self.store.commit(self.task_id, dict(attempt.files or {}), name=name,
                                      reason=reason, metacode=self.meta.to_dict(),
                                      snapshot=self._snapshot(), verdict=verdict)
        self._note(f"iter{n}.decision", {"verdict": verdict, "commit": commit_id})
        self._note("loop.drafts", n)
        self._emit("commit", "done" if passed else "failed", commit_id)
        return commit_id

    def _reject(self, attempt: _Attempt, head: str) -> None:
        if attempt.files is not None:
            self._commit(attempt, DraftOutcome.REJECTED)
            self.store.rollback(self.task_id, to=head)
        self._note(f"iter{self.draft_no}.rollback", {"to": head})
        self._emit("rollback", "done", f"back to {head[:10]}")

    def _revise(self, feedback: str, head: str) -> Revised | str:
        """One extra iteration from ``head`` with the reviewer's feedback (extended step)."""
        if self.iteration >= self.config.max_iterations:
            return (f"no iteration left in the budget (max_iterations="
                    f"{self.config.max_iterations})")
        self.iteration += 1
        attempt = self._attempt(head, feedback)
        if attempt.passed:
            return Revised(dict(attempt.files or {}), self._commit(attempt, DraftOutcome.PASSED))
        self._reject(attempt, head)
        return f"the revised draft did not pass validation ({attempt.report.as_feedback(300)})"

    # -- helpers ----------------------------------------------------------------------------
    def _ext_deps(self) -> ExtendedDeps:
        def validate_all(files: dict[str, str]) -> ValidationReport:
            repo_tests, ex_tests = self._extract_sources()
            return self._validate(files, {**repo_tests, **ex_tests}, None)

        return ExtendedDeps(self.meta, self.task_id, self.llm, self.store, validate_all,
                            self.sandbox, self._snapshot,
                            lambda step, status, msg: self._emit(step, status, msg),
                            self._revise, self.config.timeout_s, self.config.memory_mb,
                            self.config.sandbox_policy)

    def _is_implementation(self, commit_id: str) -> bool:
        return any(c.id == commit_id and c.good and not is_baseline(c.verdict)
                   for c in self.store.log(self.task_id))

    def _files_of(self, commit_id: str) -> dict[str, str]:
        return dict(self.store.show(commit_id).files or {})

    def _snapshot(self) -> JsonObject:
        return dict(self.notes.snapshot(self.task_id)) if self.notes is not None else {}

    def _note(self, key: str, value: Any) -> None:
        if self.notes is not None:
            self.notes.put(self.task_id, key, value)

    def _emit(self, step: str, status: str, message: str = "") -> None:
        if self.on_progress is not None:
            self.on_progress(ProgressEvent(self.task_id, self.draft_no, step, status, message,
                                           round(time.perf_counter() - self.started, 3)))

    def _stats(self) -> LoopStats:
        meters = {id(m): m for m in (self.llm, self.judge_llm)}.values()
        return LoopStats(sum(m.calls for m in meters), sum(m.seconds for m in meters),
                         self.validation_s, time.perf_counter() - self.started)

    def _committed(self, commit_id: str, attempt: _Attempt,
                   ext: ExtendedResult | None) -> Committed:
        self._note("loop.status", LoopStatus.COMMITTED.value)
        self._emit("done", "done", commit_id)
        warnings = tuple(self.warnings) + (ext.warnings if ext else ())
        return Committed(commit_id, self.iteration, attempt.report, dict(attempt.files or {}),
                         self._stats(), ext, warnings,
                         api_references=self.api_refs,
                         review_requests=ext.unapplied_review if ext else ())

    def _gave_up(self, reason: str, report: ValidationReport, head: str) -> GaveUp:
        self._note("loop.status", LoopStatus.GAVE_UP.value)
        self._emit("done", "failed", reason)
        return GaveUp(reason, report, self.iteration, head, self._stats(), tuple(self.warnings),
                      self.api_refs)

    _ext_failure: ValidationReport = ValidationReport()


#: How the loop names a draft's commit; the number is what the user sees and rolls back to.
DRAFT_NAME = re.compile(r"draft (\d+):")


def _default(name: str, module: str = ".validate") -> Any:
    """The package's real implementation, imported when first needed."""
    import importlib

    return getattr(importlib.import_module(module, __package__), name)
