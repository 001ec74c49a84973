"""Framework-free boundary with language models, shared by ``memory`` and ``codegen``.

Reading structured answers from real model output (reasoning blocks, prose around fences, JSON
slips, truncation, refusals), the bounded retry that quotes a refusal back to the model, and the
prompt template engine. Never imports ``cat``, ``langchain``, ``memory`` or ``codegen``. Public
names resolve lazily (PEP 562) so importing the package has no side effects.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "LLMError": ".errors",
    "PromptError": ".errors",
    "ReplyRefused": ".errors",
    "TemplateSet": ".templates",
    "data_block": ".templates",
    "data_blocks": ".templates",
    "draft_blocks": ".templates",
    "strip_reasoning": ".reasoning",
    "ReplyModel": ".schema",
    "ReplySpec": ".reader",
    "model_spec": ".reader",
    "read_reply": ".reader",
    "answer_text": ".reader",
    "Asked": ".retry",
    "Exchange": ".retry",
    "JsonCompleter": ".retry",
    "ask": ".retry",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name, __package__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
