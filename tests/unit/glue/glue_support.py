"""Stand-ins for the parts of the Cat the glue touches, and a ``say`` that runs a turn's hooks.

The Cat's StrayCat is stood in for by what the plugin reads from it (working memory, settings
loader, embedder, declarative collection, ``send_ws_message``); the Cat's form machinery by a
small ``FormStandIn`` that keeps ``CatForm``'s state rules. ``say`` calls the plugin's hooks in
the Cat's order (read message, fast reply, active form), which is what a user's turn does. The
real Cat is exercised by tests/integration.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from types import SimpleNamespace

from qdrant_client import QdrantClient

from codemem.app import entry
from codemem.app.chat.request_form import CodeRequest
from codemem.app.drafting import task_context
from codemem.app.host import environment
from codemem.memory.embedding import HashingEmbedder

from ...fakes import answer_scoring
from ..memory.codebase.catlike import CatLikeCollection
from .cat_stand_in import CatForm, CatFormState


class WorkingMemoryStandIn(SimpleNamespace):
    """Like the Cat's WorkingMemory: attribute storage plus a silent ``get``."""

    def get(self, key, default=None):
        return getattr(self, key, default)


States = CatFormState


class FormStandIn(CatForm):
    """The request form on the Cat's form machinery (``cat_stand_in.CatForm``)."""

    model_class = CodeRequest

    def next(self):
        return entry.advance_form(self, States)

    def submit(self, form_data):
        return {"output": entry.submit_request(self.cat, form_data)}


def make_cat(tmp_path, repo_path, user="alice", settings=None):
    """A StrayCat stand-in on a real local Qdrant collection shaped like the Cat's."""
    embedder = HashingEmbedder()
    client = QdrantClient(":memory:")
    dim = len(embedder.embed_query("probe"))
    declarative = CatLikeCollection(client, "declarative", "HashingEmbedder", dim)
    # the watcher (on by default) would re-index behind the tests' back after every write into
    # the repository: it is off here, and on in its own tests (test_watcher.py)
    stored = {"repository_path": str(repo_path), "data_folder": str(tmp_path / "data"),
              "follow_edits": False, **(settings or {})}
    plugin = SimpleNamespace(load_settings=lambda: stored, save_settings=stored.update)
    sent = []
    cat = SimpleNamespace(
        user_id=user, working_memory=WorkingMemoryStandIn(), embedder=embedder,
        memory=SimpleNamespace(vectors=SimpleNamespace(declarative=declarative)),
        mad_hatter=SimpleNamespace(plugins={environment.PLUGIN_ID: plugin}, procedures=[]),
        send_ws_message=lambda content, kind="notification": sent.append((kind, content)))
    return cat, sent, declarative


def other_user(cat, user):
    """A second user on the same Cat (same settings, embedder and collection)."""
    sent = []
    twin = SimpleNamespace(**vars(cat))
    twin.user_id, twin.working_memory = user, WorkingMemoryStandIn()
    twin.send_ws_message = lambda content, kind="notification": sent.append((kind, content))
    return twin, sent


def settings_of(cat):
    return cat.mad_hatter.plugins[environment.PLUGIN_ID].load_settings()


def say(cat, text):
    """One user turn through the plugin's hooks, in the Cat's order; the plugin's answer, or
    None when the Cat's own agent would answer (``before_cat_sends_message`` runs on the
    plugin's answer, as in the Cat, and its reminder is kept)."""
    message = SimpleNamespace(text=text)
    cat.working_memory.user_message_json = message
    entry.read_message(cat, message, FormStandIn)
    reply = entry.fast_reply(cat, {})
    answer = None
    if "output" in reply:
        answer = reply["output"]
    else:
        form = cat.working_memory.get("active_form")
        if form is not None:  # the Cat's form agent: a CLOSED form is cleared one turn later
            if form._state is States.CLOSED:
                cat.working_memory.active_form = None
            else:
                answer = form.next()["output"]
    sent = entry.end_turn(cat, SimpleNamespace(text=answer if answer is not None else ""))
    return None if answer is None else sent.text


def session_of(cat):
    return entry.session_turn(cat)[0]


def state_of(cat):
    return session_of(cat).state


def wait_for_draft(cat, timeout=180):
    worker = session_of(cat).worker
    assert worker is not None, "no draft loop was started"
    worker.thread.join(timeout)
    assert not worker.alive, "the draft loop did not finish"


def counted_retrievals(monkeypatch):
    """The queries of every scored retrieval a task's context makes from now on."""
    queries, retrieve = [], task_context.retrieve

    def counted(project, query, **kwargs):
        queries.append(query)
        return retrieve(project, query, **kwargs)

    monkeypatch.setattr(task_context, "retrieve", counted)
    return queries


def drafting_reply(prompt: str, score_of: Callable[[str], tuple[float, str]],
                   metacode: Mapping[str, object], draft: str) -> str:
    """A scripted model's reply for a request drafted in one go: the scoring by ``score_of``,
    the meta-code, the draft; any other prompt fails the test."""
    if "Score" in prompt[:400] or "rate" in prompt[:200]:
        scored = answer_scoring(prompt, score_of)
        if scored is not None:
            return scored
    if prompt.startswith("You turn a programming request into META-CODE"):
        return json.dumps(metacode)
    if prompt.startswith("You write Python code for one goal"):
        return draft
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")
