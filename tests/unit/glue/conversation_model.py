"""The README's conversation rules as a model of where each user stands, checked against a
driver that talks to a Cat (the simulated one here, a real one in tests/integration).

Per user: idle, asking (the file question waits), proposed, drafting (a loop runs, held in its
code generation), stopping, interrupted (a plugin event stopped the loop), finished (done,
stopped or gave up: the task stays). Every message is one step; after each the model checks the
answer against the rules (the README's "Conversation rules": ``codegen.conversation.rules``):

* every message gets exactly one answer, no hook or thread raised, nothing reaches the Cat's
  log as a traceback;
* the pending question wins: the answer to the file question proposes *that* request; a new
  request while a proposal waits replaces it (its own file question included); a question or
  chat meanwhile is answered as itself with a reminder and never revises the proposal;
* no request is swapped: a proposal names the symbol of the user's latest request;
* no draft is lost or drafted twice: every run started ends with one result message;
* nothing is written into the repository without "apply";
* a finished task is never reported as interrupted, and "continue" on it drafts nothing.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

CAT_ANSWER = "CAT-ANSWER"
#: (message, symbol the proposal must name, whether the message names the file)
REQUESTS = (
    ("write a function slugify in text/slug.py that turns a title into a URL slug", "slugify",
     True),
    ("could you add a method to_json to the Invoice class?", "to_json", True),
    ("fix parse_date: it crashes on empty strings", "parse_date", True),
    ("add a helper that counts words", "helper", False),
    ("write a function strip_accents that removes the accents from a text", "strip_accents",
     False),
)
FILE_ANSWER = "text/words.py"
CORRECTION = "it must raise ValueError on empty input"
CHATS = ("hello, how are you?", "what's the capital of France?", "thanks!")
QUESTION = "what does parse_date do?"
RESULTS = ("Draft committed", "Stopped as you asked", "I gave up")
LATE_STOP = ("Nothing to stop:", "The draft loop of")
REMINDERS = ("is still waiting", "I still need a file")


class Driver(Protocol):
    """A Cat the model talks to."""

    def say(self, user: str, text: str, **moments: Any) -> str: ...  # one turn's answer
    def chats(self, user: str) -> list[str]: ...  # chat messages sent later (results)
    def finish_drafts(self) -> None: ...  # let every running loop end, and wait for it
    def event(self, kind: str) -> None: ...  # toggle, reupload, restart
    def tear(self, user: str, how: str) -> None: ...  # the user's cache file torn
    def repository(self) -> dict[str, str]: ...  # the repository's files now
    def problems(self) -> list[str]: ...  # hook errors, thread exceptions, tracebacks


@dataclasses.dataclass
class User:
    where: str = "idle"
    symbol: str = ""  # the request the user waits on (asking, proposed, drafting)
    has_task: bool = False
    committed: bool = False  # the last loop ended with a commit, no request since
    applied: bool = False  # that commit is written into the repository
    runs: int = 0  # draft runs started
    results: int = 0  # result messages received


class ConversationModel:
    """The rules (module docstring) over a ``Driver``; ``users``: who talks."""

    def __init__(self, driver: Driver, users: tuple[str, ...]) -> None:
        self.driver = driver
        self.users = {user: User() for user in users}
        self.files = driver.repository()

    # -- every answer ----------------------------------------------------------------------
    def say(self, user: str, text: str, **moments: Any) -> str:
        answer = self.driver.say(user, text, **moments)
        u = self.users[user]
        assert isinstance(answer, str) and answer, f"{text!r} got no answer"
        problems = self.driver.problems()
        assert problems == [], "\n".join(problems)
        assert "Revised:" not in answer or u.where == "proposed", f"{u.where}: {answer}"
        assert "was interrupted" not in answer or "interrupted" in u.where, \
            f"{user} ({u.where}) was told of an interruption: {answer}"
        resumed = answer.startswith("Drafting `")
        if u.where == "maybe interrupted":  # asked to stop: it may have stopped before the event
            u.where = "interrupted" if "was interrupted" in answer or resumed else "finished"
        if u.where == "interrupted":  # the first message after an event reports it
            assert "was interrupted" in answer or resumed, answer
            u.where, u.runs = ("drafting", u.runs + 1) if resumed else ("finished", u.runs)
            return ""
        return answer

    def _proposed(self, user: str, symbol: str, answer: str) -> None:
        u = self.users[user]
        assert f"`{symbol}`" in answer, f"a request swapped: {symbol!r} -> {answer[:200]}"
        u.where, u.symbol, u.has_task = "proposed", symbol, True
        u.committed = u.applied = False

    # -- the user's messages -----------------------------------------------------------------
    def request(self, user: str, request: tuple[str, str, bool]) -> None:
        text, symbol, names_file = request
        u, was = self.users[user], self.users[user].where
        answer = self.say(user, text)
        if not answer:
            return
        if was in ("drafting", "stopping"):
            assert answer.startswith("A draft is running"), answer
        elif names_file:
            assert "**go**" in answer and not answer.startswith("Revised:"), answer
            self._proposed(user, symbol, answer)
        else:
            assert answer.startswith("Which file should the code go in?"), answer
            u.where, u.symbol = "asking", symbol

    def answer_the_file_question(self, user: str) -> None:
        u, was = self.users[user], self.users[user].where
        answer = self.say(user, f"put it in {FILE_ANSWER}")
        if not answer:
            return
        if was == "asking":
            assert FILE_ANSWER in answer and not answer.startswith("Revised:"), answer
            self._proposed(user, u.symbol, answer)
        elif was == "proposed":  # another file for the waiting proposal
            assert answer.startswith("Revised:") and FILE_ANSWER in answer, answer
        elif was in ("drafting", "stopping"):
            assert answer.startswith("A draft is running"), answer
        elif "**go**" in answer:  # a request of its own: a helper in that file
            self._proposed(user, "helper", answer)

    def correction(self, user: str) -> None:
        was = self.users[user].where
        answer = self.say(user, CORRECTION)
        if answer and was == "proposed":
            assert answer.startswith("Revised:"), answer
        elif answer and was == "asking":
            assert answer.startswith("I could not find a file in"), answer

    def chat(self, user: str, text: str) -> None:
        was = self.users[user].where
        answer = self.say(user, text)
        if not answer:
            return
        assert answer.startswith(CAT_ANSWER), f"{was}: {answer}"
        if was in ("asking", "proposed"):
            assert any(r in answer for r in REMINDERS), answer

    def go(self, user: str) -> None:
        u, was = self.users[user], self.users[user].where
        answer = self.say(user, "go")
        if not answer:
            return
        if was == "proposed":
            assert answer.startswith(f"Drafting `{u.symbol}`"), answer
            u.where, u.runs = "drafting", u.runs + 1
        else:
            assert not answer.startswith("Drafting"), answer

    def cancel(self, user: str) -> None:
        u, was = self.users[user], self.users[user].where
        answer = self.say(user, "cancel")
        if not answer:
            return
        if was == "proposed":
            assert answer.startswith("Cancelled the request"), answer
            u.where = "finished"
        elif was == "asking":
            assert answer == "Dropped the code request.", answer
            u.where = "finished" if u.has_task else "idle"
        elif was == "drafting":
            assert answer.startswith(("Stopping the draft loop", *LATE_STOP)), answer
            u.where = "stopping"
        elif was == "finished" and u.committed:
            assert answer.startswith("Nothing to stop:"), answer

    def continue_(self, user: str) -> None:
        u, was = self.users[user], self.users[user].where
        answer = self.say(user, "continue")
        if not answer:
            return
        if was == "proposed":
            assert answer.startswith(f"Drafting `{u.symbol}`"), answer
            u.where, u.runs = "drafting", u.runs + 1
        elif was in ("drafting", "stopping"):
            assert answer.startswith("A draft is running"), answer
        elif was == "finished":
            self._continued(user, answer)

    def _continued(self, user: str, answer: str) -> None:
        u = self.users[user]
        if u.committed:
            assert answer.startswith("The draft of `") and "is finished" in answer, answer
        elif answer.startswith("Drafting `"):
            u.where, u.runs = "drafting", u.runs + 1

    def apply(self, user: str) -> None:
        u, was = self.users[user], self.users[user].where
        answer = self.say(user, "apply")
        if not answer:
            return
        if answer.startswith("Applied draft"):
            assert u.committed and not u.applied and was in ("finished", "asking"), answer
            u.applied = True
            self.files = self.driver.repository()
        elif was == "finished" and u.committed and not u.applied:
            assert answer.startswith(("I did not write anything", "The draft is identical")), \
                answer  # another user's apply changed the file, or rolled back to the start
        elif was == "proposed":
            assert answer.startswith("There is no draft to apply yet."), answer
        elif was == "asking" and not u.has_task:  # the question waits: "apply" is no file
            assert answer.startswith("I could not find a file in"), answer
        elif not u.has_task:
            assert answer.startswith(CAT_ANSWER), answer

    def task_command(self, user: str, text: str) -> None:
        u, was = self.users[user], self.users[user].where
        answer = self.say(user, text)
        if answer and was == "asking" and not u.has_task:  # the question waits
            assert answer.startswith("I could not find a file in"), answer
        elif answer and not u.has_task:
            assert answer.startswith(CAT_ANSWER), answer  # ordinary words without a task
        elif answer:
            assert not answer.startswith(CAT_ANSWER), answer

    def drafts_finish(self) -> None:
        if not any(u.where in ("drafting", "stopping") for u in self.users.values()):
            return
        self.driver.finish_drafts()
        self._finished()

    def _finished(self) -> None:
        """Every user whose loop ran has exactly one result per run, and is finished."""
        for user, u in self.users.items():
            results = [c for c in self.driver.chats(user) if c.startswith(RESULTS)]
            if u.where in ("drafting", "stopping"):
                assert results, f"{user}: no result for the draft"
                u.where, u.committed = "finished", results[-1].startswith("Draft committed")
            assert len(results) <= u.runs, f"{user}: a draft ran twice ({len(results)} results)"

    def draft_finishes_during_a_turn(self, user: str, text: str, moment: str) -> None:
        """``text`` while the drafts finish, right after the turn loaded the working memory or
        right before it writes its copy back."""
        u, was = self.users[user], self.users[user].where
        if was not in ("drafting", "stopping"):
            return
        answer = self.say(user, text, **{moment: self.drafts_finish})
        if not answer:
            return
        if text == "stop" and moment == "after_load":
            assert answer.startswith(LATE_STOP), answer
        elif text == "stop":
            assert answer.startswith(("Stopping the draft loop", *LATE_STOP)), answer
        elif text == "continue" and moment == "after_load":
            self._continued(user, answer)
        elif text == "continue":
            assert answer.startswith("A draft is running"), answer
        else:
            assert answer.startswith(CAT_ANSWER), answer
        if u.where in ("drafting", "stopping") and moment == "after_load":
            self._finished()

    def tear_cache(self, user: str, how: str) -> None:
        """The user's cache file torn while their draft runs: the draft still ends, once."""
        if self.users[user].where not in ("drafting", "stopping"):
            return
        self.driver.tear(user, how)
        self.drafts_finish()

    # -- plugin events -------------------------------------------------------------------------
    def plugin_event(self, kind: str) -> None:
        """A loop held in its code generation is interrupted; one asked to stop may have
        stopped before the event, in a Cat where time passes (its result then came)."""
        self.driver.event(kind)
        for u in self.users.values():
            if u.where in ("drafting", "stopping"):
                u.where = "interrupted" if u.where == "drafting" else "maybe interrupted"

    # -- after every step ----------------------------------------------------------------------
    def check(self) -> None:
        """Nothing was written into the repository but by "apply"."""
        assert self.driver.repository() == self.files, "the repository changed without apply"


#: The steps, and the values their arguments take.
RULES: dict[str, dict[str, tuple[Any, ...]]] = {
    "request": {"request": REQUESTS},
    "answer_the_file_question": {}, "go": {}, "correction": {}, "cancel": {},
    "continue_": {}, "apply": {},
    "task_command": {"text": ("show the draft history", "roll back to the last good draft",
                              "roll back to the start", "redo", "show the diff of draft 1")},
    "chat": {"text": (*CHATS, QUESTION)},
    "draft_finishes_during_a_turn": {"text": ("stop", "continue", "hello, how are you?"),
                                     "moment": ("after_load", "before_write_back")},
    "tear_cache": {"how": ("truncate", "delete", "older")},
}
#: Steps that concern no single user.
EVENTS: dict[str, dict[str, tuple[Any, ...]]] = {
    "drafts_finish": {}, "plugin_event": {"kind": ("toggle", "reupload", "restart")},
}


def walk(model: ConversationModel, rng: random.Random, steps: int,
         events: tuple[str, ...] = ("toggle", "reupload", "restart"),
         rules: Mapping[str, dict[str, tuple[Any, ...]]] = RULES) -> Iterator[str]:
    """``steps`` seeded random steps of the model (users' messages most of the time, the drafts
    let finish often, a plugin event now and then), each checked; yields each step's words."""
    users = tuple(model.users)
    for _ in range(steps):
        roll = rng.random()
        if roll < 0.06:
            kind = rng.choice(events)
            model.plugin_event(kind)
            yield f"event {kind}"
        elif roll < 0.2:
            model.drafts_finish()
            yield "drafts finish"
        else:
            name = rng.choice(sorted(rules))
            args = {"user": rng.choice(users),
                    **{arg: rng.choice(values) for arg, values in rules[name].items()}}
            getattr(model, name)(**args)
            yield f"{name} {args}"
        model.check()
