"""Run pytest in the sandbox and turn its JUnit XML into per-test ``CheckResult`` values.

Why JUnit XML: it is pytest's stable machine-readable output (no plugin needed; plugins are
off: ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``). The repository's ``conftest.py`` and ini files are
untrusted and only ever run inside the sandbox. A test that cannot even be collected because a
third-party module is missing is the environment's fault (``env_error``), not the draft's.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Collection

from ..defaults import DRAFT_RUN_DEFAULTS as DEFAULTS
from ..ports import SandboxRun
from ..report import ENV_ERROR, FAILED, PASSED, SKIPPED, CheckResult
from ..sandbox.api import run_in_sandbox
from ..sandbox.protect import SandboxPolicy
from ..sandbox.run import RunStatus, SandboxResult

JUNIT = ".codemem-junit.xml"
#: At most this many per-test results; the rest of the passing tests are summarised.
MAX_RESULTS = 200
_MESSAGE = 600
_MISSING = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '([\w.]+)'")

#: How the tests are run (``run_in_sandbox`` or a test double).
SandboxFn = SandboxRun


def pytest_argv(test_paths: Collection[str], *, src_root: bool = False) -> list[str]:
    argv = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
            f"--junitxml={JUNIT}", "-o", "junit_family=xunit1", "--rootdir", ".",
            "--color=no", "--continue-on-collection-errors"]
    if src_root:
        argv += ["-o", "pythonpath=src"]
    return argv + sorted(test_paths)


def run_tests(files: dict[str, str], test_paths: Collection[str], *, local_modules: set[str],
              timeout_s: float, memory_mb: int, sandbox: SandboxFn = run_in_sandbox,
              policy: SandboxPolicy = DEFAULTS.sandbox_policy
              ) -> tuple[CheckResult, ...]:
    """Run ``test_paths`` (already in ``files``); ``local_modules`` are the repo's packages.

    ``policy`` says which sandbox protections the run requires: without them nothing runs and
    the result is an ``env_error`` naming what is missing.
    """
    if not test_paths:
        return (CheckResult("tests", SKIPPED, "no tests to run"),)
    src_root = any(p.startswith("src/") for p in files)
    res = sandbox(files, pytest_argv(test_paths, src_root=src_root), timeout_s=timeout_s,
                  memory_mb=memory_mb, collect=(JUNIT,), require=policy)
    xml = res.collected.get(JUNIT, "")
    if res.status is RunStatus.TIMEOUT:
        partial = parse_junit(xml, local_modules) if xml else ()
        return partial + (CheckResult("tests", FAILED, f"the test run was stopped after "
                          f"{timeout_s:g} s (endless loop or very slow code?)"),)
    if res.status is RunStatus.ERROR:
        if res.error.startswith("refusing"):
            return (CheckResult("tests", ENV_ERROR, f"tests not run: {res.error}"),)
        return (CheckResult("tests", ENV_ERROR, f"the sandbox could not run pytest: "
                            f"{res.error}"),)
    if not xml:
        return (_no_report(res),)
    results = parse_junit(xml, local_modules)
    if not results:
        return (CheckResult("tests", SKIPPED if res.returncode == 5 else FAILED,
                            "no tests were collected" if res.returncode == 5
                            else _tail(res.stdout + res.stderr)),)
    if res.status is RunStatus.KILLED:
        results += (CheckResult("tests", FAILED, f"pytest was {res.error} (CPU or memory "
                                "limit?)"),)
    return results


def _no_report(res: SandboxResult) -> CheckResult:
    """pytest ended without writing JUnit XML: a usage/plugin error or a missing pytest."""
    text = res.stdout + res.stderr
    if "No module named pytest" in text:
        return CheckResult("tests", ENV_ERROR, "pytest is not installed in the Cat's Python")
    if res.status is RunStatus.KILLED:
        return CheckResult("tests", FAILED, f"pytest was {res.error} (CPU or memory limit?)")
    if res.returncode in (3, 4) or "Error importing plugin" in text:
        return CheckResult("tests", ENV_ERROR, "pytest could not start (repository config "
                           f"or plugin problem): {_tail(text)}")
    return CheckResult("tests", FAILED, f"pytest exited with {res.returncode}: {_tail(text)}")


def parse_junit(xml: str, local_modules: set[str]) -> tuple[CheckResult, ...]:
    """Per-test results from JUnit XML (entity declarations are refused outright)."""
    if "<!DOCTYPE" in xml or "<!ENTITY" in xml:
        return (CheckResult("tests", FAILED, "refused a JUnit report with a DOCTYPE"),)
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as err:
        return (CheckResult("tests", FAILED, f"unreadable JUnit report: {err}"),)
    results = [_case(case, local_modules) for case in root.iter("testcase")]
    if len(results) <= MAX_RESULTS:
        return tuple(results)
    others = [r for r in results if r.status is not PASSED][: MAX_RESULTS - 1]
    passing = [r for r in results if r.status is PASSED][: MAX_RESULTS - 1 - len(others)]
    hidden = [r for r in results if r not in others and r not in passing]
    bad = sum(1 for r in hidden if r.status is not PASSED)
    summary = CheckResult("tests", FAILED if bad else PASSED,
                          f"{len(hidden)} more tests not listed ({bad} of them not passing)")
    return tuple(others + passing + [summary])


def _case(case: ET.Element, local_modules: set[str]) -> CheckResult:
    where = test_id(case)
    for tag in ("failure", "error"):
        node = case.find(tag)
        if node is not None:
            text = (node.text or "")
            missing = _MISSING.search(text) or _MISSING.search(node.get("message", ""))
            if missing and missing.group(1).split(".")[0] not in local_modules:
                return CheckResult("tests", ENV_ERROR, f"missing test dependency "
                                   f"{missing.group(1)!r} (install it in the Cat or skip this "
                                   "test)", where)
            return CheckResult("tests", FAILED, excerpt(node.get("message", ""), text), where)
    skipped = case.find("skipped")
    if skipped is not None:
        return CheckResult("tests", SKIPPED, skipped.get("message", "")[:_MESSAGE], where)
    return CheckResult("tests", PASSED, "", where)


def test_id(case: ET.Element) -> str:
    """A pytest-like node id: ``path.py::Class::name`` (collection errors: the module)."""
    file, classname, name = case.get("file", ""), case.get("classname", ""), case.get("name", "")
    if not file:
        return f"{classname}::{name}" if classname else name
    module = file[:-3].replace("/", ".") if file.endswith(".py") else file
    inner = classname[len(module) + 1:] if classname.startswith(module + ".") else ""
    return "::".join(p for p in (file, inner, name) if p) if classname else file


def excerpt(message: str, text: str) -> str:
    """The assertion lines (pytest's ``E`` lines) and the failing location, capped."""
    lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    location = [ln.strip() for ln in text.splitlines() if re.match(r"^\S+\.py:\d+: \w", ln)]
    body = "\n".join(lines[:8]) or message or _tail(text, 6)
    if location:
        body += f"\n({location[-1]})"
    return body[:_MESSAGE]


def _tail(text: str, n: int = 8) -> str:
    return "\n".join(text.strip().splitlines()[-n:])[-_MESSAGE:]
