"""The two defects of a conversation with several owners, reproduced on the simulated Cat.

1. A second request while a proposal waits must replace it, its own file question included:
   the answer to that question proposes the *new* request, and a question or ordinary chat
   afterwards is answered as such (never folded into a proposal as a "correction").
2. A draft's worker thread never reads or writes the Cat's cache: a cache file torn while the
   draft runs (the Cat writing it, a crash, an older plugin's file) does not kill the thread,
   the user gets the result, and the task's state is the plugin's own record.
"""

from __future__ import annotations

import threading

import pytest

from .cat_sim import CAT_ANSWER, SimCat
from .sim_llm import ConversationLLM
from .test_conversation_model import SETTINGS, make_repository

TITLE_CASE = "implement a function title_case in text/slug.py"
STRIP = "write a function strip_accents that removes the accents from a text"


@pytest.fixture
def thread_errors():
    """Exceptions that escaped any thread during the test."""
    caught: list[str] = []
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        caught.append(f"{args.thread.name if args.thread else '?'}: {args.exc_type.__name__}: "
                      f"{args.exc_value}")

    threading.excepthook = hook
    yield caught
    threading.excepthook = previous


@pytest.mark.parametrize("cache", ["file_system", "in_memory"])
def test_a_second_request_replaces_the_waiting_proposal(tmp_path, cache):
    llm = ConversationLLM()
    with SimCat(make_repository(tmp_path / "repo"), tmp_path / "data", llm, settings=SETTINGS,
                cache=cache) as cat:
        first = cat.say("alice", TITLE_CASE)
        assert "title_case" in first and "**go**" in first, first
        asked = cat.say("alice", STRIP)
        assert "Which file should the code go in?" in asked, asked
        proposal = cat.say("alice", "text/slug.py")
        assert "strip_accents" in proposal and "**go**" in proposal, proposal
        assert not proposal.startswith("Revised:") and "title_case" not in proposal, proposal
        chat = cat.say("alice", "what's the capital of France?")
        assert chat.startswith(CAT_ANSWER) and "strip_accents" in chat, chat
        assert "Revised" not in chat
        drafting = cat.say("alice", "go")
        assert drafting.startswith("Drafting `strip_accents` in `text/slug.py`"), drafting
        cat.wait_drafts()
        assert cat.chats("alice")[-1].startswith("Draft committed"), cat.chats("alice")[-1:]
        assert cat.errors == []


def test_a_question_while_a_proposal_waits_is_never_a_correction(tmp_path):
    llm = ConversationLLM()
    with SimCat(make_repository(tmp_path / "repo"), tmp_path / "data", llm,
                settings=SETTINGS) as cat:
        assert "**go**" in cat.say("alice", TITLE_CASE)
        for text in ("what's the capital of France?", "hello, how are you?", "thanks!"):
            answer = cat.say("alice", text)
            assert answer.startswith(CAT_ANSWER) and "still waiting" in answer, answer
        revised = cat.say("alice", "it must raise ValueError on empty input")
        assert revised.startswith("Revised:"), revised
        assert "capital" not in revised.lower()


@pytest.mark.parametrize("tear", ["truncate", "delete", "older"])
def test_a_torn_cache_file_never_kills_the_draft(tmp_path, thread_errors, tear):
    llm = ConversationLLM()
    with SimCat(make_repository(tmp_path / "repo"), tmp_path / "data", llm, settings=SETTINGS,
                cache="file_system") as cat:
        assert "**go**" in cat.say("alice", TITLE_CASE)
        llm.hold()
        assert cat.say("alice", "go").startswith("Drafting `title_case`")
        assert llm.generating.wait(60)
        whole = cat.cache.tear("alice_working_memory", tear)
        llm.release()
        cat.wait_drafts()
        assert thread_errors == [], thread_errors
        assert cat.chats("alice")[-1].startswith("Draft committed"), cat.chats("alice")[-1:]
        if tear == "truncate":
            cat.cache.restore("alice_working_memory", whole)  # the Cat's write completes
        status = cat.say("alice", "code memory status")
        assert "done" in status, status
        history = cat.say("alice", "show the draft history")
        assert "draft 1" in history, history
        assert cat.errors == []


def test_cancel_drops_the_file_question_even_after_a_finished_task(tmp_path):
    llm = ConversationLLM()
    with SimCat(make_repository(tmp_path / "repo"), tmp_path / "data", llm,
                settings=SETTINGS) as cat:
        assert "**go**" in cat.say("alice", TITLE_CASE)
        assert cat.say("alice", "go").startswith("Drafting")
        cat.wait_drafts()
        assert cat.chats("alice")[-1].startswith("Draft committed")
        assert "Which file" in cat.say("alice", STRIP)
        assert cat.say("alice", "cancel") == "Dropped the code request."
        assert cat.say("alice", "text/slug.py").startswith(CAT_ANSWER)  # nothing waits now
        assert cat.errors == []
