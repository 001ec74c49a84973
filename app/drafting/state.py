"""One user's code-generation state, as plain data: what its one owner stores.

``SessionState`` is the typed state; ``to_dict`` is what ``state_store.StateStore`` writes (the
owner) and what the working memory gets as a view at the end of a turn, under one key (the Cat's
``file_system`` cache pickles the whole working memory after every turn, and a value that does
not pickle bricks the user's session, docs/cat-plugin-api.md): strings, numbers, lists. Live
objects (the lock, the worker thread) belong to ``session.Session``, never here.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...codegen import CodegenPhase, PhaseMachine
from ...memory import Scratchpad, ScratchpadError
from ..host.cat_types import Storage

log = logging.getLogger(__name__)

#: The plugin's one key in ``cat.working_memory``.
STATE_KEY = "code_working_memory"

#: Version of the layout below (new keys are optional, so older states still load).
STATE_VERSION = 2

#: Phases in which a worker thread runs the task's draft loop.
RUNNING_PHASES = frozenset({CodegenPhase.METACODE_CONFIRMED, CodegenPhase.DRAFTING,
                            CodegenPhase.VALIDATING, CodegenPhase.COMMITTED,
                            CodegenPhase.ROLLED_BACK, CodegenPhase.REVIEWING})


@dataclass
class SessionState:
    """What one user's conversation holds: the scratchpad, the phase and the current task."""

    scratchpad: Scratchpad = field(default_factory=Scratchpad)
    phase: PhaseMachine = field(default_factory=PhaseMachine)
    task_id: str = ""
    #: The task's current draft (the last good commit when the loop ends).
    commit_id: str = ""
    #: The draft the user last wrote into the repository with "apply".
    applied_commit: str = ""
    #: LLM calls the current task made so far (proposals, revisions, the loop, scoring).
    llm_calls: int = 0
    #: The number of the task's last draft-loop run (1, 2, ... for "continue").
    run: int = 0
    #: How the task's last draft-loop run ended (``LastRun``), recorded by its worker.
    last_run: dict[str, Any] = field(default_factory=dict)  # Any: JSON
    #: The request waiting for its file ("which file should the code go in?"), else empty.
    asking: dict[str, str] = field(default_factory=dict)
    #: The command the plugin asked "Did you mean ...?" about, else "".
    suggestion: str = ""
    #: Problems found while loading (a damaged state is replaced, never fatal).
    warnings: list[str] = field(default_factory=list)

    @property
    def running(self) -> bool:
        """The state says a draft loop works on the task (in this process or a dead one)."""
        return bool(self.task_id) and self.phase.phase in RUNNING_PHASES

    @property
    def awaiting_confirmation(self) -> bool:
        """Proposed meta-code waits for "go", "cancel" or a correction."""
        task = self.task_id
        return (self.phase.phase is CodegenPhase.COLLECTING and bool(task)
                and task in self.scratchpad.tasks()
                and self.scratchpad.get(task, "awaiting") == "metacode")

    def note(self, key: str, default: Any = None) -> Any:  # Any: the notes are JSON
        """A note of the current task (``default`` without a task)."""
        if not self.task_id or self.task_id not in self.scratchpad.tasks():
            return default
        return self.scratchpad.get(self.task_id, key, default)

    def to_dict(self) -> dict[str, Any]:  # Any: JSON, pickled with the working memory
        return {
            "version": STATE_VERSION,
            "phase": self.phase.phase.value,
            "phase_machine": self.phase.to_dict(),
            "task_id": self.task_id,
            "commit_id": self.commit_id,
            "applied_commit": self.applied_commit,
            "llm_calls": self.llm_calls,
            "run": self.run,
            "last_run": dict(self.last_run),
            "asking": dict(self.asking),
            "suggestion": self.suggestion,
            "scratchpad": self.scratchpad.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: object) -> SessionState:
        """Rebuild the state; a damaged layout starts afresh and says so in ``warnings``."""
        if not isinstance(data, Mapping):
            return cls()
        try:
            return cls(
                scratchpad=Scratchpad.from_dict(data["scratchpad"]),
                phase=PhaseMachine.from_dict(data.get("phase_machine") or {}),
                task_id=str(data.get("task_id", "")),
                commit_id=str(data.get("commit_id", "")),
                applied_commit=str(data.get("applied_commit", "")),
                llm_calls=int(data.get("llm_calls", 0)),
                run=int(data.get("run", 0)),
                last_run=dict(data.get("last_run") or {}),
                asking={str(k): str(v) for k, v in (data.get("asking") or {}).items()},
                suggestion=str(data.get("suggestion", "")),
            )
        except (KeyError, TypeError, ValueError, AttributeError, ScratchpadError) as err:
            log.warning("code working memory state damaged, starting afresh: %s", err)
            return cls(warnings=[f"the previous code-generation state was damaged ({err}); "
                                 "it was reset"])


def state_in(working_memory: Storage) -> SessionState | None:
    """The view a working memory holds (``None`` without one, or an unreadable one): what an
    older version of the plugin kept there, adopted once by the owner."""
    try:
        data = working_memory.get(STATE_KEY)
    except Exception as err:  # the Cat's object, as a cache left it: never fatal
        log.warning("code working memory: the working memory's state is unreadable: %s", err)
        return None
    if not isinstance(data, Mapping) or "scratchpad" not in data:
        return None
    state = SessionState.from_dict(data)
    return None if state.warnings else state


def write_view(working_memory: object, state: SessionState) -> None:
    """The state as plain data into a turn's working memory (attribute assignment: dict access
    is deprecated); from the Cat's own thread only, at the end of a turn."""
    setattr(working_memory, STATE_KEY, state.to_dict())
