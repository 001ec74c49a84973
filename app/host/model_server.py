"""The Cat's model as a server the plugin can ask about itself: its endpoint and its facts.

The Cat's LangChain model names the server (``openai_api_base``, Ollama's ``base_url``) and the
model; ``llm/servers.py`` reads what that server says (its kind, its context window and where
that came from, the JSON form it takes) once per (server, model), and ``ServerBook`` keeps the
facts in ``servers.json`` in the plugin's data folder, so a restart does not ask again. A model
the plugin cannot place (another LangChain class) has no endpoint: the window is the
assumption and the plain call is used.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

from ...llm import ASSUMED_WINDOW, Endpoint, FactsFile, ServerFacts, read_facts

FACTS_FILE = "servers.json"
#: seconds before a server that said nothing is asked again
RETRY_S = 300.0


def family(model: object) -> str:
    """``openai``, ``ollama``, ``anthropic``, or ``""`` for a class the plugin cannot bound."""
    names = {cls.__name__ for cls in type(model).__mro__}
    if names & {"ChatOllama"}:
        return "ollama"
    if names & {"BaseChatOpenAI", "ChatOpenAI", "AzureChatOpenAI"}:
        return "openai"
    if names & {"ChatAnthropic"}:
        return "anthropic"
    return ""


def _text(value: object) -> str:
    secret = getattr(value, "get_secret_value", None)
    return str(secret()) if callable(secret) else ("" if value is None else str(value))


def endpoint_of(model: object) -> Endpoint | None:
    """The server and model name of a LangChain chat model, None for a class the plugin does
    not know."""
    kind = family(model)
    if not kind:
        return None
    where = next((str(getattr(model, n)) for n in ("openai_api_base", "base_url", "url")
                  if getattr(model, n, None)), "")
    if kind == "openai" and not where:
        where = "https://api.openai.com/v1"
    if kind == "anthropic" and not where:
        where = "https://api.anthropic.com"
    name = next((str(getattr(model, n)) for n in ("model_name", "model")
                 if getattr(model, n, None)), "")
    key = _text(getattr(model, "openai_api_key", None) or getattr(model, "api_key", None))
    num_ctx = getattr(model, "num_ctx", None)
    return Endpoint(kind, where, name, key, num_ctx if isinstance(num_ctx, int) else None)


@dataclass(frozen=True)
class Window:
    """The context window a call is fitted into, and where the number came from."""

    tokens: int
    source: str

    def describe(self) -> str:
        return f"{self.tokens} tokens ({self.source})"


class ServerBook:
    """The facts of every (server, model), per data folder (one file each); each (server,
    model) read once, even by calls made at the same time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: dict[str, FactsFile] = {}
        self._reading: dict[str, threading.Lock] = {}
        self._said_nothing: dict[str, float] = {}

    def file(self, data_dir: str) -> FactsFile:
        path = os.path.join(data_dir, FACTS_FILE) if data_dir else ""
        with self._lock:
            return self._files.setdefault(path, FactsFile(path))

    def facts(self, endpoint: Endpoint, data_dir: str) -> ServerFacts:
        """What the server says, read now if it was never read. A server that said nothing
        (it was not up yet, or it does not say) is asked again after ``RETRY_S``: only what
        it said is kept in the data folder."""
        store = self.file(data_dir)
        known = store.get(endpoint.key) or self._silent(endpoint.key)
        if known is not None and known.kind and known.window is None:
            return self._window_again(endpoint, store, known)
        if known is not None:
            return known
        with self._lock:
            reading = self._reading.setdefault(endpoint.key, threading.Lock())
        with reading:
            known = store.get(endpoint.key) or self._silent(endpoint.key)
            if known is not None:
                return known
            facts = read_facts(endpoint)
            if facts == ServerFacts():
                with self._lock:
                    self._said_nothing[endpoint.key] = time.monotonic()
                return facts
            return store.put(endpoint.key, facts)

    def _window_again(self, endpoint: Endpoint, store: FactsFile, known: ServerFacts
                      ) -> ServerFacts:
        """A server of a known kind whose window could not be read (it timed out, it was
        busy): read again after ``RETRY_S``, the rest of what it said kept."""
        with self._lock:
            asked = self._said_nothing.get(endpoint.key)
            if asked is not None and time.monotonic() - asked < RETRY_S:
                return known
            self._said_nothing[endpoint.key] = time.monotonic()
        found = read_facts(endpoint)
        if found.window is None:
            return known
        return store.update(endpoint.key, window=found.window,
                            window_source=found.window_source)

    def _silent(self, key: str) -> ServerFacts | None:
        with self._lock:
            asked = self._said_nothing.get(key)
        return ServerFacts() if asked is not None and time.monotonic() - asked < RETRY_S \
            else None

    def learn(self, endpoint: Endpoint, data_dir: str, **changes: object) -> ServerFacts:
        """Record what a call taught (a refused form, a window stated in a refusal)."""
        self.facts(endpoint, data_dir)
        return self.file(data_dir).update(endpoint.key, **changes)


#: this import's book (the facts themselves live in the data folder)
BOOK = ServerBook()


def window_for(model: object, setting: int | None, data_dir: str) -> Window:
    """The window a call to ``model`` is fitted into: the setting's number, else what the
    server says, else the assumption (until a refusal states the real one)."""
    if setting:
        return Window(setting, "the setting 'Context window (tokens)'")
    endpoint = endpoint_of(model) if model is not None else None
    facts = BOOK.facts(endpoint, data_dir) if endpoint is not None else ServerFacts()
    if facts.window:
        return Window(facts.window, facts.window_source)
    return Window(ASSUMED_WINDOW, "assumed: the server does not say it; a refusal that "
                  "states it corrects it")
