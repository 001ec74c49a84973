"""Compare a draft with its objective: an LLM judge answers pass/fail per acceptance check.

Why a judge on top of tests: examples cover a few points, acceptance checks state intent ("no
network access", "O(n)"). The answer is read by the ``llm`` layer (reasoning blocks, the last
answer, repaired slips); one it cannot read is asked for again with the exact refusal, and after
the budget it counts as DISAGREEMENT: an unreadable verdict must never let a draft through.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..llm.errors import ReplyRefused
from ..llm.reader import read_reply
from ..llm.retry import ask
from .metacode import MetaCode
from .prompts import data_block, draft_blocks, render
from .reply_models import judge_spec
from .report import FAILED, PASSED, CheckResult, ValidationReport


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
                "judge", FAILED, f"judge answer unusable ({self.error}); counted as "
                "disagreement"),))
        failed = [c for c in self.checks if not c.passed]
        if not failed:
            return ValidationReport((CheckResult("judge", PASSED,
                                                 f"{len(self.checks)} acceptance check(s) met"),))
        return ValidationReport(tuple(
            CheckResult("judge", FAILED, f"acceptance check not met: {c.check} ({c.reason})",
                        where=f"acceptance check {c.index}") for c in failed))

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "error": self.error, "calls": self.calls,
                "checks": [vars(c).copy() for c in self.checks]}


def judge_draft(meta: MetaCode, files: Mapping[str, str], tests: ValidationReport | str, *,
                llm: Callable[[str], str], attempts: int = 2) -> JudgeVerdict:
    """Ask the judge; re-ask with the refusal while the budget lasts, then disagreement."""
    checks = meta.acceptance_checks
    listing = "\n".join(f"{i}: {c}" for i, c in enumerate(checks, 1))
    results = tests.as_feedback() if isinstance(tests, ValidationReport) else tests
    original = render("judge", metacode=meta.render_for_prompt(), checks=listing,
                      draft=draft_blocks(files, meta.target_path),
                      tests=data_block("test_results", "sandbox", results))

    def retry(refusal: str, previous: str, first: str) -> str:
        return render("judge_retry", error=refusal, count=str(len(checks)), original=first)

    asked = ask(llm, original, judge_spec(checks), attempts=attempts, retry=retry)
    if asked.value is None:
        return JudgeVerdict((), error=asked.refusal, calls=asked.calls)
    return JudgeVerdict(_verdicts(asked.value, checks), calls=asked.calls)


def parse_verdict(reply: str, checks: tuple[str, ...]) -> tuple[CheckVerdict, ...]:
    """Read ``{"checks": [{"check": n, "pass": bool, "reason": str}]}``; ValueError if unusable."""
    return _verdicts(read_reply(reply, judge_spec(checks)), checks)


def _verdicts(reply: Any, checks: tuple[str, ...]) -> tuple[CheckVerdict, ...]:
    by_number = {e.check: e for e in reply.checks}
    return tuple(CheckVerdict(i, checks[i - 1], by_number[i].passed, by_number[i].reason)
                 for i in sorted(by_number))


__all__ = ["CheckVerdict", "JudgeVerdict", "ReplyRefused", "judge_draft", "parse_verdict"]
