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
import os
import shutil
import threading
from collections.abc import Callable
from typing import Any

from . import history, recall, request_form, sources
from .codegen.commands import Command, Found, detect_command
from .codegen.intent import Intent, detect_intent, parse_tie_break, tie_break_prompt
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
from .lifecycle import kill_children
from .llm_port import LIFECYCLE, plugin_llm
from .memory.errors import CodeMemoryError
from .projects import Project, Registry, index_project, retrieve, search
from .session import Session, Sessions
from .turn import Turn, UserLink, Workspace

log = logging.getLogger(__name__)

REGISTRY = Registry()
SESSIONS = Sessions()

#: Processes the plugin starts, recognised on the command line at shutdown.
CHILD_MARKERS = (os.path.join(os.path.dirname(os.path.abspath(__file__)), "codegen",
                              "sandbox", "boot.py"), "_codemem_extract_worker")


_shutdown_guard = threading.Lock()
_shutdown_hooked: list[bool] = []


def _ensure_shutdown_hook() -> None:
    """Once per process, at first use (the Cat imports every module: never at import)."""
    with _shutdown_guard:
        if _shutdown_hooked:
            return
        _shutdown_hooked.append(True)
    LIFECYCLE.on_shutdown("stop draft loops", SESSIONS.stop_all)
    LIFECYCLE.on_shutdown("kill sandboxes and parser workers", _kill_children)
    LIFECYCLE.on_shutdown("close projects", REGISTRY.close_all)
    LIFECYCLE.install()


def _kill_children() -> None:
    kill_children(CHILD_MARKERS, REGISTRY.data_folders())


def session_turn(cat: Any) -> tuple[Session, Turn]:
    """The user's session and this call's turn."""
    _ensure_shutdown_hook()
    session = SESSIONS.of(str(cat.user_id), cat.working_memory)
    return session, Turn.of(cat, REGISTRY)


# -- a chat turn ------------------------------------------------------------------------------

def read_message(cat: Any, message: Any, form_class: Callable[[Any], Any]) -> Any:
    """First hook of a turn: publish the state, report an interrupted task, route the message."""
    notes = recall.begin_turn()
    session, turn = session_turn(cat)
    session.publish(cat.working_memory)
    text = str(getattr(message, "text", "") or "")
    report = session.recover(turn)
    if report is not None:
        notes.reply = (session.resume(turn) or report) if is_resume(text) else report
        return message
    command = sources.parse_command(text)
    if command is not None:
        notes.reply = _source_command(cat, turn, *command)
        return message
    found = detect_command(text)
    if found is not None:
        notes.reply = _plugin_command(cat, session, turn, found)
        if notes.reply is not None:
            return message
    busy = (session.state.awaiting_confirmation or session.drafting
            or cat.working_memory.get("active_form") is not None)
    if not busy:
        _route(cat, session, turn, text, form_class, notes)
    return message


def _route(cat: Any, session: Session, turn: Turn, text: str,
           form_class: Callable[[Any], Any], notes: recall.TurnNotes) -> None:
    found = detect_intent(text)
    intent = found.intent
    if intent is Intent.AMBIGUOUS:
        reply = plugin_llm(tie_break_prompt(text))
        intent = Intent.CODE_REQUEST if parse_tie_break(reply) else Intent.OTHER
    if intent is Intent.CODE_REQUEST:
        form = form_class(cat)
        form._model = request_form.prefill(_with_known_path(turn, found.details), text)
        cat.working_memory.active_form = form  # its next() runs in this turn
    elif intent is Intent.CODE_QUESTION and turn.workspace.repository_configured:
        notes.question = text


def _with_known_path(turn: Turn, details: Any) -> Any:
    """Fill the file of a symbol the index knows in exactly one file ("fix parse_date")."""
    if details.target_path or not details.symbol or not turn.workspace.repository_configured:
        return details
    try:
        project = turn.workspace.project()
    except CodeMemoryError:
        return details
    name = details.symbol.split(".")[-1]
    found = project.code.list_memories({"type": "code_entity", "name": name})
    paths = {str((m.get("metadata") or {}).get("path", "")) for m in found} - {""}
    if len(paths) != 1:
        return details
    return type(details)(target_path=paths.pop(), symbol=details.symbol, kind=details.kind)


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
        return history.draft_history(session, turn)
    if found.command is Command.ROLL_BACK:
        return history.roll_back_draft(session, turn, found.argument)
    return history.redo_draft(session, turn)


def _source_command(cat: Any, turn: Turn, verb: str, argument: str) -> str:
    """"add source ...", "list sources", "remove source ...": answered without the LLM."""
    workspace = turn.workspace
    try:
        project = workspace.project()
    except CodeMemoryError as err:
        return f"Associative sources belong to the configured repository: {err}"
    if verb == "list":
        return sources.list_sources(workspace.settings, project)
    if verb == "add":
        done = sources.add_source(workspace.settings, workspace.config.data_dir, argument,
                                  protected=(cat_data_dir(),))
    else:
        done = sources.remove_source(workspace.settings, project, argument)
    if done.settings_text is not None:
        save_settings(cat, {"associative_sources": done.settings_text})
        workspace.settings = workspace.settings.model_copy(
            update={"associative_sources": done.settings_text})
    if done.reindex:
        _start_indexing(turn, notify=True)
    return done.answer


def fast_reply(cat: Any, reply: dict[str, Any]) -> dict[str, Any]:
    """``agent_fast_reply``: what the session answers directly, else nothing (the Cat answers)."""
    notes = recall.notes()
    answer = notes.reply
    if answer is None:
        session, turn = session_turn(cat)
        text = turn.text
        answer = (session.reply(turn, text) or session.stop(text)
                  or (session.resume(turn) if is_resume(text) else None)
                  or history.apply_if_asked(session, turn, text))
    if answer is not None:
        reply["output"] = answer
    return reply


def after_recall(cat: Any) -> None:
    """Code out of the ordinary recall; on a code question, the plugin's procedures too."""
    recall.split_code_recall(cat.working_memory)
    if recall.notes().question:
        own = {p.name for p in getattr(cat.mad_hatter, "procedures", [])
               if getattr(p, "plugin_id", None) == PLUGIN_ID}
        recall.drop_procedures(cat.working_memory, own)


def prompt_variables(cat: Any, agent_input: Any) -> Any:
    """This turn's code context as a prompt variable (braces stay intact in variables)."""
    notes = recall.notes()
    notes.context = recall.recalled_code()
    if notes.question:
        try:
            project = Turn.of(cat, REGISTRY).workspace.project()
            memories = retrieve(project, notes.question)
            if memories:
                notes.context = project.code.format_memories_for_prompt(memories)
        except CodeMemoryError as err:
            log.info("no code retrieval for the question: %s", err)
    setattr(agent_input, recall.VARIABLE, notes.context)
    return agent_input


# -- the form ---------------------------------------------------------------------------------

def advance_form(form: Any, states: Any) -> dict[str, str]:
    return request_form.advance(form, states)


def submit_request(cat: Any, form_data: Any) -> str:
    session, turn = session_turn(cat)
    return session.propose(turn, request_form.submitted_request(form_data))


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
            lines += sources.status_lines(turn.workspace.project())
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
        project.indexer = threading.Thread(target=_index,
                                           args=(project, turn.workspace, turn.link, notify),
                                           name=f"codemem-index-{project.root}", daemon=True)
        project.indexer.start()
    return f"Indexing `{project.root}` started; I will report progress and the result here."


def _index(project: Project, workspace: Workspace, link: UserLink, notify: bool) -> None:
    """The repository, then the associative sources (each summary goes to the user)."""

    def say(text: str, kind: str = "notification") -> None:
        if notify:
            link.send(text, kind)

    try:
        say(index_project(project, say), "chat")
        summary = sources.index_sources(project, workspace.settings, workspace.config.data_dir,
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
    _, turn = session_turn(cat)
    try:
        return search(turn.workspace.project(), question)
    except CodeMemoryError as err:
        return f"Cannot search the code: {err}"


def draft_history(cat: Any) -> str:
    return history.draft_history(*session_turn(cat))


def roll_back_draft(cat: Any, which: str) -> str:
    return history.roll_back_draft(*session_turn(cat), which)


def redo_draft(cat: Any) -> str:
    return history.redo_draft(*session_turn(cat))


def index_at_startup(cheshire_cat: Any) -> None:
    """After the Cat boots, bring the index of the configured repository up to date.

    ``cheshire_cat`` is the ``CheshireCat`` itself: no user, no working memory. Everything
    but reading the settings runs in a thread: opening a large project (the store's integrity
    check, the manifest) must not hold up the Cat's boot or its first messages.
    """
    turn = Turn(_NoWorkingMemory(), Workspace.of(cheshire_cat, REGISTRY),
                UserLink(cheshire_cat))
    if turn.workspace.repository_configured:
        _ensure_shutdown_hook()
        threading.Thread(target=_startup_pass, args=(turn,), name="codemem-startup",
                         daemon=True).start()


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
