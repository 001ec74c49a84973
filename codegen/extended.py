"""The extended loop of seed 000 ("with more details"): what happens after a commit.

Step 4 (concurrent): run the tests again and measure performance of the examples in the sandbox
against the previous good draft. Step 5 (concurrent): generate documentation and ask an LLM peer
review. Review feedback asking for changes becomes ONE more iteration (the loop supplies it as the
``revise`` callback, so this module never imports the loop); the result is stored as a tagged final
commit. Every step is switchable in :class:`ExtendedConfig`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .edit_entity import add_docstring
from .judge import _json_object
from .metacode import MetaCode
from .prompts import data_block, draft_blocks, render
from .report import CheckResult, ValidationReport
from .sandbox_protect import SandboxPolicy


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


@dataclass(frozen=True)
class ExtendedDeps:
    """What the loop hands over (callables, so this module stays independent of the loop)."""

    meta: MetaCode
    task_id: str
    llm: Callable[[str], str]
    store: Any
    validate_all: Callable[[dict[str, str]], ValidationReport]
    sandbox: Callable[..., Any]
    snapshot: Callable[[], dict]
    emit: Callable[[str, str, str], None]
    revise: Callable[[str, str], tuple[dict[str, str], str] | None]
    timeout_s: float = 30.0
    memory_mb: int = 512
    sandbox_policy: SandboxPolicy = SandboxPolicy.require_isolation


def run_extended(deps: ExtendedDeps, files: dict[str, str], commit_id: str,
                 previous: Mapping[str, str] | None, config: ExtendedConfig) -> ExtendedResult:
    """Steps 4 and 5 of the seed after ``commit_id`` (holding ``files``) was committed."""
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="codemem-ext") as pool:
        rerun = pool.submit(_rerun, deps, files, config)
        perf = pool.submit(_perf, deps, files, previous, config)
        report, comparison = rerun.result(), perf.result()
    if comparison and not comparison.ok:
        report = report.add(CheckResult("performance", "failed", "; ".join(comparison.regressions)))
    if not report.ok:
        return ExtendedResult(False, report, "", files, perf=comparison)
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="codemem-ext") as pool:
        docs = pool.submit(_docs, deps, files, config)
        review = pool.submit(_review, deps, files, report, config)
        (docstring, note, warn), rev = docs.result(), review.result()
    warnings = [warn] if warn else []
    incorporated = False
    if rev and rev.wants_changes and config.incorporate_review:
        deps.emit("review", "started", "incorporating the peer review")
        revised = deps.revise(_review_feedback(rev), commit_id)
        if revised is None:
            warnings.append("the peer review's changes did not pass validation; kept the "
                            "reviewed draft")
        else:
            files, commit_id = revised
            incorporated = True
    final_id = _finalise(deps, files, commit_id, docstring, note, config)
    return ExtendedResult(True, report, final_id, _files_of(deps, final_id, files),
                          perf=comparison, review=rev, review_incorporated=incorporated,
                          note=note, docstring=docstring, warnings=tuple(warnings))


def _rerun(deps: ExtendedDeps, files: dict[str, str], config: ExtendedConfig) -> ValidationReport:
    if not config.rerun_tests:
        return ValidationReport((CheckResult("tests", "skipped", "re-run switched off"),))
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


def _docs(deps: ExtendedDeps, files: dict[str, str], config: ExtendedConfig
          ) -> tuple[str, str, str]:
    if not config.documentation:
        return "", "", ""
    deps.emit("documentation", "started", "")
    reply = deps.llm(render("docs", metacode=deps.meta.render_for_prompt(),
                            draft=draft_blocks(files, deps.meta.target_path),
                            symbol=deps.meta.symbol))
    try:
        data = _json_object(reply)
    except ValueError as err:
        return "", "", f"documentation answer unusable ({err}); no docstring added"
    return str(data.get("docstring", "")).strip(), str(data.get("note", "")).strip(), ""


def _review(deps: ExtendedDeps, files: dict[str, str], report: ValidationReport,
            config: ExtendedConfig) -> Review | None:
    if not config.peer_review:
        return None
    deps.emit("review", "started", "")
    reply = deps.llm(render("review", metacode=deps.meta.render_for_prompt(),
                            draft=draft_blocks(files, deps.meta.target_path),
                            tests=data_block("test_results", "sandbox", report.as_feedback())))
    try:
        data = _json_object(reply)
    except ValueError:
        return Review("unreadable")
    comments = tuple(str(c) for c in data.get("comments", []) if str(c).strip()) \
        if isinstance(data.get("comments"), list) else ()
    verdict = data.get("verdict")
    return Review(verdict if verdict in ("approve", "changes") else "unreadable", comments)


def _review_feedback(review: Review) -> str:
    return "A peer reviewer asked for these changes:\n" + "\n".join(
        f"- {c}" for c in review.comments)


def _finalise(deps: ExtendedDeps, files: dict[str, str], commit_id: str, docstring: str,
              note: str, config: ExtendedConfig) -> str:
    path, meta = deps.meta.target_path, deps.meta
    final_id = commit_id
    if docstring and path.endswith(".py") and meta.kind != "module" and path in files:
        documented = add_docstring(files[path], meta.symbol, docstring)
        if documented != files[path]:
            final_id = deps.store.commit(
                deps.task_id, {**files, path: documented}, name=f"final: {meta.symbol}",
                reason=note or "documentation added", metacode=meta.to_dict(),
                snapshot=deps.snapshot(), verdict="final")
    if config.tag_final:
        deps.store.tag_final(deps.task_id, final_id)
    deps.emit("final", "done", final_id)
    return final_id


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
