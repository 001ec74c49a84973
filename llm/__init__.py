"""Framework-free boundary with language models, shared by ``memory`` and ``codegen``.

Reading structured answers from real model output (reasoning blocks, prose around fences, JSON
slips, truncation, refusals), the bounded retry that quotes a refusal back to the model, and the
prompt template engine. Never imports ``cat``, ``langchain``, ``memory`` or ``codegen``. This is
the package's one entry point for the glue; its names resolve lazily, are never cached here
(``exports.py`` says why) and have their types in the ``TYPE_CHECKING`` block, which a test
keeps equal to ``_EXPORTS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .exports import lazy_exports

_EXPORTS: dict[str, str] = {
    # errors
    "LLMError": ".errors",
    "PromptError": ".errors",
    "ReplyRefused": ".errors",
    # prompts
    "TemplateSet": ".templates",
    "data_block": ".templates",
    "data_blocks": ".templates",
    "draft_blocks": ".templates",
    # reading replies
    "strip_reasoning": ".reasoning",
    "ReplyModel": ".schema",
    "ReplySpec": ".reader",
    "answer_text": ".reader",
    "model_spec": ".reader",
    "read_reply": ".reader",
    # asking
    "Asked": ".retry",
    "Exchange": ".retry",
    "JsonCompleter": ".retry",
    "ask": ".retry",
    # the model steps: each declared once
    "Step": ".steps",
    # wrapping a completer, counting its calls
    "Completer": ".completer",
    "Decorated": ".completer",
    "Meter": ".completer",
    "Metered": ".completer",
    # bounding calls: completion limits, the action's time budget, the context window
    "BoundedCall": ".bounds",
    "CallOptions": ".bounds",
    "TimeBudgetSpent": ".bounds",
    "call": ".bounds",
    "estimate_tokens": ".bounds",
    "PromptTooLong": ".window",
    "TEMPLATE_RESERVE": ".window",
    "fit_prompt": ".window",
    # what a model's server says about itself: its window, the JSON form it takes
    "ASSUMED_WINDOW": ".servers",
    "Endpoint": ".servers",
    "FactsFile": ".servers",
    "ServerFacts": ".servers",
    "read_facts": ".servers",
    "window_from_refusal": ".servers",
    "strict_schema": ".schema",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__package__ or __name__, _EXPORTS)

if TYPE_CHECKING:
    from .bounds import BoundedCall as BoundedCall
    from .bounds import CallOptions as CallOptions
    from .bounds import TimeBudgetSpent as TimeBudgetSpent
    from .bounds import call as call
    from .bounds import estimate_tokens as estimate_tokens
    from .completer import Completer as Completer
    from .completer import Decorated as Decorated
    from .completer import Meter as Meter
    from .completer import Metered as Metered
    from .errors import LLMError as LLMError
    from .errors import PromptError as PromptError
    from .errors import ReplyRefused as ReplyRefused
    from .reader import ReplySpec as ReplySpec
    from .reader import answer_text as answer_text
    from .reader import model_spec as model_spec
    from .reader import read_reply as read_reply
    from .reasoning import strip_reasoning as strip_reasoning
    from .retry import Asked as Asked
    from .retry import Exchange as Exchange
    from .retry import JsonCompleter as JsonCompleter
    from .retry import ask as ask
    from .schema import ReplyModel as ReplyModel
    from .schema import strict_schema as strict_schema
    from .servers import ASSUMED_WINDOW as ASSUMED_WINDOW
    from .servers import Endpoint as Endpoint
    from .servers import FactsFile as FactsFile
    from .servers import ServerFacts as ServerFacts
    from .servers import read_facts as read_facts
    from .servers import window_from_refusal as window_from_refusal
    from .steps import Step as Step
    from .templates import TemplateSet as TemplateSet
    from .templates import data_block as data_block
    from .templates import data_blocks as data_blocks
    from .templates import draft_blocks as draft_blocks
    from .window import TEMPLATE_RESERVE as TEMPLATE_RESERVE
    from .window import PromptTooLong as PromptTooLong
    from .window import fit_prompt as fit_prompt
