"""What one model call may take: its completion limit, its schema, its wait; the action's budget.

A completer is ``prompt -> reply``. One that can honour call options also has
``complete_with(prompt, options)`` (found with ``getattr``, like ``complete_json``): the glue maps
:class:`CallOptions` onto the model's own parameters (``max_tokens``, ``num_predict``,
``response_format``, the request timeout). The cores only state plain numbers: each step states
its limit where it is declared (``steps.Step``); a structured step's travels on its
``ReplySpec`` (``max_tokens``), a plain call states its own (:func:`call`).

:class:`TimeBudget` bounds the time one user action (a question, a request, a draft run) may
spend waiting for the model, on top of the retry counts: a retry that would start after the
budget is spent is not made, and the message says what the budget was.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .errors import LLMError


@dataclass(frozen=True)
class CallOptions:
    """What one call asks of the model besides its prompt (None: the model's own default)."""

    #: completion tokens the reply may take
    max_tokens: int | None = None
    #: JSON Schema of the answer, for models that can constrain their output to one
    json_schema: Mapping[str, Any] | None = None  # Any: JSON Schema values
    #: seconds the call may take; the client gives up (and disconnects) after them
    timeout_s: float | None = None
    #: names and words of the step's goal: what fitting the prompt into the window keeps
    #: first (``window.fit_prompt``)
    focus: tuple[str, ...] = ()

    def with_timeout(self, seconds: float) -> CallOptions:
        """These options with a wait no longer than ``seconds``."""
        if self.timeout_s is not None and self.timeout_s <= seconds:
            return self
        return replace(self, timeout_s=max(0.001, seconds))


#: ``complete_with(prompt, options)``
BoundedCall = Callable[[str, CallOptions], str]


def call(llm: Callable[[str], Any], prompt: str, options: CallOptions = CallOptions()) -> Any:
    """Call ``llm`` with ``options`` where it accepts them: ``complete_with`` when it has it,
    else ``complete_json`` for a call with a schema, else the plain call (the reply is read
    tolerantly whatever the path). ``Any``: a sync reply or an awaitable one (scoring)."""
    bounded = getattr(llm, "complete_with", None)
    if callable(bounded):
        return bounded(prompt, options)
    native = getattr(llm, "complete_json", None)
    if callable(native) and options.json_schema is not None:
        return native(prompt, options.json_schema)
    return llm(prompt)


def estimate_tokens(text: str) -> int:
    """A conservative token count without the model's tokenizer: one token per 3 characters
    (code and prose run at 3.5-4.5 with common tokenizers), or per 2 bytes of non-ASCII text."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    other_bytes = len(text.encode("utf-8")) - ascii_chars
    return math.ceil(ascii_chars / 3 + other_bytes / 2)


class TimeBudgetSpent(LLMError):
    """The action's time budget for model calls is spent: no further call is made."""


class TimeBudget:
    """Seconds one user action may spend waiting for the model (thread-safe, monotonic)."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._deadline = clock() + seconds

    def remaining(self) -> float:
        with self._lock:
            return self._deadline - self._clock()

    def check(self, what: str = "a model call") -> float:
        """The seconds left, or ``TimeBudgetSpent`` when none are."""
        left = self.remaining()
        if left <= 0:
            raise TimeBudgetSpent(
                f"the time budget for model calls ({self.describe()}) was spent before "
                f"{what}")
        return left

    def describe(self) -> str:
        return f"{self.seconds:g} s per action"
