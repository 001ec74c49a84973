"""Routing a chat message: one reading, one rule, one answer.

The first hook of a turn reads the message once (``codegen.read_turn``), given where the user
stands (``Session.situation``: a file question asked, a proposal waiting, a draft running or
interrupted, a task ended), looks the (stage, kind) pair up in the conversation's table
(``codegen.route``: the README's "Conversation rules") and performs the action here
(``actions``). What the plugin answers is in ``notes.reply`` for ``agent_fast_reply``; a
question about the code leaves ``notes.question`` for the recall hooks; an answer that leaves
something waiting gets its reminder in ``notes.waiting``. Every later hook uses these notes and
never reads the message again. Only a message the reading leaves uncertain costs one LLM call
(the tie-break), and only with a repository.
"""

from __future__ import annotations

from collections.abc import Callable

from ...codegen import read_turn
from ..drafting.session import Session
from ..host.cat_types import CatForm, StrayCat
from ..projects.lookup import IndexedNames
from ..projects.workspace import Turn
from .actions import Call, perform
from .recall import TurnNotes
from .request_form import adopt_form, foreign_form_waits


def route_message(cat: StrayCat, session: Session, turn: Turn, text: str,
                  form_class: Callable[[StrayCat], CatForm], notes: TurnNotes) -> None:
    """The first hook of a turn (see the module docstring)."""
    adopt_form(cat, form_class, session)
    situation = session.situation(repository=turn.workspace.repository_configured,
                                  foreign_form=foreign_form_waits(cat.working_memory,
                                                                  form_class))
    reading = read_turn(text, situation, _index_of(turn))
    notes.reading = reading
    perform(Call(cat, session, turn, situation, reading, notes))


def _index_of(turn: Turn) -> IndexedNames | None:
    """What the repository's index knows, for the reading (None: no usable repository). The
    project opens only if the message has names to look up, and is not waited for while the
    start-up pass builds it (the words alone decide meanwhile)."""
    if not turn.workspace.repository_configured:
        return None
    return IndexedNames(turn.workspace.project_unless_building)
