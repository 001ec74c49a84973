"""Model-based tests of the whole conversation: Hypothesis explores sequences of user messages
and plugin events on the simulated Cat (cat_sim.py) against a small model of where each user
stands.

The model: per user, idle, asking (the form waits for the file), proposed, drafting (the loop
runs, held in its code generation), stopping, interrupted (a plugin event stopped the loop),
or finished (done, stopped or gave up: the task stays); plugin events: toggle off and on, a
re-upload, a restart (``file_system`` cache, so working memories survive it; the ``in_memory``
machine has no restart, which would forget every user). A draft may also finish *during* a
turn, right after the turn loaded the working memory or right before it writes its copy back
(the race of a stale copy, docs/cat-plugin-api.md, "Who owns a task's state").

Invariants, checked after every step: every message gets exactly one answer and no hook, tool
or form raised; a code request in any state reaches the plugin (a proposal, the file question,
or "a draft is running"); "go" after a proposal starts a draft; the draft-history commands and
"apply" answer only a user with a task; after a plugin event the retired import of the plugin
has stopped every thread it started and closed its projects, and the user's task is intact or
reported as interrupted. A finished task is never reported as interrupted, and "continue" on a
committed task says it is finished and drafts nothing.
"""

from __future__ import annotations

import os
import pathlib
import tempfile
from typing import Any

from .cat_sim import CAT_ANSWER, SimCat
from .sim_llm import ConversationLLM

USERS = ("alice", "bob")
SETTINGS = {"extended_loop": False, "check_judge": False, "check_tests": False,
            "max_iterations": 2}
REQUESTS = (
    ("write a function slugify in text/slug.py that turns a title into a URL slug", True),
    ("could you add a method to_json to the Invoice class?", True),
    ("fix parse_date: it crashes on empty strings", True),
    ("add a helper that counts words", False),  # names no file: the form asks
)
FILE_ANSWER = "put it in text/words.py"
#: The final chat message of a draft loop that ended.
RESULTS = ("Draft committed", "Stopped as you asked", "I gave up")
#: What "stop" answers when the loop had already ended.
LATE_STOP = ("Nothing to stop:", "The draft loop of")
PLUGIN_ANSWERS = ("**go**", "Which file should the code go in?", "A draft is running")


def make_repository(root: pathlib.Path) -> pathlib.Path:
    (root / "text").mkdir(parents=True)
    (root / "text" / "slug.py").write_text("def other():\n    return 1\n")
    (root / "dates.py").write_text("def parse_date(text):\n    return text\n")
    (root / "billing.py").write_text("class Invoice:\n    def total(self):\n        return 0\n")
    return root


class ConversationModel:
    """The model and its steps (see the module docstring); ``machine()`` turns it into a
    Hypothesis state machine. Hypothesis is imported there only: the Cat imports every file of
    the plugin, tests included, and its image has no Hypothesis."""

    #: The Cat's cache (``in_memory_machine`` runs the model on the other one).
    cache = "file_system"

    def boot(self) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="cwm-model-")
        root = pathlib.Path(self.tmp.name)
        self.llm = ConversationLLM()
        self.llm.hold()
        self.cat = SimCat(make_repository(root / "repo"), root / "data", self.llm,
                          settings=SETTINGS, cache=self.cache).__enter__()
        self.where = {user: "idle" for user in USERS}
        #: the user's last loop ended with a commit (and no request came since)
        self.committed = {user: False for user in USERS}
        self.has_task = {user: False for user in USERS}
        self.previous = None

    def teardown(self) -> None:
        if hasattr(self, "cat"):
            self.llm.release()
            self.cat.__exit__(None, None, None)
            self.tmp.cleanup()

    def say(self, user: str, text: str, **moments: Any) -> str:
        answer = self.cat.say(user, text, **moments)
        assert isinstance(answer, str) and answer, f"{text!r} got no answer"
        assert self.cat.errors == [], "\n".join(self.cat.errors)
        assert "was interrupted" not in answer or self.where[user] == "interrupted", \
            f"{user} ({self.where[user]}) was told of an interruption: {answer}"
        if self.where[user] == "interrupted":  # the first message after an event reports it
            assert "was interrupted" in answer or answer.startswith("Drafting"), answer
            self.where[user] = "drafting" if answer.startswith("Drafting") else "finished"
            return ""
        return answer

    # -- the user's messages -------------------------------------------------------------
    def request(self, user: str, request: tuple[str, bool]) -> None:
        text, names_file = request
        was = self.where[user]
        answer = self.say(user, text)
        if not answer:
            return
        assert any(mark in answer for mark in PLUGIN_ANSWERS), answer
        if was in ("drafting", "stopping"):
            assert answer.startswith("A draft is running"), answer
        elif "**go**" in answer:
            self.where[user], self.has_task[user] = "proposed", True
            self.committed[user] = False
        else:
            assert was == "asking" or not names_file, answer
            self.where[user] = "asking"

    def answer_the_file_question(self, user: str) -> None:
        """The answer to the form's question; in another state, a request ("put it in ...")."""
        was = self.where[user]
        answer = self.say(user, FILE_ANSWER)
        if answer and was == "asking":
            assert "**go**" in answer and "text/words.py" in answer, answer
        if "**go**" in answer and was not in ("drafting", "stopping"):
            self.where[user], self.has_task[user] = "proposed", True
            self.committed[user] = False

    def go(self, user: str) -> None:
        was = self.where[user]
        answer = self.say(user, "go")
        if not answer:
            return
        if was == "proposed":
            assert answer.startswith("Drafting `"), answer
            self.where[user] = "drafting"
        elif was in ("idle", "finished") and answer != CAT_ANSWER:
            assert answer.startswith("Drafting") is False, answer

    def correction(self, user: str) -> None:
        was = self.where[user]
        answer = self.say(user, "it must raise ValueError on empty input")
        if answer and was == "proposed":
            assert answer.startswith("Revised:"), answer

    def cancel(self, user: str) -> None:
        was = self.where[user]
        answer = self.say(user, "cancel")
        if not answer:
            return
        if was == "proposed":
            assert answer.startswith("Cancelled the request"), answer
            self.where[user] = "finished"
        elif was == "finished" and self.committed[user]:
            assert answer.startswith("Nothing to stop:"), answer
        elif was == "asking":
            assert answer == "Dropped the code request.", answer
            self.where[user] = "idle"
        elif was == "drafting":
            assert answer.startswith("Stopping the draft loop"), answer
            self.where[user] = "stopping"

    def task_command(self, user: str, text: str) -> None:
        was = self.where[user]
        answer = self.say(user, text)
        if answer and was == "asking":  # the command, or the form that waits for the file
            assert answer != CAT_ANSWER, answer
        elif answer and not self.has_task[user]:
            assert answer == CAT_ANSWER, answer  # ordinary words for a user without a task

    def chat(self, user: str, text: str) -> None:
        answer = self.say(user, text)
        if answer and self.where[user] not in ("asking", "proposed"):
            assert answer == CAT_ANSWER, answer

    def drafts_finish(self) -> None:
        if not any(w in ("drafting", "stopping") for w in self.where.values()):
            return
        self.llm.release()
        self.cat.wait_drafts()
        self.llm.hold()
        self._finished()

    def _finished(self) -> None:
        """Every user whose loop ran has its result, and is finished."""
        for user in USERS:
            if self.where[user] in ("drafting", "stopping"):
                chats = self.cat.chats(user)
                assert chats and chats[-1].startswith(RESULTS), chats[-1:]
                self.where[user] = "finished"
                self.committed[user] = chats[-1].startswith("Draft committed")

    def draft_finishes_during_a_turn(self, user: str, text: str, moment: str) -> None:
        """``user`` says ``text`` while the drafts finish, right after the turn loaded the
        working memory or right before it writes its (stale) copy back."""
        if self.where[user] not in ("drafting", "stopping"):
            return
        was = self.where[user]
        answer = self.say(user, text, **{moment: self.drafts_finish})
        if not answer:
            return
        if text == "stop" and moment == "after_load":  # the loop had ended: what happened
            assert answer.startswith(LATE_STOP), answer
            if self.committed[user]:
                assert "had already finished" in answer, answer
        elif text == "stop":
            assert answer.startswith("Stopping the draft loop" if was == "drafting"
                                     else LATE_STOP), answer
        elif text == "continue" and moment == "after_load":
            self._continued(user, answer)
        else:
            assert answer == CAT_ANSWER, answer

    def continue_(self, user: str) -> None:
        was = self.where[user]
        answer = self.say(user, "continue")
        if not answer:
            return
        if was == "proposed":
            assert answer.startswith("Drafting `"), answer
            self.where[user] = "drafting"
        elif was == "finished":
            self._continued(user, answer)

    def _continued(self, user: str, answer: str) -> None:
        """"continue" on a finished task: a committed one is finished (nothing drafts), a
        stopped or failed one resumes."""
        if self.committed[user]:
            assert answer.startswith("The draft of `") and "is finished" in answer, answer
            assert not any(w.alive for w in self.cat.workers()), "a finished task drafts again"
        elif answer.startswith("Drafting `"):
            self.where[user] = "drafting"

    # -- plugin events -------------------------------------------------------------------
    def plugin_event(self, event: str) -> None:
        self.previous = self.cat.live_generation()
        if event == "toggle":
            self.cat.toggle()
            self.cat.toggle()
        else:
            getattr(self.cat, event)()
        for user in USERS:
            if self.where[user] in ("drafting", "stopping"):
                self.where[user] = "interrupted"
            if event == "restart" and self.cache == "in_memory":  # nobody's memory survives
                self.where[user], self.has_task[user] = "idle", False

    def nothing_outlives_its_import(self) -> None:
        previous = getattr(self, "previous", None)
        if previous is None or previous is self.cat.live_generation():
            return
        self.cat.live_generation().claim()  # the hand-over is done by now
        assert previous.stale and previous.registry.projects() == []
        alive = [s.worker for s in previous.sessions.all()
                 if s.worker is not None and s.worker.alive]
        assert alive == [], "a draft loop of a retired import still runs"


#: The rules, and the values Hypothesis draws for their arguments.
RULES: dict[str, dict[str, tuple[Any, ...]]] = {
    "request": {"user": USERS, "request": REQUESTS},
    "answer_the_file_question": {"user": USERS},
    "go": {"user": USERS}, "correction": {"user": USERS}, "cancel": {"user": USERS},
    "task_command": {"user": USERS, "text": ("show the draft history",
                                             "roll back to the last good draft", "redo",
                                             "apply")},
    "chat": {"user": USERS, "text": ("hello, how are you?", "what does parse_date do?")},
    "drafts_finish": {}, "plugin_event": {"event": ("toggle", "reupload", "restart")},
    "draft_finishes_during_a_turn": {"user": USERS,
                                     "text": ("stop", "continue", "hello, how are you?"),
                                     "moment": ("after_load", "before_write_back")},
    "continue_": {"user": USERS},
}


def machine(cache: str = "file_system") -> type:
    """``ConversationModel`` as a Hypothesis ``RuleBasedStateMachine`` on ``cache``."""
    from hypothesis import strategies as st
    from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

    steps: dict[str, Any] = {
        name: rule(**{arg: st.sampled_from(values) for arg, values in args.items()})(
            getattr(ConversationModel, name)) for name, args in RULES.items()}
    steps["boot"] = initialize()(ConversationModel.boot)
    steps["nothing_outlives_its_import"] = invariant()(
        ConversationModel.nothing_outlives_its_import)
    steps["cache"] = cache
    return type("Conversation", (ConversationModel, RuleBasedStateMachine), steps)


def _explore(cache: str, examples: str) -> None:
    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import run_state_machine_as_test

    run_state_machine_as_test(machine(cache), settings=settings(
        max_examples=int(os.environ.get("CWM_MODEL_EXAMPLES", examples)),
        stateful_step_count=int(os.environ.get("CWM_MODEL_STEPS", "14")), deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]))


def test_the_conversation_model_holds():
    """Hypothesis explores conversations (``make test``: a bounded number;
    ``CWM_MODEL_EXAMPLES=200`` and ``CWM_MODEL_STEPS`` explore more, for a long local run)."""
    _explore("file_system", "8")


def test_the_conversation_model_holds_with_the_in_memory_cache():
    """The same model on the Cat's default cache (the same object every turn: a worker's write
    and a turn's copy are one; a restart forgets every user)."""
    _explore("in_memory", "4")
