"""Validate a draft, cheapest check first: parse -> signature -> library calls -> lint -> tests
(in the sandbox).

Why this order: each step costs about ten times the previous one (microseconds for the parse,
tens of milliseconds for ruff, seconds for pytest), and a draft that does not parse or lacks
the expected symbol would only produce noisy test failures. So the tests run only when every
static check passed; skipped checks say why. The result is a ``ValidationReport`` whose
``as_feedback()`` is short enough to go back to the LLM.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import libcst as cst

from ..defaults import DRAFT_RUN_DEFAULTS as DEFAULTS
from ..errors import CodegenError
from ..module_names import module_of
from ..ports import ApiFacts
from ..report import CHECK_ORDER, FAILED, SKIPPED, CheckResult, ValidationReport
from ..sandbox.api import run_in_sandbox
from ..sandbox.protect import SandboxPolicy
from .api_check import check_library_calls
from .callsites import check_call_sites
from .lint import lint_source
from .pycheck import check_parse, check_signature
from .pytest_runner import SandboxFn, run_tests
from .related_tests import is_test_file, needed_files, select_related_tests
from .renamed_uses import check_removed_names

ALL_CHECKS = frozenset({"parse", "signature", "api", "lint", "tests"})

__all__ = ["ALL_CHECKS", "UnknownCheck", "select_related_tests", "validate_draft"]


class UnknownCheck(CodegenError, ValueError):
    """``checks=`` named a check this validator does not have (a programming error)."""


def validate_draft(files: Mapping[str, str], *, target_path: str,
                   expected_symbol: str | None = None,
                   expected_params: Sequence[str] | None = None,
                   test_files: Mapping[str, str] | None = None,
                   python_version: str = DEFAULTS.python_version,
                   checks: Collection[str] | None = None, timeout_s: float = DEFAULTS.timeout_s,
                   memory_mb: int = DEFAULTS.memory_mb, expected_kind: str | None = None,
                   api_facts: ApiFacts | None = None,
                   draft_paths: Sequence[str] | None = None,
                   sandbox: SandboxFn = run_in_sandbox,
                   sandbox_policy: SandboxPolicy = DEFAULTS.sandbox_policy,
                   base_files: Mapping[str, str] | None = None) -> ValidationReport:
    """Check the draft ``files`` (repository files merged with the draft) cheapest first.

    ``sandbox_policy`` names the sandbox protections the tests require (default: file and
    network isolation); when one is missing the tests do not run and the report says why.

    ``draft_paths`` are the Python files to parse, lint and check the target's call sites in
    (default: the target only);
    ``test_files`` are written next to the draft and run together with nothing else (pass
    ``select_related_tests(...)`` output merged with the generated example tests).
    ``api_facts`` (the indexed libraries) enables the ``api`` check of library calls.
    ``base_files`` (the repository before the draft) lets the ``signature`` check name every
    place that still names a function, class or method the draft renamed or removed
    (``renamed_uses``: dynamic access, ``__all__``, star imports).
    """
    wanted = ALL_CHECKS if checks is None else frozenset(checks)
    if wanted - ALL_CHECKS:
        raise UnknownCheck(f"unknown checks {sorted(wanted - ALL_CHECKS)}")
    if api_facts is None:  # no library is indexed: nothing to check calls against
        wanted -= {"api"}
    paths = [p for p in (draft_paths or [target_path]) if p.endswith(".py")]
    results, module = _parse(files, paths, target_path, python_version, wanted)
    if any(r.failed for r in results):
        return _finish(results, wanted, "the draft does not parse")
    if "signature" in wanted and module is not None:
        results.append(check_signature(module, target_path, expected_symbol,
                                       list(expected_params) if expected_params else None,
                                       expected_kind))
        if not results[-1].failed:
            results.extend(check_call_sites(files, paths, target_path, expected_symbol,
                                            expected_kind))
        results.extend(check_removed_names(base_files or {}, files, paths))
    if "api" in wanted and api_facts is not None:
        local = {module_of(p).split(".")[0] for p in files if p.endswith(".py")}
        results.extend(check_library_calls(files, paths, api_facts, local))
    if "lint" in wanted:
        for path in paths:
            if path in files:
                results.extend(lint_source(files[path], path, python_version))
    if "tests" in wanted:
        if any(r.failed for r in results):
            return _finish(results, wanted, "fix the failures above first")
        results.extend(_tests(files, dict(test_files or {}), [target_path, *paths],
                              timeout_s, memory_mb, sandbox, sandbox_policy))
    return _finish(results, wanted, "")


def _parse(files: Mapping[str, str], paths: list[str], target_path: str, version: str,
           wanted: frozenset[str]) -> tuple[list[CheckResult], cst.Module | None]:
    """Parse results (kept only when ``parse`` is wanted, or on failure) and the target tree."""
    if not wanted & {"parse", "signature"}:
        return [], None
    results: list[CheckResult] = []
    module = None
    for path in paths:
        if path not in files:
            results.append(CheckResult("parse", FAILED, f"{path} is missing from the draft",
                                       path))
            continue
        parsed = check_parse(files[path], path, version)
        results.append(parsed.result)
        module = parsed.module if path == target_path else module
    if "parse" not in wanted and not any(r.failed for r in results):
        results = []
    return results, module


def _tests(files: Mapping[str, str], test_files: dict[str, str], roots: list[str],
           timeout_s: float, memory_mb: int, sandbox: SandboxFn,
           policy: SandboxPolicy) -> tuple[CheckResult, ...]:
    """Only the files the tests need go into the sandbox, plus the tests themselves."""
    everything = {**files, **test_files}
    test_paths = [p for p in test_files if p.endswith(".py") and (
        is_test_file(p) or not p.endswith("conftest.py"))]
    needed = needed_files(everything, [*test_paths, *roots])
    local = {module_of(p).split(".")[0] for p in everything if p.endswith(".py")}
    return run_tests(needed, test_paths, local_modules=local, timeout_s=timeout_s,
                     memory_mb=memory_mb, sandbox=sandbox, policy=policy)


def _finish(results: list[CheckResult], wanted: frozenset[str], why: str) -> ValidationReport:
    """Add a ``skipped`` entry for each wanted check that did not run; order by cost."""
    ran = {r.check for r in results}
    for check in sorted(wanted - ran, key=CHECK_ORDER.index):
        results.append(CheckResult(check, SKIPPED, f"not run: {why or 'nothing to check'}"))
    results.sort(key=lambda r: CHECK_ORDER.index(r.check))
    return ValidationReport(tuple(results))
