"""GLUE: the composition root, the one module that knows both the Cat and the cores.

Hooks, tools and the form call into here; here they get the user's session state (scratchpad and
phase, kept as plain data under one key of ``cat.working_memory``), the validated settings and
the plugin's data folder. Nothing here imports ``cat`` at module level, so the cores' tests can
exercise it with any object that looks like a ``StrayCat``.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .codegen.phases import CodegenPhase, PhaseMachine
from .memory.scratchpad import Scratchpad, ScratchpadError
from .settings import PluginSettings, read_settings

log = logging.getLogger(__name__)

#: The plugin's one key in ``cat.working_memory`` (a plain dict, so the Cat can pickle it).
STATE_KEY = "code_working_memory"

#: Folder name of the plugin's data inside the Cat's data folder; fixed, so that reinstalling
#: the plugin under another id (zip names vary) keeps its history.
DATA_DIR_NAME = "code_working_memory"

#: Version of the working-memory layout below.
STATE_VERSION = 1

#: The plugin id is its folder name: the module is ``cat.plugins.<id>.runtime`` in the Cat.
PLUGIN_ID = __name__.split(".")[-2] if "." in __name__ else "code_working_memory"

_locks_guard = threading.Lock()
_user_locks: dict[str, threading.RLock] = {}


@dataclass
class SessionState:
    """What one user's conversation holds: the scratchpad, the phase and the current task."""

    scratchpad: Scratchpad = field(default_factory=Scratchpad)
    phase: PhaseMachine = field(default_factory=PhaseMachine)
    task_id: str = ""
    commit_id: str = ""
    #: Problems found while loading (a damaged state is replaced, never fatal).
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "phase": self.phase.phase.value,
            "phase_machine": self.phase.to_dict(),
            "task_id": self.task_id,
            "commit_id": self.commit_id,
            "scratchpad": self.scratchpad.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Any) -> SessionState:
        """Rebuild the state; a damaged layout starts afresh and says so in ``warnings``."""
        if not isinstance(data, Mapping):
            return cls()
        try:
            return cls(
                scratchpad=Scratchpad.from_dict(data["scratchpad"]),
                phase=PhaseMachine.from_dict(data.get("phase_machine") or {}),
                task_id=str(data.get("task_id", "")),
                commit_id=str(data.get("commit_id", "")),
            )
        except (KeyError, TypeError, ValueError, ScratchpadError) as err:
            log.warning("code working memory state damaged, starting afresh: %s", err)
            return cls(warnings=[f"the previous code-generation state was damaged ({err}); "
                                 "it was reset"])


def user_lock(cat: Any) -> threading.RLock:
    """One lock per user: two tabs of the same user must not interleave state updates."""
    user = str(getattr(cat, "user_id", "") or "")
    with _locks_guard:
        return _user_locks.setdefault(user, threading.RLock())


def load_state(cat: Any) -> SessionState:
    """The user's state from ``cat.working_memory`` (a fresh one on first use)."""
    return SessionState.from_dict(cat.working_memory.get(STATE_KEY))


def save_state(cat: Any, state: SessionState) -> None:
    """Store the state back as plain data (attribute assignment: dict access is deprecated)."""
    setattr(cat.working_memory, STATE_KEY, state.to_dict())


def attach_state(cat: Any) -> SessionState:
    """Make sure the working memory holds a valid state; returns it."""
    with user_lock(cat):
        state = load_state(cat)
        save_state(cat, state)
        return state


def plugin_settings(cat: Any) -> tuple[PluginSettings, list[str]]:
    """The validated settings, with a message for every stored value that was refused."""
    try:
        raw = cat.mad_hatter.plugins[PLUGIN_ID].load_settings()
    except (KeyError, AttributeError) as err:
        return PluginSettings(), [f"settings could not be read ({err!r}); using defaults"]
    return read_settings(raw)


def data_dir(settings: PluginSettings) -> str:
    """The plugin's data folder: the setting, or ``<Cat data folder>/code_working_memory``.

    The Cat's data folder is where its metadata file lives (``CCAT_METADATA_FILE``, by default
    ``cat/data/metadata.json`` relative to the Cat's working directory). Never the plugin
    folder: upgrades delete it.
    """
    if settings.data_folder.strip():
        return os.path.abspath(os.path.expanduser(settings.data_folder.strip()))
    metadata_file = os.environ.get("CCAT_METADATA_FILE", os.path.join("cat", "data",
                                                                      "metadata.json"))
    return os.path.abspath(os.path.join(os.path.dirname(metadata_file), DATA_DIR_NAME))


def status_report(cat: Any) -> str:
    """A Markdown status of the plugin for the user: settings, phase, task, environment."""
    settings, problems = plugin_settings(cat)
    state = attach_state(cat)
    repo = settings.repository_path or "(not set: choose it in the plugin settings)"
    lines = [
        "**Code Working Memory**",
        f"- repository: `{repo}`",
        f"- data folder: `{data_dir(settings)}`",
        f"- phase: {state.phase.phase.value}" + (f" (task `{state.task_id}`)" if state.task_id
                                                 else ""),
        f"- git binary: {'found' if shutil.which('git') else 'absent (built-in git is used)'}",
        f"- loop: up to {settings.max_iterations} iterations, tests time out after "
        f"{settings.test_timeout_s} s, sandbox memory {settings.memory_limit_mb} MiB",
        f"- retrieval: threshold {settings.relevance_threshold}, up to "
        f"{settings.max_memories} memories, scoring batch {settings.batch_size}",
        f"- write-back: {settings.write_back.value}",
    ]
    if state.task_id and state.task_id in state.scratchpad.tasks():
        lines.append("")
        lines.append(state.scratchpad.summary(state.task_id, max_chars=1200))
    for problem in problems + state.warnings:
        lines.append(f"- warning: {problem}")
    return "\n".join(lines)


def start_request(cat: Any, request: Mapping[str, Any]) -> SessionState:
    """Open a task for a confirmed code request: scratchpad notes and the phase."""
    with user_lock(cat):
        state = load_state(cat)
        if state.phase.phase.terminal:
            state.phase.advance(CodegenPhase.COLLECTING, "new request")
        elif state.phase.phase is not CodegenPhase.COLLECTING:
            state.phase.reset()
            state.phase.advance(CodegenPhase.COLLECTING, "new request")
        state.task_id = state.scratchpad.start_task(initial={"request": dict(request)})
        state.commit_id = ""
        save_state(cat, state)
        return state
