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

from ..memory import CodeMemoryError
from .chat.index_jobs import index_at_startup as index_in_background
from .chat.index_jobs import start_indexing as start_index_run
from .chat.recall import VARIABLE as CODE_VARIABLE
from .chat.recall import add_code_section, begin_turn, code_context, widen_declarative_recall
from .chat.recall import after_recall as split_recall
from .chat.recall import notes as turn_notes
from .chat.request_form import STALE_FORM, advance, stale_form, submitted_request
from .chat.routing import direct_answer, route_message
from .chat.status import status_report
from .chat.watcher import follow_edits
from .drafting.history import draft_history as history_list
from .drafting.history import redo_draft as history_redo
from .drafting.history import roll_back_draft as history_roll_back
from .drafting.session import Session
from .drafting.structural import propose_or_rename
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
    """The user's session and this call's turn (this import of the plugin made the live one)."""
    GENERATION.claim()
    session = GENERATION.sessions.of(str(cat.user_id), cat.working_memory)
    turn = Turn.of(cat, GENERATION.registry)
    follow_edits(turn.workspace)
    return session, turn


# -- hooks of a chat turn, in the Cat's order ----------------------------------------------------

def read_message(cat: StrayCat, message: UserMessage, form_class: FormClass) -> UserMessage:
    """``before_cat_reads_message``: report, answer or route the message (``chat.routing``)."""
    notes = begin_turn()
    with turn_scope(cat):
        session, turn = session_turn(cat)
        route_message(cat, session, turn, str(message.text or ""), form_class, notes)
    return message


def widen_recall(config: dict[str, Any]) -> dict[str, Any]:  # Any: the Cat's recall options
    """``before_cat_recalls_declarative_memories``: a few more, code points go afterwards."""
    return widen_declarative_recall(config)


def after_recall(cat: StrayCat) -> None:
    """``after_cat_recalls_memories``: code out of the ordinary recall."""
    split_recall(cat.working_memory, cat.mad_hatter.procedures, PLUGIN_ID)


def sent_message(message: AgentInput) -> AgentInput:
    """After an answer given while a proposal waits (a question, ordinary chat, a command), one
    line saying that it still waits."""
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
    """``agent_fast_reply``: what the plugin answers directly, else nothing (the Cat, or the
    request form routed this turn, answers)."""
    notes = turn_notes()
    answer = notes.reply
    if answer is None and not notes.routed and not notes.waiting:  # an aside: the Cat answers
        with turn_scope(cat):
            answer = direct_answer(*session_turn(cat))
    if answer is not None:
        reply["output"] = answer
    return reply


def end_turn(cat: StrayCat, message: AgentInput) -> AgentInput:
    """``before_cat_sends_message``: the waiting proposal's reminder (``sent_message``), then the
    session's state, as it is now, into the working memory the Cat saves right after this hook
    (a worker may have finished during the turn)."""
    sent_message(message)
    if not GENERATION.stale:
        GENERATION.claim()
        GENERATION.sessions.of(str(cat.user_id), cat.working_memory).publish(cat.working_memory)
    return message


# -- the request form ----------------------------------------------------------------------------

def advance_form(form: CatForm, states: FormStates) -> dict[str, str]:
    """``CodeRequestForm.next``."""
    if GENERATION.stale:  # the Cat still holds a form of a retired import of the plugin
        return stale_form(form, states)
    with turn_scope(form.cat):
        return advance(form, states, session_turn(form.cat)[1].workspace.link_target)


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
