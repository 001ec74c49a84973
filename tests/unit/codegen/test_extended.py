"""Extended loop: re-run, performance against the previous good draft, docs, peer review, tag."""

from __future__ import annotations

import json

from codemem.codegen.loop.draft_loop import Committed, GaveUp, LoopConfig, LoopDeps, run_draft_loop
from codemem.codegen.loop.extended import ExtendedConfig, PerfMetrics, compare_perf

from ...fakes import FunctionLLM
from .helpers_codegen import GOOD_SLUG, entity, slug_meta
from .loop_support import TASK, judge_pass, notes, real_or_interim, store  # noqa: F401

VALIDATE, SELECT = real_or_interim()
PATH = "text/slug.py"
REPO = {"text/__init__.py": "", PATH: "def slugify(text, sep='-'):\n    return text\n"}
REVIEWED = GOOD_SLUG.replace("return sep.join", "words = text.lower().split()\n    return sep.join"
                             ).replace("sep.join(text.lower().split())", "sep.join(words)")
SLOW = GOOD_SLUG.replace("    return sep.join", "    __import__('time').sleep(0.02)\n"
                         "    return sep.join")


def scripted(gen_replies: list[str], review: dict | str | None = None,
             docs: str = '{"docstring": "Make a URL slug.", "note": "Adds `slugify`."}'):
    gens = iter(gen_replies)

    def answer(prompt: str) -> str:  # retry prompts quote the original: match anywhere
        if prompt.startswith("You write Python code"):
            return next(gens)
        if "You are a strict reviewer" in prompt:
            return judge_pass()
        reviewed = review if isinstance(review, str) else json.dumps(
            review or {"verdict": "approve", "comments": []})
        if "and write its documentation" in prompt:  # one call: review and documentation
            return merged(reviewed, docs)
        if "Write documentation for the accepted draft" in prompt:
            return docs
        if "You are a senior peer reviewer" in prompt:
            return reviewed
        raise AssertionError(f"unexpected prompt {prompt[:80]!r}")

    return FunctionLLM(answer)


def merged(review: str, docs: str) -> str:
    """The merged answer a model gives: one object when both parts are objects, else both
    parts one after the other (prose stays prose)."""
    try:
        both = {**json.loads(review), **json.loads(docs)}
    except (ValueError, TypeError):
        return f"{review}\n\n{docs}"
    return json.dumps(both)


def loop(llm, store, notes=None, **ext):  # noqa: F811
    cfg = LoopConfig(max_iterations=ext.pop("max_iterations", 3),
                     extended=ExtendedConfig(**ext))
    return run_draft_loop(slug_meta(), LoopDeps(llm, store, notes, repo_files=REPO,
                                                validator=VALIDATE, select_tests=SELECT),
                          task_id=TASK, config=cfg)


def test_peer_review_asking_for_changes_becomes_one_more_iteration(store, notes) -> None:  # noqa: F811,E501
    review = {"verdict": "changes", "comments": ["name the intermediate list `words`"]}
    llm = scripted([entity(PATH, "slugify", GOOD_SLUG), entity(PATH, "slugify", REVIEWED)],
                   review)
    outcome = loop(llm, store, notes, performance=False)
    assert isinstance(outcome, Committed) and outcome.iterations == 2
    ext = outcome.extended
    assert ext is not None and ext.review_incorporated and ext.review.verdict == "changes"
    revision = [p for p in llm.prompts if p.startswith("You write Python code")][1]
    assert "A peer reviewer asked for these changes:\n- name the intermediate list `words`" \
        in revision
    assert store.final(TASK) == outcome.commit_id == ext.final_commit_id
    final = store.show(outcome.commit_id)
    assert final.verdict == "final"
    assert '    """Make a URL slug."""\n    if not isinstance' in final.files[PATH]
    assert "words = text.lower().split()" in final.files[PATH]
    assert [c.verdict for c in store.log(TASK)] == ["final", "passed", "passed", "imported"]
    assert ext.note == "Adds `slugify`." and notes.get(TASK, "iter1.extended")["ok"] is True


def test_performance_regression_rolls_back_and_is_fed_back(store) -> None:  # noqa: F811
    first = loop(scripted([entity(PATH, "slugify", GOOD_SLUG)]), store, enabled=False)
    assert isinstance(first, Committed)
    llm = scripted([entity(PATH, "slugify", SLOW), entity(PATH, "slugify", GOOD_SLUG)])
    outcome = loop(llm, store, rerun_tests=False, documentation=False, peer_review=False,
                   max_iterations=2)
    assert isinstance(outcome, Committed) and outcome.iterations == 2
    second_gen = [p for p in llm.prompts if p.startswith("You write Python code")][1]
    assert "performance failed: examples take" in second_gen and "previous draft" in second_gen
    assert outcome.extended.perf.ok and outcome.extended.perf.previous is not None
    assert store.final(TASK) == outcome.commit_id


def test_switched_off_steps_make_no_llm_calls(store) -> None:  # noqa: F811
    llm = scripted([entity(PATH, "slugify", GOOD_SLUG)])
    outcome = loop(llm, store, rerun_tests=False, performance=False, documentation=False,
                   peer_review=False)
    assert isinstance(outcome, Committed) and llm.calls == 2  # generation + judge only
    assert store.final(TASK) == outcome.commit_id
    assert outcome.extended.review is None and outcome.extended.docstring == ""


def test_unincorporable_review_keeps_the_reviewed_draft(store) -> None:  # noqa: F811
    review = {"verdict": "changes", "comments": ["rename it"]}
    llm = scripted([entity(PATH, "slugify", GOOD_SLUG), "sorry, no code"], review, docs="nope")
    outcome = loop(llm, store, performance=False, rerun_tests=False)
    assert isinstance(outcome, Committed) and not outcome.extended.review_incorporated
    assert any("did not pass validation" in w for w in outcome.warnings)
    # the verdict was readable, so the merged answer is not re-asked for the missing docstring
    assert "the documentation step gave no docstring; none added" in outcome.warnings
    assert outcome.review_requests == ("rename it",)  # shown to the user, never dropped
    assert len([p for p in llm.prompts if "write its documentation" in p]) == 1
    assert store.show(store.final(TASK)).verdict == "passed"


def test_documentation_alone_is_reasked_then_reported(store) -> None:  # noqa: F811
    llm = scripted([entity(PATH, "slugify", GOOD_SLUG)], docs="nope")
    outcome = loop(llm, store, performance=False, rerun_tests=False, peer_review=False)
    assert isinstance(outcome, Committed) and outcome.extended.review is None
    assert any("documentation answer could not be read after 2 attempt(s)" in w
               for w in outcome.warnings)
    assert len([p for p in llm.prompts if "Write documentation" in p]) == 2  # re-asked once
    assert llm.calls == 1 + 1 + 2  # generation, judge, documentation asked twice


def test_compare_perf_thresholds_and_noise_floor() -> None:
    cfg = ExtendedConfig(perf_threshold=0.5)
    before = PerfMetrics(0.010, 1_000_000)
    assert compare_perf(PerfMetrics(0.014, 1_400_000), before, cfg).ok
    slow = compare_perf(PerfMetrics(0.030, 1_000_000), before, cfg)
    assert slow.regressions == ("examples take 30.0 ms, previous draft 10.0 ms (x3.0)",)
    assert compare_perf(PerfMetrics(0.0003, 10), PerfMetrics(0.0001, 1), cfg).ok  # noise
    assert not compare_perf(PerfMetrics(0.01, 3_000_000), before, cfg).ok
    assert compare_perf(PerfMetrics(1.0, 1), None, cfg).ok  # nothing to compare with


def test_gave_up_is_not_extended(store) -> None:  # noqa: F811
    llm = scripted([entity(PATH, "slugify", "def slugify(text, sep='-'):\n    return text\n")] * 2)
    outcome = loop(llm, store, max_iterations=2)
    assert isinstance(outcome, GaveUp) and store.final(TASK) is None


def test_review_changes_beyond_the_budget_are_shown_not_dropped(store) -> None:  # noqa: F811
    review = {"verdict": "changes", "comments": ["use a regex"]}
    llm = scripted([entity(PATH, "slugify", GOOD_SLUG)], review)
    outcome = loop(llm, store, performance=False, rerun_tests=False, max_iterations=1)
    assert isinstance(outcome, Committed) and outcome.iterations == 1
    assert outcome.review_requests == ("use a regex",)
    assert any("no iteration left in the budget (max_iterations=1)" in w
               for w in outcome.warnings)
    from codemem.app.drafting.loop_run import outcome_message

    message = outcome_message(outcome, slug_meta(), "", outcome.stats.llm_calls)
    assert "The peer reviewer asked for changes that are not in this draft" in message
    assert "- use a regex" in message


def test_unreadable_review_is_reasked_then_reported(store) -> None:  # noqa: F811
    llm = scripted([entity(PATH, "slugify", GOOD_SLUG)], review="Looks fine overall.")
    outcome = loop(llm, store, performance=False, rerun_tests=False)
    assert isinstance(outcome, Committed) and outcome.extended.review.verdict == "unreadable"
    assert len([p for p in llm.prompts if "senior peer reviewer" in p]) == 2
    (warning,) = (w for w in outcome.warnings if "peer review" in w)
    # prose, then the documentation object: the verdict is what is missing (and re-asked for)
    assert warning.startswith("the peer review could not be read after 2 attempt(s) (verdict")
    assert outcome.extended.docstring == "Make a URL slug."  # the documentation is kept
    assert '"""Make a URL slug."""' in outcome.files[PATH]


def test_null_docstring_means_none_with_a_warning(store) -> None:  # noqa: F811
    llm = scripted([entity(PATH, "slugify", GOOD_SLUG)], docs='{"docstring": null, "note": ""}')
    outcome = loop(llm, store, performance=False, rerun_tests=False)
    assert isinstance(outcome, Committed) and outcome.extended.docstring == ""
    assert "None" not in outcome.files[PATH]
    assert "the documentation step gave no docstring; none added" in outcome.warnings


NASTY = 'Make a "slug".\n\nBackslash \\ and """triple""" quotes stay text.\nEnds in a quote "'


def test_docstrings_are_indented_and_escaped_and_the_final_draft_validates(store) -> None:  # noqa: F811,E501
    method = ("def slugify(self, text: str, sep: str = '-') -> str:\n"
              "    return sep.join(text.lower().split())\n")
    repo = {**REPO, PATH: "class Slugger:\n    def slugify(self, text, sep='-'):\n"
                          "        return text\n"}
    meta = slug_meta(symbol="Slugger.slugify", kind="method",
                     signature="def slugify(self, text: str, sep: str = '-') -> str",
                     examples=[{"call": "Slugger().slugify('A b')", "expected": "a-b"}])
    docs = json.dumps({"docstring": NASTY, "note": "n"})
    llm = scripted([entity(PATH, "Slugger.slugify", method)], docs=docs)
    cfg = LoopConfig(max_iterations=2, extended=ExtendedConfig(performance=False,
                                                               peer_review=False))
    deps = LoopDeps(llm=llm, store=store, repo_files=repo, validator=VALIDATE,
                    select_tests=SELECT)
    outcome = run_draft_loop(meta, deps, task_id=TASK, config=cfg)
    assert isinstance(outcome, Committed) and store.final(TASK) == outcome.commit_id
    final = store.show(outcome.commit_id)
    assert final.verdict == "final"
    import ast

    tree = ast.parse(final.files[PATH])
    method_node = tree.body[0].body[0]
    assert ast.get_docstring(method_node, clean=True) == NASTY
    assert '\n        Backslash \\\\ and' in final.files[PATH]  # indented to the method body


def test_a_documented_draft_that_fails_validation_is_not_final(store) -> None:  # noqa: F811
    no_doc_test = ("from text.slug import slugify\n\n\ndef test_undocumented():\n"
                   "    assert slugify.__doc__ is None\n")
    llm = scripted([entity(PATH, "slugify", GOOD_SLUG)])
    cfg = LoopConfig(max_iterations=2, extended=ExtendedConfig(performance=False,
                                                               peer_review=False))
    deps = LoopDeps(llm=llm, store=store, repo_files={**REPO, "tests/test_doc.py": no_doc_test},
                    validator=VALIDATE, select_tests=SELECT)
    outcome = run_draft_loop(slug_meta(), deps, task_id=TASK, config=cfg)
    assert isinstance(outcome, Committed)
    passed = [c for c in store.log(TASK) if c.verdict == "passed"][0]
    assert outcome.commit_id == passed.id == store.final(TASK) == store.head(TASK)
    assert '"""' not in outcome.files[PATH]
    assert any(w.startswith("the documented draft failed validation") and "test_undocumented"
               in w for w in outcome.warnings)
    tried = store.search_episodes("", task_id=TASK)
    assert "failed" in [e.verdict for e in tried]  # the documented attempt is in the history
