"""The draft loop, one test per path, with the REAL CommitIndex, Scratchpad, sandbox and pytest.

Only the LLM is scripted; every test also checks what the LLM was TOLD (the prompts).
"""

from __future__ import annotations

import json
import threading

from codemem.codegen.loop.draft_loop import (
    Committed,
    GaveUp,
    LoopConfig,
    LoopDeps,
    ProgressEvent,
    run_draft_loop,
)
from codemem.codegen.ports import ContextSnippet

from ...fakes import FunctionLLM, ScriptedLLM
from .helpers_codegen import GOOD_SLUG, WRONG_SLUG, entity, slug_meta
from .loop_support import TASK, judge_pass, notes, real_or_interim, store  # noqa: F401

VALIDATE, SELECT = real_or_interim()
PATH = "text/slug.py"
REPO = {"text/__init__.py": "",
        PATH: "def slugify(text, sep='-'):\n    raise NotImplementedError\n"}


def run(llm, store, notes=None, config=None, should_stop=None, **deps):  # noqa: F811
    events: list[ProgressEvent] = []
    deps.setdefault("repo_files", REPO)
    outcome = run_draft_loop(slug_meta(), LoopDeps(llm, store, notes, validator=VALIDATE,
                                                   select_tests=SELECT, **deps),
                             task_id=TASK, config=config, on_progress=events.append,
                             should_stop=should_stop)
    return outcome, events


def test_success_first_try_commits_and_records(store, notes) -> None:  # noqa: F811
    llm = ScriptedLLM(entity(PATH, "slugify", GOOD_SLUG), judge_pass())
    outcome, events = run(llm, store, notes)
    assert isinstance(outcome, Committed) and outcome.iterations == 1
    assert outcome.stats.llm_calls == 2
    assert "def slugify(text: str, sep: str = '-') -> str:" in outcome.files[PATH]
    log = store.log(TASK)
    assert [c.verdict for c in log] == ["passed", "imported"] and log[0].id == outcome.commit_id
    shown = store.show(outcome.commit_id)
    assert shown.metacode == slug_meta().to_dict()
    assert shown.snapshot["iter1.apply"] == {"status": "applied", "changed": [PATH]}
    gen, judge = llm.prompts
    assert "acceptance check 2: output is lower-case" in gen and "(first attempt)" in gen
    assert 'source="draft:text/slug.py"' in gen and "raise NotImplementedError" in gen
    assert "Acceptance checks (number: text):\n1: words are joined with sep" in judge
    assert "All checks passed." in judge  # the judge saw the example test results
    assert notes.get(TASK, "loop.status") == "committed"
    recorded = set(notes.snapshot(TASK))
    assert {f"iter1.{k}" for k in ("context", "generation", "apply", "judge", "validation",
                                   "decision")} <= recorded
    assert notes.get(TASK, "iter1.judge")["passed"] is True
    steps = [(e.step, e.status) for e in events]
    for step in [("context", "started"), ("generate", "started"), ("validate", "done"),
                 ("judge", "started"), ("commit", "done"), ("done", "done")]:
        assert step in steps


def test_success_after_feedback_sends_the_exact_failure(store, notes) -> None:  # noqa: F811
    llm = ScriptedLLM(entity(PATH, "slugify", WRONG_SLUG), entity(PATH, "slugify", GOOD_SLUG),
                      judge_pass())
    outcome, _ = run(llm, store, notes)
    assert isinstance(outcome, Committed) and outcome.iterations == 2
    assert llm.calls == 3  # no judge call for the draft whose examples failed
    second = llm.prompts[1]
    assert "returned 'Hello-World', expected 'hello-world'" in second
    assert '<<<DATA kind="feedback" source="validator">>>' in second
    assert "draft 1: slugify rejected [failed]" in second  # history: what was tried, why it failed
    assert notes.get(TASK, "iter1.decision")["verdict"] == "failed"


def test_failing_repository_test_rolls_back_to_last_good(store, notes) -> None:  # noqa: F811
    repo_test = ("from text.slug import slugify\n\n\ndef test_spaces():\n"
                 "    assert slugify('  a  b ') == 'a-b'\n")
    split_on_space = GOOD_SLUG.replace(".split())", ".split(' '))")
    # no judge for the draft that fails a repository test: it is rejected whatever it would say
    llm = ScriptedLLM(entity(PATH, "slugify", split_on_space),
                      entity(PATH, "slugify", GOOD_SLUG), judge_pass())
    outcome, events = run(llm, store, notes,
                          repo_files={**REPO, "tests/test_slug.py": repo_test})
    assert isinstance(outcome, Committed) and outcome.iterations == 2
    assert "test_spaces" in llm.prompts[1]
    assert llm.calls == 3 and not llm.prompts[1].startswith("You are a strict reviewer")
    base = store.log(TASK)[-1]
    assert base.verdict == "imported"
    assert [c.verdict for c in store.log(TASK)] == ["passed", "imported"]  # failed draft rolled off
    tried = store.search_episodes("", task_id=TASK)
    assert "failed" in [e.verdict for e in tried]  # ...but remembered
    assert ("rollback", "done") in [(e.step, e.status) for e in events]


def test_gives_up_at_the_budget_and_stays_at_last_good(store) -> None:  # noqa: F811
    wrong2 = WRONG_SLUG.replace("sep.join(text.split())", "'-'.join(text.lower().split())")
    llm = ScriptedLLM(entity(PATH, "slugify", WRONG_SLUG), entity(PATH, "slugify", wrong2))
    outcome, _ = run(llm, store, config=LoopConfig(max_iterations=2))
    assert isinstance(outcome, GaveUp) and outcome.iterations == 2
    assert outcome.reason.startswith("budget: no draft passed in 2 iteration(s)")
    assert not outcome.last_report.ok and "a-b" in outcome.last_report.as_feedback()
    assert store.head(TASK) == outcome.last_good == store.log(TASK)[0].id
    assert store.log(TASK)[0].verdict == "imported"


def test_stuck_detection_stops_on_the_same_failure_twice(store, notes) -> None:  # noqa: F811
    llm = ScriptedLLM(entity(PATH, "slugify", WRONG_SLUG), entity(PATH, "slugify", WRONG_SLUG))
    outcome, _ = run(llm, store, notes, config=LoopConfig(max_iterations=5))
    assert isinstance(outcome, GaveUp) and outcome.iterations == 2
    assert outcome.reason == "stuck: 2 iterations in a row failed the same way"
    assert notes.get(TASK, "loop.status") == "gave_up"


def test_unapplicable_edit_is_fed_back(store) -> None:  # noqa: F811
    bad = (f"{PATH}\n<<<<<<< SEARCH\ndef slugify(txt):\n    pass\n=======\n"
           "def slugify(txt):\n    return txt\n>>>>>>> REPLACE\n")
    llm = ScriptedLLM(bad, entity(PATH, "slugify", GOOD_SLUG), judge_pass())
    outcome, events = run(llm, store)
    assert isinstance(outcome, Committed) and outcome.iterations == 2
    assert "edit failed: SEARCH text not found in text/slug.py" in llm.prompts[1]
    assert ("apply", "failed") in [(e.step, e.status) for e in events]
    assert [c.verdict for c in store.log(TASK)] == ["passed", "imported"]


def test_elided_code_is_rejected_and_fed_back(store) -> None:  # noqa: F811
    lazy = "def slugify(text, sep='-'):\n    # ... rest unchanged\n    return text\n"
    llm = ScriptedLLM(entity(PATH, "slugify", lazy), entity(PATH, "slugify", GOOD_SLUG),
                      judge_pass())
    outcome, _ = run(llm, store)
    assert isinstance(outcome, Committed)
    assert "elides code at its line 2 ('# ... rest unchanged')" in llm.prompts[1]


def test_judge_disagreement_rolls_back_and_explains(store) -> None:  # noqa: F811
    veto = json.dumps({"checks": [{"check": 1, "pass": True, "reason": "ok"},
                                  {"check": 2, "pass": False, "reason": "keeps capitals"}]})
    good = entity(PATH, "slugify", GOOD_SLUG)
    llm = ScriptedLLM(good, veto, good, "I think it is fine", "still no json", good, judge_pass())
    outcome, _ = run(llm, store, config=LoopConfig(stuck_after=0))
    assert isinstance(outcome, Committed) and outcome.iterations == 3
    assert "acceptance check not met: output is lower-case (keeps capitals)" in llm.prompts[2]
    assert "Your previous answer could not be used: no JSON object" in llm.prompts[4]
    assert "judge answer unusable" in llm.prompts[5]  # unreadable twice = disagreement
    assert len([c for c in store.search_episodes("", task_id=TASK) if c.verdict == "failed"]) == 2


def test_concurrent_steps_really_run_concurrently(store) -> None:  # noqa: F811
    """Each side waits for the other: sequential code would time out and fail the asserts."""
    seen: dict[str, bool] = {}
    repo_ev, assoc_ev, gen_ev, extract_ev = (threading.Event() for _ in range(4))

    def repo(query, current, limit):
        repo_ev.set()
        seen["assoc_before_repo_done"] = assoc_ev.wait(10)
        return [ContextSnippet("repo:text/util.py", "words", "def words(t): ...", 1.0)]

    def assoc(query, current, limit):
        assoc_ev.set()
        seen["repo_before_assoc_done"] = repo_ev.wait(10)
        return []

    def select(repo_files, target, symbol):
        extract_ev.set()
        seen["gen_during_extract"] = gen_ev.wait(10)
        return {}

    def answer(prompt: str) -> str:
        if prompt.startswith("You write Python code"):
            gen_ev.set()
            seen["extract_during_gen"] = extract_ev.wait(10)
            return entity(PATH, "slugify", GOOD_SLUG)
        return judge_pass()

    llm = FunctionLLM(answer)
    outcome = run_draft_loop(slug_meta(), LoopDeps(llm, store, repo_files=REPO,
                                                   repo_context=repo, associative=assoc,
                                                   validator=VALIDATE, select_tests=select),
                             task_id=TASK)
    assert isinstance(outcome, Committed)
    assert seen == dict.fromkeys(seen, True) and len(seen) == 4
    assert 'source="repo:text/util.py words"' in llm.prompts[0]


def test_failing_context_source_is_a_warning_not_a_crash(store) -> None:  # noqa: F811
    def broken(query, current, limit):
        raise OSError("index is being rebuilt")

    llm = ScriptedLLM(entity(PATH, "slugify", GOOD_SLUG), judge_pass())
    outcome, _ = run(llm, store, associative=broken)
    assert isinstance(outcome, Committed)
    assert outcome.warnings == ("associative context unavailable: OSError: index is being "
                                "rebuilt",)


def test_a_stop_request_ends_the_run_before_the_next_iteration(store, notes) -> None:  # noqa: F811
    llm = ScriptedLLM(entity(PATH, "slugify", WRONG_SLUG))  # one failing draft, then stop
    asked = []

    def should_stop() -> bool:
        asked.append(True)
        return len(asked) > 1  # let the first iteration run, stop before the second

    outcome, events = run(llm, store, notes, config=LoopConfig(max_iterations=4),
                          should_stop=should_stop)
    assert isinstance(outcome, GaveUp) and outcome.reason == "cancelled: stopped on request"
    assert outcome.iterations == 1 and llm.remaining == 0
    assert [c.verdict for c in store.log(TASK)] == ["imported"]  # the failed draft rolled back
    assert ("done", "failed") in [(e.step, e.status) for e in events]
