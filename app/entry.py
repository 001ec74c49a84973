"""What the Cat calls, one function per hook, tool, form call and override; no logic here.

Each function makes this import of the plugin the live one (``process.GENERATION.claim``), turns
the Cat object into the user's session and this call's ``Turn``, sets the turn's LLM
(``llm_port.turn_scope``: the Cat lists the calls in the answer's ``why``) and hands over to the
part that owns the work: ``chat`` (routing, commands, status, recall, the request form),
``drafting`` (the session) or ``projects``. Nothing here imports ``cat``, so unit tests drive
it with objects shaped like the Cat's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..codegen import extract_details
from ..memory import CodeMemoryError, redact
from .chat.actions import start_request
from .chat.index_jobs import index_at_startup as index_in_background
from .chat.index_jobs import start_indexing as start_index_run
from .chat.recall import VARIABLE as CODE_VARIABLE
from .chat.recall import (
    TurnNotes,
    add_code_section,
    begin_turn,
    code_context,
    widen_declarative_recall,
)
from .chat.recall import after_recall as split_recall
from .chat.recall import notes as turn_notes
from .chat.request_form import STALE_FORM, prefill, stale_form, submitted_request, take_over
from .chat.routing import route_message
from .chat.status import status_report
from .chat.watcher import follow_edits
from .drafting.history import draft_history as history_list
from .drafting.history import redo_draft as history_redo
from .drafting.history import roll_back_draft as history_roll_back
from .drafting.session import Session
from .drafting.structural import propose_or_rename
from .host.cat_cache import cache_folder, set_aside_unreadable
from .host.cat_types import CatForm, CatHost, FormStates, StrayCat, UserMessage
from .host.environment import PLUGIN_ID, missing_settings
from .host.llm_port import turn_scope
from .process import GENERATION, retire_live
from .projects.lookup import search
from .projects.workspace import Turn, UserLink, Workspace

#: The request form's class of this import (``forms.CodeRequestForm``).
FormClass = Callable[[StrayCat], CatForm]
#: The agent's input, which the Cat hands on to the prompt (``before_agent_starts``).
AgentInput = TypeVar("AgentInput")


def session_turn(cat: StrayCat) -> tuple[Session, Turn]:
    """The user's session and this call's turn (this import of the plugin made the live one),
    made once per turn: every hook, tool and form call of the same turn gets the same two."""
    notes = turn_notes()
    key = _call_key(cat)
    if notes.key == key and notes.session is not None and notes.turn is not None:
        return notes.session, notes.turn
    GENERATION.claim()
    turn = Turn.of(cat, GENERATION.registry)
    session = GENERATION.sessions.of(str(cat.user_id), turn.workspace.config.data_dir,
                                     cat.working_memory)
    follow_edits(turn.workspace)
    if notes.key == key:
        notes.session, notes.turn = session, turn
    return session, turn


def _call_key(cat: StrayCat) -> tuple[int, int]:
    """Which call of the Cat this is: its ``StrayCat`` and the message object of the turn."""
    memory = getattr(cat, "working_memory", None)
    return id(cat), id(getattr(memory, "user_message_json", None))


# -- hooks of a chat turn, in the Cat's order ----------------------------------------------------

def read_message(cat: StrayCat, message: UserMessage, form_class: FormClass) -> UserMessage:
    """``before_cat_reads_message``: the turn's one reading of the message, routed by the
    conversation's table (``chat.routing``)."""
    notes = begin_turn()
    notes.key = (id(cat), id(message))
    with turn_scope(cat):
        session, turn = session_turn(cat)
        route_message(cat, session, turn, str(message.text or ""), form_class, notes)
    if isinstance(message.text, str) and redact(message.text) != message.text:
        message.text = redact(message.text)  # a URL's token stays out of the chat history
    return message


def widen_recall(config: dict[str, Any]) -> dict[str, Any]:  # Any: the Cat's recall options
    """``before_cat_recalls_declarative_memories``: a few more, code points go afterwards."""
    return widen_declarative_recall(config)


def after_recall(cat: StrayCat) -> None:
    """``after_cat_recalls_memories``: code out of the ordinary recall."""
    split_recall(cat.working_memory, cat.mad_hatter.procedures, PLUGIN_ID)


def sent_message(message: AgentInput) -> AgentInput:
    """After an answer that leaves something waiting (a question, ordinary chat, a command
    while a proposal or the file question waits), one line saying what still waits."""
    waiting = turn_notes().waiting
    text = getattr(message, "text", None)
    if waiting and isinstance(text, str) and waiting not in text:
        message.text = f"{text}\n\n{waiting}"  # type: ignore[attr-defined]
    return message


def prompt_variables(cat: StrayCat, agent_input: AgentInput) -> AgentInput:
    """``before_agent_starts``: this turn's code context as a prompt variable."""
    with turn_scope(cat):
        context = code_context(lambda: session_turn(cat)[1].workspace.project(), agent_input)
    setattr(agent_input, CODE_VARIABLE, context)
    return agent_input


def prompt_suffix(suffix: str) -> str:
    """``agent_prompt_suffix``: the code context's section, when there is code to show."""
    return add_code_section(suffix)


def fast_reply(cat: StrayCat, reply: dict[str, object]) -> dict[str, object]:
    """``agent_fast_reply``: the plugin's answer decided by the turn's reading, else nothing
    (the Cat answers)."""
    answer = turn_notes().reply
    if answer is not None:
        reply["output"] = answer
    return reply


def end_turn(cat: StrayCat, message: AgentInput) -> AgentInput:
    """``before_cat_sends_message``: the reminder of what waits (``sent_message``), then the
    view of the user's state, as its owner has it now, into the working memory the Cat saves
    right after this hook (the Cat's own thread: the only writer of that view)."""
    sent_message(message)
    if not GENERATION.stale:
        session, _ = session_turn(cat)
        session.publish(cat.working_memory)
    return message


# -- the request form ----------------------------------------------------------------------------

def advance_form(form: CatForm, states: FormStates) -> dict[str, str]:
    """``CodeRequestForm.next``: the Cat started the form itself; the plugin takes the request
    over, as the turn's reading has it."""
    if GENERATION.stale:  # the Cat still holds a form of a retired import of the plugin
        return stale_form(form, states)
    with turn_scope(form.cat):
        session, turn = session_turn(form.cat)
        return take_over(form, states, lambda: start_request(
            session, turn, _request_of(turn_notes(), form.cat, turn.text)))


def _request_of(notes: TurnNotes, cat: StrayCat, text: str) -> dict[str, str]:
    """The request as the turn's reading has it (read here only when no hook of this turn
    read the message: a form the Cat started outside a chat turn)."""
    reading = notes.reading if notes.key == _call_key(cat) else None
    if reading is None:
        return prefill(extract_details(text), text)
    return prefill(reading.details, reading.request_text)


def submit_request(cat: StrayCat, form_data: Mapping[str, object]) -> str:
    """``CodeRequestForm.submit``: the session answers with proposed meta-code."""
    if GENERATION.stale:
        return STALE_FORM
    with turn_scope(cat):
        session, turn = session_turn(cat)
        return propose_or_rename(session, turn, submitted_request(form_data))


# -- tools ---------------------------------------------------------------------------------------

def status(cat: StrayCat) -> str:
    """``code_memory_status``."""
    with turn_scope(cat):
        return status_report(*session_turn(cat), missing_settings(cat))


def start_indexing(cat: StrayCat) -> str:
    """``index_code_repository``: progress and result go to chat."""
    return start_index_run(session_turn(cat)[1], notify=True)


def search_code(cat: StrayCat, question: str) -> str:
    """``search_code``: code relevant to ``question`` (LLM-scored), for the agent."""
    if not (question or "").strip():
        return "Say what code you are looking for."
    with turn_scope(cat):
        _, turn = session_turn(cat)
        try:
            return search(turn.workspace.project(), question)
        except CodeMemoryError as err:
            return f"Cannot search the code: {err}"


def draft_history(cat: StrayCat) -> str:
    """``draft_history``."""
    return history_list(*session_turn(cat))


def roll_back_draft(cat: StrayCat, which: str) -> str:
    """``roll_back_draft``."""
    return history_roll_back(*session_turn(cat), which)


def redo_draft(cat: StrayCat) -> str:
    """``redo_draft``."""
    return history_redo(*session_turn(cat))


# -- the Cat's start-up, and the plugin's activation ---------------------------------------------

def index_at_startup(cheshire_cat: CatHost) -> None:
    """``after_cat_bootstrap``: bring the configured repository's index up to date.

    ``cheshire_cat`` is the ``CheshireCat`` itself: no user, no working memory. Everything but
    reading the settings runs in a thread (``chat.index_jobs``).
    """
    GENERATION.claim()
    folder = cache_folder()
    if folder is not None:  # before the Cat serves anyone: a torn file locks its user out
        set_aside_unreadable(folder)
    workspace = Workspace.of(cheshire_cat, GENERATION.registry)
    index_in_background(Turn(_NoWorkingMemory(), workspace, UserLink(cheshire_cat)))
    follow_edits(workspace)


def activated() -> None:
    """The ``activated`` override: make this import the live one, in a thread (at run time the
    Cat calls this on its event loop, which must not wait)."""
    threading.Thread(target=GENERATION.claim, name="codemem-claim", daemon=True).start()


def deactivated() -> None:
    """The ``deactivated`` override: the live import winds down in the background."""
    retire_live()


class _NoWorkingMemory:
    """The working memory of a call without a user (the Cat at start-up): empty."""

    def get(self, key: str, default: object = None) -> object:
        return default
