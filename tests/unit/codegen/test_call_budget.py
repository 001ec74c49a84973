"""Exact LLM calls of a two-iteration draft with every step on (the loop's part of a request).

The scripted model fails on any call beyond its script, so each test pins the calls in order:
the first draft fails an example (no judge), the second passes; the review and the
documentation are one call; the judge is asked only when a check cites no passing test.
"""

from __future__ import annotations

import json

from codemem.codegen.loop.draft_loop import Committed, LoopConfig, LoopDeps, run_draft_loop
from codemem.codegen.loop.extended import ExtendedConfig

from ...fakes import ScriptedLLM
from .helpers_codegen import GOOD_SLUG, WRONG_SLUG, entity, slug_meta
from .loop_support import TASK, judge_pass, notes, real_or_interim, store  # noqa: F401

VALIDATE, SELECT = real_or_interim()
PATH = "text/slug.py"
REPO = {"text/__init__.py": "",
        PATH: "def slugify(text, sep='-'):\n    raise NotImplementedError\n"}
REVIEW_DOCS = json.dumps({"verdict": "approve", "comments": [],
                          "docstring": "Make a URL slug.", "note": "Adds `slugify`."})
CITED = ["words are joined with sep (shown by slugify('A b', sep='_'))",
         "output is lower-case (shown by slugify('Hello World'))"]


def run(llm, store, meta, notes=None):  # noqa: F811
    config = LoopConfig(max_iterations=3, extended=ExtendedConfig(enabled=True))
    deps = LoopDeps(llm, store, notes, repo_files=REPO, validator=VALIDATE, select_tests=SELECT)
    return run_draft_loop(meta, deps, task_id=TASK, config=config)


def heads(llm: ScriptedLLM) -> list[str]:
    return [p.split("\n", 1)[0][:40] for p in llm.prompts]


def test_checks_shown_by_passing_examples_cost_three_calls(store, notes) -> None:  # noqa: F811
    llm = ScriptedLLM(entity(PATH, "slugify", WRONG_SLUG), entity(PATH, "slugify", GOOD_SLUG),
                      REVIEW_DOCS)
    outcome = run(llm, store, slug_meta(acceptance_checks=CITED), notes)
    assert isinstance(outcome, Committed) and outcome.iterations == 2
    assert llm.calls == outcome.stats.llm_calls == 3
    assert heads(llm) == ["You write Python code for one goal, one ",
                          "You write Python code for one goal, one ",
                          "You are a senior peer reviewer. Review t"]
    assert '"""Make a URL slug."""' in outcome.files[PATH]
    assert store.show(outcome.commit_id).verdict == "final"


def test_an_uncited_check_adds_exactly_the_judge(store) -> None:  # noqa: F811
    llm = ScriptedLLM(entity(PATH, "slugify", WRONG_SLUG), entity(PATH, "slugify", GOOD_SLUG),
                      judge_pass(2), REVIEW_DOCS)
    outcome = run(llm, store, slug_meta())
    assert isinstance(outcome, Committed) and llm.calls == outcome.stats.llm_calls == 4
    assert heads(llm)[2] == "You are a strict reviewer comparing a dr"


def test_a_review_asking_for_changes_still_prevents_a_false_done(store) -> None:  # noqa: F811
    """Tests settled the checks, but the merged review asks for a change: it becomes one more
    iteration, and when that fails the change is reported as not in the draft."""
    changes = json.dumps({"verdict": "changes", "comments": ["handle tabs"],
                          "docstring": "Make a URL slug.", "note": ""})
    llm = ScriptedLLM(entity(PATH, "slugify", GOOD_SLUG), changes,
                      entity(PATH, "slugify", WRONG_SLUG))
    outcome = run(llm, store, slug_meta(acceptance_checks=CITED))
    assert isinstance(outcome, Committed) and llm.calls == 3
    assert "A peer reviewer asked for these changes:\n- handle tabs" in llm.prompts[2]
    assert outcome.review_requests == ("handle tabs",)
    assert any("peer review's changes are not in this draft" in w for w in outcome.warnings)
