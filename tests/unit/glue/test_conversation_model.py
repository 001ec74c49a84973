"""Model-based tests of the whole conversation: Hypothesis explores sequences of user messages
and plugin events on the simulated Cat (cat_sim.py) against the README's rules
(conversation_model.py), with the ``file_system`` cache and a fault injector that tears a user's
cache file while their draft runs.

A draft may also finish *during* a turn, right after the turn loaded the working memory or
right before it writes its copy back. With the ``in_memory`` cache a restart forgets every
chat, but not the users' tasks: their state has its own owner (the data folder).

``make test`` runs a fixed budget (``derandomize``: the same examples every run);
``bench/conversation_bench.py`` runs many more and reports the figures.
"""

from __future__ import annotations

import os
import pathlib
import tempfile
import threading
import traceback
from typing import Any

from .cat_sim import SimCat
from .conversation_model import EVENTS, RULES, ConversationModel
from .sim_llm import ConversationLLM

USERS = ("alice", "bob")
SETTINGS = {"extended_loop": False, "check_judge": False, "check_tests": False,
            "max_iterations": 2}


def make_repository(root: pathlib.Path) -> pathlib.Path:
    (root / "text").mkdir(parents=True)
    (root / "text" / "slug.py").write_text("def other():\n    return 1\n")
    (root / "dates.py").write_text("def parse_date(text):\n    return text\n")
    (root / "billing.py").write_text("class Invoice:\n    def total(self):\n        return 0\n")
    return root


class SimDriver:
    """``conversation_model.Driver`` over a ``SimCat`` whose model holds code generation until
    the drafts are let finish; exceptions that escape any thread are collected."""

    def __init__(self, cache: str) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="cwm-model-")
        root = pathlib.Path(self.tmp.name)
        self.repo = make_repository(root / "repo")
        self.llm = ConversationLLM()
        self.llm.hold()
        self.thread_errors: list[str] = []
        self._excepthook = threading.excepthook
        threading.excepthook = self._escaped
        self.cat = SimCat(self.repo, root / "data", self.llm, settings=SETTINGS,
                          cache=cache).__enter__()

    def _escaped(self, args: threading.ExceptHookArgs) -> None:
        self.thread_errors.append("".join(traceback.format_exception(
            args.exc_type, args.exc_value, args.exc_traceback)))

    def close(self) -> None:
        self.llm.release()
        try:
            self.cat.__exit__(None, None, None)
        finally:
            threading.excepthook = self._excepthook
            self.tmp.cleanup()

    def say(self, user: str, text: str, **moments: Any) -> str:
        return self.cat.say(user, text, **moments)

    def chats(self, user: str) -> list[str]:
        return self.cat.chats(user)

    def finish_drafts(self) -> None:
        self.llm.release()
        self.cat.wait_drafts()
        self.llm.hold()

    def event(self, kind: str) -> None:
        if kind == "toggle":
            self.cat.toggle()
            self.cat.toggle()
        else:
            getattr(self.cat, kind)()

    def tear(self, user: str, how: str) -> None:
        key = f"{user}_working_memory"
        whole = self.cat.cache.tear(key, how)
        if how == "truncate":  # the Cat's interrupted write completes after the draft ends
            self.finish_drafts()
            self.cat.cache.restore(key, whole)

    def repository(self) -> dict[str, str]:
        return {str(p.relative_to(self.repo)): p.read_text() for p in sorted(
            self.repo.rglob("*.py")) if "__pycache__" not in p.parts}

    def problems(self) -> list[str]:
        return [*self.cat.errors, *self.thread_errors]


class Conversation(ConversationModel):
    """The model on a ``SimDriver``; ``machine()`` makes it a Hypothesis state machine."""

    cache = "file_system"

    def __init__(self) -> None:  # the state machine's own; the model is made in ``boot``
        super(ConversationModel, self).__init__()

    def boot(self) -> None:
        ConversationModel.__init__(self, SimDriver(self.cache), USERS)
        self.previous = self.driver.cat.live_generation()

    def teardown(self) -> None:
        if hasattr(self, "driver"):
            self.driver.close()

    def plugin_event(self, kind: str) -> None:
        self.previous = self.driver.cat.live_generation()
        super().plugin_event(kind)

    def nothing_outlives_its_import(self) -> None:
        previous = getattr(self, "previous", None)
        if previous is None or previous is self.driver.cat.live_generation():
            return
        self.driver.cat.live_generation().claim()  # the hand-over is done by now
        assert previous.stale and previous.registry.projects() == []
        alive = [s.worker for s in previous.sessions.all()
                 if s.worker is not None and s.worker.alive]
        assert alive == [], "a draft loop of a retired import still runs"


def machine(cache: str = "file_system") -> type:
    """``Conversation`` on ``cache`` as a Hypothesis ``RuleBasedStateMachine``. Hypothesis is
    imported here only: the Cat imports every file of the plugin, tests included."""
    from hypothesis import strategies as st
    from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

    users = {"user": st.sampled_from(USERS)}
    steps: dict[str, Any] = {
        name: rule(**users, **{arg: st.sampled_from(v) for arg, v in args.items()})(
            getattr(ConversationModel, name)) for name, args in RULES.items()}
    steps.update({name: rule(**{arg: st.sampled_from(v) for arg, v in args.items()})(
        getattr(Conversation, name)) for name, args in EVENTS.items()})
    steps["boot"] = initialize()(Conversation.boot)
    steps["repository_untouched"] = invariant()(ConversationModel.check)
    steps["nothing_outlives_its_import"] = invariant()(
        Conversation.nothing_outlives_its_import)
    steps["cache"] = cache
    return type("ConversationMachine", (Conversation, RuleBasedStateMachine), steps)


def explore(cache: str, examples: int, steps: int, *, derandomize: bool = True) -> None:
    """Run the machine: ``examples`` conversations of up to ``steps`` steps each
    (``derandomize``: the same ones every run, as CI needs; else new ones each run)."""
    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import run_state_machine_as_test

    run_state_machine_as_test(machine(cache), settings=settings(
        max_examples=examples, stateful_step_count=steps, deadline=None, database=None,
        derandomize=derandomize,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]))


def test_the_conversation_model_holds():
    """A fixed budget in ``make test`` (``CWM_MODEL_EXAMPLES``, ``CWM_MODEL_STEPS``: more)."""
    explore("file_system", int(os.environ.get("CWM_MODEL_EXAMPLES", "10")),
            int(os.environ.get("CWM_MODEL_STEPS", "16")))


def test_the_conversation_model_holds_with_the_in_memory_cache():
    """The same rules on the Cat's default cache (the same object every turn; a restart
    forgets the chats, not the tasks)."""
    explore("in_memory", int(os.environ.get("CWM_MODEL_EXAMPLES", "5")),
            int(os.environ.get("CWM_MODEL_STEPS", "16")))
