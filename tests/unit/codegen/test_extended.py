"""Extended loop: re-run, performance against the previous good draft, docs, peer review, tag."""

from __future__ import annotations

import json

from codemem.codegen.extended import ExtendedConfig, PerfMetrics, compare_perf
from codemem.codegen.loop import Committed, GaveUp, LoopConfig, LoopDeps, run_draft_loop

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


def scripted(gen_replies: list[str], review: dict | None = None,
             docs: str = '{"docstring": "Make a URL slug.", "note": "Adds `slugify`."}'):
    gens = iter(gen_replies)

    def answer(prompt: str) -> str:
        if prompt.startswith("You write Python code"):
            return next(gens)
        if prompt.startswith("You are a strict reviewer"):
            return judge_pass()
        if prompt.startswith("Write documentation"):
            return docs
        if prompt.startswith("You are a senior peer reviewer"):
            return json.dumps(review or {"verdict": "approve", "comments": []})
        raise AssertionError(f"unexpected prompt {prompt[:80]!r}")

    return FunctionLLM(answer)


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
    assert any("documentation answer unusable" in w for w in outcome.warnings)
    assert store.show(store.final(TASK)).verdict == "passed"


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
