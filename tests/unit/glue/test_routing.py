"""Routing a chat message: a code request starts the form (pre-filled, no LLM extraction), a
question about the code gets the plugin's retrieval in the prompt, anything else is the Cat's.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from codemem.app import entry
from codemem.app.host import environment, llm_port
from codemem.app.process import GENERATION

from ...fakes import FunctionLLM, answer_scoring
from ..codegen.helpers_codegen import slug_dict
from ..memory.codebase.catlike import Document
from .glue_support import FormStandIn, States, make_cat, say, state_of

PARSE_ISO = slug_dict(
    target_path="utils/dates.py", symbol="parse_iso", signature="def parse_iso(text: str) -> dict",
    behaviour="Parse an ISO date into its parts.",
    inputs=[{"name": "text", "type": "str", "description": "an ISO date"}],
    outputs=[{"name": "return", "type": "dict", "description": "the parts"}],
    examples=[{"call": "parse_iso('2024-01-02')", "expected": {"y": "2024"}},
              {"call": "parse_iso('1999-12-31')", "expected": {"y": "1999"}}],
    acceptance_checks=["the year is the first four characters"])


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "workspace"
    (root / "utils").mkdir(parents=True)
    (root / "utils" / "dates.py").write_text(
        "def parse_iso(text):\n    \"\"\"Parse an ISO date.\"\"\"\n    return {'y': text[:4]}\n")
    return root


@pytest.fixture
def llm(monkeypatch):
    def answer(prompt: str) -> str:
        scored = answer_scoring(prompt, lambda memory: (0.9, "it parses dates"))
        if scored is not None:
            return scored
        if prompt.startswith("You turn a programming request into META-CODE"):
            return json.dumps(PARSE_ISO)
        if prompt.startswith("Does the chat message below ask to write"):
            return "<think>retries are code</think> yes"
        raise AssertionError(f"unexpected prompt: {prompt[:120]}")

    fake = FunctionLLM(answer, limit=100)
    monkeypatch.setattr(llm_port, "cat_llm", fake)
    return fake


def indexed(tmp_path, repo):
    cat, sent, _ = make_cat(tmp_path, repo)
    entry.start_indexing(cat)
    for project in GENERATION.registry.projects():
        project.indexer.join(60)
    return cat


def procedures(*names):
    return [(Document(f"trigger of {n}", {"source": n, "type": "tool"}), 0.8, None, n)
            for n in names]


def test_small_talk_is_left_to_the_cat_without_any_llm_call(tmp_path, repo, llm):
    cat, _, _ = make_cat(tmp_path, repo)
    for text in ("hello, who are you?", "write a poem about cats", "thanks!"):
        assert say(cat, text) is None
        assert cat.working_memory.get("active_form") is None
    assert llm.calls == 0


def test_a_question_about_the_code_gets_the_retrieval_in_the_prompt(tmp_path, repo, llm):
    cat = indexed(tmp_path, repo)
    cat.mad_hatter.procedures = [
        SimpleNamespace(name="search_code", plugin_id=environment.PLUGIN_ID),
        SimpleNamespace(name="other_tool", plugin_id="another_plugin")]
    assert say(cat, "how does parse_iso work?") is None  # the Cat's agent answers
    cat.working_memory.declarative_memories = []
    cat.working_memory.procedural_memories = procedures("search_code", "other_tool")
    entry.after_recall(cat)
    assert [m[0].metadata["source"] for m in cat.working_memory.procedural_memories] == [
        "other_tool"]  # the plugin already retrieved: no tool-selection call for search_code
    agent_input = entry.prompt_variables(cat, SimpleNamespace())
    assert "def parse_iso(text):" in agent_input.code_context
    assert "return {'y': text[:4]}" in agent_input.code_context  # braces intact
    assert sum(p.startswith("You rate how useful") for p in llm.prompts) == 1  # one listwise call


def test_a_plain_request_starts_the_form_and_the_proposal_in_the_same_turn(tmp_path, repo, llm):
    cat, _, _ = make_cat(tmp_path, repo)
    reply = say(cat, "write a function parse_iso in utils/dates.py that parses ISO dates")
    assert "Reply **go**" in reply
    assert not any(p.startswith("Your task is to fill up a JSON") for p in llm.prompts)


def test_the_index_tells_which_file_holds_a_named_symbol(tmp_path, repo, llm):
    cat = indexed(tmp_path, repo)
    reply = say(cat, "fix parse_iso: it should return a date, not a dict")
    assert "Reply **go**" in reply, reply  # no question about the file
    assert state_of(cat).note("request")["target_path"] == "utils/dates.py"


def test_an_ambiguous_message_costs_one_tie_break_call(tmp_path, repo, llm):
    cat, _, _ = make_cat(tmp_path, repo)
    reply = say(cat, "implement retries")
    assert "Which file should the code go in?" in reply
    assert len(llm.prompts) == 1 and llm.prompts[0].startswith(
        "Does the chat message below ask to write, add, implement, change, fix or\nrefactor")
    assert "implement retries" in llm.prompts[0]


def test_a_form_started_by_the_cat_is_taken_over_with_the_turns_reading(tmp_path, repo, llm):
    cat, _, _ = make_cat(tmp_path, repo)
    message = SimpleNamespace(text="generate python code for slugify in utils/dates.py")
    cat.working_memory.user_message_json = message
    entry.read_message(cat, message, FormStandIn)  # the turn's one reading
    form = FormStandIn(cat)  # as the Cat's tool selection creates it: empty
    cat.working_memory.active_form = form
    reply = form.next()["output"]
    assert "Reply **go**" in reply and form._state is States.CLOSED
    assert form.llm_extractions == 0 and cat.working_memory.get("active_form") is None


def test_cancel_while_the_form_asks(tmp_path, repo, llm):
    cat, _, _ = make_cat(tmp_path, repo)
    assert "Which file" in say(cat, "write a function that adds two numbers")
    assert say(cat, "cancel") == "Dropped the code request."
    assert cat.working_memory.get("active_form") is None
    assert llm.calls == 0


def test_an_unreadable_answer_is_asked_again_without_a_model_call(tmp_path, repo, llm):
    cat, _, _ = make_cat(tmp_path, repo)
    say(cat, "write a function that adds two numbers")
    calls = llm.calls
    again = say(cat, "the same place as the other helpers")
    assert again.startswith('I could not find a file in "the same place as the other helpers"')
    assert llm.calls == calls and state_of(cat).asking["request"].startswith("write a function")
    assert "Reply **go**" in say(cat, "utils/maths.py")


def test_while_a_proposal_waits_a_request_like_message_is_a_correction(tmp_path, repo, llm):
    cat, _, _ = make_cat(tmp_path, repo)
    say(cat, "write a function parse_iso in utils/dates.py that parses ISO dates")
    reply = say(cat, "add a function argument for the time zone")
    assert reply.startswith("Revised:")


def test_the_plugins_commands_are_answered_without_the_cats_tool_selection(tmp_path, repo, llm):
    """"update the code index" reads like a change request; as the plugin's command it starts
    the indexing instead of the request form. The draft-history commands belong to a user with
    a task: for anyone else they are the Cat's to answer."""
    cat, sent, _ = make_cat(tmp_path, repo)
    assert say(cat, "update the code index").startswith("Indexing `")
    assert cat.working_memory.get("active_form") is None
    for project in GENERATION.registry.projects():
        project.indexer.join(60)
    assert any(kind == "chat" and text.startswith("Indexed `") for kind, text in sent)
    assert say(cat, "code memory status").startswith("**Code Working Memory**")
    assert say(cat, "redo") is None and say(cat, "show the draft history") is None
    say(cat, "write a function parse_iso in utils/dates.py that parses ISO dates")
    assert "has no drafts yet.\n\nYour proposal" in say(cat, "show the draft history")
    assert llm.calls == 2  # the proposal's retrieval and meta-code; no command cost a call


def sent(text):
    """What the Cat sends after this turn (``before_cat_sends_message``)."""
    return entry.sent_message(SimpleNamespace(text=text)).text


@pytest.mark.parametrize("aside", ["hi, how are you?", "what's the capital of France?",
                                   "thanks! 🙂"])
def test_while_a_proposal_waits_ordinary_chat_goes_to_the_cat(tmp_path, repo, llm, aside):
    cat, _, _ = make_cat(tmp_path, repo)
    say(cat, "write a function parse_iso in utils/dates.py that parses ISO dates")
    calls = llm.calls
    assert say(cat, aside) is None  # the Cat answers
    assert sent("Hello!") == ("Hello!\n\nYour proposal for `parse_iso` is still waiting: say "
                              "**go**, **cancel**, or what to change.")
    assert llm.calls == calls and state_of(cat).awaiting_confirmation
    assert state_of(cat).note("feedback") == []  # not folded into the proposal
    assert say(cat, "go").startswith("Drafting `parse_iso`")


def test_while_a_proposal_waits_a_question_about_the_code_gets_its_answer(tmp_path, repo, llm):
    cat = indexed(tmp_path, repo)
    say(cat, "write a function parse_iso in utils/dates.py that parses ISO dates")
    assert say(cat, "hey, where are dates parsed?") is None
    agent_input = entry.prompt_variables(cat, SimpleNamespace())
    assert "def parse_iso(text):" in agent_input.code_context  # retrieval for the question
    assert "is still waiting" in sent("In utils/dates.py.")
    assert state_of(cat).awaiting_confirmation


def test_while_a_proposal_waits_apply_and_commands_leave_it_waiting(tmp_path, repo, llm):
    cat, _, _ = make_cat(tmp_path, repo)
    say(cat, "write a function parse_iso in utils/dates.py that parses ISO dates")
    calls = llm.calls
    answer = say(cat, "apply")
    assert answer.startswith("There is no draft to apply yet.")
    assert "`parse_iso` is still waiting" in answer
    assert "has no drafts yet.\n\nYour proposal" in say(cat, "hey, show the draft history please")
    assert llm.calls == calls and state_of(cat).awaiting_confirmation
    assert say(cat, "could you also accept a time zone? thanks").startswith("Revised:")
    assert "is still waiting" not in sent("Revised: ...")


def test_the_escapes_choose_the_reading(tmp_path, repo, llm):
    cat = indexed(tmp_path, repo)
    assert say(cat, "/ask how are dates handled") is None
    assert "def parse_iso(text):" in entry.prompt_variables(cat, SimpleNamespace()).code_context
    calls = llm.calls
    assert "Which file" in say(cat, "/code a helper that adds two numbers")
    assert llm.calls == calls  # the escape decides: no tie-break call
    assert state_of(cat).asking["request"] == "a helper that adds two numbers"
