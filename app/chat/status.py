"""The status report ("code memory status", and the status tool): settings, phase, task, host.

It always answers, whatever is missing: a repository that cannot be used, settings the Cat
stored badly or not at all, a dependency the Cat did not install and the sandbox protections
this host lacks each become a line of the report.
"""

from __future__ import annotations

import shutil

from ...codegen import sandbox_capabilities
from ...memory import CodeMemoryError
from ..drafting.session import Session
from ..host.environment import requirements_problems
from ..host.llm_port import model_window, server_form
from ..host.settings_model import PluginSettings
from ..projects.associative import status_lines
from ..projects.workspace import Turn
from .watcher import watching


def status_report(session: Session, turn: Turn, missing: list[str]) -> str:
    """A Markdown status of the plugin for the user (``missing``: settings with no stored
    value, whose defaults are used)."""
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
        f"- model: {_model_line(turn)}",
        f"- write-back: {settings.write_back.value}",
        f"- finished tasks shared with every user: {'yes' if settings.share_task_notes else 'no'}",
    ]
    lines += _sandbox_lines(settings)
    lines.append("- follows edits: " + (", ".join(f"yes ({w.source}, {w.runs} re-index runs)"
                                                 for w in watching()) or "no"))
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
    if missing:
        shown = ", ".join(missing[:6]) + (", …" if len(missing) > 6 else "")
        lines.append(f"- note: settings.json has no value for {len(missing)} setting(s) "
                     f"({shown}): their defaults are used")
    return "\n".join(lines)


def _model_line(turn: Turn) -> str:
    """The context window the plugin's calls are fitted into, where it came from, and the JSON
    form the model's server takes."""
    config = turn.workspace.config
    try:
        window = model_window(config)
        form = server_form(config)
    except Exception as err:  # the Cat's model cannot be reached: say so, the report goes on
        return f"not reachable ({type(err).__name__}: {err})"
    return (f"context window {window.describe()}; native JSON {config.native_json or 'off'}"
            + (f" ({form})" if form else ""))


def _sandbox_lines(settings: PluginSettings) -> list[str]:
    """The sandbox protections this host gives generated code, and what the policy does."""
    protections = sandbox_capabilities()
    missing = protections.missing(list(settings.sandbox_policy.policy().required()))
    lines = [f"- sandbox: {protections.summary()} (policy: {settings.sandbox_policy.value})"]
    if missing:
        lines.append("- warning: generated code will not run: the sandbox lacks "
                     f"{protections.explain(missing)}")
    return lines
