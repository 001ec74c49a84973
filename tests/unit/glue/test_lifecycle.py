"""The plugin's lifecycle in a simulated Cat (cat_sim.py): toggles, re-uploads and restarts in
the middle of a conversation, several requests in one chat, and what a user with no task or no
repository sees. The model-based exploration of the same is in test_conversation_model.py."""

from __future__ import annotations

import pytest

from .cat_sim import CAT_ANSWER, SimCat
from .sim_llm import ConversationLLM

SLUGIFY = "write a function slugify in text/slug.py that turns a title into a URL slug"
SETTINGS = {"extended_loop": False, "check_judge": False, "check_tests": False}


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "workspace"
    (root / "text").mkdir(parents=True)
    (root / "text" / "slug.py").write_text("def other():\n    return 1\n")
    (root / "dates.py").write_text("def parse_date(text):\n    return text\n")
    (root / "billing.py").write_text("class Invoice:\n    def total(self):\n        return 0\n")
    return root


@pytest.fixture
def llm():
    return ConversationLLM()


def sim_cat(tmp_path, repo, llm, **kwargs):
    settings = {**SETTINGS, **kwargs.pop("settings", {})}
    return SimCat(repo, tmp_path / "data", llm, settings=settings, **kwargs)


def assert_clean(cat):
    assert cat.errors == [], "\n".join(cat.errors)


@pytest.mark.parametrize("event", ["toggle", "reupload", "restart"])
def test_a_proposal_survives_a_plugin_event_and_go_drafts(tmp_path, repo, llm, event):
    with sim_cat(tmp_path, repo, llm, cache="file_system") as cat:
        assert "**go**" in cat.say("alice", SLUGIFY)
        old = cat.live_generation()
        if event == "toggle":
            cat.toggle()
            cat.toggle()
        else:
            getattr(cat, event)()
        revised = cat.say("alice", "it must raise ValueError on empty input")
        assert revised.startswith("Revised:"), revised
        assert cat.say("alice", "go").startswith("Drafting `slugify`")
        cat.wait_drafts()
        assert cat.chats("alice")[-1].startswith("Draft committed as `")
        assert old is not cat.live_generation() and old.stale
        assert_clean(cat)


@pytest.mark.parametrize("event", ["toggle", "reupload", "restart"])
def test_a_running_draft_is_stopped_by_a_plugin_event_reported_and_resumable(
        tmp_path, repo, llm, event):
    with sim_cat(tmp_path, repo, llm, cache="file_system") as cat:
        cat.say("alice", SLUGIFY)
        llm.hold()
        assert cat.say("alice", "go").startswith("Drafting")
        assert llm.generating.wait(30)
        old = cat.live_generation()
        old_workers = [s.worker for s in old.sessions.all() if s.worker is not None]
        if event == "toggle":
            cat.toggle()
        else:
            getattr(cat, event)()
        if event == "toggle":
            cat.toggle()
        cat.live_generation().claim()
        assert all(not worker.alive for worker in old_workers)  # stopped, not left running
        assert old.registry.projects() == []  # its projects are closed
        llm.release()
        report = cat.say("alice", "hello")
        assert "was interrupted" in report and "continue" in report, report
        assert cat.say("alice", "continue").startswith("Drafting `slugify`")
        cat.wait_drafts()
        assert cat.chats("alice")[-1].startswith("Draft committed as `")
        assert_clean(cat)


def test_the_file_question_waits_while_the_plugin_is_off(tmp_path, repo, llm):
    """The question lives in the user's state, not in a form the Cat holds: while the plugin
    is off the Cat answers everything, and once it is on again the question still waits."""
    with sim_cat(tmp_path, repo, llm) as cat:
        assert "Which file" in cat.say("alice", "write a function that adds two numbers")
        cat.toggle()  # off
        assert cat.say("alice", "put it in maths.py") == CAT_ANSWER
        assert cat.say("alice", "hello") == CAT_ANSWER
        cat.toggle()  # on again
        proposal = cat.say("alice", "put it in maths.py")
        assert "**go**" in proposal and "maths.py" in proposal, proposal
        assert_clean(cat)


def test_a_form_that_asks_survives_a_toggle(tmp_path, repo, llm):
    with sim_cat(tmp_path, repo, llm, cache="file_system") as cat:
        assert "Which file" in cat.say("alice", "write a function add_numbers that adds two "
                                                "numbers")
        cat.toggle()
        cat.toggle()
        proposal = cat.say("alice", "maths/add.py")
        assert "**go**" in proposal and "maths/add.py" in proposal, proposal
        assert_clean(cat)


@pytest.mark.parametrize("first_ending", ["go", "cancel", "apply", "show the draft history"])
def test_the_second_and_third_requests_of_a_chat_reach_the_plugin(tmp_path, repo, llm,
                                                                  first_ending):
    with sim_cat(tmp_path, repo, llm) as cat:
        cat.say("alice", SLUGIFY)
        cat.say("alice", first_ending)
        cat.wait_drafts()
        if first_ending != "go":
            cat.say("alice", "go") if first_ending != "cancel" else None
            cat.wait_drafts()
        second = cat.say("alice", "could you add a method to_json to the Invoice class?")
        assert "**go**" in second and "billing.py" in second, second
        cat.say("alice", "go")
        cat.wait_drafts()
        third = cat.say("alice", "fix parse_date: it crashes on empty strings")
        assert "**go**" in third and "dates.py" in third, third
        assert_clean(cat)


def test_a_new_request_while_a_proposal_waits_replaces_it(tmp_path, repo, llm):
    with sim_cat(tmp_path, repo, llm) as cat:
        cat.say("alice", SLUGIFY)
        other = cat.say("alice", "fix parse_date: it crashes on empty strings")
        assert "**go**" in other and "parse_date" in other and not other.startswith("Revised")
        same = cat.say("alice", "slugify should also drop accents")  # no other target: a change
        assert same.startswith("Revised:") or "**go**" in same
        assert_clean(cat)


def test_a_request_while_a_draft_runs_is_answered_by_the_plugin(tmp_path, repo, llm):
    with sim_cat(tmp_path, repo, llm) as cat:
        cat.say("alice", SLUGIFY)
        llm.hold()
        cat.say("alice", "go")
        assert llm.generating.wait(30)
        busy = cat.say("alice", "fix parse_date: it crashes on empty strings")
        assert busy.startswith("A draft is running"), busy
        llm.release()
        cat.wait_drafts()
        assert_clean(cat)


ORDINARY = ["update the project", "refresh the sources", "scan my project", "rebuild the index",
            "list sources", "fix my broken bike", "show the draft history", "roll back to draft 2",
            "redo", "apply", "hello, how are you?"]


@pytest.mark.parametrize("text", ORDINARY)
def test_without_a_repository_ordinary_words_are_the_cats(tmp_path, repo, llm, text):
    with sim_cat(tmp_path, repo, llm, settings={"repository_path": ""}) as cat:
        before = len(llm.prompts)
        assert cat.say("bob", text) == CAT_ANSWER
        assert llm.prompts[before:] == [CAT_ANSWER]  # no tie-break, no other call
        assert_clean(cat)


@pytest.mark.parametrize("text", ORDINARY[6:10])
def test_history_commands_and_apply_belong_to_users_with_a_task(tmp_path, repo, llm, text):
    with sim_cat(tmp_path, repo, llm) as cat:
        assert cat.say("bob", text) == CAT_ANSWER
        assert_clean(cat)


def test_a_tie_break_is_in_the_turns_model_interactions(tmp_path, repo, llm):
    with sim_cat(tmp_path, repo, llm) as cat:
        assert cat.say("alice", "refactor the PaymentGateway") == CAT_ANSWER  # ambiguous: LLM: no
        item = cat.cache.get_item("alice_working_memory")
        asked = item.value.model_interactions
        assert len(asked) == 2 and "yes or no" in asked[0] and asked[1] == CAT_ANSWER


def test_each_hook_tool_and_form_registers_once(tmp_path, repo, llm):
    with sim_cat(tmp_path, repo, llm) as cat:
        where = sorted(cat.registered)
        names = [w.rpartition(".")[2] for w in where]
        assert len(names) == len(set(names)), where
        assert {w.split(".")[0] for w in where} == {"hooks", "tools", "forms", "settings",
                                                    "endpoints"}


def test_two_users_draft_at_once_and_a_toggle_stops_both(tmp_path, repo, llm):
    with sim_cat(tmp_path, repo, llm) as cat:
        cat.say("alice", SLUGIFY)
        cat.say("bob", "fix parse_date: it crashes on empty strings")
        llm.hold()
        cat.say("alice", "go")
        cat.say("bob", "go")
        old = cat.live_generation()
        workers = [s.worker for s in old.sessions.all()]
        assert len(workers) == 2 and all(w.alive for w in workers)
        cat.toggle()
        cat.toggle()
        cat.live_generation().claim()
        assert not any(w.alive for w in workers)
        llm.release()
        for user in ("alice", "bob"):
            assert "was interrupted" in cat.say(user, "status?")
        assert_clean(cat)
