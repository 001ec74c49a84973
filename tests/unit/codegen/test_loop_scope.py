"""The loop with a scope: callers shown, edited in one reply, checked, and their tests run.

Real CommitIndex, Scratchpad, validator (ruff, libcst) and sandbox (pytest); only the LLM is
scripted, and every test checks what the LLM was told.
"""

from __future__ import annotations

from codemem.codegen.diffs import file_diffs, render_diffs
from codemem.codegen.loop.draft_loop import Committed, GaveUp, LoopConfig, LoopDeps, run_draft_loop
from codemem.codegen.metacode.model import MetaCode

from ...fakes import FunctionLLM, ScriptedLLM
from .helpers_codegen import entity
from .loop_support import TASK, judge_pass, notes, real_or_interim, store  # noqa: F401

VALIDATE, SELECT = real_or_interim()
REPO = {
    "net/__init__.py": "",
    "net/http.py": "def fetch(url):\n    return url\n",
    "app/__init__.py": "",
    "app/main.py": "from net.http import fetch\n\n\ndef run(url):\n    return fetch(url)\n",
    "app/cli.py": "from net import http\n\n\ndef main(argv):\n    return http.fetch(argv[0])\n",
    "app/other.py": "def other():\n    return 1\n",
    "tests/test_main.py": "from app.main import run\n\n\ndef test_run_passes_its_timeout():\n"
                          "    assert run('u', timeout=5) == 'u@5'\n",
}
META = MetaCode.from_dict({
    "target_path": "net/http.py", "symbol": "fetch", "kind": "function",
    "signature": "def fetch(url, timeout)", "behaviour": "Fetch url within timeout seconds.",
    "examples": [{"call": "fetch('a', 3)", "expected": "a@3"}],
    "acceptance_checks": ["callers pass a timeout"],
    "scope": [{"path": "app/main.py", "symbol": "run", "why": "takes a timeout and passes it"},
              {"path": "app/cli.py", "symbol": "main", "why": "passes a timeout of 10"}]})
FETCH = "def fetch(url, timeout):\n    return f'{url}@{timeout}'\n"
RUN = "def run(url, timeout=10):\n    return fetch(url, timeout)\n"
RUN_IGNORES = "def run(url, timeout=10):\n    return fetch(url, 10)\n"
MAIN = "def main(argv):\n    return http.fetch(argv[0], 10)\n"


def reply(*blocks: tuple[str, str, str]) -> str:
    return "".join(entity(path, symbol, code) for path, symbol, code in blocks)


def generations_and_judge(*replies: str) -> FunctionLLM:
    """Generation replies in order; the judge (asked once a draft passed validation) agrees."""
    script = list(replies)
    return FunctionLLM(lambda prompt: judge_pass(1) if prompt.startswith(
        "You are a strict reviewer") else script.pop(0))


def run(llm, store, notes=None, config=None):  # noqa: F811
    deps = LoopDeps(llm, store, notes, repo_files=REPO, validator=VALIDATE, select_tests=SELECT)
    return run_draft_loop(META, deps, task_id=TASK, config=config or LoopConfig(judge=False))


def test_a_forgotten_caller_is_named_then_one_reply_fixes_every_file(store, notes) -> None:  # noqa: F811
    llm = generations_and_judge(
        reply(("net/http.py", "fetch", FETCH), ("app/main.py", "run", RUN)),
        reply(("net/http.py", "fetch", FETCH), ("app/main.py", "run", RUN),
              ("app/cli.py", "main", MAIN)))
    outcome = run(llm, store, notes, LoopConfig())
    assert isinstance(outcome, Committed) and outcome.iterations == 2
    # two generations, the judge once, for the draft that passed validation: not one per
    # caller, and none for the draft whose call-site check failed
    assert outcome.stats.llm_calls == llm.calls == 3
    first, second = (p for p in llm.prompts if not p.startswith("You are a strict reviewer"))
    assert first.startswith("You write Python code for one goal across several places")
    assert '<<<DATA kind="scope" source="app/main.py:4-5 :: run">>>' in first
    assert "def main(argv):\n    return http.fetch(argv[0])" in first
    assert "Only these files may change: net/http.py, app/main.py, app/cli.py" in first
    assert "app/other.py" not in first
    assert "app/cli.py:5" in second and "missing argument(s) 'timeout'" in second
    assert {p: outcome.files[p] for p in ("net/http.py", "app/main.py", "app/cli.py")} == {
        "net/http.py": FETCH, "app/main.py": "from net.http import fetch\n\n\n" + RUN,
        "app/cli.py": "from net import http\n\n\n" + MAIN}
    baseline = store.show(store.log(TASK)[-1].id).files
    assert set(baseline) == {"net/http.py", "app/main.py", "app/cli.py"}
    diffs = file_diffs(baseline, outcome.files)
    assert [(d.path, d.status) for d in diffs] == [
        ("app/cli.py", "modified"), ("app/main.py", "modified"), ("net/http.py", "modified")]
    assert "+    return http.fetch(argv[0], 10)" in diffs[0].diff
    assert render_diffs(diffs).startswith("3 file(s) changed: `app/cli.py` (modified)")
    tests = [r for r in outcome.report.results if r.check == "tests"]
    assert tests and all(r.status.value == "passed" for r in tests)


def test_the_callers_tests_run_in_the_sandbox(store) -> None:  # noqa: F811
    llm = ScriptedLLM(
        reply(("net/http.py", "fetch", FETCH), ("app/main.py", "run", RUN_IGNORES),
              ("app/cli.py", "main", MAIN)),
        reply(("net/http.py", "fetch", FETCH), ("app/main.py", "run", RUN),
              ("app/cli.py", "main", MAIN)))
    outcome = run(llm, store)
    assert isinstance(outcome, Committed) and outcome.iterations == 2
    feedback = llm.prompts[1]
    assert "tests/test_main.py::test_run_passes_its_timeout" in feedback
    assert "u@10" in feedback  # the caller's own test caught what the examples could not


def test_an_edit_outside_the_scope_is_refused_and_said_why(store) -> None:  # noqa: F811
    llm = ScriptedLLM(
        reply(("net/http.py", "fetch", FETCH), ("app/other.py", "other",
                                                 "def other():\n    return 2\n")),
        reply(("net/http.py", "fetch", FETCH), ("app/main.py", "run", RUN),
              ("app/cli.py", "main", MAIN)))
    outcome = run(llm, store)
    assert isinstance(outcome, Committed) and outcome.iterations == 2
    assert "path rejected: 'app/other.py' is outside the files this task may change " \
           "(app/cli.py, app/main.py, net/http.py)" in llm.prompts[1]
    assert outcome.files.get("app/other.py") is None


def test_the_scope_code_is_budgeted_most_relevant_first(store) -> None:  # noqa: F811
    llm = ScriptedLLM(reply(("net/http.py", "fetch", FETCH)))
    outcome = run(llm, store, config=LoopConfig(judge=False, max_iterations=1, scope_budget=60))
    assert isinstance(outcome, GaveUp)
    prompt = llm.prompts[0]
    assert 'source="app/main.py:4-5 :: run"' in prompt
    assert 'source="app/cli.py' not in prompt
    assert "Also in the scope, not shown (prompt budget)" in prompt
    assert "- app/cli.py :: main: passes a timeout of 10" in prompt


def test_a_scope_widened_after_a_good_draft_starts_its_files_from_the_repository(store) -> None:  # noqa: F811
    store.commit(TASK, {"net/http.py": REPO["net/http.py"]}, name="start: fetch",
                 reason="the target alone", metacode={}, snapshot={}, verdict="imported")
    llm = ScriptedLLM(reply(("net/http.py", "fetch", FETCH), ("app/main.py", "run", RUN),
                            ("app/cli.py", "main", MAIN)))
    outcome = run(llm, store)
    assert isinstance(outcome, Committed) and outcome.iterations == 1
    assert outcome.files["app/main.py"] == "from net.http import fetch\n\n\n" + RUN
    assert outcome.files["app/cli.py"] == "from net import http\n\n\n" + MAIN
