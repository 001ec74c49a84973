"""Two users on one repository at once: what of A's tasks B's prompts may contain.

An unfinished task's material (its drafts' episodes, its notes) never reaches another user's
prompts; a finished task's notes reach only its own user's, unless the admin shares them.
"""

from __future__ import annotations

import json
import threading

import pytest

from codemem.app import entry
from codemem.app.host import llm_port

from ...fakes import FunctionLLM, answer_scoring
from ..codegen.helpers_codegen import GOOD_SLUG, WRONG_SLUG, entity, slug_dict
from .glue_support import make_cat, other_user, say, settings_of, state_of, wait_for_draft

A_REQUEST = "write a function slugify in text/slug.py for ZEBRA titles into URL slugs"
B_REQUEST = "write a function slugify in text/slug.py for titles into URL slugs"
#: How A's goal reads in A's own loop prompts (A's notes hold the same words as JSON).
A_GOAL = "behaviour: Lower-case the text into ZEBRA slugs."


class TwoUsers:
    """Scripted model: A's drafts are wrong (and A's second one waits at a gate), B's pass."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.a_rejected = threading.Event()
        self.prompts: list[str] = []
        self._a_drafts = 0
        self._lock = threading.Lock()

    def __call__(self, prompt: str) -> str:
        with self._lock:
            self.prompts.append(prompt)
        scored = answer_scoring(prompt, lambda memory: (0.9, "relevant"))
        if scored is not None:
            return scored
        if prompt.startswith("You turn a programming request into META-CODE"):
            behaviour = "ZEBRA slugs" if "ZEBRA" in prompt else "slugs"
            return json.dumps(slug_dict(behaviour=f"Lower-case the text into {behaviour}."))
        if prompt.startswith("You write Python code for one goal"):
            if A_GOAL in prompt:  # user A's loop
                with self._lock:
                    self._a_drafts += 1
                    first = self._a_drafts == 1
                if not first:
                    self.a_rejected.set()
                    self.gate.wait(120)
                return entity("text/slug.py", "slugify", WRONG_SLUG)
            return entity("text/slug.py", "slugify", GOOD_SLUG)
        if prompt.startswith("You are a strict reviewer"):
            return json.dumps({"checks": [{"check": 1, "pass": True, "reason": "ok"},
                                          {"check": 2, "pass": True, "reason": "ok"}]})
        raise AssertionError(f"unexpected prompt: {prompt[:200]}")

    def of_b(self) -> list[str]:
        return [p for p in self.prompts if p.startswith("You write Python code for one goal")
                and A_GOAL not in p]


@pytest.fixture
def two_users(tmp_path, monkeypatch):
    repo = tmp_path / "workspace"
    (repo / "text").mkdir(parents=True)
    (repo / "text" / "slug.py").write_text("def other():\n    return 1\n")
    alice, _, _ = make_cat(tmp_path, repo, user="alice")
    settings_of(alice).update(extended_loop=False, max_iterations=3, check_judge=True)
    bob, bob_sent = other_user(alice, "bob")
    model = TwoUsers()
    monkeypatch.setattr(llm_port, "cat_llm", FunctionLLM(model, limit=400))
    yield alice, bob, bob_sent, model
    model.gate.set()


def test_an_unfinished_task_never_reaches_another_users_prompts(two_users):
    alice, bob, bob_sent, model = two_users
    say(alice, A_REQUEST)
    say(alice, "go")
    assert model.a_rejected.wait(120), "alice's first draft was never rejected"
    a_task = state_of(alice).task_id
    say(bob, B_REQUEST)
    say(bob, "go")  # alice's loop is still running: her task is unfinished
    wait_for_draft(bob)
    assert bob_sent[-1][1].startswith("Draft committed"), bob_sent[-1]
    b_prompts = model.of_b()
    assert b_prompts, "bob's loop made no generation prompt"
    for prompt in b_prompts:
        assert a_task not in prompt and "ZEBRA" not in prompt
    model.gate.set()
    wait_for_draft(alice)


@pytest.mark.parametrize("shared", [False, True], ids=["private", "shared"])
def test_finished_task_notes_are_the_users_own_unless_shared(two_users, shared):
    alice, bob, bob_sent, model = two_users
    settings_of(alice)["share_task_notes"] = shared
    model.gate.set()  # alice's loop runs to its end
    say(alice, A_REQUEST)
    say(alice, "go")
    wait_for_draft(alice)
    a_task = state_of(alice).task_id
    say(alice, "write a function shout in text/slug.py that upper-cases text")  # archives A1
    project = entry.session_turn(alice)[1].workspace.project()
    assert a_task in project.ledger.visible_tasks("alice", share_finished=False)
    assert project.ledger.visible_tasks("bob", share_finished=shared) == (
        {a_task} if shared else set())
    say(bob, B_REQUEST)
    say(bob, "go")
    wait_for_draft(bob)
    seen = any("ZEBRA" in prompt for prompt in model.of_b())
    assert seen is shared
