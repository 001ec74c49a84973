"""Decorating a completer: one base class for every wrapper around a model, and its usage record.

A completer is ``prompt -> reply``; one that can ask the model for JSON natively also has
``complete_json(prompt, json_schema)``, which ``retry.ask`` looks for with ``getattr``. A wrapper
(counting calls, abandoning a call when the work stops, ...) must keep that capability exactly
when the wrapped completer has it: a wrapper that always had it would promise a native call the
model cannot make, one that never had it would hide it. ``Decorated`` does this once; a wrapper
overrides ``_call``, which runs both kinds of call.

``Meter`` is the usage record of one piece of work (a user's request, a loop run): calls, prompt
characters and the seconds spent waiting for the model, and the action's time budget when one is
started (``begin``). ``Metered`` counts on one, refuses a call once the budget is spent and caps
each call's wait at what is left of it (``llm/bounds.py``).

A completer with ``complete_with(prompt, options)`` (``bounds.CallOptions``: completion limit,
schema, wait) keeps it through every wrapper too, and the wrappers' plain calls go through it
with empty options, so a wrapper that adjusts options (``_prepare``) sees every call.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from .bounds import BoundedCall, CallOptions, TimeBudget

#: ``prompt -> reply``.
Completer = Callable[[str], str]
#: ``complete_json(prompt, json_schema)``; the schema is JSON Schema, hence ``Any`` values.
NativeJson = Callable[[str, Mapping[str, Any]], str]


class Meter:
    """LLM calls, prompt characters and seconds of one piece of work (thread-safe: the loop's
    concurrent steps and the scoring coroutines' threads count on the same meter)."""

    def __init__(self, calls: int = 0) -> None:
        self._lock = threading.Lock()
        self.calls = calls
        self.prompt_chars = 0
        self.seconds = 0.0
        #: the current action's time budget (``begin``), None: unbounded
        self.budget: TimeBudget | None = None

    def begin(self, budget_s: float | None) -> None:
        """A new user action starts: its model calls share ``budget_s`` seconds (None: none)."""
        self.budget = TimeBudget(budget_s) if budget_s else None

    def record(self, prompt: str, seconds: float = 0.0) -> None:
        """One call with ``prompt``, which took ``seconds``."""
        with self._lock:
            self.calls += 1
            self.prompt_chars += len(prompt)
            self.seconds += seconds

    def wrap(self, llm: Completer) -> Metered:
        """``llm`` counted on this meter (its native JSON call too, when it has one)."""
        return Metered(llm, self)


class Decorated:
    """A completer around ``inner``: both kinds of call go through :meth:`_call`, and
    ``complete_json`` exists exactly when ``inner`` has it."""

    complete_json: NativeJson
    complete_with: BoundedCall

    def __init__(self, inner: Completer) -> None:
        self.inner = inner
        bounded = getattr(inner, "complete_with", None)
        native = getattr(inner, "complete_json", None)
        if callable(bounded):
            self.complete_with = lambda prompt, options: self._bounded(bounded, prompt, options)
            self.complete_json = lambda prompt, json_schema: self.complete_with(
                prompt, CallOptions(json_schema=json_schema))
        elif callable(native):
            self.complete_json = lambda prompt, json_schema: self._call(
                lambda text: str(native(text, json_schema)), prompt)

    def __call__(self, prompt: str) -> str:
        if hasattr(self, "complete_with"):
            return self.complete_with(prompt, CallOptions())
        return self._call(self.inner, prompt)

    def _bounded(self, bounded: BoundedCall, prompt: str, options: CallOptions) -> str:
        prompt, options = self._prepare(prompt, options)
        return self._call(lambda text: str(bounded(text, options)), prompt)

    def _prepare(self, prompt: str, options: CallOptions) -> tuple[str, CallOptions]:
        """The prompt and options actually sent (a wrapper may fit or bound them)."""
        return prompt, options

    def _call(self, call: Completer, prompt: str) -> str:
        """Run ``call(prompt)``; a wrapper overrides this (it is called for plain and native
        JSON calls alike)."""
        return call(prompt)


class Metered(Decorated):
    """``inner`` with every call recorded on ``meter`` (failed calls too: they were made)."""

    def __init__(self, inner: Completer, meter: Meter | None = None) -> None:
        super().__init__(inner)
        self.meter = meter if meter is not None else Meter()

    def _prepare(self, prompt: str, options: CallOptions) -> tuple[str, CallOptions]:
        budget = self.meter.budget
        if budget is None:
            return prompt, options
        return prompt, options.with_timeout(budget.check())

    def _call(self, call: Completer, prompt: str) -> str:
        if self.meter.budget is not None:
            self.meter.budget.check()
        start = time.perf_counter()
        try:
            return call(prompt)
        finally:
            self.meter.record(prompt, time.perf_counter() - start)
