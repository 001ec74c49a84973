"""The draft loop with a library: API references in the prompt, the outcome naming them, and a
wrong library call caught by validation and fed back with the real signature.

Real CommitIndex, Scratchpad, sandbox and validator; the library facts are ``memory.sources``'
reading of the made-up ``textkit``; only the LLM is scripted.
"""

from __future__ import annotations

from codemem.codegen.loop.draft_loop import Committed, LoopDeps, run_draft_loop
from codemem.codegen.ports import API_REFERENCE, ContextSnippet

from ...fakes import ScriptedLLM
from ..memory.sources.library import TEXTKIT_V1, facts_of
from .helpers_codegen import GOOD_SLUG, entity, slug_meta
from .loop_support import TASK, judge_pass, notes, real_or_interim, store  # noqa: F401

VALIDATE, SELECT = real_or_interim()
PATH = "text/slug.py"
REPO = {"text/__init__.py": "",
        PATH: "def slugify(text, sep='-'):\n    raise NotImplementedError\n"}

WRONG_CALL = """import textkit


def slugify(text: str, sep: str = '-') -> str:
    if not isinstance(text, str):
        raise TypeError("text must be a str")
    return textkit.slugify(text, separator=sep)
"""

API_TEXT = ("from textkit import slugify\ntextkit.slugify  (function, textkit/slug.py:1)\n"
            "def slugify(text: str, sep: str = '-') -> str\n"
            "    A URL slug of ``text``: lower-case words joined by ``sep``.")


def associative(query: str, current_file: str | None, limit: int) -> list[ContextSnippet]:
    return [ContextSnippet("textkit 1.0", "textkit.slugify", API_TEXT, 0.9, API_REFERENCE),
            ContextSnippet("documentation:notes.md", "Slugs", "Slugs use dashes.", 0.8)]


def test_a_wrong_library_call_is_caught_and_fed_back_with_the_real_signature(
        store, notes) -> None:  # noqa: F811
    llm = ScriptedLLM(entity(PATH, "slugify", WRONG_CALL), entity(PATH, "slugify", GOOD_SLUG),
                      judge_pass())
    deps = LoopDeps(llm=llm, store=store, notes=notes, repo_files=REPO, associative=associative,
                    validator=VALIDATE, select_tests=SELECT,
                    api_facts=facts_of(TEXTKIT_V1, "textkit 1.0"))
    outcome = run_draft_loop(slug_meta(), deps, task_id=TASK)
    assert isinstance(outcome, Committed) and outcome.iterations == 2
    assert outcome.api_references == ("textkit.slugify (textkit 1.0)",)
    first, second, _ = llm.prompts
    api_section = first.split("Library APIs you may call", 1)[1].split("Earlier attempts")[0]
    assert '<<<DATA kind="api" source="textkit 1.0 textkit.slugify">>>' in api_section
    assert "def slugify(text: str, sep: str = '-') -> str" in api_section
    assert "Slugs use dashes." not in api_section  # notes stay in the associative section
    assert '<<<DATA kind="associative" source="documentation:notes.md Slugs">>>' in first
    assert ("`textkit.slugify(...)` has no keyword argument `separator`. Real signature: "
            "`textkit.slugify(text: str, sep: str = '-') -> str` (textkit 1.0).") in second
    report = notes.get(TASK, "iter1.validation")["results"]
    assert {"check": "tests", "status": "skipped",
            "message": "not run: fix the failures above first", "where": ""} in report
    assert notes.get(TASK, "iter1.context")["api"] == ["textkit.slugify (textkit 1.0)"]


def test_without_library_facts_nothing_changes(store, notes) -> None:  # noqa: F811
    llm = ScriptedLLM(entity(PATH, "slugify", GOOD_SLUG), judge_pass())
    deps = LoopDeps(llm=llm, store=store, notes=notes, repo_files=REPO, validator=VALIDATE,
                    select_tests=SELECT)
    outcome = run_draft_loop(slug_meta(), deps, task_id=TASK)
    assert isinstance(outcome, Committed) and outcome.api_references == ()
    assert "api" not in {r.check for r in outcome.report.results}
    assert "exactly as documented here; they are not code to edit):\n(none)" in llm.prompts[0]
