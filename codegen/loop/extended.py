"""The extended loop: what happens after a commit (docs/loop.md, "Extended steps").

Step 4 (concurrent): run the tests again and measure performance of the examples in the sandbox
against the previous good draft. Step 5: ask an LLM peer review and the documentation in ONE
call (each alone when the other is switched off), read by the ``llm`` layer and re-asked (with
the refusal) within a small budget; a reply that gives a verdict but no docstring leaves the
draft undocumented, never unreviewed.
Review feedback asking for changes becomes ONE more iteration when the loop's budget allows (the
loop supplies it as the ``revise`` callback, so this module never imports the loop); changes not
applied are handed back to the user, never dropped. The documented draft is validated again before
it is tagged final: a draft that fails is rolled back and the last valid one is final.
Every step is switchable in :class:`ExtendedConfig`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ...llm.errors import ReplyRefused
from ...llm.reader import read_reply
from ...llm.retry import ask
from ...llm.templates import data_block, draft_blocks
from ..edits.entity import add_docstring
from ..metacode.model import MetaCode
from ..ports import DraftStore, JsonObject, SandboxRun
from ..report import FAILED, SKIPPED, CheckResult, ValidationReport
from ..sandbox.protect import SandboxPolicy
from ..steps import DOCS, REVIEW, REVIEW_DOCS
from .outcomes import DraftOutcome, commit_verdict


@dataclass(frozen=True)
class ExtendedConfig:
    """Switches and thresholds of the extended steps (``enabled=False`` skips them all)."""

    enabled: bool = True
    rerun_tests: bool = True
    performance: bool = True
    documentation: bool = True
    peer_review: bool = True
    incorporate_review: bool = True
    tag_final: bool = True
    #: Flag a regression when time or peak memory grows by more than this fraction.
    perf_threshold: float = 0.5
    perf_repeats: int = 5
    #: Growth below these absolute amounts is noise, never a regression.
    perf_min_time_s: float = 0.002
    perf_min_bytes: int = 256 * 1024
    #: calls per documentation or review answer (the first included) before it is given up
    reply_attempts: int = 2


@dataclass(frozen=True)
class PerfMetrics:
    """Best-of-N time and peak traced memory over all examples of one draft."""

    time_s: float
    peak_bytes: int
    per_example: tuple[dict[str, Any], ...] = ()
    error: str = ""


@dataclass(frozen=True)
class PerfComparison:
    current: PerfMetrics
    previous: PerfMetrics | None
    regressions: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.regressions


@dataclass(frozen=True)
class Review:
    verdict: str  # "approve" | "changes" | "unreadable"
    comments: tuple[str, ...] = ()

    @property
    def wants_changes(self) -> bool:
        return self.verdict == "changes" and bool(self.comments)


@dataclass(frozen=True)
class ExtendedResult:
    """What the extended steps found; ``ok`` False means roll back (tests or performance)."""

    ok: bool
    report: ValidationReport
    final_commit_id: str
    files: dict[str, str]
    perf: PerfComparison | None = None
    review: Review | None = None
    review_incorporated: bool = False
    note: str = ""
    docstring: str = ""
    warnings: tuple[str, ...] = field(default_factory=tuple)
    #: changes the peer reviewer asked for that are NOT in the final draft (for the user)
    unapplied_review: tuple[str, ...] = ()


@dataclass(frozen=True)
class Revised:
    """The review's changes passed validation as ``commit_id`` holding ``files``."""

    files: dict[str, str]
    commit_id: str


@dataclass(frozen=True)
class ExtendedDeps:
    """What the loop hands over (callables, so this module stays independent of the loop)."""

    meta: MetaCode
    task_id: str
    llm: Callable[[str], str]
    store: DraftStore
    validate_all: Callable[[dict[str, str]], ValidationReport]
    sandbox: SandboxRun
    snapshot: Callable[[], JsonObject]
    emit: Callable[[str, str, str], None]
    #: one more iteration with the review's feedback: Revised, or why it was not applied
    revise: Callable[[str, str], Revised | str]
    #: the run's sandbox limits and policy (``LoopConfig``'s)
    timeout_s: float
    memory_mb: int
    sandbox_policy: SandboxPolicy


def run_extended(deps: ExtendedDeps, files: dict[str, str], commit_id: str,
                 previous: Mapping[str, str] | None, config: ExtendedConfig) -> ExtendedResult:
    """Steps 4 and 5 after ``commit_id`` (holding ``files``) was committed."""
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="codemem-ext") as pool:
        rerun = pool.submit(_rerun, deps, files, config)
        perf = pool.submit(_perf, deps, files, previous, config)
        report, comparison = rerun.result(), perf.result()
    if comparison and not comparison.ok:
        report = report.add(CheckResult("performance", FAILED, "; ".join(comparison.regressions)))
    if not report.ok:
        return ExtendedResult(False, report, "", files, perf=comparison)
    (docstring, note, doc_warnings), (rev, rev_warnings) = _review_and_docs(deps, files, report,
                                                                           config)
    warnings = [*doc_warnings, *rev_warnings]
    files, commit_id, unapplied = _incorporate(deps, rev, files, commit_id, config, warnings)
    final_id = _finalise(deps, files, commit_id, docstring, note, config, warnings)
    return ExtendedResult(True, report, final_id, _files_of(deps, final_id, files),
                          perf=comparison, review=rev, review_incorporated=not unapplied and
                          bool(rev and rev.wants_changes), note=note, docstring=docstring,
                          warnings=tuple(warnings), unapplied_review=unapplied)


def _incorporate(deps: ExtendedDeps, rev: Review | None, files: dict[str, str], commit_id: str,
                 config: ExtendedConfig, warnings: list[str]
                 ) -> tuple[dict[str, str], str, tuple[str, ...]]:
    """Apply the review's changes as one more iteration, or say why they are not applied."""
    if rev is None or not rev.wants_changes:
        return files, commit_id, ()
    if not config.incorporate_review:
        warnings.append("the peer reviewer asked for changes; applying them is switched off")
        return files, commit_id, rev.comments
    deps.emit("review", "started", "incorporating the peer review")
    revised = deps.revise(_review_feedback(rev), commit_id)
    if isinstance(revised, Revised):
        return revised.files, revised.commit_id, ()
    warnings.append(f"the peer review's changes are not in this draft: {revised}")
    return files, commit_id, rev.comments


def _rerun(deps: ExtendedDeps, files: dict[str, str], config: ExtendedConfig) -> ValidationReport:
    if not config.rerun_tests:
        return ValidationReport((CheckResult("tests", SKIPPED, "re-run switched off"),))
    deps.emit("rerun_tests", "started", "")
    return deps.validate_all(files)


def _perf(deps: ExtendedDeps, files: dict[str, str], previous: Mapping[str, str] | None,
          config: ExtendedConfig) -> PerfComparison | None:
    if not config.performance or not deps.meta.examples or not deps.meta.module:
        return None
    deps.emit("performance", "started", "")
    current = measure(deps, files, config)
    before = measure(deps, dict(previous), config) if previous else None
    return compare_perf(current, before, config)


def measure(deps: ExtendedDeps, files: dict[str, str], config: ExtendedConfig) -> PerfMetrics:
    """Time (best of N) and peak memory of every example call, in the sandbox."""
    calls = [e.call for e in deps.meta.examples]
    script = _PERF_SCRIPT.format(module=deps.meta.module, calls=calls,
                                 repeats=max(1, config.perf_repeats))
    result = deps.sandbox({**files, "_codemem_perf.py": script}, ["python", "_codemem_perf.py"],
                          timeout_s=deps.timeout_s, memory_mb=deps.memory_mb,
                          require=deps.sandbox_policy)
    for line in reversed((result.stdout or "").splitlines()):
        if line.startswith("CODEMEM_PERF "):
            rows = json.loads(line[len("CODEMEM_PERF "):])
            return PerfMetrics(sum(r["time_s"] for r in rows),
                               max((r["peak_bytes"] for r in rows), default=0), tuple(rows))
    return PerfMetrics(math.nan, 0, error=f"measurement failed: {result.status} "
                                           f"{(result.stderr or '')[-300:]}")


def compare_perf(current: PerfMetrics, previous: PerfMetrics | None,
                 config: ExtendedConfig) -> PerfComparison:
    """Regressions beyond ``perf_threshold`` (and beyond the noise floors)."""
    if previous is None or previous.error or current.error:
        return PerfComparison(current, previous)
    found = []
    limit = 1 + config.perf_threshold
    if current.time_s > previous.time_s * limit and \
            current.time_s - previous.time_s > config.perf_min_time_s:
        found.append(f"examples take {current.time_s * 1000:.1f} ms, previous draft "
                     f"{previous.time_s * 1000:.1f} ms (x{current.time_s / previous.time_s:.1f})")
    if current.peak_bytes > previous.peak_bytes * limit and \
            current.peak_bytes - previous.peak_bytes > config.perf_min_bytes:
        found.append(f"peak memory {current.peak_bytes} bytes, previous draft "
                     f"{previous.peak_bytes} bytes")
    return PerfComparison(current, previous, tuple(found))


_Docs = tuple[str, str, list[str]]
_Reviewed = tuple[Review | None, list[str]]


def _review_and_docs(deps: ExtendedDeps, files: dict[str, str], report: ValidationReport,
                     config: ExtendedConfig) -> tuple[_Docs, _Reviewed]:
    """Step 5: the peer review and the documentation, in ONE call when both are on."""
    if not (config.documentation and config.peer_review):
        return _docs(deps, files, config), _review(deps, files, report, config)
    deps.emit("review", "started", "")
    deps.emit("documentation", "started", "")
    prompt = REVIEW_DOCS.render(metacode=deps.meta.render_for_prompt(),
                    draft=draft_blocks(files, deps.meta.target_path), symbol=deps.meta.symbol,
                    tests=data_block("test_results", "sandbox", report.as_feedback()))
    asked = ask(deps.llm, prompt, REVIEW_DOCS.spec(), attempts=config.reply_attempts)
    if asked.value is None:
        return _salvaged_docs(asked.replies, asked.calls, asked.refusal), (
            Review("unreadable"), [f"the peer review could not be read after {asked.calls} "
                                   f"attempt(s) ({asked.refusal}); the draft was not reviewed"])
    value = asked.value
    reviewed: _Reviewed = Review(value.verdict, tuple(value.comments)), []
    if value.docstring is None:
        return (("", value.note, ["the documentation step gave no docstring; none added"]),
                reviewed)
    return (value.docstring, value.note, []), reviewed


def _salvaged_docs(replies: tuple[str, ...], calls: int, refusal: str) -> _Docs:
    """The documentation of a merged answer whose review part stayed unreadable (the newest
    reply that holds one), so a missing verdict costs the review, not the docstring too."""
    for reply in reversed(replies):
        try:
            docs = read_reply(reply, DOCS.spec())
        except ReplyRefused:
            continue
        if docs.docstring:
            return docs.docstring, docs.note, []
    return "", "", [f"the documentation could not be read after {calls} attempt(s) "
                    f"({refusal}); no docstring added"]


def _docs(deps: ExtendedDeps, files: dict[str, str], config: ExtendedConfig
          ) -> tuple[str, str, list[str]]:
    """(docstring, note, warnings); an answer that stays unreadable is a warning, not silence."""
    if not config.documentation:
        return "", "", []
    deps.emit("documentation", "started", "")
    prompt = DOCS.render(metacode=deps.meta.render_for_prompt(),
                    draft=draft_blocks(files, deps.meta.target_path), symbol=deps.meta.symbol)
    asked = ask(deps.llm, prompt, DOCS.spec(), attempts=config.reply_attempts)
    if asked.value is None:
        return "", "", [f"the documentation answer could not be read after {asked.calls} "
                        f"attempt(s) ({asked.refusal}); no docstring added"]
    if asked.value.docstring is None:
        return "", asked.value.note, ["the documentation step gave no docstring; none added"]
    return asked.value.docstring, asked.value.note, []


def _review(deps: ExtendedDeps, files: dict[str, str], report: ValidationReport,
            config: ExtendedConfig) -> tuple[Review | None, list[str]]:
    if not config.peer_review:
        return None, []
    deps.emit("review", "started", "")
    prompt = REVIEW.render(metacode=deps.meta.render_for_prompt(),
                    draft=draft_blocks(files, deps.meta.target_path),
                    tests=data_block("test_results", "sandbox", report.as_feedback()))
    asked = ask(deps.llm, prompt, REVIEW.spec(), attempts=config.reply_attempts)
    if asked.value is None:
        return Review("unreadable"), [f"the peer review could not be read after {asked.calls} "
                                      f"attempt(s) ({asked.refusal}); the draft was not reviewed"]
    return Review(asked.value.verdict, tuple(asked.value.comments)), []


def _review_feedback(review: Review) -> str:
    return "A peer reviewer asked for these changes:\n" + "\n".join(
        f"- {c}" for c in review.comments)


def _finalise(deps: ExtendedDeps, files: dict[str, str], commit_id: str, docstring: str,
              note: str, config: ExtendedConfig, warnings: list[str]) -> str:
    """Add the docstring, validate again, and tag the last VALID draft final."""
    final_id = _document(deps, files, commit_id, docstring, note, warnings)
    if config.tag_final:
        deps.store.tag_final(deps.task_id, final_id)
    deps.emit("final", "done", final_id)
    return final_id


def _document(deps: ExtendedDeps, files: dict[str, str], commit_id: str, docstring: str,
              note: str, warnings: list[str]) -> str:
    path, meta = deps.meta.target_path, deps.meta
    if not docstring or not path.endswith(".py") or meta.kind == "module" or path not in files:
        return commit_id
    documented = {**files, path: add_docstring(files[path], meta.symbol, docstring)}
    if documented[path] == files[path]:
        return commit_id
    report = deps.validate_all(documented)
    verdict = commit_verdict(DraftOutcome.DOCUMENTED if report.ok else DraftOutcome.REJECTED)
    new_id = deps.store.commit(
        deps.task_id, documented, name=f"{verdict}: {meta.symbol} documented",
        reason=(note or "documentation added") if report.ok else report.as_feedback(),
        metacode=meta.to_dict(), snapshot=deps.snapshot(), verdict=verdict)
    if report.ok:
        return new_id
    deps.store.rollback(deps.task_id, to=commit_id)
    deps.emit("rollback", "done", f"the documented draft failed validation; back to "
                                  f"{commit_id[:10]}")
    warnings.append("the documented draft failed validation, so the last valid draft (without "
                    f"the docstring) is final: {report.as_feedback(300)}")
    return commit_id


def _files_of(deps: ExtendedDeps, commit_id: str, fallback: dict[str, str]) -> dict[str, str]:
    files = getattr(deps.store.show(commit_id), "files", None)
    return dict(files) if files is not None else fallback


_PERF_SCRIPT = '''import importlib, json, time, tracemalloc
namespace = dict(vars(importlib.import_module({module!r})))
rows = []
for call in {calls!r}:
    code = compile(call, "<example>", "eval")
    best = float("inf")
    for _ in range({repeats}):
        start = time.perf_counter()
        try:
            eval(code, namespace)
        except Exception:
            pass
        best = min(best, time.perf_counter() - start)
    tracemalloc.start()
    try:
        eval(code, namespace)
    except Exception:
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rows.append({{"call": call, "time_s": best, "peak_bytes": peak}})
print("CODEMEM_PERF " + json.dumps(rows))
'''
