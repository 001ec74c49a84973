"""GLUE: the tools the Cat's agent may call. Docstrings are prompts for the LLM.

Functions are imported by name under other names (a tool's name is its function's name).
"""

from cat.mad_hatter.decorators import tool

from .app.entry import draft_history as list_drafts
from .app.entry import redo_draft as redo
from .app.entry import roll_back_draft as roll_back
from .app.entry import search_code as search
from .app.entry import start_indexing, status


@tool(return_direct=True, examples=["code memory status", "what repository are you indexing?",
                                    "show the code working memory settings"])
def code_memory_status(tool_input, cat):
    """Report the Code Working Memory plugin's status: repository, settings, current task and
    phase, and any configuration problem. Use when the user asks about the plugin, its settings
    or what it is working on. Input is ignored."""
    return status(cat)


@tool(return_direct=True, examples=["index my repository", "re-index the code",
                                    "update the code index"])
def index_code_repository(tool_input, cat):
    """Index, or re-index incrementally, the configured code repository so its functions and
    classes can be recalled. Use when the user asks to index, scan or refresh the code.
    Input is ignored."""
    return start_indexing(cat)


@tool(examples=["how does authentication work in the code?", "where are dates parsed?",
                "find the function that loads the configuration"])
def search_code(tool_input, cat):
    """Find code in the indexed repository relevant to a question and return it with file
    paths and line numbers. Use for questions about how the user's code works or where
    something is implemented. Input: the question, in the user's words."""
    return search(cat, tool_input)


@tool(return_direct=True, examples=["show the draft history", "what did we try so far?",
                                    "list the drafts"])
def draft_history(tool_input, cat):
    """List the drafts of the current code task, newest first, with their verdicts. Use when
    the user asks for the history, the drafts or what was tried. Input is ignored."""
    return list_drafts(cat)


@tool(return_direct=True, examples=["roll back to draft 2", "undo the last draft",
                                    "go back to the previous version of the code"])
def roll_back_draft(tool_input, cat):
    """Go back to an earlier draft of the current code task (newer drafts are kept). Input: a
    draft number, a commit id, or nothing for the last good draft."""
    return roll_back(cat, tool_input or "")


@tool(return_direct=True, examples=["redo", "restore the draft I rolled back",
                                    "undo the roll-back"])
def redo_draft(tool_input, cat):
    """Restore the draft most recently rolled back in the current code task. Use when the user
    says redo or wants the rolled-back version again. Input is ignored."""
    return redo(cat)
