"""The LLM judge: strict parsing, one re-ask, unreadable = disagreement, prompt content."""

from __future__ import annotations

import json

import pytest

from codemem.codegen.checks.judge import judge_draft, parse_verdict
from codemem.codegen.report import CheckResult, ValidationReport

from ...fakes import ScriptedLLM
from .helpers_codegen import GOOD_SLUG, slug_meta

CHECKS = ("words are joined with sep", "output is lower-case")
FILES = {"text/slug.py": GOOD_SLUG}
TESTS = ValidationReport((CheckResult("examples", "passed", "3 passed"),))


def verdict(*passes: bool) -> str:
    return json.dumps({"checks": [{"check": i, "pass": p, "reason": f"r{i}"}
                                  for i, p in enumerate(passes, 1)]})


def test_agreement_passes_and_the_prompt_holds_checks_draft_and_results() -> None:
    llm = ScriptedLLM(f"```json\n{verdict(True, True)}\n```")
    result = judge_draft(slug_meta(), FILES, TESTS, llm=llm)
    assert result.passed and result.calls == 1
    assert result.as_report().ok
    prompt = llm.prompts[0]
    assert "1: words are joined with sep\n2: output is lower-case" in prompt
    assert 'source="draft:text/slug.py"' in prompt and "sep.join(text.lower().split())" in prompt
    assert '<<<DATA kind="test_results" source="sandbox">>>' in prompt


def test_one_failed_check_is_a_failed_report_with_the_reason() -> None:
    result = judge_draft(slug_meta(), FILES, TESTS, llm=ScriptedLLM(verdict(True, False)))
    assert not result.passed
    (failure,) = result.as_report().failures
    assert failure.where == "acceptance check 2"
    assert failure.message == "acceptance check not met: output is lower-case (r2)"


def test_unreadable_answer_is_reasked_once_then_counts_as_disagreement() -> None:
    llm = ScriptedLLM("looks good to me!", '{"checks": [{"check": 1, "pass": true}]}')
    result = judge_draft(slug_meta(), FILES, TESTS, llm=llm)
    assert not result.passed and result.calls == 2
    assert "Your previous answer could not be used: no JSON object in the answer" in llm.prompts[1]
    assert "no verdict for check(s) [2]" in result.as_report().as_feedback()


def test_reask_can_recover() -> None:
    llm = ScriptedLLM("{oops", verdict(True, True))
    assert judge_draft(slug_meta(), FILES, "(no example tests)", llm=llm).passed


@pytest.mark.parametrize(("reply", "message"), [
    ('{"checks": [{"check": 3, "pass": true}]}', "check number 3 is not between 1 and 2"),
    ('{"checks": [{"check": 1, "pass": "maybe"}]}', "'maybe' is neither pass"),
    ('{"checks": [{"check": 1, "pass": "yes"}]}', "no verdict for check(s) [2]"),
    ('{"verdict": "ok"}', "no JSON object in the answer holds a verdict"),
    ("[1, 2]", "no JSON object in the answer"),
    ('{"checks": [{"check": 1, "pass": true}, {"check": 1, "pass": false}, '
     '{"check": 2, "pass": true}]}', "check 1 is given two different verdicts"),
])
def test_parse_verdict_refuses_what_is_unclear(reply: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        parse_verdict(reply, CHECKS)


def test_a_passing_verdict_inside_the_thinking_never_counts() -> None:
    """The probe's worst case: <think> held an all-pass JSON, the real answer failed check 2."""
    reply = ("<think>Draft answer:\n```json\n" + verdict(True, True) + "\n```\nWait, check 2: "
             "the output keeps capitals. So it fails.</think>\n```json\n"
             + verdict(True, False) + "\n```")
    result = judge_draft(slug_meta(), FILES, TESTS, llm=ScriptedLLM(reply))
    assert not result.passed and [c.passed for c in result.checks] == [True, False]


@pytest.mark.parametrize("reply", [
    "Sure! Here you go:\n```json\n{'checks': [{'check': 1, 'pass': 'PASS',}, "
    "{'check': 2, 'pass': 'PASS'}]}\n```",
    '{"Checks": [{"Check": "1", "Passed": "yes", "Reason": "ok"}, {"id": 2, "check": '
    '"output is lower-case", "result": true}]}',
    '{"checks": {"1": true, "2": {"pass": true, "reason": "lower()"}}}',
    '[{"check": 1, "pass": true}, {"check": 2, "pass": true}] // all good',
])
def test_slips_and_variants_are_read(reply: str) -> None:
    assert parse_verdict(reply, CHECKS)[1].passed is True
