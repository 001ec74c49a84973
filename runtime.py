"""COMPOSITION ROOT: what the hooks, tools and form call, one function each.

Holds the process's one ``Registry`` of projects and one ``Sessions`` registry, and turns a Cat
object into a ``Turn`` for them. The routing of a message lives here: a deterministic detector
(``codegen.intent``) decides whether a message is a code request (the request form starts,
pre-filled, in the same turn), a question about the code (the plugin's retrieval goes into the
answer's prompt) or anything else (the Cat answers as usual); only a message the detector finds
ambiguous costs one LLM call to decide. Nothing here imports ``cat`` at module level, so unit
tests drive it with objects shaped like the Cat's.
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Callable
from typing import Any

from .codegen.commands import Command, Found, claimed, detect_command
from .codegen.intent import Detection, Intent, detect_intent, parse_tie_break, tie_break_prompt
from .codegen.intent_signals import candidate_names
from .codegen.refactor.request import read_structural
from .codegen.replies import is_resume
from .codegen.sandbox.api import sandbox_capabilities
from .codegen.sandbox.protect import SandboxPolicy
from .environment import (
    PLUGIN_ID,
    cat_data_dir,
    cat_logger,
    missing_settings,
    requirements_problems,
    save_settings,
)
from .history import apply_if_asked
from .history import draft_history as history_list
from .history import redo_draft as history_redo
from .history import roll_back_draft as history_roll_back
from .lifecycle import LIFECYCLE
from .llm_port import plugin_llm, turn_scope
from .memory.errors import CodeMemoryError
from .process import GENERATION
from .projects import (
    IndexedNames,
    Project,
    defining_file,
    index_project,
    named_in_file,
    retrieve,
    search,
)
from .recall import VARIABLE as CODE_VARIABLE
from .recall import TurnNotes, begin_turn, drop_procedures, recalled_code, split_code_recall
from .recall import notes as turn_notes
from .request_form import ASKED, advance, close_form, prefill, submitted_request
from .session import Session
from .sources import add_source as sources_add
from .sources import index_sources, list_sources, status_lines
from .sources import remove_source as sources_remove
from .structural import structural_change
from .turn import Turn, UserLink, Workspace

log = logging.getLogger(__name__)

#: The commands about associative sources.
SOURCE_COMMANDS = frozenset({Command.ADD_SOURCE, Command.LIST_SOURCES, Command.REMOVE_SOURCE})

#: What a stale import of the plugin answers for a form the Cat still holds.
STALE_FORM = ("This code request was interrupted: the Code Working Memory plugin was switched "
              "off or reloaded. Ask again once it is active.")


def session_turn(cat: Any) -> tuple[Session, Turn]:
    """The user's session and this call's turn (this import of the plugin made the live one)."""
    GENERATION.claim()
    session = GENERATION.sessions.of(str(cat.user_id), cat.working_memory)
    return session, Turn.of(cat, GENERATION.registry)


# -- a chat turn ------------------------------------------------------------------------------

def read_message(cat: Any, message: Any, form_class: Callable[[Any], Any]) -> Any:
    """First hook of a turn: tidy the form, publish the state, report an interrupted task,
    answer a plugin command, or route the message."""
    notes = begin_turn()
    with turn_scope(cat):
        session, turn = session_turn(cat)
        _tidy_form(cat, form_class)
        session.publish(cat.working_memory)
        text = str(getattr(message, "text", "") or "")
        notes.reply = _answer_first(cat, session, turn, text) or _structural(session, turn, text)
        if notes.reply is None and not _form_asks(cat):
            found = detect_intent(text, _index_of(turn))
            if _routable(session, found):
                _route(cat, session, turn, text, found, form_class, notes)
    return message


def _answer_first(cat: Any, session: Session, turn: Turn, text: str) -> str | None:
    """What the plugin answers before any routing: an interrupted task, a plugin command (only
    where it means something: ``codegen.commands.claimed``)."""
    report = session.recover(turn)
    if report is not None:
        return (session.resume(turn) or report) if is_resume(text) else report
    found = detect_command(text)
    if not claimed(found, repository_configured=turn.workspace.repository_configured,
                   has_task=bool(session.state.task_id)):
        return None
    assert found is not None
    if found.command in SOURCE_COMMANDS:
        return _source_command(cat, turn, found)
    return _plugin_command(cat, session, turn, found)


def _structural(session: Session, turn: Turn, text: str) -> str | None:
    """A rename or a move ("rename fmt_ts to format_timestamp"): done by structure, no LLM."""
    if not turn.workspace.repository_configured or session.state.awaiting_confirmation:
        return None
    request = read_structural(text)
    return structural_change(session, turn, request, text) if request is not None else None


def _index_of(turn: Turn) -> IndexedNames | None:
    """What the repository's index knows, for the detector (None: no usable repository)."""
    if not turn.workspace.repository_configured:
        return None
    try:
        return IndexedNames(turn.workspace.project())
    except CodeMemoryError:
        return None


def _tidy_form(cat: Any, form_class: Callable[[Any], Any]) -> None:
    """Clear a closed form (the Cat clears it only in its form agent, which never runs when the
    plugin answers a turn), and move a request form of an earlier import of the plugin onto
    this import's class, so the Cat never calls into retired code."""
    memory = cat.working_memory
    form = memory.get("active_form")
    if form is None:
        return
    if _closed(form):
        memory.active_form = None
    elif _earlier_import_of(form, form_class):
        fresh = form_class(cat)
        for name in ("_state", "_model", "_missing_fields", "_errors", ASKED):
            if hasattr(form, name):
                setattr(fresh, name, getattr(form, name))
        memory.active_form = fresh


def _closed(form: Any) -> bool:
    return str(getattr(getattr(form, "_state", None), "name", "")) == "CLOSED"


def _earlier_import_of(form: Any, form_class: Any) -> bool:
    kind = type(form)
    return (kind is not form_class and kind.__name__ == form_class.__name__
            and kind.__module__.rpartition(".")[2] == form_class.__module__.rpartition(".")[2])


def _form_asks(cat: Any) -> bool:
    """A form waits for this message's answer (ours asking for a detail, or another plugin's)."""
    form = cat.working_memory.get("active_form")
    return form is not None and not _closed(form)


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


def _route(cat: Any, session: Session, turn: Turn, text: str, found: Detection,
           form_class: Callable[[Any], Any], notes: TurnNotes) -> None:
    intent = found.intent
    configured = turn.workspace.repository_configured
    if intent is Intent.AMBIGUOUS:  # the LLM decides, where there is code to talk about
        intent = Intent.OTHER
        if configured and parse_tie_break(plugin_llm(tie_break_prompt(text))):
            intent = Intent.CODE_REQUEST
    if intent is Intent.CODE_REQUEST and session.drafting:
        notes.reply = session.busy()
    elif intent is Intent.CODE_REQUEST:
        form = form_class(cat)
        form._model = prefill(_with_known_path(turn, found.details, text), text)
        cat.working_memory.active_form = form  # its next() runs in this turn
        notes.routed = True
    elif intent is Intent.CODE_QUESTION and configured:
        notes.question = text


def _with_known_path(turn: Turn, details: Any, text: str) -> Any:
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
    return type(details)(target_path=path, symbol=symbol, kind=details.kind)


def _plugin_command(cat: Any, session: Session, turn: Turn, found: Found) -> str | None:
    """A plugin feature named by the message (``codegen.commands``): answered without the
    Cat's tool selection. The draft-history commands belong to users with a task; for anyone
    else they are ordinary words the Cat answers."""
    if found.command is Command.STATUS:
        return status_report(cat)
    if found.command is Command.INDEX:
        return _start_indexing(turn, notify=True)
    if not session.state.task_id:
        return None
    if found.command is Command.HISTORY:
        return history_list(session, turn)
    if found.command is Command.ROLL_BACK:
        return history_roll_back(session, turn, found.argument)
    return history_redo(session, turn)


def _source_command(cat: Any, turn: Turn, found: Found) -> str:
    """"add source ...", "list sources", "remove source ...": answered without the LLM."""
    workspace = turn.workspace
    try:
        project = workspace.project()
    except CodeMemoryError as err:
        return f"Associative sources belong to the configured repository: {err}"
    if found.command is Command.LIST_SOURCES:
        return list_sources(workspace.settings, project)
    if found.command is Command.ADD_SOURCE:
        done = sources_add(workspace.settings, workspace.config.data_dir, found.argument,
                           protected=(cat_data_dir(),))
    else:
        done = sources_remove(workspace.settings, project, found.argument)
    if done.settings_text is not None:
        save_settings(cat, {"associative_sources": done.settings_text})
        workspace.settings = workspace.settings.model_copy(
            update={"associative_sources": done.settings_text})
    if done.reindex:
        _start_indexing(turn, notify=True)
    return done.answer


def fast_reply(cat: Any, reply: dict[str, Any]) -> dict[str, Any]:
    """``agent_fast_reply``: what the session answers directly, else nothing (the Cat, or the
    request form routed this turn, answers)."""
    notes = turn_notes()
    answer = notes.reply
    if answer is None and not notes.routed:
        with turn_scope(cat):
            session, turn = session_turn(cat)
            text = turn.text
            answer = (session.reply(turn, text) or session.stop(text)
                      or (session.resume(turn) if is_resume(text) else None)
                      or apply_if_asked(session, turn, text))
    if answer is not None:
        reply["output"] = answer
    return reply


def after_recall(cat: Any) -> None:
    """Code out of the ordinary recall; on a code question, the plugin's procedures too."""
    split_code_recall(cat.working_memory)
    if turn_notes().question:
        own = {p.name for p in getattr(cat.mad_hatter, "procedures", [])
               if getattr(p, "plugin_id", None) == PLUGIN_ID}
        drop_procedures(cat.working_memory, own)


def prompt_variables(cat: Any, agent_input: Any) -> Any:
    """This turn's code context as a prompt variable (braces stay intact in variables)."""
    notes = turn_notes()
    notes.context = recalled_code()
    if notes.question:
        try:
            with turn_scope(cat):
                project = session_turn(cat)[1].workspace.project()
                memories = retrieve(project, notes.question)
            if memories:
                notes.context = project.code.format_memories_for_prompt(memories)
        except CodeMemoryError as err:
            log.info("no code retrieval for the question: %s", err)
    setattr(agent_input, CODE_VARIABLE, notes.context)
    return agent_input


# -- the form ---------------------------------------------------------------------------------

def advance_form(form: Any, states: Any) -> dict[str, str]:
    if GENERATION.stale:  # the Cat still holds a form of a retired import of the plugin
        close_form(form, states)
        return {"output": STALE_FORM}
    with turn_scope(form.cat):
        return advance(form, states)


def submit_request(cat: Any, form_data: Any) -> str:
    if GENERATION.stale:
        return STALE_FORM
    with turn_scope(cat):
        session, turn = session_turn(cat)
        return session.propose(turn, submitted_request(form_data))


# -- tools ------------------------------------------------------------------------------------

def status_report(cat: Any) -> str:
    """A Markdown status of the plugin for the user: settings, phase, task, environment."""
    session, turn = session_turn(cat)
    settings, state = turn.workspace.settings, session.state
    repo = settings.repository_path or "(not set: choose it in the plugin settings)"
    task = f" (task `{state.task_id}`)" if state.task_id else ""
    lines = [
        "**Code Working Memory**",
        f"- repository: `{repo}`",
        f"- data folder: `{turn.workspace.config.data_dir}`",
        f"- phase: {state.phase.phase.value}{task}"
        + (", draft loop running" if session.drafting else ""),
        f"- git binary: {'found' if shutil.which('git') else 'absent (built-in git is used)'}",
        f"- loop: up to {settings.max_iterations} iterations, tests time out after "
        f"{settings.test_timeout_s} s, sandbox memory {settings.memory_limit_mb} MiB",
        f"- retrieval: threshold {settings.relevance_threshold}, up to "
        f"{settings.max_memories} memories, scoring batch {settings.batch_size}",
        f"- write-back: {settings.write_back.value}",
        f"- finished tasks shared with every user: {'yes' if settings.share_task_notes else 'no'}",
    ]
    lines += _sandbox_lines(settings)
    if turn.workspace.repository_configured:
        try:
            lines += status_lines(turn.workspace.project())
        except CodeMemoryError as err:
            lines.append(f"- warning: the repository cannot be used: {err}")
    if state.task_id and state.task_id in state.scratchpad.tasks():
        lines += ["", state.scratchpad.summary(state.task_id, max_chars=1200)]
    problems = [*turn.workspace.problems, *turn.workspace.config.problems, *state.warnings,
                *requirements_problems()]
    lines += [f"- warning: {problem}" for problem in problems]
    missing = missing_settings(cat)
    if missing:
        shown = ", ".join(missing[:6]) + (", …" if len(missing) > 6 else "")
        lines.append(f"- note: settings.json has no value for {len(missing)} setting(s) "
                     f"({shown}): their defaults are used")
    return "\n".join(lines)


def _sandbox_lines(settings: Any) -> list[str]:
    """The sandbox protections this host gives generated code, and what the policy does."""
    protections = sandbox_capabilities()
    policy = SandboxPolicy[settings.sandbox_policy.name]
    missing = protections.missing(list(policy.required()))
    lines = [f"- sandbox: {protections.summary()} (policy: {settings.sandbox_policy.value})"]
    if missing:
        lines.append("- warning: generated code will not run: the sandbox lacks "
                     f"{protections.explain(missing)}")
    return lines


def status(cat: Any) -> str:
    """The status tool."""
    with turn_scope(cat):
        return status_report(cat)


def start_indexing(cat: Any) -> str:
    """Index the configured repository in a worker thread; progress and result go to chat."""
    return _start_indexing(session_turn(cat)[1], notify=True)


_indexing_guard = threading.Lock()


def _start_indexing(turn: Turn, *, notify: bool) -> str:
    try:
        project = turn.workspace.project()
    except CodeMemoryError as err:
        return f"Cannot index: {err}"
    with _indexing_guard:
        if project.indexing:
            return (f"`{project.root}` is already being indexed; progress appears as "
                    "notifications.")
        project.indexer = GENERATION.start_thread(_index, project, turn.workspace, turn.link,
                                                  notify, name=f"codemem-index-{project.root}")
    return f"Indexing `{project.root}` started; I will report progress and the result here."


def _index(project: Project, workspace: Workspace, link: UserLink, notify: bool) -> None:
    """The repository, then the associative sources (each summary goes to the user)."""

    def say(text: str, kind: str = "notification") -> None:
        if notify:
            link.send(text, kind)

    try:
        say(index_project(project, say), "chat")
        summary = index_sources(project, workspace.settings, workspace.config.data_dir,
                                        say, protected=(cat_data_dir(),))
        if summary:
            say(summary, "chat")
    except Exception as err:  # crash boundary of a background thread: report, never lose
        if LIFECYCLE.stopping.is_set():
            return
        log.exception("indexing %s failed", project.root)
        say(f"Indexing `{project.root}` failed: {type(err).__name__}: {err}", "chat")


def search_code(cat: Any, question: str) -> str:
    """Code relevant to ``question`` from the index (LLM-scored), for the agent."""
    if not (question or "").strip():
        return "Say what code you are looking for."
    with turn_scope(cat):
        _, turn = session_turn(cat)
        try:
            return search(turn.workspace.project(), question)
        except CodeMemoryError as err:
            return f"Cannot search the code: {err}"


def draft_history(cat: Any) -> str:
    return history_list(*session_turn(cat))


def roll_back_draft(cat: Any, which: str) -> str:
    return history_roll_back(*session_turn(cat), which)


def redo_draft(cat: Any) -> str:
    return history_redo(*session_turn(cat))


def index_at_startup(cheshire_cat: Any) -> None:
    """After the Cat boots, bring the index of the configured repository up to date.

    ``cheshire_cat`` is the ``CheshireCat`` itself: no user, no working memory. Everything
    but reading the settings runs in a thread: opening a large project (the store's integrity
    check, the manifest) must not hold up the Cat's boot or its first messages.
    """
    GENERATION.claim()
    turn = Turn(_NoWorkingMemory(), Workspace.of(cheshire_cat, GENERATION.registry),
                UserLink(cheshire_cat))
    if turn.workspace.repository_configured:
        GENERATION.start_thread(_startup_pass, turn, name="codemem-startup")


def _startup_pass(turn: Turn) -> None:
    try:
        cat_logger().info(f"code working memory: {_start_indexing(turn, notify=False)}")
    except Exception:  # crash boundary of a background thread: logged, the Cat runs on
        if not LIFECYCLE.stopping.is_set():
            log.exception("the start-up indexing pass failed")


class _NoWorkingMemory:
    """The working memory of a call without a user (the Cat at start-up)."""

    def get(self, key: str, default: Any = None) -> Any:
        return default
