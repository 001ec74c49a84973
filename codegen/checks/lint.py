"""Lint a draft for real errors only (syntax, undefined names) with the Cat's own ruff.

Why ruff on the host and not in the sandbox: ``--isolated`` makes ruff ignore every config
file and plugin, so repository content cannot make it run code (threat T7); the draft goes in
on stdin, so nothing is written. Why only ``E9,F63,F7,F82``: style findings are noise for a
draft loop; these codes are bugs. Schema drift between ruff versions (``E999`` in 0.4.x,
``invalid-syntax`` or ``null`` later) is absorbed here.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from typing import Any

from ..defaults import DRAFT_RUN_DEFAULTS as DEFAULTS
from ..report import FAILED, PASSED, SKIPPED, CheckResult
from .pycheck import version_tuple

SELECT = "E9,F63,F7,F82"
_SYNTAX_CODES = (None, "E999", "invalid-syntax", "syntax-error")
_MAX_FINDINGS = 10


def ruff_target(python_version: str) -> str:
    """ruff's ``--target-version`` for the repository (clamped to what ruff 0.4 knows)."""
    major, minor = version_tuple(python_version)
    return f"py{major}{min(max(minor, 7), 12)}"


def ruff_available() -> bool:
    return importlib.util.find_spec("ruff") is not None


def lint_source(source: str, path: str, python_version: str = DEFAULTS.python_version,
                timeout_s: float = 30.0) -> tuple[CheckResult, ...]:
    """One ``lint`` result per finding (at most 10), or a single passed/skipped result."""
    if not ruff_available():
        return (CheckResult("lint", SKIPPED, "ruff is not installed in the Cat's Python"),)
    argv = [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache",
            "--select", SELECT, "--output-format", "json",
            "--target-version", ruff_target(python_version), "--stdin-filename", path, "-"]
    try:
        done = subprocess.run(argv, input=source.encode("utf-8", "surrogateescape"),
                              capture_output=True, timeout=timeout_s,
                              env={"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"})
    except (OSError, subprocess.TimeoutExpired) as err:
        return (CheckResult("lint", SKIPPED, f"ruff could not run: {err}"),)
    try:
        findings = json.loads(done.stdout.decode("utf-8", "replace") or "[]")
    except ValueError:
        tail = done.stderr.decode("utf-8", "replace").strip()[-300:]
        return (CheckResult("lint", SKIPPED, f"ruff gave no JSON (rc {done.returncode}): "
                                               f"{tail}"),)
    if not findings:
        return (CheckResult("lint", PASSED, "", path),)
    return tuple(_finding(f, path) for f in findings[:_MAX_FINDINGS])


def _finding(item: dict[str, Any], path: str) -> CheckResult:  # one JSON finding of ruff
    loc = item.get("location") or {}
    where = f"{path}:{loc.get('row', 0)}:{loc.get('column', 0)}"
    code = item.get("code")
    message = str(item.get("message", "")).strip()
    if code in _SYNTAX_CODES:
        label = "syntax error"
    else:
        label = str(code)
    return CheckResult("lint", FAILED, f"{label}: {message}", where)
