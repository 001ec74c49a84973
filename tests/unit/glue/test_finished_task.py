"""A finished draft stays finished: the worker's outcome against the Cat's end-of-turn write-back.

The race, made deterministic on the simulated Cat (cat_sim.py): a turn loads the user's working
memory while the draft loop runs, the worker finishes (its result recorded and sent), then the
turn writes its stale copy back. After a restart (``file_system`` cache) or a toggle (either
cache) the task is finished, not "interrupted", and "continue" drafts nothing: the scripted
model fails on any extra call. "stop" that comes as the draft finishes says what happened.
"""

from __future__ import annotations

import pytest

from .cat_sim import CAT_ANSWER, SimCat
from .sim_llm import ConversationLLM
from .test_conversation_model import SETTINGS, make_repository

REQUEST = "write a function slugify in text/slug.py that turns a title into a URL slug"
RUNNING = ("metacode_confirmed", "drafting", "validating", "committed", "rolled_back",
           "reviewing")


def _drafting(cat: SimCat, llm: ConversationLLM) -> None:
    """A proposal, "go", and the loop's code generation held."""
    assert "**go**" in cat.say("alice", REQUEST)
    llm.hold()
    assert cat.say("alice", "go").startswith("Drafting `slugify`")
    assert llm.generating.wait(60)


def _finish(cat: SimCat, llm: ConversationLLM):
    def finish() -> None:
        llm.release()
        cat.wait_drafts()
    return finish


def _no_more_calls(llm: ConversationLLM) -> None:
    llm._limit = llm.calls  # the scripted model fails on any further call


def _assert_finished_after(cat: SimCat, llm: ConversationLLM, event: str) -> None:
    """After ``event``: no interruption report, "continue" says finished and costs nothing."""
    getattr(cat, event)() if event != "toggle" else (cat.toggle(), cat.toggle())
    answer = cat.say("alice", "hello, how are you?")
    assert "interrupted" not in answer and answer == CAT_ANSWER, answer
    assert cat.module("app.process").GENERATION.sessions.of(
        "alice", cat.stored["data_folder"], cat.cache.get_item("alice_working_memory").value
    ).state.phase.phase.value == "done"
    _no_more_calls(llm)
    answer = cat.say("alice", "continue")
    assert answer.startswith("The draft of `slugify` in `text/slug.py`"), answer
    assert "is finished" in answer and "**apply**" in answer and "history" in answer
    assert list(cat.workers()) == [] or not any(w.alive for w in cat.workers())
    llm._limit = 100_000
    history = cat.say("alice", "show the draft history")
    assert "draft 1" in history and "draft 2" not in history, history
    assert [c for c in cat.chats("alice") if c.startswith("Draft committed")] and \
        cat.errors == []


@pytest.mark.parametrize(("cache", "event"), [("file_system", "restart"),
                                              ("file_system", "toggle"),
                                              ("in_memory", "toggle")])
def test_a_draft_that_finishes_before_the_write_back_stays_finished(tmp_path, cache, event):
    llm = ConversationLLM()
    with SimCat(make_repository(tmp_path / "repo"), tmp_path / "data", llm, settings=SETTINGS,
                cache=cache) as cat:
        _drafting(cat, llm)
        answer = cat.say("alice", "hello, how are you?", before_write_back=_finish(cat, llm))
        assert answer == CAT_ANSWER
        assert cat.chats("alice")[-1].startswith("Draft committed as `")
        saved = cat.cache.get_item("alice_working_memory").value.code_working_memory
        if cache == "file_system":  # the race happened: the turn's stale copy won the cache
            assert saved["phase"] in RUNNING, saved["phase"]
        _assert_finished_after(cat, llm, event)


@pytest.mark.parametrize("cache", ["file_system", "in_memory"])
def test_stop_as_the_draft_finishes_says_it_finished(tmp_path, cache):
    llm = ConversationLLM()
    with SimCat(make_repository(tmp_path / "repo"), tmp_path / "data", llm, settings=SETTINGS,
                cache=cache) as cat:
        _drafting(cat, llm)
        answer = cat.say("alice", "stop", after_load=_finish(cat, llm))
        assert answer.startswith("Nothing to stop: the draft of `slugify` in `text/slug.py`"), \
            answer
        assert "had already finished, committed as `" in answer and "1 iteration(s)" in answer
        _assert_finished_after(cat, llm, "restart" if cache == "file_system" else "toggle")


def test_stop_while_the_worker_records_its_outcome_waits_for_it(tmp_path, monkeypatch):
    """The loop has its outcome but has not recorded it when "stop" comes: the answer waits for
    the record and says the draft finished; the result says the stop came too late."""
    llm = ConversationLLM()
    with SimCat(make_repository(tmp_path / "repo"), tmp_path / "data", llm, settings=SETTINGS,
                cache="file_system") as cat:
        worker_class = cat.module("app.drafting.worker").DraftWorker
        finish, reached = worker_class._finish, []

        def after_the_stop(self, outcome, diff):
            reached.append(self.finishing.is_set())
            assert self.stop_event.wait(60)  # the user's "stop" is being answered
            finish(self, outcome, diff)

        monkeypatch.setattr(worker_class, "_finish", after_the_stop)
        _drafting(cat, llm)
        llm.release()
        worker = next(cat.workers())
        while not reached and worker.alive:
            worker.finishing.wait(0.05)
        answer = cat.say("alice", "stop")
        assert answer.startswith("Nothing to stop: the draft of `slugify`"), answer
        assert reached == [True]
        result = cat.chats("alice")[-1]
        assert result.startswith("Draft committed as `") and "before your **stop**" in result
        _assert_finished_after(cat, llm, "restart")


def test_a_stopped_draft_says_so_and_continue_resumes_it(tmp_path):
    llm = ConversationLLM(first_draft_wrong=True)  # the stop takes effect before draft 2
    with SimCat(make_repository(tmp_path / "repo"), tmp_path / "data", llm, settings=SETTINGS,
                cache="file_system") as cat:
        _drafting(cat, llm)
        assert cat.say("alice", "stop").startswith("Stopping the draft loop")
        _finish(cat, llm)()
        assert cat.chats("alice")[-1].startswith("Stopped as you asked")
        again = cat.say("alice", "stop")
        assert again.startswith("The draft loop of `slugify` in `text/slug.py`"), again
        assert "is stopped" in again and "**continue**" in again
        cat.restart()
        assert "interrupted" not in cat.say("alice", "hello, how are you?")
        assert cat.say("alice", "continue").startswith("Drafting `slugify`")
        cat.wait_drafts()
        assert cat.chats("alice")[-1].startswith("Draft committed as `")


def test_an_unrecorded_run_is_still_reported_as_interrupted(tmp_path):
    """A restart while the loop runs: the ledger says running, so the task is interrupted."""
    llm = ConversationLLM()
    with SimCat(make_repository(tmp_path / "repo"), tmp_path / "data", llm, settings=SETTINGS,
                cache="file_system") as cat:
        _drafting(cat, llm)
        cat.restart()
        llm.release()
        report = cat.say("alice", "hello, how are you?")
        assert "was interrupted" in report and "**continue**" in report, report
        assert cat.say("alice", "continue").startswith("Drafting `slugify`")
        cat.wait_drafts()
        assert cat.chats("alice")[-1].startswith("Draft committed as `")
