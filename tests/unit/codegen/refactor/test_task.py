"""A rename as a task: validated in the sandbox and committed like a draft, with no LLM call."""

from __future__ import annotations

import pytest

from codemem.codegen.diffs import file_diffs
from codemem.codegen.loop.draft_loop import Committed, GaveUp, LoopDeps
from codemem.codegen.loop.prepared import run_structural
from codemem.codegen.refactor.edits import Refused
from codemem.codegen.refactor.request import MoveRequest, RenameRequest

from ....fakes import ScriptedLLM
from ..loop_support import TASK, notes, real_or_interim, store  # noqa: F401

VALIDATE, SELECT = real_or_interim()
REPO = {
    "utils/__init__.py": "",
    "utils/dates.py": "def fmt_ts(ts, sep='T'):\n    return f'{ts}{sep}'\n",
    "app/__init__.py": "",
    "app/main.py": "from utils.dates import fmt_ts\n\n\ndef run(t):\n    return fmt_ts(t)\n",
    "tests/test_main.py": "from app.main import run\n\n\ndef test_run():\n"
                          "    assert run(1) == '1T'\n",
    "tests/test_dates.py": "from utils.dates import fmt_ts\n\n\ndef test_fmt():\n"
                           "    assert fmt_ts(2, '-') == '2-'\n",
}


def deps(store, notes=None, repo=REPO):  # noqa: F811
    return LoopDeps(ScriptedLLM(), store, notes, repo_files=repo, validator=VALIDATE,
                    select_tests=SELECT)  # no reply scripted: any LLM call fails the test


def test_a_rename_is_validated_and_committed_without_the_model(store, notes) -> None:  # noqa: F811
    done = run_structural(RenameRequest("fmt_ts", "format_timestamp"), "utils/dates.py",
                          deps(store, notes), task_id=TASK)
    assert not isinstance(done, Refused)
    meta, outcome = done
    assert isinstance(outcome, Committed) and outcome.stats.llm_calls == 0
    assert (meta.symbol, meta.kind, meta.signature) == (
        "format_timestamp", "function", "def format_timestamp(ts, sep='T')")
    assert [i.path for i in meta.scope] == ["app/main.py", "tests/test_dates.py"]
    changed = file_diffs(store.show(store.log(TASK)[-1].id).files, outcome.files)
    assert [d.path for d in changed] == ["app/main.py", "tests/test_dates.py", "utils/dates.py"]
    tests = [r for r in outcome.report.results if r.check == "tests"]
    assert tests and all(r.status.value == "passed" for r in tests)
    assert [c.verdict for c in store.log(TASK)] == ["passed", "imported"]


def test_a_move_is_committed_with_the_new_module(store) -> None:  # noqa: F811
    done = run_structural(MoveRequest("fmt_ts", "utils/format.py"), "utils/dates.py",
                          deps(store), task_id=TASK)
    assert not isinstance(done, Refused)
    meta, outcome = done
    assert isinstance(outcome, Committed) and meta.target_path == "utils/format.py"
    assert outcome.files["utils/format.py"].startswith("def fmt_ts(ts, sep='T'):")
    assert outcome.files["app/main.py"].startswith("from utils.format import fmt_ts\n")


def test_a_refusal_commits_nothing_and_a_failing_rewrite_is_rolled_back(store) -> None:  # noqa: F811
    repo = {**REPO, "app/dyn.py": "import utils.dates as d\n\nF = getattr(d, 'fmt_ts')\n"}
    refused = run_structural(RenameRequest("fmt_ts", "format_timestamp"), "utils/dates.py",
                             deps(store, repo=repo), task_id=TASK)
    assert isinstance(refused, Refused) and refused.places == (
        "app/dyn.py:3: dynamic access names `fmt_ts` in a string",)
    with pytest.raises(KeyError):  # no history: nothing was committed
        store.log(TASK)
    hidden = {**REPO, "tests/test_api.py": "import utils.dates as d\n\n\ndef test_api():\n"
                                           "    assert hasattr(d, 'fmt' + '_ts')\n"}
    done = run_structural(RenameRequest("fmt_ts", "format_timestamp"), "utils/dates.py",
                          deps(store, repo=hidden), task_id=TASK)
    assert not isinstance(done, Refused)
    _meta, outcome = done
    assert isinstance(outcome, GaveUp) and outcome.stats.llm_calls == 0
    assert outcome.reason == "the change does not pass validation"
    assert "tests/test_api.py::test_api" in outcome.last_report.as_feedback()
    assert [c.verdict for c in store.log(TASK)] == ["imported"]  # the rewrite rolled back...
    assert "failed" in [e.verdict for e in store.search_episodes("", task_id=TASK)]  # ...kept
    assert store.head(TASK) == outcome.last_good
