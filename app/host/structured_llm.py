"""The Cat's chat model as a completer that honours call options: a completion limit, the
answer's schema in the form the server takes, a wait.

The cores state what a call may take (``llm/bounds.py``: ``CallOptions``) and read every answer
with the tolerant ``llm`` layer whatever the model; this module maps the options onto the model
class's own parameters (``call_options``) and sends them through ``model.bind(...)``:

* OpenAI-compatible chat models (``ChatOpenAI`` and subclasses: the Cat's "OpenAI-compatible"
  and Azure configs; llama.cpp, llama-cpp-python, LM Studio, vLLM, Ollama's ``/v1``):
  ``max_tokens``, the request ``timeout`` (the client disconnects when it passes) and the
  schema in one of the forms (``FORMS``): OpenAI's ``json_schema`` in strict mode
  (``llm.schema.strict_schema``), ``json_schema`` (llama.cpp, LM Studio, Ollama), llama-cpp-
  python's ``json_object`` with a ``schema``, vLLM's ``guided_json``, plain ``json_object``;
* Ollama chat models: ``num_predict`` in the model's options and ``format`` (the schema, else
  ``"json"``);
* Anthropic chat models: ``max_tokens``;
* any other model: the plain call, unbounded (the reply is still read tolerantly).

Which form a server takes is found once per (server, model) and kept in the plugin's data
folder (``model_server.ServerBook``): from what the server says it is (``llm/servers.py``), else
by trying the forms in turn, best first: a refused form (HTTP 400/404/415/422/500/501) costs one
request, since a form not yet confirmed is sent without the client's retries (the OpenAI client
retries a 500 twice by default). A refusal that states the window ("maximum context length is
N") is no refused form: the window is recorded and ``WindowRefused`` lets the caller fit the
prompt again. LangChain is imported only inside the calls (the Cat imports every ``.py`` file of
the plugin).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ...llm import (
    CallOptions,
    Endpoint,
    LLMError,
    ServerFacts,
    strict_schema,
    window_from_refusal,
)
from .model_server import BOOK, endpoint_of, family


class Runnable(Protocol):
    """What a bound LangChain chat model offers: ``invoke`` with the input (a prompt string
    is read as one human message) and an optional run configuration (callbacks)."""

    def invoke(self, input: str, config: Mapping[str, object] | None = None) -> object: ...


class ChatModel(Protocol):
    """What the plugin uses of a LangChain chat model: call options bound for one request."""

    def bind(self, **options: object) -> Runnable: ...


#: ``auto``: the schema in the server's form, falling back to simpler ones; ``json_object``:
#: JSON mode only; ``json_schema``: like ``auto``; ``""``: no JSON request.
MODES = ("", "auto", "json_object", "json_schema")
#: the forms of a schema-constrained request, per client family, best first (``""``: no JSON
#: request, limits only; ``plain``: the Cat's plain call, not even the limits)
FORMS = {"openai": ("json_schema_strict", "guided_json", "json_schema", "json_object_schema",
                    "json_object", "", "plain"),
         "ollama": ("ollama_format", "json_object", "", "plain"),
         "anthropic": ("", "plain")}
#: what a server of unknown kind is tried with, in order (strict mode and vLLM's own form only
#: where the server says it is OpenAI or vLLM)
_UNKNOWN_SKIPS = ("json_schema_strict", "guided_json")
#: HTTP statuses meaning "this server does not take this request" (not a timeout, not a crash)
_REFUSED = frozenset({400, 404, 415, 422, 500, 501})

Invoke = Callable[[Runnable, str], object]


class WindowRefused(LLMError):
    """The server refused the prompt as longer than its window, which it stated (recorded)."""

    def __init__(self, window: int) -> None:
        super().__init__(f"the model's server refused the prompt: its context window is "
                         f"{window} tokens")
        self.window = window


def call_options(model: object, options: CallOptions, fmt: str = "") -> dict[str, Any]:
    """The ``bind`` options asking ``model`` for ``options`` with request form ``fmt``
    (``FORMS``); empty when the model takes none of them. ``Any``: the call options' JSON."""
    kind = family(model)
    schema = options.json_schema if fmt else None
    out: dict[str, Any] = {}
    if kind == "openai":
        if options.max_tokens:
            out["max_tokens"] = options.max_tokens
        if options.timeout_s:
            out["timeout"] = options.timeout_s
        if schema is not None and fmt == "guided_json":
            out["extra_body"] = {"guided_json": dict(schema)}
        elif schema is not None:
            out["response_format"] = _response_format(schema, fmt)
    elif kind == "ollama":
        if options.max_tokens:
            out["options"] = {**_ollama_options(model), "num_predict": options.max_tokens}
        if schema is not None:
            out["format"] = "json" if fmt == "json_object" else dict(schema)
    elif kind == "anthropic" and options.max_tokens:
        out["max_tokens"] = options.max_tokens
    return out


def _response_format(schema: Mapping[str, Any], fmt: str) -> dict[str, Any]:
    if fmt == "json_schema_strict":
        return {"type": "json_schema", "json_schema": {
            "name": "answer", "schema": strict_schema(schema), "strict": True}}
    if fmt == "json_schema":
        return {"type": "json_schema", "json_schema": {
            "name": "answer", "schema": dict(schema), "strict": False}}
    if fmt == "json_object_schema":
        return {"type": "json_object", "schema": dict(schema)}
    return {"type": "json_object"}


def _ollama_options(model: object) -> dict[str, Any]:
    """The model's own options (``num_ctx``, temperature, ...): a bound ``options`` replaces
    them all in LangChain's Ollama model, so they are sent again with the limit."""
    try:
        params = getattr(model, "_default_params", {})
        found = params.get("options") if isinstance(params, Mapping) else None
    except Exception:  # a LangChain version without them: the limit alone
        return {}
    return {k: v for k, v in (found or {}).items() if v is not None}


def refused(err: BaseException) -> bool:
    """Whether ``err`` is the server refusing the request's form (the next form may pass)."""
    status = getattr(err, "status_code", None)
    if status is None:
        status = getattr(getattr(err, "response", None), "status_code", None)
    return isinstance(status, int) and status in _REFUSED


def _reply_text(message: object) -> str:
    content = getattr(message, "content", message)
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def invoke_plainly(runnable: Runnable, prompt: str) -> object:
    return runnable.invoke(prompt)  # LangChain reads a string as one human message


def without_retries(model: Any) -> Any:
    """``model`` with a client that does not retry (the OpenAI client retries a 500 twice):
    a form being tried costs one request when it is refused. ``Any``: a LangChain model."""
    client = getattr(getattr(model, "client", None), "_client", None)
    with_options = getattr(client, "with_options", None)
    if not callable(with_options):
        return model
    try:
        quiet = copy.copy(model)  # LangChain's own ``copy`` drops fields such as the callbacks
        object.__setattr__(quiet, "client", with_options(max_retries=0).chat.completions)
        object.__setattr__(quiet, "max_retries", 0)
        return quiet
    except Exception:  # another client library: its own retries
        return model


class StructuredChatLLM:
    """``str -> str`` through ``plain`` (e.g. the Cat's ``llm``), and ``complete_with`` through
    the chat model ``chat_model()`` returns (resolved at each call: the admin may change it);
    what its server takes is kept in ``data_dir`` (empty: for this process only)."""

    def __init__(self, plain: Callable[[str], str], chat_model: Callable[[], ChatModel], *,
                 mode: str = "json_object", invoke: Invoke = invoke_plainly,
                 data_dir: str = "") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self._plain, self._chat_model, self.mode, self._invoke = plain, chat_model, mode, invoke
        self.data_dir = data_dir

    def __call__(self, prompt: str) -> str:
        return self.complete_with(prompt, CallOptions())

    def complete_json(self, prompt: str, json_schema: Mapping[str, Any]) -> str:
        """The model's reply, asked for as JSON when the model supports it."""
        return self.complete_with(prompt, CallOptions(json_schema=json_schema))

    def model(self) -> object | None:
        """The Cat's chat model now (None: a host without one)."""
        try:
            return self._chat_model()
        except (AttributeError, ImportError):
            return None

    def facts(self) -> ServerFacts | None:
        """What the model's server says (read now if never read); None: no known server."""
        model = self.model()
        endpoint = endpoint_of(model) if model is not None else None
        return None if endpoint is None else BOOK.facts(endpoint, self.data_dir)

    def complete_with(self, prompt: str, options: CallOptions) -> str:
        """The reply, asked for with ``options`` in the form the server takes."""
        model = self.model()
        endpoint = endpoint_of(model) if model is not None else None
        if model is None or endpoint is None:
            return self._plain(prompt)
        known = BOOK.facts(endpoint, self.data_dir).form
        if known == "plain":  # the server refused even the limits: the Cat's plain call
            return self._plain(prompt)
        previous, tried = None, False
        for form in self._forms(endpoint, known, options):
            bound = call_options(model, options, form) if form != "plain" else None
            if not bound:
                break
            if bound == previous:  # a form this model writes the same way as the last
                continue
            previous = bound
            trying: Any = without_retries(model) if form != known else model
            try:
                reply = _reply_text(self._invoke(trying.bind(**bound), prompt))
            except Exception as err:  # refused: the next form; anything else raises
                self._refusal(endpoint, err)
                tried = True
                continue
            if form != known and (options.json_schema is not None or tried):
                BOOK.learn(endpoint, self.data_dir, form=form)
            return reply
        if tried:  # even the limits were refused: the plain call from now on
            BOOK.learn(endpoint, self.data_dir, form="plain")
        return self._plain(prompt)

    def _refusal(self, endpoint: Endpoint, err: Exception) -> None:
        """Raise unless ``err`` refused the form; a refusal stating the window records it and
        raises ``WindowRefused``."""
        if not refused(err):
            raise err
        window = window_from_refusal(str(err))
        if window is not None:
            BOOK.learn(endpoint, self.data_dir, window=window,
                       window_source="the server's refusal of a longer prompt")
            raise WindowRefused(window) from err

    def _forms(self, endpoint: Endpoint, known: str | None, options: CallOptions
               ) -> list[str]:
        """The forms to try, in order: the one the server takes first when it is known."""
        forms = list(FORMS.get(endpoint.family, ("", "plain")))
        if options.json_schema is None or not self.mode:
            return [f for f in forms if f in ("", "plain")]
        if self.mode == "json_object":
            forms = forms[forms.index("json_object"):] if "json_object" in forms else forms
        kind = BOOK.facts(endpoint, self.data_dir).kind
        if kind not in ("openai", "vllm"):
            forms = [f for f in forms if f not in _UNKNOWN_SKIPS or f == known]
        if known in forms:
            forms.remove(known)
            forms.insert(0, known)
        return forms
