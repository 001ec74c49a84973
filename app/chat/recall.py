"""The plugin's part in an ordinary chat turn's recall and prompt.

Code points live in the Cat's declarative memory (so its own recall can find them), but the
Cat renders recalled memories with newlines replaced and puts them into an f-string template
(literal braces break the turn). So code is taken out of the ordinary recall and handed to the
prompt as a *variable*, with its newlines and locations. A message the detector reads as a
question about the code gets the plugin's LLM-scored retrieval there instead, whether or not the
agent would have picked the ``search_code`` tool (tool selection is by embedding similarity).

Per-turn data lives in a thread-local: every hook of one turn runs in the same thread, and the
Cat reuses threads, so ``begin_turn`` resets it first.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ...codegen import Reading
from ...memory import CodeMemoryError, is_code_point
from ..drafting.session import Session
from ..host.cat_types import Procedure, Recalled, WorkingMemory
from ..projects.lookup import fitted_context, retrieve
from ..projects.registry import Project
from ..projects.workspace import Turn
from .prompt_room import code_room

log = logging.getLogger(__name__)

#: Extra declarative memories recalled so that, after code points are removed, the ordinary
#: recall still has its usual number of non-code memories.
EXTRA_RECALL = 10

#: Code points recalled by the Cat that are shown to the agent, formatted by the plugin.
MAX_CODE_IN_PROMPT = 3

#: The prompt variable and the section that shows it.
VARIABLE = "code_context"
SECTION = "\n\n# Code from the indexed repository\n{code_context}\n"


@dataclass
class TurnNotes:
    """What the plugin decided and found during one turn."""

    #: Which call of the Cat these notes are of (the ``StrayCat`` and its message object).
    key: tuple[int, int] = (0, 0)
    #: The user's session and this call's turn, made once per turn (``app/entry.py``).
    session: Session | None = None
    turn: Turn | None = None
    #: The turn's one reading of the message (``codegen.read_turn``); no hook reads it again.
    reading: Reading | None = None
    #: The plugin's answer (``agent_fast_reply`` gives it; ``None``: the Cat answers).
    reply: str | None = None
    #: The message is a question about the code: retrieve for it.
    question: str = ""
    #: Said after this turn's answer: what still waits (the proposal, the file question).
    waiting: str = ""
    #: Declarative memories the Cat asked for (before widening).
    wanted: int | None = None
    #: Code points the Cat's recall found this turn.
    code: list[Recalled] = field(default_factory=list)
    #: The code context for the prompt (retrieval for a question, else the recalled points).
    context: str = ""


_local = threading.local()


def begin_turn() -> TurnNotes:
    notes = _local.notes = TurnNotes()
    return notes


def notes() -> TurnNotes:
    current: TurnNotes | None = getattr(_local, "notes", None)
    return current if current is not None else begin_turn()


def widen_declarative_recall(config: dict[str, Any]) -> dict[str, Any]:  # Any: see entry.py
    """Recall more declarative memories, remembering how many the Cat wanted."""
    turn = notes()
    turn.wanted = int(config.get("k", 3))
    turn.code = []
    config["k"] = turn.wanted + EXTRA_RECALL
    return config


def split_code_recall(working_memory: WorkingMemory) -> None:
    """Keep code points out of the ordinary declarative recall; keep them for the prompt."""
    turn = notes()
    recalled = list(working_memory.declarative_memories or [])
    code = [m for m in recalled if is_code_point(getattr(m[0], "metadata", None))]
    other = [m for m in recalled if not is_code_point(getattr(m[0], "metadata", None))]
    working_memory.declarative_memories = other[:turn.wanted] if turn.wanted is not None \
        else other
    turn.code = code[:MAX_CODE_IN_PROMPT]


def drop_procedures(working_memory: WorkingMemory, names: set[str]) -> None:
    """Forget this turn's recalled triggers of ``names`` (the plugin's own tools and form).

    On a question the plugin already retrieved for, offering ``search_code`` again would only
    cost the Cat a tool-selection call; other plugins' tools stay.
    """
    recalled = list(getattr(working_memory, "procedural_memories", None) or [])
    if not recalled or not names:
        return
    working_memory.procedural_memories = [
        m for m in recalled if (getattr(m[0], "metadata", None) or {}).get("source") not in names]


def recalled_code() -> str:
    """The code points recalled this turn, formatted with their newlines and locations."""
    blocks = []
    for doc, score, *_ in notes().code:
        meta = doc.metadata or {}
        where = f"{meta.get('path', '?')}:{meta.get('start_line', '?')}-{meta.get('end_line', '?')}"
        blocks.append(f"{meta.get('qualified_name', '')} ({where}, similarity {score:.2f})\n"
                      f"```{meta.get('language', '')}\n{doc.page_content}\n```")
    return "\n\n".join(blocks)


def add_code_section(prompt_suffix: str) -> str:
    """Add the ``{code_context}`` placeholder when this turn has code context.

    The code itself travels as a prompt variable (set by ``before_agent_starts``): the suffix
    is an f-string template, and literal braces in code would break the turn.
    """
    if not notes().context:
        return prompt_suffix
    return prompt_suffix + SECTION


#: The request form's name among the Cat's procedures (``forms.CodeRequestForm``).
REQUEST_FORM = "CodeRequestForm"


def after_recall(working_memory: WorkingMemory, procedures: Iterable[Procedure],
                 plugin_id: str) -> None:
    """Code out of the ordinary recall; the request form's triggers always (the plugin reads
    requests itself, once per turn: the Cat's tool choice never needs to start it), and on a
    code question the plugin's other procedures too."""
    split_code_recall(working_memory)
    own = {p.name for p in procedures if getattr(p, "plugin_id", None) == plugin_id}
    drop_procedures(working_memory, own if notes().question else own & {REQUEST_FORM})


def code_context(project: Callable[[], Project], agent_input: object = None) -> str:
    """This turn's code context: the plugin's LLM-scored retrieval on a code question, else the
    code points the Cat's recall found (``project`` is asked only for a question), within what
    the Cat's prompt in ``agent_input`` leaves of the window (``prompt_room``)."""
    turn = notes()
    turn.context = recalled_code()
    if turn.question:
        try:
            found = project()
            memories = retrieve(found, turn.question)
            if memories:
                turn.context = fitted_context(found, memories, code_room(found, agent_input))
        except CodeMemoryError as err:
            log.info("no code retrieval for the question: %s", err)
    return turn.context
