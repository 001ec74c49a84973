"""The Cat's chat model as a completer that can ask for JSON natively.

The cores read every structured answer with the tolerant ``llm`` layer whatever the model; this
module adds the optional capability that layer looks for (``complete_json(prompt, schema)``,
found with ``getattr``): OpenAI-compatible chat models (``ChatOpenAI`` and its subclasses, the
Cat's "OpenAI-compatible" and Azure configs) get ``response_format`` (``json_object``, or
``json_schema`` with the reply model's schema), Ollama chat models get ``format="json"``, and any
other model falls back to the plain call. LangChain is imported only inside the calls (the Cat
imports every ``.py`` file of the plugin, and this module must stay cheap and side-effect free).

Used by ``llm_port.PluginLLM`` when the admin turns on "Native JSON mode" (off by default until
native JSON is measured on real models: docs/loop.md, "Models and reasoning models").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol


class Runnable(Protocol):
    """What a bound LangChain chat model offers: ``invoke`` with the messages."""

    def invoke(self, messages: Sequence[object]) -> object: ...


class ChatModel(Protocol):
    """What the plugin uses of a LangChain chat model: call options bound for one request."""

    def bind(self, **options: object) -> Runnable: ...

#: ``json_object``: valid JSON, the schema only in the prompt (widest support);
#: ``json_schema``: the reply model's schema sent too (OpenAI and recent compatible servers).
MODES = ("json_object", "json_schema")


def json_request(model: object, json_schema: Mapping[str, Any], mode: str = "json_object"
                 ) -> dict[str, Any] | None:  # Any: JSON Schema, and the call options' JSON
    """The call options asking ``model`` for JSON, or None when its class cannot be asked."""
    names = {cls.__name__ for cls in type(model).__mro__}
    if "ChatOllama" in names:
        return {"format": "json"}
    if names & {"BaseChatOpenAI", "ChatOpenAI", "AzureChatOpenAI"}:
        if mode == "json_schema":
            return {"response_format": {"type": "json_schema", "json_schema": {
                "name": "answer", "schema": dict(json_schema), "strict": False}}}
        return {"response_format": {"type": "json_object"}}
    return None


def _reply_text(message: object) -> str:
    content = getattr(message, "content", message)
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


class StructuredChatLLM:
    """``str -> str`` through ``plain`` (e.g. the Cat's ``llm``), and ``complete_json`` through
    the chat model ``chat_model()`` returns (resolved at each call: the admin may change it)."""

    def __init__(self, plain: Callable[[str], str], chat_model: Callable[[], ChatModel], *,
                 mode: str = "json_object") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self._plain, self._chat_model, self.mode = plain, chat_model, mode

    def __call__(self, prompt: str) -> str:
        return self._plain(prompt)

    def complete_json(self, prompt: str, json_schema: Mapping[str, Any]) -> str:
        """The model's reply, asked for as JSON when the model supports it."""
        model = self._chat_model()
        options = json_request(model, json_schema, self.mode)
        if options is None:
            return self._plain(prompt)
        from langchain_core.messages import HumanMessage

        return _reply_text(model.bind(**options).invoke([HumanMessage(content=prompt)]))
