"""The plugin's own chat commands, answered without the LLM and without the Cat's tool choice.

"code memory status", "index my repository", the draft history's commands and the associative
sources' ("add source ...", "list sources", "update source ...", "remove source ...") are
recognised by ``codegen.reading.commands`` in the turn's one reading (``codegen.read_turn``);
this module answers them. A command answers only where it means something (``codegen.claimed``,
applied by the reading): for anyone else its words are an ordinary message.
"""

from __future__ import annotations

from ...codegen import Command, Found
from ...memory import CodeMemoryError, redact
from ..drafting.draft_diff import chat_diff
from ..drafting.history import draft_history, redo_draft, roll_back_draft
from ..drafting.session import Session
from ..host.cat_types import StrayCat
from ..host.environment import cat_data_dir, missing_settings, save_settings
from ..projects.associative import add_source, configured_source, list_sources, remove_source
from ..projects.workspace import Turn
from .index_jobs import begin_source_update, start_indexing
from .status import status_report

#: The commands about associative sources.
SOURCE_COMMANDS = frozenset({Command.ADD_SOURCE, Command.LIST_SOURCES, Command.REMOVE_SOURCE,
                             Command.UPDATE_SOURCE})


def answer_command(cat: StrayCat, session: Session, turn: Turn, found: Found) -> str | None:
    """The answer to a plugin command the turn's reading found and claimed for this user
    (``codegen.claimed``: the draft-history commands belong to users with a task)."""
    if found.command in SOURCE_COMMANDS:
        return _source_command(cat, turn, found)
    return _plugin_command(cat, session, turn, found)


def _plugin_command(cat: StrayCat, session: Session, turn: Turn, found: Found) -> str | None:
    if found.command is Command.STATUS:
        return status_report(session, turn, missing_settings(cat))
    if found.command is Command.INDEX:
        return start_indexing(turn, notify=True)
    if not session.state.task_id:
        return None
    if found.command is Command.HISTORY:
        return draft_history(session, turn)
    if found.command is Command.ROLL_BACK:
        return roll_back_draft(session, turn, found.argument)
    if found.command is Command.DIFF:
        return chat_diff(session, turn, found.argument)
    if found.command is Command.REDO:
        return redo_draft(session, turn)
    return None  # a command this glue does not answer yet ("update source ...")


def _source_command(cat: StrayCat, turn: Turn, found: Found) -> str:
    """"add source ...", "list sources", "remove source ...": a changed list is saved as the
    setting (as the admin panel would) and indexed at once."""
    workspace = turn.workspace
    try:
        project = workspace.project()
    except CodeMemoryError as err:
        return f"Associative sources belong to the configured repository: {err}"
    if found.command is Command.LIST_SOURCES:
        return list_sources(workspace.settings, project)
    if found.command is Command.UPDATE_SOURCE:
        source = configured_source(workspace.settings, project, found.argument)
        if source is None:
            return (f"`{redact(found.argument)[:200]}` is not a source.\n\n"
                    + list_sources(workspace.settings, project))
        return begin_source_update(turn, source, notify=True).message
    if found.command is Command.ADD_SOURCE:
        done = add_source(workspace.settings, workspace.config.data_dir, found.argument,
                          protected=(cat_data_dir(),))
    else:
        done = remove_source(workspace.settings, project, found.argument,
                             workspace.config.data_dir)
    if done.settings_text is not None:
        save_settings(cat, {"associative_sources": done.settings_text})
        workspace.settings = workspace.settings.model_copy(
            update={"associative_sources": done.settings_text})
    if done.reindex:
        start_indexing(turn, notify=True)
    return done.answer
