"""The code-request conversation end to end, through the composition root.

Request -> proposed meta-code -> correction -> "go" -> draft loop in a worker thread (real
CommitIndex, sandbox, validator, scratchpad) -> result in chat, phase DONE, repository unchanged.
Only the LLM is scripted: one function answers each kind of prompt and records them all.
"""

from __future__ import annotations

import json

import pytest

from codemem import history, projects, runtime
from codemem.codegen.phases import CodegenPhase

from ...fakes import FunctionLLM, answer_scoring
from ..codegen.helpers_codegen import GOOD_SLUG, entity, slug_dict
from .test_code_index_glue import make_cat

REQUEST = {"request": "turn a title into a URL slug", "target_path": "text/slug.py",
           "symbol": "slugify"}


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
    settings = cat.mad_hatter.plugins[runtime.PLUGIN_ID].load_settings()
    settings.update(extended_loop=False, test_timeout_s=60)
    llm = FunctionLLM(answer, limit=60)
    cat.llm = llm
    monkeypatch.setattr(projects, "cat_llm", llm)
    return cat, sent, llm, repo, original


def wait(cat):
    thread = runtime._drafting[cat.user_id]
    thread.join(timeout=180)
    assert not thread.is_alive()


def test_request_correction_go_and_a_committed_draft(setup):
    cat, sent, llm, repo, original = setup
    proposal = runtime.propose_request(cat, REQUEST)
    assert "slugify" in proposal and "Reply **go**" in proposal
    state = runtime.load_state(cat)
    assert state.phase.phase is CodegenPhase.COLLECTING
    assert state.scratchpad.get(state.task_id, "awaiting") == "metacode"

    revised = runtime.reply_to_proposal(cat, "use '-' as the default separator")
    assert revised.startswith("Revised:")
    metacode_prompts = [p for p in llm.prompts if "META-CODE" in p[:60]]
    assert "use '-' as the default separator" in metacode_prompts[-1]

    started = runtime.reply_to_proposal(cat, "go")
    assert started.startswith("Drafting `slugify` in `text/slug.py`")
    wait(cat)

    kind, result = sent[-1]
    assert kind == "chat" and result.startswith("Draft committed as `")
    assert "def slugify(text: str, sep: str = '-') -> str:" in result
    assert "```diff" in result and "+def slugify" in result
    state = runtime.load_state(cat)
    assert state.phase.phase is CodegenPhase.DONE and state.commit_id
    assert state.scratchpad.get(state.task_id, "loop.status") == "committed"
    walked = [h["to"] for h in state.phase.history]
    assert walked[:4] == ["collecting", "metacode_confirmed", "drafting", "validating"]
    assert walked[-2:] == ["committed", "done"]
    assert (repo / "text" / "slug.py").read_text() == original  # never written without "apply"
    project, _ = runtime.project_of(cat)
    assert project.commits.log(state.task_id)[0].id == state.commit_id
    # every commit is an episode memory, searchable through the Memory API's retrieval
    assert project.code.count_memories({"kind": "episode"}) == len(
        project.commits.log(state.task_id))
    scoring_before = sum(p.startswith("You rate how useful") for p in llm.prompts)
    episodes = project.commits.search_episodes("slugify", task_id=state.task_id)
    assert episodes and episodes[0].commit in {c.id for c in project.commits.log(state.task_id)}
    assert sum(p.startswith("You rate how useful") for p in llm.prompts) > scoring_before


def test_cancel_drops_the_request_and_nothing_waits_afterwards(setup):
    cat, sent, llm, _, _ = setup
    runtime.propose_request(cat, REQUEST)
    assert runtime.reply_to_proposal(cat, "cancel").startswith("Cancelled the request")
    state = runtime.load_state(cat)
    assert state.phase.phase is CodegenPhase.FAILED
    assert state.phase.failure_reason == "cancelled by the user"
    assert runtime.reply_to_proposal(cat, "go") is None


def test_no_proposal_waiting_means_the_agent_answers(setup):
    cat, *_ = setup
    runtime.attach_state(cat)
    assert runtime.reply_to_proposal(cat, "go") is None


def test_an_unusable_repository_setting_is_reported_not_raised(setup):
    cat, *_ = setup
    cat.mad_hatter.plugins[runtime.PLUGIN_ID].load_settings()["repository_path"] = "/"
    reply = runtime.propose_request(cat, REQUEST)
    assert reply.startswith("I could not prepare the request:") and "system folder" in reply
    assert runtime.load_state(cat).phase.phase is CodegenPhase.FAILED


def test_history_and_roll_back_in_chat(setup):
    cat, sent, llm, _, _ = setup
    assert "no code task yet" in history.draft_history(cat)
    runtime.propose_request(cat, REQUEST)
    runtime.reply_to_proposal(cat, "go")
    wait(cat)
    lines = history.draft_history(cat).splitlines()
    assert lines[1].startswith("- draft 1 ") and "[passed]" in lines[1] and "← current" in lines[1]
    assert "[imported]" in lines[2]
    task = runtime.load_state(cat).task_id
    assert "has no draft 7" in history.roll_back_draft(cat, "draft 7")
    reply = history.roll_back_draft(cat, "")
    assert reply.startswith("Back at draft 0 ") and "restored" in reply
    state = runtime.load_state(cat)
    assert "loop.status" not in state.scratchpad.snapshot(task)  # the imported commit's notes
    after = history.draft_history(cat).splitlines()
    assert "[imported]" in after[1] and "← current" in after[1]
    assert after[2].startswith("Rolled back, restorable with **redo**")
    assert "[passed]" in after[3]
    assert history.redo_draft(cat).startswith("Restored draft 1 ")
    restored = runtime.load_state(cat).scratchpad.snapshot(task)
    assert "iter1.generation" in restored  # the notes that pushed draft 1
    assert history.redo_draft(cat).startswith("Nothing to redo:")
    assert history.roll_back_draft(cat, "--upload-pack=touch PWN").startswith("Cannot roll back:")


def test_apply_writes_the_draft_only_on_the_users_exact_word(setup):
    cat, sent, llm, repo, original = setup
    assert history.apply_if_asked(cat, "please apply the changes you think best") is None
    assert "no code task yet" in history.apply_if_asked(cat, "apply")
    runtime.propose_request(cat, REQUEST)
    runtime.reply_to_proposal(cat, "go")
    wait(cat)
    target = repo / "text" / "slug.py"
    target.write_text(original + "# my own edit\n")
    refused = history.apply_if_asked(cat, "apply")
    assert refused.startswith("I did not write anything:") and "was edited" in refused
    assert target.read_text() == original + "# my own edit\n"
    target.write_text(original)
    reply = history.apply_if_asked(cat, "Apply it!")
    assert reply.startswith("Applied draft `") and "`text/slug.py`" in reply
    assert "def slugify(text: str, sep: str = '-') -> str:" in target.read_text()
    assert "def other():" in target.read_text()  # the rest of the file is kept


def test_apply_respects_the_never_policy(setup):
    cat, *_ = setup
    runtime.propose_request(cat, REQUEST)
    runtime.reply_to_proposal(cat, "go")
    wait(cat)
    cat.mad_hatter.plugins[runtime.PLUGIN_ID].load_settings()["write_back"] = (
        "never: drafts stay in the history")
    assert history.apply_if_asked(cat, "apply").startswith("Write-back is off")


def test_stop_while_drafting_ends_the_loop_after_the_current_step(setup, monkeypatch):
    import threading

    from ..codegen.helpers_codegen import WRONG_SLUG

    cat, sent, _, _, _ = setup
    gate, generating = threading.Event(), threading.Event()

    def slow_wrong(prompt: str) -> str:
        if prompt.startswith("You write Python code for one goal"):
            generating.set()
            gate.wait(60)  # hold the first iteration until the user has said "stop"
            return entity("text/slug.py", "slugify", WRONG_SLUG)
        return answer(prompt)

    llm = FunctionLLM(slow_wrong, limit=60)
    cat.llm = llm
    monkeypatch.setattr(projects, "cat_llm", llm)
    assert runtime.stop_if_asked(cat, "stop") is None  # nothing runs yet
    runtime.propose_request(cat, REQUEST)
    runtime.reply_to_proposal(cat, "go")
    assert generating.wait(60), "the first iteration never started"
    assert runtime.stop_if_asked(cat, "please keep going") is None
    assert runtime.stop_if_asked(cat, "stop").startswith("Stopping the draft loop")
    gate.set()
    wait(cat)
    kind, result = sent[-1]
    assert kind == "chat" and result.startswith("Stopped as you asked, after 1 iteration(s)")
    state = runtime.load_state(cat)
    assert state.phase.phase is CodegenPhase.FAILED
    assert sum(p.startswith("You write Python code") for p in llm.prompts) == 1


def test_a_new_request_archives_the_finished_tasks_notes_and_clears_them(setup):
    cat, sent, llm, _, _ = setup
    runtime.propose_request(cat, REQUEST)
    runtime.reply_to_proposal(cat, "go")
    wait(cat)
    first = runtime.load_state(cat).task_id
    runtime.propose_request(cat, {**REQUEST, "request": "a second, unrelated request"})
    state = runtime.load_state(cat)
    assert state.scratchpad.tasks() == [state.task_id] and state.task_id != first
    project, _ = runtime.project_of(cat)
    notes = project.code.list_memories({"type": "task_note", "task_id": first})
    # first-try success: no "loop.last_feedback" note existed to archive
    assert sorted(m["metadata"]["key"] for m in notes) == ["loop.status", "metacode", "request"]
    assert any("turn a title into a URL slug" in m["text"] for m in notes)
