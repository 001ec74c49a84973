"""The Cat's chat model as a completer that honours call options: a completion limit, the
answer's schema, a wait.

The cores state what a call may take (``llm/bounds.py``: ``CallOptions``) and read every answer
with the tolerant ``llm`` layer whatever the model; this module maps the options onto the model
class's own parameters (``call_options``) and sends them through ``model.bind(...)``:

* OpenAI-compatible chat models (``ChatOpenAI`` and subclasses: the Cat's "OpenAI-compatible"
  and Azure configs; llama.cpp, LM Studio, vLLM servers): ``max_tokens``, the request
  ``timeout`` (the client disconnects when it passes) and ``response_format``: ``json_schema``
  with the reply model's schema (a grammar on llama.cpp), or ``json_object``;
* Ollama chat models: ``num_predict`` in the model's options and ``format`` (the schema on a
  server that takes one, else ``"json"``);
* Anthropic chat models: ``max_tokens``;
* any other model: the plain call, unbounded (the reply is still read tolerantly).

A server that refuses a request format (HTTP 400/422/500/501 from the client: an old llama.cpp
or Ollama without schema support, a model without JSON mode) gets the next simpler one
(``json_schema`` -> ``json_object`` -> no format -> the Cat's plain call), and the level that
worked is remembered per model (class, address, model name) for the rest of the process.
LangChain is imported only inside the calls (the Cat imports every ``.py`` file of the plugin).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ...llm import CallOptions


class Runnable(Protocol):
    """What a bound LangChain chat model offers: ``invoke`` with the input (a prompt string
    is read as one human message) and an optional run configuration (callbacks)."""

    def invoke(self, input: str, config: Mapping[str, object] | None = None) -> object: ...


class ChatModel(Protocol):
    """What the plugin uses of a LangChain chat model: call options bound for one request."""

    def bind(self, **options: object) -> Runnable: ...


#: ``auto``: the schema first, then JSON mode, then plain, whichever the server accepts;
#: ``json_object``: JSON mode only; ``json_schema``: like ``auto``; ``""``: no JSON request.
MODES = ("", "auto", "json_object", "json_schema")
#: the request formats tried, best first ("": no JSON request, limits only);
#: ``json_object_schema`` is JSON mode with a ``schema`` beside it, the form llama-cpp-python's
#: server takes (it refuses ``json_schema``) and turns into a grammar too
_LEVELS = ("json_schema", "json_object_schema", "json_object", "")
#: HTTP statuses meaning "this server does not take this request" (not a timeout, not a crash)
_REFUSED = frozenset({400, 404, 415, 422, 500, 501})

#: model key -> index into the levels of the simplest request format that worked
_accepted: dict[tuple[str, str, str], int] = {}
_accepted_lock = threading.Lock()

Invoke = Callable[[Runnable, str], object]


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


def call_options(model: object, options: CallOptions, fmt: str = "") -> dict[str, Any]:
    """The ``bind`` options asking ``model`` for ``options`` with request format ``fmt``
    (``json_schema``, ``json_object`` or ``""``); empty when the model takes none of them.
    ``Any``: the call options' JSON."""
    kind = family(model)
    schema = options.json_schema if fmt else None
    out: dict[str, Any] = {}
    if kind == "openai":
        if options.max_tokens:
            out["max_tokens"] = options.max_tokens
        if options.timeout_s:
            out["timeout"] = options.timeout_s
        if schema is not None:
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


def _key(model: object) -> tuple[str, str, str]:
    where = next((str(getattr(model, n)) for n in ("openai_api_base", "base_url", "url")
                  if getattr(model, n, None)), "")
    name = next((str(getattr(model, n)) for n in ("model_name", "model")
                 if getattr(model, n, None)), "")
    return type(model).__name__, where, name


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


class StructuredChatLLM:
    """``str -> str`` through ``plain`` (e.g. the Cat's ``llm``), and ``complete_with`` through
    the chat model ``chat_model()`` returns (resolved at each call: the admin may change it)."""

    def __init__(self, plain: Callable[[str], str], chat_model: Callable[[], ChatModel], *,
                 mode: str = "json_object", invoke: Invoke = invoke_plainly) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self._plain, self._chat_model, self.mode, self._invoke = plain, chat_model, mode, invoke

    def __call__(self, prompt: str) -> str:
        return self.complete_with(prompt, CallOptions())

    def complete_json(self, prompt: str, json_schema: Mapping[str, Any]) -> str:
        """The model's reply, asked for as JSON when the model supports it."""
        return self.complete_with(prompt, CallOptions(json_schema=json_schema))

    def complete_with(self, prompt: str, options: CallOptions) -> str:
        """The reply, asked for with ``options`` in the simplest form the server accepts."""
        try:
            model = self._chat_model()
        except (AttributeError, ImportError):  # a host without a LangChain model: plain call
            return self._plain(prompt)
        if not family(model):
            return self._plain(prompt)
        key = _key(model)
        with _accepted_lock:
            start = _accepted.get(key, 0)
        tried, previous = False, None
        for level in range(max(start, self._first_level(options)), len(_LEVELS)):
            bound = call_options(model, options, _LEVELS[level])
            if not bound:
                break
            if bound == previous:  # a form this model writes the same way as the last
                continue
            previous = bound
            try:
                reply = _reply_text(self._invoke(model.bind(**bound), prompt))
            except Exception as err:  # refused: the next simpler form; anything else raises
                if not refused(err):
                    raise
                tried = True
                continue
            if tried:
                self._remember(key, level)
            return reply
        if tried:  # even the limits were refused: this model gets the plain call from now on
            self._remember(key, len(_LEVELS))
        return self._plain(prompt)

    @staticmethod
    def _remember(key: tuple[str, str, str], level: int) -> None:
        with _accepted_lock:
            _accepted[key] = max(level, _accepted.get(key, 0))

    def _first_level(self, options: CallOptions) -> int:
        if options.json_schema is None or not self.mode:
            return len(_LEVELS) - 1
        return _LEVELS.index("json_object") if self.mode == "json_object" else 0
