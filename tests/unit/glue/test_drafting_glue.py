"""The code-request conversation end to end, one user turn at a time through the hooks.

Request -> proposed meta-code -> correction -> "go" -> draft loop in a worker thread (real
CommitIndex, sandbox, validator, scratchpad) -> result in chat, phase DONE, repository unchanged.
Only the LLM is scripted: one function answers each kind of prompt and records them all.
"""

from __future__ import annotations

import json
import re
import threading

import pytest

from codemem.app import entry
from codemem.app.drafting import history
from codemem.app.host import llm_port
from codemem.codegen.loop.phases import CodegenPhase

from ...fakes import FunctionLLM, answer_scoring
from ..codegen.helpers_codegen import GOOD_SLUG, WRONG_SLUG, entity, slug_dict
from .glue_support import (
    counted_retrievals,
    make_cat,
    say,
    session_of,
    settings_of,
    state_of,
    wait_for_draft,
)

REQUEST = "write a function slugify in text/slug.py that turns a title into a URL slug"


def answer(prompt: str) -> str:
    scored = answer_scoring(prompt, lambda memory: (0.9, "relevant"))
    if scored is not None:
        return scored
    if prompt.startswith("You turn a programming request into META-CODE"):
        return json.dumps(slug_dict())
    if prompt.startswith("You write Python code for one goal"):
        return entity("text/slug.py", "slugify", GOOD_SLUG)
    if prompt.startswith("You are a strict reviewer"):
        return json.dumps({"checks": [{"check": 1, "pass": True, "reason": "joined"},
                                      {"check": 2, "pass": True, "reason": "lower"}]})
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


@pytest.fixture
def setup(tmp_path, monkeypatch):
    repo = tmp_path / "workspace"
    (repo / "text").mkdir(parents=True)
    original = "def other():\n    return 1\n"
    (repo / "text" / "slug.py").write_text(original)
    cat, sent, _ = make_cat(tmp_path, repo)
    settings_of(cat).update(extended_loop=False, test_timeout_s=60)
    llm = FunctionLLM(answer, limit=60)
    monkeypatch.setattr(llm_port, "cat_llm", llm)
    return cat, sent, llm, repo, original


def test_request_correction_go_and_a_committed_draft(setup, monkeypatch):
    cat, sent, llm, repo, original = setup
    retrievals = counted_retrievals(monkeypatch)
    proposal = say(cat, REQUEST)
    assert "slugify" in proposal and "Reply **go**" in proposal
    state = state_of(cat)
    assert state.phase.phase is CodegenPhase.COLLECTING
    assert state.scratchpad.get(state.task_id, "awaiting") == "metacode"
    # the message named file and symbol: no form question, no LLM extraction
    assert state.scratchpad.get(state.task_id, "request")["target_path"] == "text/slug.py"

    revised = say(cat, "use '-' as the default separator")
    assert revised.startswith("Revised:")
    metacode_prompts = [p for p in llm.prompts if "META-CODE" in p[:60]]
    assert "use '-' as the default separator" in metacode_prompts[-1]

    started = say(cat, "go")
    assert started.startswith("Drafting `slugify` in `text/slug.py`")
    wait_for_draft(cat)

    kind, result = sent[-1]
    assert kind == "chat" and result.startswith("Draft committed as `")
    calls = int(re.search(r"\((\d+) LLM calls\)", result).group(1))
    assert calls == len(llm.prompts)  # every call of the request, scoring included
    assert "def slugify(text: str, sep: str = '-') -> str:" in result
    assert "```diff" in result and "+def slugify" in result
    state = state_of(cat)
    assert state.phase.phase is CodegenPhase.DONE and state.commit_id
    assert state.scratchpad.get(state.task_id, "loop.status") == "committed"
    walked = [h["to"] for h in state.phase.history]
    assert walked[:4] == ["collecting", "metacode_confirmed", "drafting", "validating"]
    assert walked[-2:] == ["committed", "done"]
    assert (repo / "text" / "slug.py").read_text() == original  # never written without "apply"
    assert len(retrievals) == 2  # the proposal and its revision share one, the loop one
    context = session_of(cat).context
    assert slug_dict()["behaviour"] in context.query  # the loop's is the confirmed meta-code


def test_cancel_drops_the_request_and_nothing_waits_afterwards(setup):
    cat, *_ = setup
    say(cat, REQUEST)
    assert say(cat, "cancel").startswith("Cancelled the request")
    state = state_of(cat)
    assert state.phase.phase is CodegenPhase.FAILED
    assert state.phase.failure_reason == "cancelled by the user"
    assert say(cat, "go") is None  # nothing waits: the Cat answers


def test_an_unusable_repository_setting_is_reported_not_raised(setup):
    cat, *_ = setup
    settings_of(cat)["repository_path"] = "/"
    reply = say(cat, REQUEST)
    assert reply.startswith("I could not prepare the request:") and "system folder" in reply
    assert state_of(cat).phase.phase is CodegenPhase.FAILED


def test_a_request_without_a_file_is_asked_for_it_then_proposed(setup):
    cat, *_ = setup
    question = say(cat, "write a function slugify that turns a title into a URL slug")
    assert "Which file should the code go in?" in question
    assert not state_of(cat).task_id  # nothing opened before the request is complete
    proposal = say(cat, "put it in text/slug.py")
    assert "Reply **go**" in proposal
    request = state_of(cat).note("request")
    assert request["target_path"] == "text/slug.py" and request["symbol"] == "slugify"


def test_history_and_roll_back_in_chat(setup):
    cat, *_ = setup
    session = session_of(cat)
    turn = lambda: entry.session_turn(cat)[1]  # noqa: E731
    assert "no code task yet" in history.draft_history(session, turn())
    say(cat, REQUEST)
    say(cat, "go")
    wait_for_draft(cat)
    lines = history.draft_history(session, turn()).splitlines()
    assert lines[1].startswith("- draft 1: slugify ") and "[passed]" in lines[1]
    assert "← current" in lines[1]
    assert "[imported]" in lines[2]
    task = state_of(cat).task_id
    assert "do not know which draft 'draft 7'" in history.roll_back_draft(session, turn(),
                                                                          "draft 7")
    reply = history.roll_back_draft(session, turn(), "")
    assert reply.startswith("Back at start: slugify ") and "restored" in reply
    assert "loop.status" not in state_of(cat).scratchpad.snapshot(task)
    after = history.draft_history(session, turn()).splitlines()
    assert "[imported]" in after[1] and "← current" in after[1]
    assert after[2].startswith("Rolled back, restorable with **redo**")
    assert history.redo_draft(session, turn()).startswith("Restored draft 1: slugify ")
    assert "iter1.generation" in state_of(cat).scratchpad.snapshot(task)
    assert history.redo_draft(session, turn()).startswith("Nothing to redo:")
    assert history.roll_back_draft(session, turn(), "--upload-pack=touch PWN").startswith(
        "I do not know which draft")  # never handed to git


def test_stop_while_drafting_ends_the_loop_after_the_current_step(setup, monkeypatch):
    cat, sent, _, _, _ = setup
    gate, generating = threading.Event(), threading.Event()

    def slow_wrong(prompt: str) -> str:
        if prompt.startswith("You write Python code for one goal"):
            generating.set()
            gate.wait(60)  # hold the first iteration until the user has said "stop"
            return entity("text/slug.py", "slugify", WRONG_SLUG)
        return answer(prompt)

    llm = FunctionLLM(slow_wrong, limit=60)
    monkeypatch.setattr(llm_port, "cat_llm", llm)
    say(cat, REQUEST)
    say(cat, "go")
    assert generating.wait(60), "the first iteration never started"
    assert say(cat, "nice weather today") is None  # not a stop word: the Cat answers
    assert say(cat, "please keep going").startswith("A draft is running")
    assert say(cat, "stop").startswith("Stopping the draft loop")
    gate.set()
    wait_for_draft(cat)
    kind, result = sent[-1]
    assert kind == "chat" and result.startswith("Stopped as you asked, after 1 iteration(s)")
    assert "**continue**" in result
    assert state_of(cat).phase.phase is CodegenPhase.FAILED
    assert sum(p.startswith("You write Python code") for p in llm.prompts) == 1


def test_continue_after_a_stop_resumes_from_the_last_good_draft(setup, monkeypatch):
    cat, sent, llm, _, _ = setup
    say(cat, REQUEST)
    session = session_of(cat)
    say(cat, "go")
    session.worker.stop_event.set()  # stopped before the first iteration
    wait_for_draft(cat)
    assert state_of(cat).phase.phase is CodegenPhase.FAILED
    started = say(cat, "continue")
    assert started.startswith("Drafting `slugify`")
    wait_for_draft(cat)
    assert sent[-1][1].startswith("Draft committed as `")
    assert state_of(cat).phase.phase is CodegenPhase.DONE


def test_a_new_request_archives_the_finished_tasks_notes_for_its_user(setup):
    cat, *_ = setup
    say(cat, REQUEST)
    say(cat, "go")
    wait_for_draft(cat)
    first = state_of(cat).task_id
    say(cat, "write a function shout in text/slug.py that upper-cases text")
    state = state_of(cat)
    assert state.scratchpad.tasks() == [state.task_id] and state.task_id != first
    session = session_of(cat)
    notes = session.context.project.code.list_memories({"type": "task_note", "task_id": first})
    # first-try success: no "loop.last_feedback" note existed to archive
    assert sorted(m["metadata"]["key"] for m in notes) == ["loop.status", "metacode", "request"]
    assert {m["metadata"]["user"] for m in notes} == {"alice"}
    assert any("turns a title into a URL slug" in m["text"] for m in notes)


def test_a_model_that_cannot_write_the_meta_code_is_reported_in_the_users_terms(setup):
    """The 135M model answered the meta-code prompt with a Python block, three times: the user
    reads which step failed, what was tried and what to change, not the model's instructions."""
    cat, _, llm, *_ = setup
    settings_of(cat).update(native_json="off: the prompt asks for JSON, every reply read "
                                        "tolerantly")

    def python_block(prompt: str) -> str:
        scored = answer_scoring(prompt, lambda memory: (0.9, "relevant"))
        return scored if scored is not None else "```python\ndef slugify(t):\n    return t\n```"

    llm._fn = python_block
    reply = say(cat, REQUEST)
    assert reply.startswith("I could not prepare the request: the model did not write its "
                            "answer for preparing the request in the form the plugin reads")
    assert "3 attempt(s)" in reply and "'Native JSON mode'" in reply
    assert "larger model" in reply and "context window the plugin uses (4096 tokens" in reply
    assert state_of(cat).phase.phase is CodegenPhase.FAILED


def test_a_model_that_does_not_answer_is_reported_not_raised(setup):
    cat, _, llm, *_ = setup

    def down(prompt: str) -> str:
        raise ConnectionError("connection refused")

    llm._fn = down
    reply = say(cat, REQUEST)
    assert reply.startswith("I could not prepare the request: the model did not answer")
    assert "reachable from the Cat" in reply
