"""How the draft loop judged a draft it commits, and the one place that becomes a verdict.

``codegen`` never imports ``memory``, so it states its own outcomes here and maps them to the
draft store's verdict vocabulary (``memory.commits.Verdict``) in :func:`commit_verdict` only;
the store refuses any verdict outside its vocabulary, and tests check that every outcome maps
to a member. Whether a stored commit is a rollback target is the store's word
(``CommitRecord.good``): the loop keeps no list of good verdicts of its own.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..vocabulary import Vocabulary


class DraftOutcome(Vocabulary):
    """Why the loop commits a draft."""

    #: The repository's version of the target: the task's first commit, a safe baseline.
    BASELINE = "baseline"
    #: The draft passed every check.
    PASSED = "passed"
    #: The draft failed validation; committed so the history says what was tried and why.
    REJECTED = "rejected"
    #: The passing draft with its docstring added: the task's final draft.
    DOCUMENTED = "documented"


#: The store's verdict (``memory.commits.Verdict`` value) of each outcome.
_VERDICTS: Mapping[DraftOutcome, str] = {
    DraftOutcome.BASELINE: "imported",
    DraftOutcome.PASSED: "passed",
    DraftOutcome.REJECTED: "failed",
    DraftOutcome.DOCUMENTED: "final",
}


def commit_verdict(outcome: DraftOutcome) -> str:
    """The verdict the draft store records for ``outcome`` (the only such mapping)."""
    return _VERDICTS[DraftOutcome(outcome)]


def is_baseline(verdict: str) -> bool:
    """True for the stored verdict of a baseline commit (the user's own code, not a draft)."""
    return verdict.strip().lower() == _VERDICTS[DraftOutcome.BASELINE]


class LoopStatus(Vocabulary):
    """Where a task's draft loop stands, as noted in the scratchpad (``loop.status``).

    The note holds the value (a plain string: the scratchpad travels in the Cat's pickled
    working memory and in archived notes)."""

    RUNNING = "running"
    #: a draft passed and was committed
    COMMITTED = "committed"
    #: every iteration failed
    GAVE_UP = "gave_up"
    #: the Cat stopped while the loop ran ("continue" resumes it)
    INTERRUPTED = "interrupted"
