"""A run's state: the real checkers fill what ``LoopDeps`` leaves out; the meters count calls."""

from __future__ import annotations

from codemem.codegen.checks.validate import select_related_tests, validate_draft
from codemem.codegen.loop.state import LoopConfig, LoopDeps, RunState
from codemem.codegen.sandbox.api import run_in_sandbox

from ...fakes import ScriptedLLM
from .helpers_codegen import slug_meta
from .loop_support import TASK, notes, store  # noqa: F401


def test_missing_checkers_are_the_packages_real_ones(store, notes) -> None:  # noqa: F811
    llm = ScriptedLLM()
    state = RunState.start(slug_meta(), LoopDeps(llm, store, notes, repo_files={"a.py": "x = 1\n"}),
                           TASK, LoopConfig())
    assert state.validator is validate_draft
    assert state.select_tests is select_related_tests
    assert state.sandbox is run_in_sandbox
    assert state.judge_llm is state.llm  # one meter when the judge has no model of its own
    assert not hasattr(state.llm, "complete_json")  # a plain model stays plain
    assert state.repo_files == {"a.py": "x = 1\n"} and state.iteration == 0


def test_given_checkers_win_and_a_separate_judge_gets_its_own_meter(store) -> None:  # noqa: F811
    def validator(files, **kwargs):  # never called here: only its identity matters
        raise AssertionError("not called")

    state = RunState.start(slug_meta(), LoopDeps(ScriptedLLM(), store, validator=validator,
                                                 judge_llm=ScriptedLLM()), TASK, LoopConfig())
    assert state.validator is validator and state.judge_llm is not state.llm


def test_notes_snapshot_and_events_go_where_the_run_reports(store, notes) -> None:  # noqa: F811
    events = []
    state = RunState.start(slug_meta(), LoopDeps(ScriptedLLM(), store, notes), TASK,
                           LoopConfig(), on_progress=events.append)
    state.iteration = 3
    state.note("loop.status", "running")
    state.emit("validate", "started", "now")
    assert notes.get(TASK, "loop.status") == "running"
    assert state.snapshot()["loop.status"] == "running"
    assert [(e.iteration, e.step, e.status, e.message) for e in events] == [
        (3, "validate", "started", "now")]


def test_stats_add_the_judges_calls_and_the_validation_clock(store) -> None:  # noqa: F811
    state = RunState.start(slug_meta(), LoopDeps(ScriptedLLM("a"), store,
                                                 judge_llm=ScriptedLLM("b", "c")),
                           TASK, LoopConfig())
    state.llm("x")
    state.judge_llm("y")
    state.judge_llm("z")
    state.add_validation_time(0.25)
    state.add_validation_time(0.5)
    stats = state.stats()
    assert stats.llm_calls == 3 and stats.validation_s == 0.75 and stats.wall_s >= 0
