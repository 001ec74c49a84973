"""The draft loop: generate -> apply -> validate + judge -> commit or roll back.

One iteration runs three concurrent steps on a ThreadPoolExecutor (docs/loop.md, "One
iteration"): (1) context from the repository, the task's commit history and associative
sources; (2) generation of the modifications and extraction of the source the validation needs;
(3) validation (cheapest first, repository tests in the sandbox) and comparison with the
objective (the meta-code examples as tests in the sandbox, then, for a draft that passed both,
the LLM judge, unless the passing tests show every acceptance check). Every draft is a commit: a
passing one is ``passed``, a failing one ``failed`` and immediately rolled back to the last good
commit, so the task's history says what was tried and why it failed. The exact failure is fed
into the next iteration, through the task's scratchpad.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ...llm.bounds import call
from ..checks.judge import JudgeVerdict, judge_draft, settled_verdict
from ..edits.api import Applied, apply_reply
from ..metacode.model import MetaCode
from ..metacode.testgen import example_tests
from ..report import FAILED, CheckResult, ValidationReport
from .context import load_context
from .extended import ExtendedDeps, ExtendedResult, Revised, run_extended
from .generation import generation_options, generation_prompt
from .outcomes import DraftOutcome, LoopStatus, commit_verdict, is_baseline
from .scope_draft import baseline_files, change_paths, checked_paths, related_tests
from .state import LoopConfig, LoopDeps, LoopStats, ProgressEvent, RunState

#: How the loop names a draft's commit; the number is what the user sees and rolls back to.
DRAFT_NAME = re.compile(r"draft (\d+):")

__all__ = ["DRAFT_NAME", "Committed", "GaveUp", "LoopConfig", "LoopDeps", "LoopStats", "Outcome",
           "ProgressEvent", "run_draft_loop", "run_prepared_draft"]


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


def run_draft_loop(metacode: MetaCode, deps: LoopDeps, *, task_id: str,
                   config: LoopConfig | None = None,
                   on_progress: Callable[[ProgressEvent], None] | None = None,
                   should_stop: Callable[[], bool] | None = None) -> Outcome:
    """Iterate until a draft passes (Committed) or the budget/stuck detection stops (GaveUp).

    ``should_stop`` is asked before each iteration: True ends the run (GaveUp, "cancelled:").
    """
    state = RunState.start(metacode, deps, task_id, config or LoopConfig(), on_progress,
                           should_stop)
    return _Loop(state).go()


def run_prepared_draft(metacode: MetaCode, files: dict[str, str], deps: LoopDeps, *,
                       task_id: str, config: LoopConfig | None = None,
                       on_progress: Callable[[ProgressEvent], None] | None = None) -> Outcome:
    """Validate and commit ``files``, a draft made without a model (``refactor``: a rename or a
    move): one iteration with no generation, no example tests and no judge, so no LLM call;
    the commits, rollback and outcome are the loop's own."""
    state = RunState.start(metacode, deps, task_id, config or LoopConfig(), on_progress)
    return _Loop(state).prepared(files)


class _Loop:
    """The loop's algorithm over one ``RunState`` (futures are the only thing shared)."""

    def __init__(self, state: RunState) -> None:
        self.s = state
        self.meta = state.meta

    # -- driver -----------------------------------------------------------------------------
    def go(self) -> Outcome:
        s = self.s
        head = self._base()
        s.drafts_before = self._drafts_so_far()
        feedback, last_sig, repeats = "", None, 0
        report = ValidationReport()
        s.note("loop.status", LoopStatus.RUNNING.value)
        while s.iteration < s.config.max_iterations:
            if s.should_stop is not None and s.should_stop():
                return self._gave_up("cancelled: stopped on request", report, head)
            s.iteration += 1
            attempt = self._attempt(head, feedback)
            report = attempt.report
            if attempt.passed:
                commit_id = self._commit(attempt, DraftOutcome.PASSED)
                outcome = self._after_commit(attempt, commit_id, head)
                if outcome is not None:
                    return outcome
                report = s.ext_failure
            else:
                self._reject(attempt, head)
            sig = report.signature()
            repeats = repeats + 1 if sig == last_sig else 1
            last_sig, feedback = sig, report.as_feedback()
            s.note("loop.last_feedback", feedback)
            if s.config.stuck_after and repeats >= s.config.stuck_after:
                return self._gave_up(f"stuck: {repeats} iterations in a row failed the same way",
                                     report, head)
        return self._gave_up(f"budget: no draft passed in {s.iteration} iteration(s)",
                             report, head)

    def prepared(self, files: dict[str, str]) -> Outcome:
        s = self.s
        head = self._base()
        s.drafts_before, s.iteration = self._drafts_so_far(), 1
        s.note("loop.status", LoopStatus.RUNNING.value)
        draft = {**s.files_of(head), **files}
        s.emit("validate", "started")
        report = self._validate(draft, self._extract_sources()[0], None)
        s.note(f"iter{s.draft_no}.validation", report.to_dict())
        s.emit("validate", "done" if report.ok else "failed",
               "all checks passed" if report.ok else report.as_feedback(300))
        attempt = _Attempt(draft, report)
        if attempt.passed:
            return self._committed(self._commit(attempt, DraftOutcome.PASSED), attempt, None)
        self._reject(attempt, head)
        return self._gave_up("the change does not pass validation", report, head)

    def _after_commit(self, attempt: _Attempt, commit_id: str, head: str) -> Outcome | None:
        s = self.s
        ext_cfg = s.config.extended
        if not ext_cfg.enabled:
            return self._committed(commit_id, attempt, None)
        previous = s.files_of(head) if self._is_implementation(head) else None
        n = s.draft_no  # the review's revision may add an iteration: note it under this one
        result = run_extended(self._ext_deps(), dict(attempt.files or {}), commit_id, previous,
                              ext_cfg)
        s.note(f"iter{n}.extended", {
            "ok": result.ok, "report": result.report.to_dict(), "final": result.final_commit_id,
            "review": getattr(result.review, "verdict", None), "warnings": list(result.warnings)})
        if result.ok:
            files = result.files
            return self._committed(result.final_commit_id, _Attempt(files, result.report), result)
        s.store.rollback(s.task_id, to=head)
        s.emit("rollback", "done", f"extended checks failed; back to {head[:10]}")
        s.ext_failure = result.report
        return None

    # -- one iteration ----------------------------------------------------------------------
    def _attempt(self, head: str, feedback: str, key: str = "loop.last_feedback") -> _Attempt:
        """One iteration from ``head``; its feedback is the scratchpad's note ``key``."""
        s, meta = self.s, self.meta
        n, feedback = s.iteration, s.recall(key, feedback) if feedback else feedback
        s.emit("context", "started")
        ctx = load_context(meta, s.task_id, s.store, s.repo_context, s.associative, head,
                           s.config)
        s.warnings += list(ctx.warnings)
        s.api_refs = ctx.api_refs
        s.note(f"iter{n}.context", ctx.summary())
        draft = s.files_of(head)
        if meta.scope:  # a scope widened after the last good draft: its files start as they are
            draft = {**baseline_files(meta, s.repo_files), **draft}
        prompt = generation_prompt(meta, draft, ctx, feedback, s.config.scope_budget)
        s.emit("generate", "started")
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="codemem-gen") as pool:
            reply_f = pool.submit(call, s.llm, prompt, generation_options(meta))
            tests_f = pool.submit(self._extract_sources)
            reply, (repo_tests, ex_tests) = reply_f.result(), tests_f.result()
        s.note(f"iter{n}.generation", {"prompt_chars": len(prompt), "reply": reply[:4000]})
        allowed = change_paths(meta) if meta.scope else None
        result = apply_reply(draft, reply, default_target=(meta.target_path, meta.symbol),
                             allowed=allowed)
        if not isinstance(result, Applied):
            s.emit("apply", "failed", result.message)
            s.note(f"iter{n}.apply", {"status": "rejected", "message": result.message})
            return _Attempt(None, ValidationReport((CheckResult("edit", FAILED,
                                                                result.message),)))
        s.note(f"iter{n}.apply", {"status": "applied", "changed": list(result.changed)})
        s.emit("apply", "done", ", ".join(result.changed))
        return _Attempt(result.files, self._check(result.files, repo_tests, ex_tests))

    def _extract_sources(self) -> tuple[dict[str, str], dict[str, str]]:
        """The repository tests touching the target (and every place of its scope), and the
        meta-code examples as tests."""
        s, meta = self.s, self.meta
        if not s.repo_files:
            repo: dict[str, str] = {}
        elif meta.scope:
            repo = related_tests(s.select_tests, s.repo_files, meta)
        else:
            repo = dict(s.select_tests(s.repo_files, meta.target_path, meta.symbol))
        return repo, example_tests(meta)

    def _check(self, files: dict[str, str], repo_tests: dict[str, str],
               ex_tests: dict[str, str]) -> ValidationReport:
        """Step 3: validation and the examples concurrently, then the judge for a draft that
        passed both (a failing draft is rejected whatever a judge would say: no call)."""
        s = self.s
        s.emit("validate", "started")
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="codemem-val") as pool:
            valid_f = pool.submit(self._validate, files, repo_tests, None)
            examples_f = pool.submit(self._examples, files, ex_tests)
            valid, ex_report = valid_f.result(), examples_f.result()
        report = valid.merge(ex_report)
        verdict = self._judge(files, report, ex_report, repo_tests) if report.ok else None
        if verdict is not None:
            report = report.merge(verdict.as_report())
            s.note(f"iter{s.draft_no}.judge", verdict.to_dict())
        s.note(f"iter{s.draft_no}.validation", report.to_dict())
        s.emit("validate", "done" if report.ok else "failed",
               "all checks passed" if report.ok else report.as_feedback(300))
        return report

    def _examples(self, files: dict[str, str], ex_tests: dict[str, str]) -> ValidationReport:
        """The examples' run as ``examples`` results: the test runs, and any other check that
        failed on the way (a passing parse says nothing the validation does not)."""
        ran = self._validate(files, ex_tests, ("tests",)).results if ex_tests else ()
        return ValidationReport(tuple(CheckResult("examples", r.status, r.message, r.where)
                                      for r in ran if r.check == "tests" or not r.status.ok))

    def _judge(self, files: dict[str, str], report: ValidationReport,
               ex_report: ValidationReport, repo_tests: dict[str, str]) -> JudgeVerdict | None:
        """The judge's verdict, or the passing tests' when they show every acceptance check."""
        s = self.s
        settled = settled_verdict(self.meta, report, tuple(repo_tests)) if s.config.judge else None
        if settled is not None or not s.config.judge:
            return settled
        s.emit("judge", "started")
        return judge_draft(self.meta, files, ex_report or "(no example tests)",
                           llm=s.judge_llm, attempts=s.config.judge_attempts)

    def _validate(self, files: dict[str, str], tests: dict[str, str],
                  checks: tuple[str, ...] | None) -> ValidationReport:
        s, meta, cfg = self.s, self.meta, self.s.config
        start = time.perf_counter()
        tests = {p: files.get(p, text) for p, text in tests.items()}  # the draft's version wins
        kwargs: dict[str, Any] = {} if checks is None else {"checks": checks}
        if s.api_facts is not None and checks is None:
            kwargs["api_facts"] = s.api_facts
        if meta.scope:  # every file of the change is parsed, linted and its calls checked
            kwargs["draft_paths"] = checked_paths(meta, files, s.repo_files)
        try:
            return s.validator({**s.repo_files, **files}, target_path=meta.target_path,
                               expected_symbol=meta.symbol,
                               expected_params=list(meta.params()), test_files=tests,
                               expected_kind=meta.kind, python_version=cfg.python_version,
                               timeout_s=cfg.timeout_s, memory_mb=cfg.memory_mb,
                               sandbox_policy=cfg.sandbox_policy, **kwargs)
        finally:
            s.add_validation_time(time.perf_counter() - start)

    # -- commits ----------------------------------------------------------------------------
    def _base(self) -> str:
        """The last good commit of the task, or a first ``imported`` commit of the target."""
        s = self.s
        try:
            history = list(s.store.log(s.task_id))  # newest first
        except KeyError:  # the port's "no such task" (memory.TaskNotFound is a KeyError)
            history = []
        good = next((c for c in history if c.good), None)
        if good is not None:
            return good.id
        path = self.meta.target_path
        files = baseline_files(self.meta, s.repo_files)
        return s.store.commit(s.task_id, files, name=f"start: {self.meta.symbol or path}",
                              reason="the repository's version of the target"
                              + (" and its scope" if self.meta.scope else ""),
                              metacode=self.meta.to_dict(), snapshot=s.snapshot(),
                              verdict=commit_verdict(DraftOutcome.BASELINE))

    def _drafts_so_far(self) -> int:
        """The task's highest draft number so far: on its branch (drafts are named "draft N:
        ..."), or noted by an earlier run (a rejected draft leaves the branch)."""
        s = self.s
        numbers = [int(found.group(1)) for c in s.store.log(s.task_id)
                   if (found := DRAFT_NAME.match(c.name))]
        noted = s.notes.get(s.task_id, "loop.drafts", 0) if s.notes is not None else 0
        return max([*numbers, noted if isinstance(noted, int) else 0])

    def _commit(self, attempt: _Attempt, outcome: DraftOutcome) -> str:
        s = self.s
        n, symbol = s.draft_no, self.meta.symbol or self.meta.target_path
        passed, verdict = outcome is DraftOutcome.PASSED, commit_verdict(outcome)
        name = f"draft {n}: {symbol} {'passes all checks' if passed else 'rejected'}"
        reason = ("All checks passed:\n" + "\n".join(
            f"- {r.check}: {r.message or r.status.value}" for r in attempt.report.results)
            if passed else attempt.report.as_feedback())
        commit_id = s.store.commit(s.task_id, dict(attempt.files or {}), name=name,
                                   reason=reason, metacode=self.meta.to_dict(),
                                   snapshot=s.snapshot(), verdict=verdict)
        s.note(f"iter{n}.decision", {"verdict": verdict, "commit": commit_id})
        s.note("loop.drafts", n)
        s.emit("commit", "done" if passed else "failed", commit_id)
        return commit_id

    def _reject(self, attempt: _Attempt, head: str) -> None:
        s = self.s
        if attempt.files is not None:
            self._commit(attempt, DraftOutcome.REJECTED)
            s.store.rollback(s.task_id, to=head)
        s.note(f"iter{s.draft_no}.rollback", {"to": head})
        s.emit("rollback", "done", f"back to {head[:10]}")

    def _revise(self, feedback: str, head: str) -> Revised | str:
        """One extra iteration from ``head`` with the reviewer's feedback (extended step)."""
        s = self.s
        if s.iteration >= s.config.max_iterations:
            return f"no iteration left in the budget (max_iterations={s.config.max_iterations})"
        s.iteration += 1
        s.note("loop.review_feedback", feedback)
        attempt = self._attempt(head, feedback, "loop.review_feedback")
        if attempt.passed:
            return Revised(dict(attempt.files or {}), self._commit(attempt, DraftOutcome.PASSED))
        self._reject(attempt, head)
        return f"the revised draft did not pass validation ({attempt.report.as_feedback(300)})"

    # -- helpers ----------------------------------------------------------------------------
    def _ext_deps(self) -> ExtendedDeps:
        s = self.s

        def validate_all(files: dict[str, str]) -> ValidationReport:
            repo_tests, ex_tests = self._extract_sources()
            return self._validate(files, {**repo_tests, **ex_tests}, None)

        return ExtendedDeps(self.meta, s.task_id, s.llm, s.store, validate_all, s.sandbox,
                            s.snapshot, s.emit, self._revise, s.config.timeout_s,
                            s.config.memory_mb, s.config.sandbox_policy)

    def _is_implementation(self, commit_id: str) -> bool:
        return any(c.id == commit_id and c.good and not is_baseline(c.verdict)
                   for c in self.s.store.log(self.s.task_id))

    def _committed(self, commit_id: str, attempt: _Attempt,
                   ext: ExtendedResult | None) -> Committed:
        s = self.s
        s.note("loop.status", LoopStatus.COMMITTED.value)
        s.emit("done", "done", commit_id)
        warnings = tuple(s.warnings) + (ext.warnings if ext else ())
        return Committed(commit_id, s.iteration, attempt.report, dict(attempt.files or {}),
                         s.stats(), ext, warnings, api_references=s.api_refs,
                         review_requests=ext.unapplied_review if ext else ())

    def _gave_up(self, reason: str, report: ValidationReport, head: str) -> GaveUp:
        s = self.s
        s.note("loop.status", LoopStatus.GAVE_UP.value)
        s.emit("done", "failed", reason)
        return GaveUp(reason, report, s.iteration, head, s.stats(), tuple(s.warnings),
                      s.api_refs)
