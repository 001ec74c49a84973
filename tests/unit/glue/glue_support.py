"""Stand-ins for the parts of the Cat the glue touches, and a ``say`` that runs a turn's hooks.

The Cat's StrayCat is stood in for by what the plugin reads from it (working memory, settings
loader, embedder, declarative collection, ``send_ws_message``); the Cat's form machinery by a
small ``FormStandIn`` that keeps ``CatForm``'s state rules. ``say`` calls the plugin's hooks in
the Cat's order (read message, fast reply, active form), which is what a user's turn does. The
real Cat is exercised by tests/integration.
"""

from __future__ import annotations

from enum import Enum
from types import SimpleNamespace

from pydantic import ValidationError
from qdrant_client import QdrantClient

from codemem import environment, runtime
from codemem.memory.retrieval.embedding import HashingEmbedder
from codemem.request_form import CodeRequest

from ..memory.codebase.catlike import CatLikeCollection


class WorkingMemoryStandIn(SimpleNamespace):
    """Like the Cat's WorkingMemory: attribute storage plus a silent ``get``."""

    def get(self, key, default=None):
        return getattr(self, key, default)


class States(Enum):
    """``CatFormState``'s values."""

    INCOMPLETE = "incomplete"
    COMPLETE = "complete"
    WAIT_CONFIRM = "wait_confirm"
    CLOSED = "closed"


class FormStandIn:
    """``CatForm``'s state, ``validate`` and LLM ``update`` (cat-v1-api.md §5), nothing more."""

    model_class = CodeRequest

    def __init__(self, cat):
        self.cat = cat
        self._state = States.INCOMPLETE
        self._model = {}
        self._missing_fields = []
        self._errors = []
        self.llm_extractions = 0

    def validate(self):
        self._missing_fields, self._errors = [], []
        try:
            self.model_class(**self._model)
            self._state = States.COMPLETE
        except ValidationError as err:
            for error in err.errors():
                name = error["loc"][0]
                if error["type"] == "missing":
                    self._missing_fields.append(name)
                else:
                    self._errors.append(f"{name}: {error['msg']}")
                    del self._model[name]
            self._state = States.INCOMPLETE

    def update(self):
        self.llm_extractions += 1  # the Cat would ask its LLM here; the stand-in learns nothing
        self.validate()

    def next(self):
        return runtime.advance_form(self, States)

    def submit(self, form_data):
        return {"output": runtime.submit_request(self.cat, form_data)}


def make_cat(tmp_path, repo_path, user="alice", settings=None):
    """A StrayCat stand-in on a real local Qdrant collection shaped like the Cat's."""
    embedder = HashingEmbedder()
    client = QdrantClient(":memory:")
    dim = len(embedder.embed_query("probe"))
    declarative = CatLikeCollection(client, "declarative", "HashingEmbedder", dim)
    stored = {"repository_path": str(repo_path), "data_folder": str(tmp_path / "data"),
              **(settings or {})}
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
    None when the Cat's own agent would answer."""
    message = SimpleNamespace(text=text)
    cat.working_memory.user_message_json = message
    runtime.read_message(cat, message, FormStandIn)
    reply = runtime.fast_reply(cat, {})
    if "output" in reply:
        return reply["output"]
    form = cat.working_memory.get("active_form")
    if form is not None:
        output = form.next()["output"]
        if form._state is States.CLOSED:
            cat.working_memory.active_form = None
        return output
    return None


def session_of(cat):
    return runtime.session_turn(cat)[0]


def state_of(cat):
    return session_of(cat).state


def wait_for_draft(cat, timeout=180):
    worker = session_of(cat).worker
    assert worker is not None, "no draft loop was started"
    worker.thread.join(timeout)
    assert not worker.alive, "the draft loop did not finish"
