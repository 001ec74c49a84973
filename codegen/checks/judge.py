"""Compare a draft with its objective: an LLM judge answers pass/fail per acceptance check.

Why a judge on top of tests: examples cover a few points, acceptance checks state intent ("no
network access", "O(n)"). The answer is read by the ``llm`` layer (reasoning blocks, the last
answer, repaired slips); one it cannot read is asked for again with the exact refusal, and after
the budget it counts as DISAGREEMENT: an unreadable verdict must never let a draft through.

Only a draft that passed validation and its examples is judged. When every acceptance check
cites passing tests that show it (``testgen.check_coverage``), those tests settle the verdict
and no judge is asked (:func:`settled_verdict`): the verdict is recorded with what settled each
check. One check without such a citation and the judge answers for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...llm.errors import ReplyRefused
from ...llm.reader import ReplySpec, read_reply
from ...llm.retry import ask
from ...llm.templates import data_block, draft_blocks
from ..metacode.model import MetaCode
from ..metacode.testgen import check_coverage
from ..report import FAILED, PASSED, SKIPPED, CheckResult, ValidationReport
from ..steps import JUDGE


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
    #: True when passing tests settled every check (no judge was asked)
    settled: bool = False

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
            how = " by the tests that show them (no judge asked)" if self.settled else ""
            return ValidationReport((CheckResult(
                "judge", PASSED, f"{len(self.checks)} acceptance check(s) met{how}"),))
        return ValidationReport(tuple(
            CheckResult("judge", FAILED, f"acceptance check not met: {c.check} ({c.reason})",
                        where=f"acceptance check {c.index}") for c in failed))

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "error": self.error, "calls": self.calls,
                "settled_by_tests": self.settled, "checks": [vars(c).copy() for c in self.checks]}


def judge_draft(meta: MetaCode, files: Mapping[str, str], tests: ValidationReport | str, *,
                llm: Callable[[str], str], attempts: int = 2) -> JudgeVerdict:
    """Ask the judge; re-ask with the refusal while the budget lasts, then disagreement."""
    checks = meta.acceptance_checks
    listing = "\n".join(f"{i}: {c}" for i, c in enumerate(checks, 1))
    results = tests.as_feedback() if isinstance(tests, ValidationReport) else tests
    original = JUDGE.render(metacode=meta.render_for_prompt(), checks=listing,
                      draft=draft_blocks(files, meta.target_path),
                      tests=data_block("test_results", "sandbox", results))

    def retry(refusal: str, previous: str, first: str) -> str:
        return JUDGE.render_retry(error=refusal, count=str(len(checks)), original=first)

    asked = ask(llm, original, judge_spec(checks), attempts=attempts, retry=retry)
    if asked.value is None:
        return JudgeVerdict((), error=asked.refusal, calls=asked.calls)
    return JudgeVerdict(_verdicts(asked.value, checks), calls=asked.calls)


def settled_verdict(meta: MetaCode, report: ValidationReport,
                    repo_tests: Sequence[str] = ()) -> JudgeVerdict | None:
    """The verdict the passing tests give when every acceptance check cites tests that ran and
    passed in ``report`` (the draft's validation and examples); None when one check is not
    covered so (the judge must answer). Skipped tests settle nothing."""
    checks = meta.acceptance_checks
    coverage = check_coverage(meta, tuple(repo_tests) if _all_passed(report, "tests") else (),
                              examples=_all_passed(report, "examples"))
    if not checks or any(i not in coverage for i in range(1, len(checks) + 1)):
        return None
    return JudgeVerdict(tuple(CheckVerdict(i, c, True, f"shown by {coverage[i]}, which passed")
                              for i, c in enumerate(checks, 1)), calls=0, settled=True)


def _all_passed(report: ValidationReport, check: str) -> bool:
    """Tests of ``check`` ran (one passed at least) and none failed (a skip is a placeholder,
    such as the empty list of raising examples)."""
    statuses = [r.status for r in report.results if r.check == check]
    return PASSED in statuses and all(status in (PASSED, SKIPPED) for status in statuses)


def parse_verdict(reply: str, checks: tuple[str, ...]) -> tuple[CheckVerdict, ...]:
    """Read ``{"checks": [{"check": n, "pass": bool, "reason": str}]}``; ValueError if unusable."""
    return _verdicts(read_reply(reply, judge_spec(checks)), checks)


def judge_spec(checks: tuple[str, ...]) -> ReplySpec[Any]:
    """How the judge's answer for ``checks`` is read (one verdict per check)."""
    return JUDGE.spec(items=len(checks), context={"checks": checks},
                      schema={"count": len(checks)})


def _verdicts(reply: Any, checks: tuple[str, ...]) -> tuple[CheckVerdict, ...]:
    by_number = {e.check: e for e in reply.checks}
    return tuple(CheckVerdict(i, checks[i - 1], by_number[i].passed, by_number[i].reason)
                 for i in sorted(by_number))


__all__ = ["CheckVerdict", "JudgeVerdict", "ReplyRefused", "judge_draft", "parse_verdict",
           "settled_verdict"]
