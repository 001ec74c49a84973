"""The whole conversation in a real Cat 1.9.2 (opt-in: CCAT_CORE_DIR): the plugin toggled off
and on and its zip uploaded again mid-conversation (also while a draft runs), two and three
requests in one chat, every phrase the README tells a user to type, and a short random walk.

The model is ``sim_llm.ConversationLLM`` (shared with the simulated-Cat tests): it answers the
plugin's prompts like a competent model and the Cat's own prompts with a fixed answer.
"""

from __future__ import annotations

import os
import random

import pytest

from ..unit.glue.readme_tour import check_coverage, tour, tour_without_a_repository
from ..unit.glue.sim_llm import ConversationLLM
from ..unit.glue.test_readme_phrases import FILES, LISTWISE_MARK, SETTINGS
from . import cat_harness
from .cat_doubles import make_fake_llm

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::FutureWarning")]

CAT_ANSWER = "CAT-ANSWER"
SLUGIFY = "write a function slugify in text_utils.py that turns a title into a URL slug"


class _Script:
    """What ``cat_doubles.make_fake_llm`` drives: the conversation model."""

    def __init__(self, llm: ConversationLLM) -> None:
        self.llm = llm

    def reply(self, prompt: str) -> str:
        return self.llm(prompt)


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text)
    return root


@pytest.fixture
def chat_cat(boot_cat, repo, tmp_path):
    """A dedicated Cat configured for ``repo``, indexed, with the conversation model."""

    def boot(llm: ConversationLLM, **settings):
        stored = {**SETTINGS, "repository_path": str(repo), "data_folder": str(tmp_path / "d"),
                  **settings}
        return boot_cat(settings=stored, workdir=tmp_path / "cat")

    return boot


def _start(run, llm):
    run.ccat._llm = make_fake_llm(_Script(llm))
    if run.plugin.load_settings().get("repository_path"):
        assert "index" in run.message("index my repository", user="indexer").lower()
        cat_harness.wait_for_indexing(run)


def _drafts_done(run, user):
    cat_harness.wait_for_draft(run, user)


@pytest.mark.parametrize("event", ["toggle", "reupload"])
def test_a_proposal_survives_a_plugin_event_and_go_drafts(chat_cat, event, tmp_path):
    llm = ConversationLLM()
    with chat_cat(llm) as run:
        _start(run, llm)
        assert "**go**" in run.message(SLUGIFY)
        old = run.generation()
        if event == "toggle":
            assert run.toggle().status_code == 200 and not run.plugin.active
            assert run.toggle().status_code == 200 and run.plugin.active
        else:
            run.reupload(tmp_path)
        assert run.message("it must raise ValueError on empty input").startswith("Revised:")
        assert run.message("go").startswith("Drafting `slugify`")
        _drafts_done(run, "alice")
        assert run.generation() is not old and old.stale
        assert "draft 1: slugify passes all checks" in run.message("show the draft history")


@pytest.mark.parametrize("event", ["toggle", "reupload"])
def test_a_running_draft_is_stopped_by_a_plugin_event_reported_and_resumed(chat_cat, event,
                                                                            tmp_path):
    llm = ConversationLLM()
    with chat_cat(llm) as run:
        _start(run, llm)
        run.message(SLUGIFY)
        llm.hold()
        assert run.message("go").startswith("Drafting")
        assert llm.generating.wait(60)
        old = run.generation()
        workers = [s.worker for s in old.sessions.all() if s.worker is not None]
        if event == "toggle":
            run.toggle()
            run.toggle()
        else:
            run.reupload(tmp_path)
        run.generation().claim()
        assert workers and not any(w.alive for w in workers), "the old draft loop still runs"
        assert old.registry.projects() == []
        llm.release()
        report = run.message("hello")
        assert "was interrupted" in report and "continue" in report, report
        assert run.message("continue").startswith("Drafting `slugify`")
        _drafts_done(run, "alice")
        assert "passes all checks" in run.message("show the draft history")


def test_two_and_three_requests_in_one_chat(chat_cat):
    llm = ConversationLLM()
    with chat_cat(llm) as run:
        _start(run, llm)
        with run.session("alice") as chat:
            proposal = chat.say(SLUGIFY)
            assert "**go**" in proposal["text"]
            asked = [str(i.get("prompt")) for i in proposal["why"]["model_interactions"]]
            assert any("META-CODE" in p for p in asked), asked  # the Cat lists the plugin's calls
            assert any("You rate how useful" in p for p in asked), asked
            assert chat.say("go")["text"].startswith("Drafting")
            _drafts_done(run, "alice")
            assert chat.wait_for(lambda f: "Draft committed" in str(f.get("content")), 60)
            second = chat.say("could you add a method to_json to the Invoice class?")["text"]
            assert "**go**" in second and "billing.py" in second, second
            assert chat.say("cancel")["text"].startswith("Cancelled")
            third = chat.say("fix parse_date: it crashes on empty strings")["text"]
            assert "**go**" in third and "dates.py" in third, third


class _HttpChat:
    """``readme_tour.Driver`` over the real Cat's HTTP endpoint."""

    def __init__(self, run, llm, user="alice"):
        self.run, self.llm, self.user = run, llm, user

    def say(self, text):
        return self.run.message(text, user=self.user)

    def scoring_calls(self):
        return sum(LISTWISE_MARK in p for p in self.llm.prompts)

    def wait_drafts(self):
        _drafts_done(self.run, self.user)

    def hold(self):
        self.llm.hold()

    def release(self):
        self.llm.release()


def test_every_readme_phrase_works_as_written(chat_cat, repo):
    check_coverage()
    llm = ConversationLLM(first_draft_wrong=True)
    with chat_cat(llm) as run:
        _start(run, llm)
        wrong = tour(_HttpChat(run, llm), CAT_ANSWER)
        assert wrong == [], "\n".join(wrong)
        assert "def slugify(text: str) -> str" in (repo / "text_utils.py").read_text()


def test_the_readme_s_ordinary_words_are_the_cats_without_a_repository(chat_cat):
    llm = ConversationLLM()
    with chat_cat(llm, repository_path="") as run:
        _start(run, llm)
        assert tour_without_a_repository(lambda t: run.message(t, user="bob"), CAT_ANSWER) == []


WALK = ("request", "go", "correction", "cancel", "question", "history", "toggle", "reupload",
        "small talk", "finish")


@pytest.mark.parametrize("seed", [int(os.environ.get("CWM_WALK_SEED", "0")) or 11, 23])
def test_a_random_walk_through_the_conversation(chat_cat, tmp_path, seed):
    """Each message gets one answer and the Cat logs no error; a request always reaches the
    plugin; after a plugin event the old import has stopped its loops and closed its projects.
    The seed is printed; CWM_WALK_SEED replays another."""
    print(f"random walk seed {seed}")
    rng, llm = random.Random(seed), ConversationLLM()
    with chat_cat(llm) as run:
        _start(run, llm)
        for step in range(14):
            action = rng.choice(WALK)
            _step(run, llm, tmp_path / f"z{step}", action, rng)


def _step(run, llm, folder, action, rng):
    requests = (SLUGIFY, "fix parse_date: it crashes on empty strings",
                "could you add a method to_json to the Invoice class?")
    if action == "request":
        answer = run.message(rng.choice(requests))
        assert any(m in answer for m in ("**go**", "Which file", "A draft is running")), answer
    elif action in ("toggle", "reupload"):
        old = run.generation()
        if action == "toggle":
            run.toggle()
            run.toggle()
        else:
            folder.mkdir()
            run.reupload(folder)
        run.generation().claim()
        assert old is None or (old.stale and old.registry.projects() == []
                               and not any(s.worker is not None and s.worker.alive
                                           for s in old.sessions.all()))
    elif action == "finish":
        for session in run.generation().sessions.all():
            if session.worker is not None:
                session.worker.thread.join(120)
    else:
        text = {"go": "go", "correction": "it must raise ValueError on empty input",
                "cancel": "cancel", "question": "what does parse_date do?",
                "history": "show the draft history", "small talk": "hello, how are you?"}[action]
        assert run.message(text)
