"""codegen's vocabularies: check statuses, draft outcomes, and their one mapping to verdicts."""

from __future__ import annotations

import json

import pytest

from codemem.codegen.loop.outcomes import DraftOutcome, commit_verdict, is_baseline
from codemem.codegen.report import (
    ENV_ERROR,
    FAILED,
    PASSED,
    SKIPPED,
    CheckResult,
    CheckStatus,
    ValidationReport,
)
from codemem.memory.commits.message import Verdict


def test_every_outcome_maps_to_a_verdict_of_the_store() -> None:
    mapped = {o: commit_verdict(o) for o in DraftOutcome}
    assert mapped == {DraftOutcome.BASELINE: "imported", DraftOutcome.PASSED: "passed",
                      DraftOutcome.REJECTED: "failed", DraftOutcome.DOCUMENTED: "final"}
    for outcome, verdict in mapped.items():
        assert Verdict(verdict).good == (outcome is not DraftOutcome.REJECTED)
        assert not isinstance(verdict, DraftOutcome)  # plain text into the commit message


def test_only_a_baseline_verdict_is_a_baseline() -> None:
    assert is_baseline("imported") and is_baseline(" Imported")
    assert not any(is_baseline(v) for v in ("passed", "final", "failed", "committed", ""))


def test_check_status_values_are_the_stored_strings() -> None:
    assert [s.value for s in CheckStatus] == ["passed", "failed", "skipped", "env_error"]
    assert tuple(CheckStatus) == (PASSED, FAILED, SKIPPED, ENV_ERROR)
    assert str(CheckStatus.ENV_ERROR) == "env_error" and f"{FAILED}" == "failed"
    assert [s.ok for s in CheckStatus] == [True, False, True, False]


def test_a_status_given_as_text_becomes_the_member() -> None:
    result = CheckResult("lint", "skipped", "ruff missing")  # type: ignore[arg-type]
    assert result.status is SKIPPED and not result.failed
    assert CheckResult("tests", FAILED).failed


@pytest.mark.parametrize("typo", ["pass", "ok", "error", "Passed", ""])
def test_a_misspelt_status_is_refused(typo: str) -> None:
    with pytest.raises(ValueError):
        CheckResult("tests", typo)  # type: ignore[arg-type]


def test_report_dicts_are_unchanged_byte_for_byte() -> None:
    report = ValidationReport((CheckResult("parse", PASSED, "", "a.py"),
                               CheckResult("tests", ENV_ERROR, "no numpy", "t.py::x")))
    text = json.dumps(report.to_dict(), sort_keys=True)
    assert text == ('{"ok": false, "results": [{"check": "parse", "message": "", "status": '
                    '"passed", "where": "a.py"}, {"check": "tests", "message": "no numpy", '
                    '"status": "env_error", "where": "t.py::x"}]}')
    assert not any(isinstance(r.to_dict()["status"], CheckStatus) for r in report.results)


def test_report_reads_statuses_not_strings() -> None:
    ok = ValidationReport((CheckResult("parse", PASSED), CheckResult("lint", SKIPPED)))
    assert ok.ok and ok.failures == () and ok.as_feedback() == "All checks passed."
    bad = ok.add(CheckResult("tests", ENV_ERROR, "pytest missing")).add(
        CheckResult("judge", FAILED, "check 1 not met"))
    assert not bad.ok and [r.check for r in bad.failures] == ["tests", "judge"]
    assert bad.as_feedback() == ("- tests environment problem: pytest missing\n"
                                 "- judge failed: check 1 not met")


def test_loop_status_notes_are_plain_strings_of_the_vocabulary():
    from codemem.codegen.loop.outcomes import LoopStatus

    assert [s.value for s in LoopStatus] == ["running", "committed", "gave_up", "interrupted"]
    assert str(LoopStatus.GAVE_UP) == "gave_up" and LoopStatus("committed") is LoopStatus.COMMITTED


def test_every_codegen_word_list_prints_as_its_word():
    """Reports, notes and commit names show the plain word on every Python (3.12 changed
    ``str()`` of ``str`` enums): the override lives once, in ``codegen.vocabulary``."""
    from codemem.codegen.loop.outcomes import DraftOutcome, LoopStatus
    from codemem.codegen.report import CheckStatus
    from codemem.codegen.sandbox.run import RunStatus
    from codemem.codegen.vocabulary import Vocabulary

    for words in (CheckStatus, DraftOutcome, LoopStatus, RunStatus):
        assert issubclass(words, Vocabulary)
        for member in words:
            assert str(member) == f"{member}" == member.value
