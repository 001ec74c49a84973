"""What a model's server says about itself: what it is, its context window, the JSON form it
takes; read once per (server, model) and kept across restarts.

Where the window comes from, first found wins (the setting "Context window (tokens)" with a
number is the glue's, and wins over all of these):

* llama.cpp's server: ``GET /props``, ``default_generation_settings.n_ctx``;
* llama-cpp-python's server (its ``/openapi.json`` says so): it publishes no window, but
  refuses a prompt longer than it in its first step, before any model work, saying the window
  ("This model's maximum context length is N tokens"): one request with an oversized prompt
  (about a second, tokenizing only) reads it;
* Ollama: ``POST /api/show``: the model's ``num_ctx`` parameter, else Ollama's default window
  (4096) within the model's ``context_length``; a ``num_ctx`` the Cat's model sets comes first;
* vLLM: ``GET /v1/models``, the model's ``max_model_len``; LM Studio: ``GET /api/v0/models``,
  ``loaded_context_length`` (else ``max_context_length``);
* the hosted providers' models: the known windows of their families (``HOSTED``);
* else none: the caller assumes 4096 until a call is refused with "maximum context length is
  N" (:func:`window_from_refusal`), and learns N.

The form of a schema-constrained request follows from what the server is (``FORMS``): OpenAI's
``json_schema`` in strict mode, llama.cpp's and LM Studio's ``json_schema``,
llama-cpp-python's ``json_object`` with a ``schema``, vLLM's ``guided_json``, Ollama's
``format``; for a server that does not say, the glue tries the forms in turn, each without the
client's retries, and records the first that is accepted.

No network at import; every request has a short timeout and any failure is "not said".
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any
from urllib.parse import urlsplit

#: the window assumed when nothing says it: llama.cpp's, Ollama's and LM Studio's default
ASSUMED_WINDOW = 4096
#: Ollama's default window when neither the model nor the request sets ``num_ctx``
OLLAMA_DEFAULT = 4096
#: the form each kind of server takes for a schema-constrained reply
FORMS = {"openai": "json_schema_strict", "llama.cpp": "json_schema", "lmstudio": "json_schema",
         "llama-cpp-python": "json_object_schema", "vllm": "guided_json",
         "ollama": "ollama_format", "ollama-openai": "json_schema"}
#: hosted providers (by host) and the known windows of their models (by name prefix, longest
#: first); a model of an unknown family there gets no window from this table
HOSTED: Mapping[str, tuple[tuple[str, int], ...]] = {
    "api.openai.com": (("gpt-4.1", 1_047_576), ("gpt-4o", 128_000), ("gpt-4-turbo", 128_000),
                       ("gpt-4", 8_192), ("gpt-3.5-turbo", 16_385), ("gpt-5", 400_000),
                       ("o1", 200_000), ("o3", 200_000), ("o4", 200_000)),
    "api.anthropic.com": (("claude", 200_000),),
    "generativelanguage.googleapis.com": (("gemini-1.5", 1_048_576), ("gemini-2", 1_048_576),
                                          ("gemma", 8_192)),
    "api.mistral.ai": (("mistral-large", 128_000), ("mistral-small", 32_000),
                       ("codestral", 256_000), ("open-mistral-nemo", 128_000),
                       ("ministral", 128_000), ("mistral-medium", 128_000)),
    "api.groq.com": (("llama-3.1", 131_072), ("llama-3.3", 131_072), ("llama3", 8_192),
                     ("gemma2", 8_192), ("mixtral", 32_768), ("qwen", 131_072)),
    "api.deepseek.com": (("deepseek", 64_000),),
}
_REFUSAL = re.compile(r"(?:maximum context length is|context window of|context length of|"
                      r"\"n_ctx\"\s*:|n_ctx\s*[=:])\s*(\d{3,8})", re.I)
_TIMEOUT = 5.0
#: a slow answer is waited for longer (tokenizing the oversized prompt takes a second or two on
#: a quiet machine, more on a loaded one)
_SLOW_TIMEOUT = 120.0
#: the header marking the oversized request, which ``http_json`` waits longer for
PROBE_HEADER = "X-Code-Memory-Probe"
#: an oversized prompt for llama-cpp-python: more tokens than any window the setting allows
_OVERSIZED = "a " * 1_100_000


@dataclass(frozen=True)
class ServerFacts:
    """What is known of one (server, model)."""

    #: ``llama.cpp``, ``llama-cpp-python``, ``ollama``, ``vllm``, ``lmstudio``, a hosted
    #: provider's host, or "" (the server did not say)
    kind: str = ""
    #: the context window, tokens (None: not said)
    window: int | None = None
    #: where the window came from, in words ("llama.cpp's /props")
    window_source: str = ""
    #: the schema-constrained form the server takes (None: not found yet; "": none)
    form: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ServerFacts:
        window = data.get("window")
        form = data.get("form")
        return cls(str(data.get("kind", "")),
                   window if isinstance(window, int) and window > 0 else None,
                   str(data.get("window_source", "")), form if isinstance(form, str) else None)


@dataclass(frozen=True)
class Endpoint:
    """How the plugin reaches a model: the client's family (``openai``, ``ollama``, ...), the
    base URL it was given, the model's name and key, and a ``num_ctx`` the client sets."""

    family: str
    base_url: str
    model: str
    api_key: str = ""
    num_ctx: int | None = None

    @property
    def key(self) -> str:
        return f"{self.family} {self.base_url.rstrip('/')} {self.model}"


#: ``(method, url, payload, headers) -> (status, JSON body or None)``; replaced in tests only
#: by real servers on loopback, never by a fake
Http = Callable[[str, str, Mapping[str, Any] | None, Mapping[str, str]],
                tuple[int, Any]]


def http_json(method: str, url: str, payload: Mapping[str, Any] | None,
              headers: Mapping[str, str], timeout: float = _TIMEOUT) -> tuple[int, Any]:
    """One request; ``(status, decoded JSON or None)``, ``(0, None)`` when nothing answered."""
    data = None if payload is None else json.dumps(payload).encode("utf-8")
    if PROBE_HEADER in headers:
        timeout = max(timeout, _SLOW_TIMEOUT)
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310 (URL)
            return answer.status, _decoded(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, _decoded(err.read())
    except (OSError, ValueError):
        return 0, None


def _decoded(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def window_from_refusal(text: str) -> int | None:
    """The window a refusal states ("This model's maximum context length is 4096 tokens",
    llama.cpp's ``"n_ctx": 4096``), None when it states none."""
    found = _REFUSAL.search(text or "")
    return int(found.group(1)) if found else None


def hosted_window(host: str, model: str) -> int | None:
    """The known window of a hosted provider's model, by the longest matching name prefix."""
    table = sorted(HOSTED.get(host, ()), key=lambda item: -len(item[0]))
    name = model.lower().rsplit("/", 1)[-1]
    return next((window for prefix, window in table if name.startswith(prefix)), None)


def read_facts(endpoint: Endpoint, http: Http = http_json) -> ServerFacts:
    """What the server of ``endpoint`` says (see the module docstring); ``ServerFacts()`` when
    it says nothing."""
    host = urlsplit(endpoint.base_url).hostname or ""
    if endpoint.family == "ollama":
        return _ollama(endpoint, endpoint.base_url.rstrip("/"), http, "ollama")
    if host in HOSTED:
        window = hosted_window(host, endpoint.model)
        kind = "openai" if host == "api.openai.com" else host
        return ServerFacts(kind, window, f"the known window of {endpoint.model}"
                           if window else "", FORMS.get(kind))
    if endpoint.family != "openai":
        return ServerFacts()
    return _openai_compatible(endpoint, http)


def _openai_compatible(endpoint: Endpoint, http: Http) -> ServerFacts:
    base = endpoint.base_url.rstrip("/")
    root = base[:-3] if base.endswith("/v1") else base
    auth = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    status, props = http("GET", f"{root}/props", None, auth)
    if status == 200 and isinstance(props, dict) and "default_generation_settings" in props:
        settings = props["default_generation_settings"]
        n_ctx = props.get("n_ctx") or (settings.get("n_ctx") if isinstance(settings, dict)
                                       else None)
        return _facts("llama.cpp", n_ctx, "llama.cpp's /props (n_ctx)")
    status, api = http("GET", f"{root}/openapi.json", None, auth)
    title = str(((api or {}).get("info") or {}).get("title", "")) if isinstance(api, dict) else ""
    if "llama.cpp python" in title.lower():
        return _llama_cpp_python(endpoint, base, http, auth)
    status, version = http("GET", f"{root}/api/version", None, auth)
    if status == 200 and isinstance(version, dict) and "version" in version:
        return _ollama(endpoint, root, http, "ollama-openai")
    return _listed(endpoint, base, root, http, auth)


def _listed(endpoint: Endpoint, base: str, root: str, http: Http,
            auth: Mapping[str, str]) -> ServerFacts:
    """vLLM's and LM Studio's model lists."""
    status, listing = http("GET", f"{base}/models", None, auth)
    for entry in (listing or {}).get("data", []) if isinstance(listing, dict) else []:
        if isinstance(entry, dict) and entry.get("max_model_len") and entry.get(
                "id") in (endpoint.model, None):
            return _facts("vllm", entry["max_model_len"], "vLLM's model list (max_model_len)")
    status, models = http("GET", f"{root}/api/v0/models", None, auth)
    for entry in (models or {}).get("data", []) if isinstance(models, dict) else []:
        if isinstance(entry, dict) and entry.get("id") == endpoint.model:
            loaded = entry.get("loaded_context_length")
            field = "loaded_context_length" if loaded else "max_context_length"
            return _facts("lmstudio", entry.get(field), f"LM Studio's model list ({field})")
    return ServerFacts()


def _llama_cpp_python(endpoint: Endpoint, base: str, http: Http,
                      auth: Mapping[str, str]) -> ServerFacts:
    payload = {"model": endpoint.model, "max_tokens": 1,
               "messages": [{"role": "user", "content": _OVERSIZED}]}
    status, answer = http("POST", f"{base}/chat/completions", payload,
                          {**auth, PROBE_HEADER: "window"})
    window = window_from_refusal(json.dumps(answer)) if status >= 400 else None
    return _facts("llama-cpp-python", window,
                  "llama-cpp-python's refusal of an oversized prompt (its n_ctx)")


def _ollama(endpoint: Endpoint, root: str, http: Http, kind: str) -> ServerFacts:
    if endpoint.num_ctx:
        return _facts(kind, endpoint.num_ctx, "the Cat's Ollama setting (num_ctx)")
    status, shown = http("POST", f"{root}/api/show", {"model": endpoint.model}, {})
    if status != 200 or not isinstance(shown, dict):
        return ServerFacts(kind, form=FORMS[kind])
    for line in str(shown.get("parameters", "")).splitlines():
        name, _, value = line.strip().partition(" ")
        if name == "num_ctx" and value.strip().isdigit():
            return _facts(kind, int(value), "Ollama's /api/show (the model's num_ctx)")
    info = shown.get("model_info")
    if not isinstance(info, dict):
        info = {}
    trained = next((v for k, v in info.items() if k.endswith(".context_length")
                    and isinstance(v, int)), None)
    window = min(trained, OLLAMA_DEFAULT) if trained else OLLAMA_DEFAULT
    return _facts(kind, window, f"Ollama's default window ({OLLAMA_DEFAULT}; the model "
                  f"holds {trained or 'an unknown number of'} tokens)")


def _facts(kind: str, window: Any, source: str) -> ServerFacts:
    if isinstance(window, int) and window > 0:
        return ServerFacts(kind, window, source, FORMS.get(kind))
    return ServerFacts(kind, form=FORMS.get(kind))


class FactsFile:
    """The facts of every (server, model) the plugin met, in one JSON file (the plugin's data
    folder), so a restart does not ask again; thread-safe, written atomically."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._facts: dict[str, ServerFacts] | None = None

    def get(self, key: str) -> ServerFacts | None:
        with self._lock:
            return self._load().get(key)

    def put(self, key: str, facts: ServerFacts) -> ServerFacts:
        with self._lock:
            self._load()[key] = facts
            self._save()
        return facts

    def update(self, key: str, **changes: Any) -> ServerFacts:
        """The facts of ``key`` with ``changes`` (``window``, ``window_source``, ``form``)."""
        with self._lock:
            facts = replace(self._load().get(key, ServerFacts()), **changes)
            self._load()[key] = facts
            self._save()
        return facts

    def _load(self) -> dict[str, ServerFacts]:
        if self._facts is None and not self.path:
            self._facts = {}
        if self._facts is None:
            try:
                with open(self.path, encoding="utf-8") as handle:
                    raw = json.load(handle)
            except (OSError, ValueError):
                raw = {}
            self._facts = {k: ServerFacts.from_dict(v) for k, v in raw.items()
                           if isinstance(v, dict)} if isinstance(raw, dict) else {}
        return self._facts

    def _save(self) -> None:
        """Write the facts (none without a path: they last until the restart)."""
        if not self.path:
            return
        folder = os.path.dirname(self.path) or "."
        tmp = ""
        try:
            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".servers-", dir=folder)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({k: v.to_dict() for k, v in (self._facts or {}).items()}, handle,
                          indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError:  # a read-only data folder: the facts last until the restart
            if tmp:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
