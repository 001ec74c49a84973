"""GLUE (composition, with ``runtime`` and ``projects``): from a code request to a committed draft.

The conversation: the form collects the request; the plugin proposes meta-code and waits;
"go" starts the draft loop in a worker thread (it runs for minutes, and a turn must not block
the user's socket), anything else is folded into a new proposal, "cancel" drops the task.
Progress reaches the user as notifications (throttled) and the phase follows the loop's
events through legal transitions; the result arrives as a chat message with the code, the diff,
the validation report and the commit id.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from . import projects
from .codegen.extended import ExtendedConfig
from .codegen.loop import Committed, GaveUp, LoopConfig, ProgressEvent, run_draft_loop
from .codegen.metacode import MetaCode, generate_metacode
from .codegen.phases import CodegenPhase
from .codegen.ports import ContextSnippet
from .memory.codebase import CodeContext
from .memory.extract import read_file_safely, walk_repository
from .settings import PluginSettings

log = logging.getLogger(__name__)

#: Python files handed to validation (for related tests) at most, and their total size.
MAX_SOURCE_FILES = 3000
MAX_SOURCE_BYTES = 32 * 1024 * 1024

#: Which loop events move the task's phase, and where to.
EVENT_PHASES: Mapping[tuple[str, str], CodegenPhase] = {
    ("generate", "started"): CodegenPhase.DRAFTING,
    ("validate", "started"): CodegenPhase.VALIDATING,
    ("commit", "done"): CodegenPhase.COMMITTED,
    ("commit", "failed"): CodegenPhase.ROLLED_BACK,
    ("rollback", "done"): CodegenPhase.ROLLED_BACK,
    ("rerun_tests", "started"): CodegenPhase.REVIEWING,
    ("review", "started"): CodegenPhase.REVIEWING,
}

PROPOSAL_HELP = ("Reply **go** to start drafting, **cancel** to drop the request, or tell me "
                 "what to change.")


def loop_config(settings: PluginSettings) -> LoopConfig:
    """The loop's configuration from the admin settings."""
    return LoopConfig(
        max_iterations=settings.max_iterations, judge=settings.check_judge,
        python_version=settings.python_version.value, timeout_s=float(settings.test_timeout_s),
        memory_mb=settings.memory_limit_mb,
        extended=ExtendedConfig(enabled=settings.extended_loop,
                                peer_review=settings.peer_review,
                                incorporate_review=settings.peer_review))


def context_source(project: projects.Project, kinds: tuple[str, ...]) -> Callable[..., list]:
    """A loop ``ContextSource`` over the project's memories of the given types."""
    import asyncio

    def load(query: str, current_file: str | None, limit: int) -> list[ContextSnippet]:
        context = CodeContext(user_query=query, current_file=current_file or None)
        found = asyncio.run(project.code.retrieve_relevant_memories(
            context, filters={"type": {"$in": list(kinds)}}))
        return [ContextSnippet(source=f"{(m.metadata or {}).get('type', 'memory')}:"
                                      f"{(m.metadata or {}).get('path', '')}",
                               title=str((m.metadata or {}).get("qualified_name")
                                         or (m.metadata or {}).get("title", "")),
                               text=m.text, score=m.relevance_score) for m in found[:limit]]

    return load


def repo_sources(root: str, settings: PluginSettings) -> dict[str, str]:
    """The repository's Python files (for the target's current content and related tests)."""
    files: dict[str, str] = {}
    total = 0
    excludes = projects.exclude_patterns(settings)
    for entry in walk_repository(root, exclude=excludes, languages=["python"],
                                 max_file_bytes=settings.max_file_kb * 1024):
        if not entry.ok or len(files) >= MAX_SOURCE_FILES or total >= MAX_SOURCE_BYTES:
            continue
        read = read_file_safely(root, entry.path, max_bytes=settings.max_file_kb * 1024)
        if read.data is None:
            continue
        try:
            files[entry.path] = read.data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        total += len(read.data)
    return files


def propose(project: projects.Project, request: Mapping[str, Any], feedback: list[str],
            llm: Callable[[str], str]) -> MetaCode:
    """Meta-code for the request (and the user's corrections so far)."""
    lines = [str(request["request"]), f"Target file: {request['target_path']}",
             f"Symbol: {request['symbol']}"]
    if feedback:
        lines.append("The user's corrections to the previous proposal, in order:")
        lines.extend(f"- {item}" for item in feedback)
    text = "\n".join(lines)
    context = context_source(project, ("code_entity",))(text, request["target_path"], 6)
    meta = generate_metacode(text, llm=llm, context=context)
    wanted = {"target_path": str(request["target_path"]).strip(),
              "symbol": str(request["symbol"]).strip()}
    if any(getattr(meta, key) != value for key, value in wanted.items()):
        meta = meta.with_changes(**wanted)  # the user's answers in the form win
    return meta


def phase_for(event: ProgressEvent) -> CodegenPhase | None:
    """The phase a loop event moves the task to, if any."""
    return EVENT_PHASES.get((event.step, event.status))


def outcome_message(outcome: Committed | GaveUp, meta: MetaCode, diff: str) -> str:
    """The final chat message: code, diff, report and commit id, or why it gave up."""
    if isinstance(outcome, Committed):
        code = outcome.files.get(meta.target_path, "")
        stats = outcome.stats
        parts = [f"Draft committed as `{outcome.commit_id[:12]}` after {outcome.iterations} "
                 f"iteration(s) ({stats.llm_calls} LLM calls).",
                 f"**`{meta.target_path}`**\n```python\n{code.rstrip()}\n```"]
        if diff.strip():
            parts.append(f"Changes:\n```diff\n{diff.rstrip()}\n```")
        checks = ", ".join(f"{r.check} {r.status}" for r in outcome.report.results)
        parts.append(f"Validation: {checks or 'no checks ran'}.")
        parts.extend(f"Note: {w}" for w in outcome.warnings)
        if outcome.review_requests:
            parts.append("The peer reviewer asked for changes that are not in this draft:\n"
                         + "\n".join(f"- {c}" for c in outcome.review_requests))
        parts.append("Your repository was not changed: the draft lives in the plugin's history.")
        return "\n\n".join(parts)
    last = outcome.last_good[:12] if outcome.last_good else "none"
    if outcome.reason.startswith("cancelled"):
        return (f"Stopped as you asked, after {outcome.iterations} iteration(s). Last good "
                f"draft: `{last}`; every draft is in the history.")
    return "\n\n".join([
        f"I gave up after {outcome.iterations} iteration(s): {outcome.reason}.",
        f"Last report:\n{outcome.last_report.as_feedback()}",
        f"Last good draft: `{last}`. Tell me what to change and ask again.",
    ])


def first_commit(project: projects.Project, task_id: str) -> str:
    """The task's first commit (the user's files as they were), or ''."""
    entries = project.commits.log(task_id)
    return entries[-1].id if entries else ""


def start_thread(name: str, target: Callable[[], None]) -> threading.Thread:
    """A daemon worker thread (the Cat's own shutdown must not wait for a draft)."""
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread


def run(project: projects.Project, settings: PluginSettings, meta: MetaCode, task_id: str,
        notes: Any, on_progress: Callable[[ProgressEvent], None],
        should_stop: Callable[[], bool] | None = None) -> Committed | GaveUp:
    """One draft-loop run with everything wired from the project and the settings."""
    return run_draft_loop(
        meta, task_id=task_id, llm=projects.cat_llm, store=project.commits, notes=notes,
        repo_files=repo_sources(project.root, settings),
        repo_context=context_source(project, ("code_entity",)),
        associative=context_source(project, ("documentation", "debugging_session",
                                             "task_note")),
        config=loop_config(settings), on_progress=on_progress, should_stop=should_stop)
