"""A restart mid-draft, as the user sees it: the next message reports the interrupted task with
its last draft, the phase is repaired, and "continue" finishes it from the last good draft.

The process is simulated: the stopping signal ends the first worker the way the Cat's exit does,
and a second set of registries reads the working memory the first one persisted (pickled, as the
``file_system`` cache keeps it). The real restart (SIGTERM to a running Cat, a second Cat on
the same data) is tests/integration/test_restart.py.
"""

from __future__ import annotations

import pickle
import threading

from codemem.app.drafting.sessions import Sessions
from codemem.app.drafting.state_store import StateStore
from codemem.app.host import llm_port
from codemem.app.host.lifecycle import Lifecycle, ShuttingDown, call_abandonably
from codemem.app.process import GENERATION
from codemem.app.projects.registry import Registry
from codemem.codegen.loop.phases import CodegenPhase

from ...fakes import FunctionLLM
from ..codegen.helpers_codegen import GOOD_SLUG, WRONG_SLUG, entity
from .glue_support import make_cat, say, session_of, settings_of, state_of, wait_for_draft
from .test_drafting_glue import REQUEST, answer


def test_an_interrupted_draft_is_reported_and_continue_finishes_it(tmp_path, monkeypatch):
    repo = tmp_path / "workspace"
    (repo / "text").mkdir(parents=True)
    (repo / "text" / "slug.py").write_text("def other():\n    return 1\n")
    cat, _, _ = make_cat(tmp_path, repo)
    settings_of(cat).update(extended_loop=False, max_iterations=4)
    second_draft, release = threading.Event(), threading.Event()
    drafts = []

    def model(prompt: str) -> str:
        if prompt.startswith("You write Python code for one goal"):
            drafts.append(prompt)
            if len(drafts) == 1:
                return entity("text/slug.py", "slugify", WRONG_SLUG)  # draft 1: rejected
            if len(drafts) == 2:
                second_draft.set()
                release.wait(60)  # the Cat stops while this call is in flight
            return entity("text/slug.py", "slugify", GOOD_SLUG)
        return answer(prompt)

    monkeypatch.setattr(llm_port, "cat_llm", FunctionLLM(model, limit=100))
    monkeypatch.setattr(llm_port.LIFECYCLE, "stopping", threading.Event())
    say(cat, REQUEST)
    say(cat, "go")
    assert second_draft.wait(120)
    task = state_of(cat).task_id
    llm_port.LIFECYCLE.stopping.set()  # the Cat stops: the in-flight call is abandoned
    wait_for_draft(cat)
    release.set()
    saved = pickle.loads(pickle.dumps(cat.working_memory))  # what the file_system cache kept
    owned = StateStore(str(tmp_path / "data")).load("alice")  # what the state's owner kept
    assert owned is not None and owned["phase"] in ("drafting", "validating", "rolled_back")

    # -- a new process: fresh registries, the same data folder, the saved working memory ----
    GENERATION.registry.close_all()
    monkeypatch.setattr(GENERATION, "registry", Registry())
    monkeypatch.setattr(GENERATION, "sessions", Sessions())
    monkeypatch.setattr(llm_port.LIFECYCLE, "stopping", threading.Event())
    cat.working_memory = saved
    report = say(cat, "is my slugify function ready?")
    assert "was interrupted" in report and f"`{task}`" in report
    assert "[failed]" in report or "[imported]" in report  # the last draft, named
    assert "**continue**" in report
    state = state_of(cat)
    assert state.phase.phase is CodegenPhase.FAILED and "interrupted" in \
        state.phase.failure_reason
    assert say(cat, "what now?") is None  # reported once; the Cat answers the rest
    assert say(cat, "continue").startswith("Drafting `slugify`")
    wait_for_draft(cat)
    state = state_of(cat)
    assert state.phase.phase is CodegenPhase.DONE
    assert session_of(cat).state.commit_id == state.commit_id


def test_continue_right_after_the_restart_resumes_at_once(tmp_path, monkeypatch):
    repo = tmp_path / "workspace"
    (repo / "text").mkdir(parents=True)
    cat, sent, _ = make_cat(tmp_path, repo)
    settings_of(cat).update(extended_loop=False)
    monkeypatch.setattr(llm_port, "cat_llm", FunctionLLM(answer, limit=100))
    say(cat, REQUEST)
    state = state_of(cat)
    state.phase.walk_to(CodegenPhase.DRAFTING, "a worker of a process that is gone")
    session_of(cat).save()
    monkeypatch.setattr(GENERATION, "sessions", Sessions())
    reply = say(cat, "continue")
    assert reply.startswith("Drafting `slugify`"), reply
    wait_for_draft(cat)
    assert sent[-1][1].startswith("Draft committed as `")


def test_an_abandoned_call_raises_when_the_process_stops():
    lifecycle = Lifecycle()
    started, release = threading.Event(), threading.Event()

    def slow(prompt: str) -> str:
        started.set()
        release.wait(30)
        return "late"

    result = {}

    def caller() -> None:
        try:
            call_abandonably(slow, "p", lifecycle.stopping, poll_s=0.01)
        except ShuttingDown as err:
            result["error"] = err

    thread = threading.Thread(target=caller)
    thread.start()
    assert started.wait(10)
    lifecycle.shut_down()
    thread.join(5)
    release.set()
    assert not thread.is_alive() and isinstance(result.get("error"), ShuttingDown)
    assert call_abandonably(str.upper, "fine", threading.Event()) == "FINE"
