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

Every call is bounded and fitted (``llm/bounds.py``, ``llm/window.py``): its completion limit
(the step's, or the draft's, ``GENERATE``, for a plain call), its prompt measured and fitted
into the model's context window before it is sent (the "Context window (tokens)" setting when
it holds a number; with ``auto``, the window the model's server says, ``model_server``; a
refusal that states a smaller one is recorded and the call fitted again, once), and its wait
capped by the action's time budget; ``structured_llm`` maps all of it onto the Cat's model. A
call the plugin gives up on is not left running where the client can end it: the request
timeout makes the HTTP client disconnect (docs/model-calls.md says which servers then stop
generating).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Protocol

from ...codegen import GENERATE
from ...llm import BoundedCall, CallOptions, Completer, Decorated, Meter, fit_prompt
from .lifecycle import LIFECYCLE, call_abandonably
from .model_server import Window, window_for
from .structured_llm import (
    ChatModel,
    Runnable,
    StructuredChatLLM,
    WindowRefused,
    invoke_plainly,
)

_current_meter: contextvars.ContextVar[Meter | None] = contextvars.ContextVar(
    "codemem_meter", default=None)
_turn_llm: contextvars.ContextVar[Completer | None] = contextvars.ContextVar(
    "codemem_turn_llm", default=None)
_turn_cat: contextvars.ContextVar[object | None] = contextvars.ContextVar(
    "codemem_turn_cat", default=None)


class ModelUse(Protocol):
    """How the plugin's calls use the model (``PluginConfig`` and ``ProjectConfig`` fit)."""

    @property
    def native_json(self) -> str: ...

    @property
    def window(self) -> int | None: ...

    @property
    def data_dir(self) -> str: ...

    @property
    def reasoning_tokens(self) -> int: ...


_model_use: contextvars.ContextVar[ModelUse | None] = contextvars.ContextVar(
    "codemem_model_use", default=None)


@contextlib.contextmanager
def metering(meter: Meter | None, model: ModelUse | None = None) -> Iterator[None]:
    """Count the scoring calls made in this block (and in coroutines it starts) on ``meter``
    (within its action's time budget), and make them as ``model`` says (window, JSON mode)."""
    token = _current_meter.set(meter)
    model_token = _model_use.set(model)
    try:
        yield
    finally:
        _model_use.reset(model_token)
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
    cat_token = _turn_cat.set(cat if callable(llm) else None)
    try:
        yield
    finally:
        _turn_cat.reset(cat_token)
        _turn_llm.reset(token)


def _current_llm(prompt: str) -> str:
    """The turn's LLM inside ``turn_scope``, else the Cat's (both looked up at call time, so
    tests can replace ``cat_llm``)."""
    turn = _turn_llm.get()
    return str(turn(prompt)) if turn is not None else cat_llm(prompt)


def _chat_model() -> ChatModel:
    return cat_chat_model()  # looked up at call time, so tests can replace ``cat_chat_model``


def _invoke(runnable: Runnable, prompt: str) -> object:
    """One bound call of the Cat's chat model; inside a turn with the Cat's own callback, so
    the answer's ``why`` lists it as ``cat.llm`` would."""
    cat = _turn_cat.get()
    if cat is None:
        return invoke_plainly(runnable, prompt)
    try:
        from cat.looking_glass.callbacks import ModelInteractionHandler
    except ImportError:  # another Cat version: the call, without the listing
        return invoke_plainly(runnable, prompt)
    handler = ModelInteractionHandler(cat, "CodeWorkingMemory")
    return runnable.invoke(prompt, config={"callbacks": [handler]})


class PluginLLM(Decorated):
    """The Cat's LLM as the cores use it: bounded, fitted into ``window``, abandoned when the
    work must stop.

    ``native_json`` (a mode of the "Native JSON mode" setting) says how structured calls ask
    for JSON (``structured_llm``); a model that cannot be asked gets the plain call. A plain
    call (a draft, the tie-break) carries ``plain_tokens`` unless it states its own limit.
    """

    def __init__(self, native_json: str = "", *, window: int | None = None,
                 data_dir: str = "", plain_tokens: int = GENERATE.max_tokens,
                 extra_tokens: int = 0) -> None:
        self.structured = StructuredChatLLM(_current_llm, _chat_model, mode=native_json,
                                            invoke=_invoke, data_dir=data_dir)
        super().__init__(self.structured)
        self.native_json, self.window, self.plain_tokens = native_json, window, plain_tokens
        self.data_dir, self.extra_tokens = data_dir, extra_tokens

    @classmethod
    def of(cls, model: ModelUse | None) -> PluginLLM:
        """The plugin's LLM as ``model`` says (the defaults' without one)."""
        if model is None:
            return cls("auto")
        return cls(model.native_json, window=model.window, data_dir=model.data_dir,
                   extra_tokens=model.reasoning_tokens)

    def current_window(self) -> Window:
        """The window this call is fitted into, and where the number came from."""
        return window_for(self.structured.model(), self.window, self.data_dir)

    def _prepare(self, prompt: str, options: CallOptions) -> tuple[str, CallOptions]:
        limit = (options.max_tokens or self.plain_tokens) + self.extra_tokens
        fitted = fit_prompt(prompt, replace(options, max_tokens=limit),
                            self.current_window().tokens)
        return fitted.prompt, fitted.options

    def _bounded(self, bounded: BoundedCall, prompt: str, options: CallOptions) -> str:
        """The call; refused as longer than a window the server then stated, fitted into that
        window and made once more."""
        try:
            return super()._bounded(bounded, prompt, options)
        except WindowRefused:
            if self.window:  # the setting's number: the user's to change (the advice says so)
                raise
            return super()._bounded(bounded, prompt, options)

    def _call(self, call: Completer, prompt: str) -> str:
        return call_abandonably(call, prompt, LIFECYCLE.stopping)


def model_window(model: ModelUse | None) -> Window:
    """The window the plugin's calls are fitted into now, and where it came from (the status
    report and the advice say it)."""
    return PluginLLM.of(model).current_window()


def server_form(model: ModelUse | None) -> str:
    """The JSON form the model's server takes, in words ("" while not known)."""
    llm = PluginLLM.of(model)
    facts = llm.structured.facts()
    if facts is None or facts.form is None:
        return "its form is found at the first structured call" if facts else ""
    return {"": "limits only: the server takes no JSON form",
            "plain": "the server takes no call options"}.get(
        facts.form, f"{facts.kind or 'the server'} takes {facts.form}")


class SmallModel:
    """``small_model_fn`` of the memory systems: counted on the caller's meter (within its
    action's time budget), bounded and fitted like every plugin call, run off the event loop.

    A daemon thread runs the call (``asyncio.to_thread`` would use a pool the interpreter joins
    at exit), and the coroutine gives up when the process stops. The scoring core passes each
    call's limit, schema and wait through ``complete_with`` (``llm/bounds.py``).
    """

    async def __call__(self, prompt: str) -> str:
        return await self.complete_with(prompt, CallOptions())

    async def complete_with(self, prompt: str, options: CallOptions) -> str:
        meter = _current_meter.get()
        if meter is not None and meter.budget is not None:
            options = options.with_timeout(meter.budget.check("scoring the code found"))
        llm = PluginLLM.of(_model_use.get())
        if meter is not None:
            meter.record(prompt)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()
        context = contextvars.copy_context()  # the turn's LLM, read in the worker thread

        def run() -> None:
            result, error = "", None
            try:
                result = context.run(llm.complete_with, prompt, options)
            except BaseException as err:  # handed to the awaiting coroutine
                error = err
            try:
                loop.call_soon_threadsafe(_settle, future, result, error)
            except RuntimeError:  # the event loop is gone (a timeout cancelled the wait)
                pass

        threading.Thread(target=run, name="codemem-score-call", daemon=True).start()
        return await future


#: the memory systems' ``small_model_fn`` (one for every project)
small_model = SmallModel()


def _settle(future: asyncio.Future[str], result: str, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)

