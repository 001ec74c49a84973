"""COMPOSITION: the one way the plugin calls the Cat's LLM, counted per request.

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
from collections.abc import Callable, Iterator
from typing import Any

from .lifecycle import Lifecycle, call_abandonably

#: The process's lifecycle: set when the Cat stops (see ``lifecycle``).
LIFECYCLE = Lifecycle()

_current_meter: contextvars.ContextVar[Meter | None] = contextvars.ContextVar(
    "codemem_meter", default=None)


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
        """``llm`` counted on this meter."""

        def counted(prompt: str) -> str:
            self.count(prompt)
            return llm(prompt)

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


def plugin_llm(prompt: str) -> str:
    """The Cat's LLM as the plugin's cores use it: abandoned when the process stops."""
    return call_abandonably(_resolved_llm, prompt, LIFECYCLE.stopping)


def _resolved_llm(prompt: str) -> str:
    return cat_llm(prompt)  # looked up at call time, so tests can replace ``cat_llm``


async def small_model(prompt: str) -> str:
    """``small_model_fn`` of the memory systems: counted on the caller's meter, off the loop.

    A daemon thread runs the call (``asyncio.to_thread`` would use a pool the interpreter joins
    at exit), and the coroutine gives up when the process stops.
    """
    meter = _current_meter.get()
    if meter is not None:
        meter.count(prompt)
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def run() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = plugin_llm(prompt)
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
