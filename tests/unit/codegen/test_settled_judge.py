"""Passing tests settle the judge's verdict only where they show every acceptance check.

An acceptance check that cites the tests showing it (an example's call, a repository test's
path) is settled by those tests passing in the sandbox; one check without such a citation, a
citation of something that did not run, or tests that were skipped, and the judge is asked.
"""

from __future__ import annotations

from codemem.codegen.checks.judge import settled_verdict
from codemem.codegen.loop.draft_loop import Committed, LoopConfig, LoopDeps, run_draft_loop
from codemem.codegen.metacode.testgen import check_coverage
from codemem.codegen.report import FAILED, PASSED, SKIPPED, CheckResult, ValidationReport

from ...fakes import ScriptedLLM
from .helpers_codegen import GOOD_SLUG, WRONG_SLUG, entity, slug_meta
from .loop_support import TASK, judge_pass, notes, real_or_interim, store  # noqa: F401

VALIDATE, SELECT = real_or_interim()
PATH = "text/slug.py"
REPO = {"text/__init__.py": "",
        PATH: "def slugify(text, sep='-'):\n    raise NotImplementedError\n"}
CITED = ["words are joined with sep (shown by slugify('A b', sep='_'))",
         'output is lower-case (shown by: slugify("Hello World")).']
PASSING = ValidationReport((CheckResult("parse", PASSED), CheckResult("examples", PASSED)))


def run(llm, store, meta, notes=None, validator=VALIDATE, **deps):  # noqa: F811
    deps.setdefault("repo_files", REPO)
    return run_draft_loop(meta, LoopDeps(llm, store, notes, validator=validator,
                                         select_tests=SELECT, **deps),
                          task_id=TASK, config=LoopConfig())


def test_a_citation_names_an_example_by_its_call_in_any_spacing_or_quotes() -> None:
    meta = slug_meta(acceptance_checks=[*CITED, "no globals (see slugify('x y'))",
                                        "handles tabs"])
    assert check_coverage(meta) == {1: "example `slugify('A b', sep='_')`",
                                    2: "example `slugify('Hello World')`"}
    assert check_coverage(meta, examples=False) == {}


def test_a_repository_test_that_passed_can_be_cited_by_its_path() -> None:
    meta = slug_meta(acceptance_checks=["spaces collapse (tests/test_slug.py::test_spaces)"])
    assert check_coverage(meta, ("tests/test_slug.py",)) == {1: "test `tests/test_slug.py`"}
    assert check_coverage(meta, ("tests/test_other.py",)) == {}
    ran = PASSING.add(CheckResult("tests", PASSED))
    verdict = settled_verdict(meta, ran, ("tests/test_slug.py",))
    assert verdict is not None and verdict.checks[0].reason == (
        "shown by test `tests/test_slug.py`, which passed")
    assert settled_verdict(meta, PASSING, ("tests/test_slug.py",)) is None  # tests did not run


def test_skipped_or_missing_example_runs_settle_nothing() -> None:
    meta = slug_meta(acceptance_checks=CITED)
    assert settled_verdict(meta, PASSING) is not None
    skipped = ValidationReport((CheckResult("examples", SKIPPED),))
    assert settled_verdict(meta, skipped) is None
    placeholder = PASSING.add(CheckResult("examples", SKIPPED, "no such examples"))
    assert settled_verdict(meta, placeholder) is not None  # no raising examples: not a skip
    failed = PASSING.add(CheckResult("examples", FAILED, "returned 1, expected 2"))
    assert settled_verdict(meta, failed) is None
    assert settled_verdict(meta, ValidationReport((CheckResult("parse", PASSED),))) is None


def test_every_check_shown_by_a_passing_example_needs_no_judge(store, notes) -> None:  # noqa: F811,E501
    llm = ScriptedLLM(entity(PATH, "slugify", GOOD_SLUG))  # one call: no judge scripted
    outcome = run(llm, store, slug_meta(acceptance_checks=CITED), notes)
    assert isinstance(outcome, Committed) and llm.calls == outcome.stats.llm_calls == 1
    (judge,) = (r for r in outcome.report.results if r.check == "judge")
    assert judge.message == "2 acceptance check(s) met by the tests that show them (no judge " \
                            "asked)"
    recorded = notes.get(TASK, "iter1.judge")
    assert recorded["settled_by_tests"] is True and recorded["calls"] == 0
    assert recorded["checks"][1]["reason"] == "shown by example `slugify('Hello World')`, " \
                                              "which passed"


def test_one_uncited_check_and_the_judge_answers_for_all(store) -> None:  # noqa: F811
    llm = ScriptedLLM(entity(PATH, "slugify", GOOD_SLUG), judge_pass(2))
    outcome = run(llm, store, slug_meta(acceptance_checks=[CITED[0], "output is lower-case"]))
    assert isinstance(outcome, Committed) and llm.calls == 2
    assert llm.prompts[1].startswith("You are a strict reviewer")


def test_a_judge_that_disagrees_still_rejects_a_draft_whose_checks_are_uncited(store) -> None:  # noqa: F811,E501
    disagree = '{"checks": [{"check": 1, "pass": true}, {"check": 2, "pass": false, ' \
               '"reason": "keeps capitals"}]}'
    llm = ScriptedLLM(entity(PATH, "slugify", GOOD_SLUG), disagree,
                      entity(PATH, "slugify", GOOD_SLUG), judge_pass(2))
    outcome = run(llm, store, slug_meta())
    assert isinstance(outcome, Committed) and outcome.iterations == 2 and llm.calls == 4
    assert "acceptance check not met: output is lower-case (keeps capitals)" in llm.prompts[2]


def test_examples_that_were_not_run_leave_the_verdict_to_the_judge(store) -> None:  # noqa: F811
    def tests_off(files, **kwargs):  # "Check: tests" off: the examples' run runs parse only
        if kwargs.get("checks") is not None:
            kwargs["checks"] = frozenset({"parse"})
        return VALIDATE(files, **kwargs)

    llm = ScriptedLLM(entity(PATH, "slugify", GOOD_SLUG), judge_pass(2))
    outcome = run(llm, store, slug_meta(acceptance_checks=CITED), validator=tests_off)
    assert isinstance(outcome, Committed) and llm.calls == 2


def test_a_draft_failing_its_examples_is_not_judged(store) -> None:  # noqa: F811
    llm = ScriptedLLM(entity(PATH, "slugify", WRONG_SLUG), entity(PATH, "slugify", GOOD_SLUG),
                      judge_pass(2))
    outcome = run(llm, store, slug_meta())
    assert isinstance(outcome, Committed) and llm.calls == 3
    assert [p.split("\n", 1)[0][:30] for p in llm.prompts] == [
        "You write Python code for one ", "You write Python code for one ",
        "You are a strict reviewer comp"]


def test_value_examples_only_settle_too(store) -> None:  # noqa: F811
    """No raising example: the generated file's empty raise case is a placeholder skip."""
    meta = slug_meta(examples=[{"call": "slugify('Hello World')", "expected": "hello-world"},
                               {"call": "slugify('A b', sep='_')", "expected": "a_b"}],
                     acceptance_checks=CITED)
    llm = ScriptedLLM(entity(PATH, "slugify", GOOD_SLUG))
    outcome = run(llm, store, meta)
    assert isinstance(outcome, Committed) and llm.calls == 1
