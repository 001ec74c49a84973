"""The one way the plugin calls the Cat's LLM, counted per request.

Every call of the plugin (meta-code, drafts, the judge, reviews, relevance scoring, the routing's
tie-break) goes through ``PluginLLM`` or ``small_model``: the Cat's model resolved at call time
(it changes when the admin saves the LLM settings), run so that a stopping process never waits
for it (``lifecycle.call_abandonably``), and counted on the request's ``Meter``
(``llm/completer.py``): the result message's "(N LLM calls)" is every call the request made,
scoring included.

Why a context variable for scoring: the memory systems are shared by every user and take one
``small_model_fn``; the caller sets its meter around a retrieval (``metering``) and the scoring
coroutines, which run in that thread's event loop, see it. Inside a user's turn the calls go to
the turn's own ``cat.llm`` (``turn_scope``), so the Cat lists them in the answer's ``why``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Iterator

from ...llm import Completer, Decorated, Meter
from .lifecycle import LIFECYCLE, call_abandonably
from .structured_llm import ChatModel, StructuredChatLLM

_current_meter: contextvars.ContextVar[Meter | None] = contextvars.ContextVar(
    "codemem_meter", default=None)
_turn_llm: contextvars.ContextVar[Completer | None] = contextvars.ContextVar(
    "codemem_turn_llm", default=None)


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


def cat_chat_model() -> ChatModel:
    """The Cat's LangChain chat model, resolved at call time (for native JSON requests)."""
    from cat.looking_glass.cheshire_cat import CheshireCat  # absent outside the Cat

    model: ChatModel = CheshireCat()._llm
    return model


@contextlib.contextmanager
def turn_scope(cat: object) -> Iterator[None]:
    """Calls made in this block (and in coroutines and abandonable calls it starts) go through
    the turn's own ``cat.llm``, so the Cat lists them in the answer's ``why.model_interactions``.

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


def _current_llm(prompt: str) -> str:
    """The turn's LLM inside ``turn_scope``, else the Cat's (both looked up at call time, so
    tests can replace ``cat_llm``)."""
    turn = _turn_llm.get()
    return str(turn(prompt)) if turn is not None else cat_llm(prompt)


def _chat_model() -> ChatModel:
    return cat_chat_model()  # looked up at call time, so tests can replace ``cat_chat_model``


class PluginLLM(Decorated):
    """The Cat's LLM as the cores use it, every call abandoned when the work must stop.

    With ``native_json`` (a mode of the "Native JSON mode" setting) it also has
    ``complete_json``: the cores then ask for JSON through it (``llm/retry.py``), and a model
    that cannot be asked gets the plain call (``structured_llm``).
    """

    def __init__(self, native_json: str = "") -> None:
        inner: Completer = _current_llm
        if native_json:
            inner = StructuredChatLLM(_shared_llm, _chat_model, mode=native_json)
        super().__init__(inner)
        self.native_json = native_json

    def _call(self, call: Completer, prompt: str) -> str:
        return call_abandonably(call, prompt, LIFECYCLE.stopping)


def _shared_llm(prompt: str) -> str:
    """The Cat's shared LLM, looked up at call time (the native JSON path's plain fallback)."""
    return cat_llm(prompt)


async def small_model(prompt: str) -> str:
    """``small_model_fn`` of the memory systems: counted on the caller's meter, off the loop.

    A daemon thread runs the call (``asyncio.to_thread`` would use a pool the interpreter joins
    at exit), and the coroutine gives up when the process stops.
    """
    meter = _current_meter.get()
    if meter is not None:
        meter.record(prompt)
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()
    context = contextvars.copy_context()  # the turn's LLM, read in the worker thread

    def run() -> None:
        result, error = "", None
        try:
            result = context.run(call_abandonably, _current_llm, prompt, LIFECYCLE.stopping)
        except BaseException as err:  # handed to the awaiting coroutine
            error = err
        try:
            loop.call_soon_threadsafe(_settle, future, result, error)
        except RuntimeError:  # the event loop is gone (a timeout cancelled the wait)
            pass

    threading.Thread(target=run, name="codemem-score-call", daemon=True).start()
    return await future


def _settle(future: asyncio.Future[str], result: str, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)

