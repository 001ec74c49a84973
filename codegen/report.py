"""The structured validation report shared by the validators and the draft loop.

A report says which check failed, where and why, and renders as short feedback for the LLM.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .vocabulary import Vocabulary

#: The order checks run in (cheapest first); a report lists its checks in this order.
CHECK_ORDER = ("parse", "signature", "api", "lint", "tests", "judge", "performance", "review")

#: Feedback rendered for the LLM is cut at this many characters.
FEEDBACK_LIMIT = 4000


class CheckStatus(Vocabulary):
    """How one check ended: the one vocabulary of check outcomes (stored as the value)."""

    PASSED = "passed"
    #: The draft is at fault.
    FAILED = "failed"
    #: Not run (nothing to check, switched off, the tool is missing): never blocks a draft.
    SKIPPED = "skipped"
    #: The environment, not the draft, is at fault (a missing dependency, a refused sandbox).
    ENV_ERROR = "env_error"

    @property
    def ok(self) -> bool:
        """Lets a draft through: passed or skipped."""
        return self in (CheckStatus.PASSED, CheckStatus.SKIPPED)


#: The statuses by name, for short call sites: ``CheckResult("lint", PASSED)``.
PASSED, FAILED, SKIPPED, ENV_ERROR = (CheckStatus.PASSED, CheckStatus.FAILED, CheckStatus.SKIPPED,
                                      CheckStatus.ENV_ERROR)


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict. ``status`` may be given as its value (``"passed"``); anything that
    is not a ``CheckStatus`` is refused (``ValueError``), so a misspelt status cannot pass."""

    check: str
    status: CheckStatus
    message: str = ""
    #: ``path:line`` or a test id; empty when the check is about the whole draft.
    where: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", CheckStatus(self.status))

    @property
    def failed(self) -> bool:
        return self.status is CheckStatus.FAILED

    def to_dict(self) -> dict[str, str]:
        return {"check": self.check, "status": self.status.value, "message": self.message,
                "where": self.where}


@dataclass(frozen=True)
class ValidationReport:
    """All checks of one draft; ``ok`` when none failed and none hit an environment error."""

    results: tuple[CheckResult, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return bool(self.results) and all(r.status.ok for r in self.results)

    @property
    def failures(self) -> tuple[CheckResult, ...]:
        return tuple(r for r in self.results if not r.status.ok)

    def add(self, result: CheckResult) -> ValidationReport:
        return ValidationReport(self.results + (result,))

    def merge(self, other: ValidationReport) -> ValidationReport:
        return ValidationReport(self.results + other.results)

    def signature(self) -> str:
        """A stable fingerprint of the failures, for stuck detection (same failure twice)."""
        return "|".join(f"{r.check}:{r.where}:{r.message[:200]}" for r in self.failures)

    def as_feedback(self, limit: int = FEEDBACK_LIMIT) -> str:
        """Short text for the next prompt: each failing check, where, and its message."""
        if self.ok:
            return "All checks passed."
        lines = []
        for r in self.failures:
            where = f" at {r.where}" if r.where else ""
            kind = "environment problem" if r.status is CheckStatus.ENV_ERROR else "failed"
            lines.append(f"- {r.check} {kind}{where}: {r.message.strip()}")
        text = "\n".join(lines)
        return text if len(text) <= limit else text[: limit - 20] + "\n... (truncated)"

    def to_dict(self) -> dict[str, object]:
        return {"ok": self.ok, "results": [r.to_dict() for r in self.results]}
