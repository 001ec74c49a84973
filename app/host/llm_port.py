"""The one way the plugin calls the Cat's LLM, counted per request.

Every call of the plugin (meta-code, drafts, the judge, reviews, relevance scoring) goes through
``plugin_llm`` or ``small_model``: the Cat's model resolved at call time (it changes when the
admin saves the LLM settings), run so that a stopping process never waits for it
(``lifecycle.call_abandonably``), and counted on the request's ``Meter``: the result message's
"(N LLM calls)" is every call the request made, scoring included.

Why a context variable for scoring: the memory systems are shared by every user and take one
``small_model_fn``; the caller sets its meter around a retrieval (``metering``) and the scoring
coroutines, which run in that thread's event loop, see it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .lifecycle import LIFECYCLE, call_abandonably
from .structured_llm import StructuredChatLLM

_current_meter: contextvars.ContextVar[Meter | None] = contextvars.ContextVar(
    "codemem_meter", default=None)
_turn_llm: contextvars.ContextVar[Callable[[str], Any] | None] = contextvars.ContextVar(
    "codemem_turn_llm", default=None)


class Meter:
    """LLM calls and prompt characters of one request (thread-safe)."""

    def __init__(self, calls: int = 0) -> None:
        self._lock = threading.Lock()
        self.calls = calls
        self.prompt_chars = 0

    def count(self, prompt: str) -> None:
        with self._lock:
            self.calls += 1
            self.prompt_chars += len(prompt)

    def wrap(self, llm: Callable[[str], str]) -> Callable[[str], str]:
        """``llm`` counted on this meter (its native JSON call too, when it has one)."""
        return _Counted(self, llm)


class _Counted:
    """A completer whose calls are counted on a meter; keeps ``complete_json`` if it has one."""

    def __init__(self, meter: Meter, llm: Callable[[str], str]) -> None:
        self._meter, self._llm = meter, llm
        native = getattr(llm, "complete_json", None)
        if callable(native):
            self.complete_json = self._counted_json(native)

    def __call__(self, prompt: str) -> str:
        self._meter.count(prompt)
        return self._llm(prompt)

    def _counted_json(self, native: Callable[[str, Mapping[str, Any]], str]
                      ) -> Callable[[str, Mapping[str, Any]], str]:
        def counted(prompt: str, json_schema: Mapping[str, Any]) -> str:
            self._meter.count(prompt)
            return native(prompt, json_schema)

        return counted


@contextlib.contextmanager
def metering(meter: Meter | None) -> Iterator[None]:
    """Count the scoring calls made in this block (and in coroutines it starts) on ``meter``."""
    token = _current_meter.set(meter)
    try:
        yield
    finally:
        _current_meter.reset(token)


def cat_llm(prompt: str) -> str:
    """The Cat's LLM, resolved at call time (a singleton the admin may reconfigure)."""
    from cat.looking_glass.cheshire_cat import CheshireCat  # absent outside the Cat

    return str(CheshireCat().llm(prompt))


@contextlib.contextmanager
def turn_scope(cat: Any) -> Iterator[None]:
    """Calls made in this block (and in coroutines it starts) go through the turn's own
    ``cat.llm``, so the Cat lists them in the answer's ``why.model_interactions``.

    Only a user's turn has one (a ``StrayCat``: it has a ``user_id``); work that outlives the
    turn (the draft loop, indexing) runs in threads that start without this scope and use the
    Cat's shared LLM.
    """
    llm = getattr(cat, "llm", None) if getattr(cat, "user_id", None) else None
    token = _turn_llm.set(llm if callable(llm) else None)
    try:
        yield
    finally:
        _turn_llm.reset(token)


def plugin_llm(prompt: str) -> str:
    """The Cat's LLM as the plugin's cores use it: abandoned when the work must stop."""
    return call_abandonably(_llm_for_now(), prompt, LIFECYCLE.stopping)


def _llm_for_now() -> Callable[[str], str]:
    """The turn's LLM inside ``turn_scope``, else the Cat's (read before changing threads)."""
    turn = _turn_llm.get()
    if turn is None:
        return _resolved_llm
    return lambda prompt: str(turn(prompt))


def _resolved_llm(prompt: str) -> str:
    return cat_llm(prompt)  # looked up at call time, so tests can replace ``cat_llm``


def cat_chat_model() -> Any:
    """The Cat's LangChain chat model, resolved at call time (for native JSON requests)."""
    from cat.looking_glass.cheshire_cat import CheshireCat  # absent outside the Cat

    return CheshireCat()._llm


class PluginLLM:
    """``plugin_llm`` with, when ``native_json`` names a mode, ``complete_json``: the cores ask
    for JSON through it (``llm.retry.complete``), and models that cannot be asked get the plain
    call (``structured_llm``). Every call is abandoned when the process stops."""

    def __init__(self, native_json: str = "") -> None:
        self.native_json = native_json
        if native_json:
            self.complete_json = self._complete_json

    def __call__(self, prompt: str) -> str:
        return plugin_llm(prompt)

    def _complete_json(self, prompt: str, json_schema: Mapping[str, Any]) -> str:
        structured = StructuredChatLLM(_resolved_llm, lambda: chat_model(), mode=self.native_json)
        return call_abandonably(lambda text: structured.complete_json(text, json_schema), prompt,
                                LIFECYCLE.stopping)


def chat_model() -> Any:
    return cat_chat_model()  # looked up at call time, so tests can replace ``cat_chat_model``


async def small_model(prompt: str) -> str:
    """``small_model_fn`` of the memory systems: counted on the caller's meter, off the loop.

    A daemon thread runs the call (``asyncio.to_thread`` would use a pool the interpreter joins
    at exit), and the coroutine gives up when the process stops.
    """
    meter = _current_meter.get()
    if meter is not None:
        meter.count(prompt)
    llm = _llm_for_now()
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def run() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = call_abandonably(llm, prompt, LIFECYCLE.stopping)
        except BaseException as err:  # handed to the awaiting coroutine
            error = err
        try:
            loop.call_soon_threadsafe(_settle, future, result, error)
        except RuntimeError:  # the event loop is gone (a timeout cancelled the wait)
            pass

    threading.Thread(target=run, name="codemem-score-call", daemon=True).start()
    return await future


def _settle(future: asyncio.Future[str], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
