"""Routing a chat message: what the plugin answers itself, and what it leaves to the Cat.

In order: an interrupted task is reported; a plugin command is answered (``commands``); a rename
or a move is done by structure; otherwise a deterministic detector (``codegen.reading.intent``,
which asks the repository's index about the message's names in one lookup) decides whether the
message is a code request (the request form starts, pre-filled, in the same turn), a question about
the code (the plugin's retrieval goes into the answer's prompt) or anything else (the Cat answers as
usual). Only a message the detector finds ambiguous costs one LLM call, and only with a
repository. While proposed meta-code waits, the message is a reply to it ("go", "cancel", a
correction) unless it asks for another target or is an aside (``codegen.reply_aside``): a
command, a question about the code, ordinary chat or "apply" is answered as such, and the answer
says that the proposal still waits. ``/code ...`` always starts a code request and ``/ask ...``
always asks about the code (``codegen.reading.utterance``).
"""

from __future__ import annotations

from collections.abc import Callable

from ...codegen import (
    TIE_BREAK,
    Aside,
    Detection,
    Intent,
    RequestDetails,
    candidate_names,
    detect_intent,
    is_resume,
    parse_tie_break,
    read_structural,
    read_utterance,
    reply_aside,
    tie_break_prompt,
    waiting_line,
)
from ...llm import CallOptions, call
from ...memory import CodeMemoryError
from ..drafting.history import apply_if_asked
from ..drafting.session import Session
from ..drafting.structural import structural_change
from ..host.cat_types import CatForm, StrayCat
from ..host.llm_port import PluginLLM
from ..projects.lookup import IndexedNames, defining_file, named_in_file
from ..projects.workspace import Turn
from .commands import answer_command
from .recall import TurnNotes
from .request_form import form_asks, prefill, tidy_form


def route_message(cat: StrayCat, session: Session, turn: Turn, text: str,
                  form_class: Callable[[StrayCat], CatForm], notes: TurnNotes) -> None:
    """The first hook of a turn: tidy the form, publish the state, then answer (``notes.reply``)
    or route the message."""
    tidy_form(cat, form_class)
    session.publish(cat.working_memory)
    notes.reply = _answer_first(cat, session, turn, text) or _structural(session, turn, text)
    if notes.reply is not None:
        if session.state.awaiting_confirmation:  # a command answered: the proposal waits
            notes.waiting = _waiting(session)
    elif not form_asks(cat.working_memory):
        found = detect_intent(text, _index_of(turn))
        if _routable(session, found):
            _route(cat, session, turn, text, found, form_class, notes)
        elif session.state.awaiting_confirmation:
            _aside(session, turn, text, found, notes)


def _aside(session: Session, turn: Turn, text: str, found: Detection,
           notes: TurnNotes) -> None:
    """A message that is no reply to the waiting proposal is answered as what it is; the
    proposal keeps waiting, and the answer says so (``hooks.before_cat_sends_message``)."""
    aside = reply_aside(text, found)
    if aside is Aside.NONE:
        return
    notes.waiting = _waiting(session)
    if aside is Aside.APPLY:
        notes.reply = "There is no draft to apply yet."
    elif aside is Aside.QUESTION and turn.workspace.repository_configured:
        notes.question = read_utterance(text).core


def _waiting(session: Session) -> str:
    return waiting_line(str((session.state.note("metacode") or {}).get("symbol", "")))


def direct_answer(session: Session, turn: Turn) -> str | None:
    """What the session answers without the Cat's agent: a reply to proposed meta-code,
    "stop", "continue", "apply" (``None``: the Cat answers)."""
    text = turn.text
    return (session.reply(turn, text) or session.stop(text)
            or (session.resume(turn) if is_resume(text) else None)
            or apply_if_asked(session, turn, text))


def _answer_first(cat: StrayCat, session: Session, turn: Turn, text: str) -> str | None:
    """An interrupted task ("continue" resumes it), else a plugin command."""
    report = session.recover(turn)
    if report is not None:
        return (session.resume(turn) or report) if is_resume(text) else report
    return answer_command(cat, session, turn, text)


def _structural(session: Session, turn: Turn, text: str) -> str | None:
    """A rename or a move ("rename fmt_ts to format_timestamp"): done by structure, no LLM."""
    if not turn.workspace.repository_configured or session.state.awaiting_confirmation:
        return None
    request = read_structural(text)
    return structural_change(session, turn, request, text) if request is not None else None


def _index_of(turn: Turn) -> IndexedNames | None:
    """What the repository's index knows, for the detector (None: no usable repository). The
    project opens only if the message has names to look up, and is not waited for while the
    start-up pass builds it (the words alone decide meanwhile)."""
    if not turn.workspace.repository_configured:
        return None
    return IndexedNames(turn.workspace.project_unless_building)


def _routable(session: Session, found: Detection) -> bool:
    """Whether the message may start something new: anything, except a reply to proposed
    meta-code ("go", "cancel", a correction); a request for another target is not a reply."""
    state = session.state
    if not state.awaiting_confirmation:
        return True
    if found.intent is not Intent.CODE_REQUEST:
        return False
    pending = state.note("metacode") or {}
    named = ((found.details.target_path, "target_path"), (found.details.symbol, "symbol"))
    return any(value and value.rpartition(".")[2]
               != str(pending.get(key, "")).rpartition(".")[2] for value, key in named)


def _route(cat: StrayCat, session: Session, turn: Turn, text: str, found: Detection,
           form_class: Callable[[StrayCat], CatForm], notes: TurnNotes) -> None:
    intent = found.intent
    configured = turn.workspace.repository_configured
    if intent is Intent.AMBIGUOUS:  # the LLM decides, where there is code to talk about
        intent = Intent.OTHER
        if configured and parse_tie_break(call(
                PluginLLM.of(turn.workspace.config), tie_break_prompt(text),
                CallOptions(max_tokens=TIE_BREAK.max_tokens))):
            intent = Intent.CODE_REQUEST
    if intent is Intent.CODE_REQUEST and session.drafting:
        notes.reply = session.busy()
    elif intent is Intent.CODE_REQUEST:
        text = read_utterance(text).core if found.escaped else text
        form = form_class(cat)
        form._model = prefill(_with_known_path(turn, found.details, text), text)
        cat.working_memory.active_form = form  # its next() runs in this turn
        notes.routed = True
    elif intent is Intent.CODE_QUESTION and configured:
        notes.question = read_utterance(text).core if found.escaped else text


def _with_known_path(turn: Turn, details: RequestDetails, text: str) -> RequestDetails:
    """Complete the details from the index: the file of a symbol it knows in exactly one file
    ("fix parse_date"; for a new method, its class's file), or the one name the message uses
    that the named file defines ("add a timeout parameter to fetch in net/http.py")."""
    path, symbol = details.target_path, details.symbol
    if (path and symbol) or not (path or symbol) or not turn.workspace.repository_configured:
        return details
    try:
        project = turn.workspace.project()
        if path:
            symbol = named_in_file(project, path, [n for n in candidate_names(text) if n != path])
        else:
            path = defining_file(project, symbol)
    except CodeMemoryError:
        return details
    return RequestDetails(target_path=path, symbol=symbol, kind=details.kind)
