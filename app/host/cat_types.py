"""The Cat's objects as the plugin uses them: Protocols naming what it reads and writes.

The plugin imports nothing of ``cat`` at module level (docs/cat-plugin-api.md, "Loading the
plugin"), and unit tests hand it stand-ins; so its types of the Cat's objects are these
structural descriptions, checked by ``mypy --strict`` against every use in ``app/``. What stays
``Any`` is what the Cat leaves open: values stored in the working memory under any key, the
documents its recall returns, the fields a form extracted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ...memory import Embedder, VectorCollection


class UserMessage(Protocol):
    """``cat.working_memory.user_message_json``: the user's message of this turn."""

    text: str


#: One recalled memory: ``(Document, score, vector, id)``; the Document has ``page_content``
#: and ``metadata`` (``Any``: a LangChain object the plugin reads with ``getattr``).
Recalled = Sequence[Any]


class Storage(Protocol):
    """A working memory as state is kept in it: attributes of any name, read with ``get`` (the
    start-up pass, which has no user, gets an empty one)."""

    def get(self, key: str, default: Any = None) -> Any: ...  # Any: whatever was stored


class WorkingMemory(Storage, Protocol):
    """``cat.working_memory``: a pydantic model that takes attributes of any name (the plugin
    keeps its state under one, ``app/drafting/state.py``)."""

    active_form: Any  # a form of this plugin, of an earlier import of it, or another plugin's
    user_message_json: UserMessage
    declarative_memories: list[Recalled]
    procedural_memories: list[Recalled]


class PluginHandle(Protocol):
    """``cat.mad_hatter.plugins[<id>]``: the plugin's settings as the Cat stores them."""

    def load_settings(self) -> Any: ...  # Any: the raw JSON the admin saved (re-validated)
    def save_settings(self, values: Mapping[str, object]) -> object: ...


class Procedure(Protocol):
    """A tool or form the Cat registered (``cat.mad_hatter.procedures``); its ``plugin_id`` is
    read with ``getattr``, a form class may not have one."""

    name: str


class MadHatter(Protocol):
    """``cat.mad_hatter``: the Cat's plugin manager."""

    @property
    def plugins(self) -> Mapping[str, PluginHandle]: ...
    @property
    def procedures(self) -> Sequence[Procedure]: ...


class Vectors(Protocol):
    """``cat.memory.vectors``: the Cat's collections."""

    @property
    def declarative(self) -> VectorCollection: ...


class VectorMemory(Protocol):
    """``cat.memory``: replaced whenever the LLM or embedder settings are saved."""

    @property
    def vectors(self) -> Vectors: ...


class CatHost(Protocol):
    """What every Cat object the plugin is given offers: the ``CheshireCat`` at start-up, a
    user's ``StrayCat`` in a turn."""

    @property
    def mad_hatter(self) -> MadHatter: ...
    @property
    def memory(self) -> VectorMemory: ...
    @property
    def embedder(self) -> Embedder: ...


class StrayCat(CatHost, Protocol):
    """A user's ``StrayCat``: what hooks, tools and forms receive as ``cat``."""

    @property
    def user_id(self) -> str: ...
    @property
    def working_memory(self) -> WorkingMemory: ...

    def llm(self, prompt: str) -> str: ...
    def send_ws_message(self, content: str, msg_type: str = ...) -> None: ...


class Logger(Protocol):
    """The Cat's loguru logger, or a ``logging.Logger`` outside the Cat."""

    def info(self, message: str) -> object: ...
    def warning(self, message: str) -> object: ...
    def error(self, message: str) -> object: ...


class FormStates(Protocol):
    """The Cat's ``CatFormState`` enum, as ``advance`` is handed it."""

    COMPLETE: Any  # Any: members of the Cat's enum, compared by identity
    CLOSED: Any


class CatForm(Protocol):
    """A ``CatForm`` (the request form in ``forms.py``): the state the Cat keeps on it."""

    _state: Any  # a member of ``FormStates``
    _model: dict[str, Any]  # Any: the fields extracted so far, as the Cat stores them
    _missing_fields: list[str]
    _errors: list[str]

    @property
    def cat(self) -> StrayCat: ...

    def validate(self) -> None: ...
    def update(self) -> None: ...
    def submit(self, form_data: dict[str, Any]) -> dict[str, str]: ...
