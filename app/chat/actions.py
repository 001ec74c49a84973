"""What the plugin does with a message, once the conversation's table chose (``routing``).

One function per ``codegen.Action``; each answers with the plugin's text (``None``: the Cat
answers) and works only from the turn's one ``Reading``. After the action, a route that says so
adds the reminder of what still waits: the proposal, or the file question.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ...codegen import (
    TIE_BREAK,
    Action,
    Kind,
    Reading,
    RequestDetails,
    Situation,
    Stage,
    parse_tie_break,
    read_turn,
    route,
    tie_break_prompt,
    waiting_line,
)
from ...llm import CallOptions, call
from ...memory import CodeMemoryError
from ..drafting.history import apply_current
from ..drafting.session import Session
from ..drafting.structural import propose_or_rename, structural_change
from ..host.cat_types import StrayCat
from ..host.llm_port import PluginLLM
from ..projects.lookup import defining_file, file_named
from ..projects.workspace import Turn
from .commands import answer_command
from .recall import TurnNotes
from .request_form import FILE_QUESTION, prefill, question_for


@dataclass(frozen=True)
class Call:
    """Everything an action works with: the Cat's call, the user's session, the turn, where
    the user stood and the turn's one reading."""

    cat: StrayCat
    session: Session
    turn: Turn
    situation: Situation
    reading: Reading
    notes: TurnNotes


def perform(call_: Call) -> None:
    """The table's action for the reading, then the reminder the route asks for."""
    reading, session = call_.reading, call_.session
    if reading.kind is not Kind.YES:
        session.clear_pending()  # "Did you mean ...?" is answered once or passed over
    found = route(call_.situation.stage, reading.kind)
    call_.notes.reply = ACTIONS[found.action](call_)
    if found.remind:
        call_.notes.waiting = _reminder(session)


def _reminder(session: Session) -> str:
    state = session.state
    if state.asking:
        what = state.asking.get("symbol") or "your request"
        return (f"I still need a file for {what}: {FILE_QUESTION} (say **cancel** to drop "
                "the request)")
    if state.awaiting_confirmation:
        return waiting_line(str((state.note("metacode") or {}).get("symbol", "")))
    return ""


# -- requests ------------------------------------------------------------------------------------

def _open_request(c: Call) -> str:
    """A new request: proposed at once when its file is known (the index completes it),
    else the file question. Either replaces a waiting proposal or file question."""
    reading = c.reading
    return start_request(c.session, c.turn, prefill(reading.details, reading.request_text))


def start_request(session: Session, turn: Turn, request: Mapping[str, str]) -> str:
    """A request, its target completed from the index: proposed when its file is known, else
    kept waiting for the file question's answer."""
    linked = turn.workspace.link_target(RequestDetails(
        target_path=str(request.get("target_path", "")), symbol=str(request.get("symbol", "")),
        kind=str(request.get("kind", ""))), str(request.get("request", "")))
    request = {**request, **{k: v for k, v in prefill(linked, "").items() if k != "request"}}
    if not request.get("target_path"):
        session.ask_for_file(request)
        return question_for(["target_path"], [])
    return propose_or_rename(session, turn, request)


def _fill_file(c: Call) -> str:
    """The answer to the file question: the waiting request, proposed with that file."""
    answer, asked = c.reading.answer, dict(c.session.state.asking)
    path = ""
    if answer is not None:
        path = answer.path or _resolved(c.turn, answer.module, answer.near)
    if not path:
        return _reask_file(c)
    return start_request(c.session, c.turn, {**asked, "target_path": path})


def _resolved(turn: Turn, module: str, near: str) -> str:
    """The path of a file named by its module ("text_utils") or by a name it defines."""
    try:
        project = turn.workspace.project()
        return file_named(project, module) if module else defining_file(project, near)
    except CodeMemoryError:
        return module


def _reask_file(c: Call) -> str:
    said = " ".join(c.reading.text.split())[:80]
    what = c.session.state.asking.get("symbol") or "the code"
    return (f"I could not find a file in \"{said}\". Which file should {what} go in? Say a "
            "repository-relative path such as `utils/dates.py`, or **cancel** to drop the "
            "request.")


def _tie_break(c: Call) -> str | None:
    """One LLM yes/no for a message that may be a request (only with a repository)."""
    kind = Kind.CHAT
    if c.situation.repository and parse_tie_break(call(
            PluginLLM.of(c.turn.workspace.config), tie_break_prompt(c.reading.text),
            CallOptions(max_tokens=TIE_BREAK.max_tokens))):
        kind = Kind.REQUEST
    decided = replace(c, reading=replace(c.reading, kind=kind))
    found = route(c.situation.stage, kind)
    c.notes.waiting = _reminder(c.session) if found.remind else c.notes.waiting
    return ACTIONS[found.action](decided)


# -- suggestions ----------------------------------------------------------------------------------

def _run_suggestion(c: Call) -> str | None:
    """"yes" to "Did you mean ...?": the command it named, read as if typed."""
    phrase = c.reading.suggestion
    c.session.clear_pending()
    situation = replace(c.situation, suggestion="")
    reading = read_turn(phrase, situation)
    if reading.kind in (Kind.YES, Kind.UNSURE, Kind.CHAT):
        return None
    found = route(situation.stage, reading.kind)
    return ACTIONS[found.action](replace(c, situation=situation, reading=reading))


# -- the rest ------------------------------------------------------------------------------------

def _command(c: Call) -> str | None:
    command = c.reading.command
    return None if command is None else answer_command(c.cat, c.session, c.turn, command)


def _retrieve(c: Call) -> None:
    if c.situation.repository:
        c.notes.question = c.reading.said.core if c.reading.said.escape else c.reading.text
    return None


def _structural(c: Call) -> str | None:
    request = c.reading.structural
    if request is None:
        return None
    return structural_change(c.session, c.turn, request, c.reading.text)


def _resume(c: Call) -> str | None:
    if c.situation.stage is Stage.INTERRUPTED:
        report = c.session.report_interruption(c.turn)
        return c.session.resume(c.turn) or report
    return c.session.resume(c.turn)


def _apply(c: Call) -> str | None:
    return apply_current(c.session, c.turn) if c.situation.has_draft else None


ACTIONS: Mapping[Action, Callable[[Call], str | None]] = {
    Action.CAT: lambda c: None,
    Action.STAY_OUT: lambda c: None,
    Action.RETRIEVE: _retrieve,
    Action.COMMAND: _command,
    Action.ASK_SUGGESTION: lambda c: c.session.ask_suggestion(c.reading.suggestion),
    Action.RUN_SUGGESTION: _run_suggestion,
    Action.OPEN_REQUEST: _open_request,
    Action.TIE_BREAK: _tie_break,
    Action.FILL_FILE: _fill_file,
    Action.REASK_FILE: _reask_file,
    Action.DROP_QUESTION: lambda c: c.session.drop_question(),
    Action.STRUCTURAL: _structural,
    Action.CONFIRM: lambda c: c.session.confirm(c.turn),
    Action.REVISE: lambda c: c.session.revise(c.turn, c.reading.text,
                                              c.reading.details.target_path),
    Action.CANCEL_PROPOSAL: lambda c: c.session.cancel(),
    Action.STOP_DRAFT: lambda c: c.session.stop(),
    Action.LATE_STOP: lambda c: c.session.late_stop(),
    Action.RESUME: _resume,
    Action.APPLY: _apply,
    Action.NO_DRAFT_YET: lambda c: "There is no draft to apply yet.",
    Action.BUSY: lambda c: c.session.busy() or "A draft is running: wait for its result.",
    Action.REPORT_INTERRUPTION: lambda c: c.session.report_interruption(c.turn),
}
