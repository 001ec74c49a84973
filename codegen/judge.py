"""Compare a draft with its objective: an LLM judge answers pass/fail per acceptance check.

Why a judge on top of tests: examples cover a few points, acceptance checks state intent ("no
network access", "O(n)"). A judge answer we cannot parse is asked for once more, then counted as
DISAGREEMENT: an unreadable verdict must never let a draft through.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .metacode import MetaCode
from .prompts import data_block, draft_blocks, render
from .report import CheckResult, ValidationReport


@dataclass(frozen=True)
class CheckVerdict:
    """The judge's answer for acceptance check number ``index`` (1-based)."""

    index: int
    check: str
    passed: bool
    reason: str


@dataclass(frozen=True)
class JudgeVerdict:
    """All checks; ``passed`` only when every check passed and the answer was readable."""

    checks: tuple[CheckVerdict, ...]
    error: str = ""
    calls: int = 1

    @property
    def passed(self) -> bool:
        return not self.error and bool(self.checks) and all(c.passed for c in self.checks)

    def as_report(self) -> ValidationReport:
        """``judge`` results in the shared report shape (one per failed check)."""
        if self.error:
            return ValidationReport((CheckResult(
                "judge", "failed", f"judge answer unusable ({self.error}); counted as "
                "disagreement"),))
        failed = [c for c in self.checks if not c.passed]
        if not failed:
            return ValidationReport((CheckResult("judge", "passed",
                                                 f"{len(self.checks)} acceptance check(s) met"),))
        return ValidationReport(tuple(
            CheckResult("judge", "failed", f"acceptance check not met: {c.check} ({c.reason})",
                        where=f"acceptance check {c.index}") for c in failed))

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "error": self.error, "calls": self.calls,
                "checks": [vars(c).copy() for c in self.checks]}


def judge_draft(meta: MetaCode, files: Mapping[str, str], tests: ValidationReport | str, *,
                llm: Callable[[str], str]) -> JudgeVerdict:
    """Ask the judge; one re-ask on an unreadable answer, then disagreement."""
    checks = meta.acceptance_checks
    listing = "\n".join(f"{i}: {c}" for i, c in enumerate(checks, 1))
    results = tests.as_feedback() if isinstance(tests, ValidationReport) else tests
    original = render("judge", metacode=meta.render_for_prompt(), checks=listing,
                      draft=draft_blocks(files, meta.target_path),
                      tests=data_block("test_results", "sandbox", results))
    try:
        return JudgeVerdict(parse_verdict(llm(original), checks), calls=1)
    except ValueError as err:
        retry = render("judge_retry", error=str(err), count=str(len(checks)), original=original)
    try:
        return JudgeVerdict(parse_verdict(llm(retry), checks), calls=2)
    except ValueError as err:
        return JudgeVerdict((), error=str(err), calls=2)


def parse_verdict(reply: str, checks: tuple[str, ...]) -> tuple[CheckVerdict, ...]:
    """Strictly read ``{"checks": [{"check": n, "pass": bool, "reason": str}]}``."""
    data = _json_object(reply)
    items = data.get("checks")
    if not isinstance(items, list):
        raise ValueError('missing "checks" list')
    seen: dict[int, CheckVerdict] = {}
    for item in items:
        if not isinstance(item, dict):
            raise ValueError("every entry of checks must be an object")
        index, passed = item.get("check"), item.get("pass")
        if not isinstance(index, int) or not 1 <= index <= len(checks):
            raise ValueError(f"check number {index!r} is not between 1 and {len(checks)}")
        if not isinstance(passed, bool):
            raise ValueError(f'check {index}: "pass" must be true or false')
        seen[index] = CheckVerdict(index, checks[index - 1], passed, str(item.get("reason", "")))
    missing = [i for i in range(1, len(checks) + 1) if i not in seen]
    if missing:
        raise ValueError(f"no verdict for check(s) {missing}")
    return tuple(seen[i] for i in sorted(seen))


def _json_object(reply: str) -> dict[str, Any]:
    text = reply.strip()
    fenced = re.search(r"```(?:json)?\s*\n(.*?)```", text, re.S)
    text = fenced.group(1) if fenced else text
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the answer")
    try:
        data = json.loads(text[start:end + 1])
    except json.JSONDecodeError as err:
        raise ValueError(f"invalid JSON: {err.msg} at column {err.colno}") from None
    if not isinstance(data, dict):
        raise ValueError("the answer must be a JSON object")
    return data
