"""From confirmed meta-code to a draft-loop run, and from its outcome to the result message.

The loop's dependencies are wired here from a project, the task's one retrieval and the
configuration: the metered plugin LLM, the draft history as the task may see it
(``projects.ledger.ScopedDraftStore``), the repository's Python files, validation with the
checks the settings leave on, and the indexed libraries' API facts. A loop event moves the task's
phase (``EVENT_PHASES``); the outcome becomes the chat message with the code, a diff per file,
the validation report and the number of LLM calls.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from ...codegen import (
    CodegenPhase,
    Committed,
    GaveUp,
    LoopDeps,
    MetaCode,
    Notes,
    ProgressEvent,
    ValidationReport,
    file_diffs,
    render_diffs,
    run_draft_loop,
    run_prepared_draft,
    validate_draft,
)
from ...llm import Meter
from ...memory import read_file_safely, walk_repository
from ..host.core_config import IndexScope, PluginConfig
from ..host.llm_port import PluginLLM
from ..projects.associative import api_facts, references_note
from ..projects.ledger import ScopedDraftStore
from ..projects.registry import Project
from .task_context import TaskContext

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

def phase_for(event: ProgressEvent) -> CodegenPhase | None:
    """The phase a loop event moves the task to, if any."""
    return EVENT_PHASES.get((event.step, event.status))


def outcome_message(outcome: Committed | GaveUp, meta: MetaCode, diff: str,
                    llm_calls: int, advice: str = "") -> str:
    """The final chat message: code, the diff of every changed file, report and commit id, or
    why it gave up.

    ``diff`` is ``draft_diffs``'s Markdown; ``llm_calls`` is every call the request made
    (proposals, revisions, the loop, scoring).
    """
    if isinstance(outcome, Committed):
        code = outcome.files.get(meta.target_path, "")
        parts = [f"Draft committed as `{outcome.commit_id[:12]}` after {outcome.iterations} "
                 f"iteration(s) ({llm_calls} LLM calls).",
                 f"**`{meta.target_path}`**\n```python\n{code.rstrip()}\n```"]
        if diff.strip():
            parts.append(f"Changes: {diff}")
        checks = ", ".join(f"{r.check} {r.status}" for r in outcome.report.results)
        parts.append(f"Validation: {checks or 'no checks ran'}.")
        parts.extend(f"Note: {w}" for w in outcome.warnings)
        if references_note(outcome):
            parts.append(references_note(outcome))
        if outcome.review_requests:
            parts.append("The peer reviewer asked for changes that are not in this draft:\n"
                         + "\n".join(f"- {c}" for c in outcome.review_requests))
        parts.append("Your repository was not changed: say **apply** to write the draft into "
                     "it.")
        return "\n\n".join(parts)
    last = outcome.last_good[:12] if outcome.last_good else "none"
    if outcome.reason.startswith("cancelled"):
        return (f"Stopped as you asked, after {outcome.iterations} iteration(s). Last good "
                f"draft: `{last}`; every draft is in the history. Say **continue** to go on.")
    return "\n\n".join([
        f"I gave up after {outcome.iterations} iteration(s) ({llm_calls} LLM calls): "
        f"{outcome.reason}.",
        f"Last report:\n{outcome.last_report.as_feedback()}",
        *([advice] if advice else []),
        *(f"Note: {w}" for w in outcome.warnings),
        f"Last good draft: `{last}`. Say **continue** to try again from it, or tell me what to "
        "change and ask again.",
    ])


def draft_diffs(project: Project, base: str, commit: str) -> str:
    """The change from ``base`` to ``commit``, one diff per file (Markdown)."""
    return render_diffs(file_diffs(project.commits.show(base).files or {},
                                   project.commits.show(commit).files or {}))


def first_commit(project: Project, task_id: str) -> str:
    """The task's first commit (the user's files as they were), or ''."""
    entries = project.commits.log(task_id)
    return entries[-1].id if entries else ""


def repo_sources(root: str, scope: IndexScope) -> dict[str, str]:
    """The repository's Python files (for the target's current content and related tests)."""
    files: dict[str, str] = {}
    total = 0
    for entry in walk_repository(root, exclude=scope.exclude, languages=["python"],
                                 max_file_bytes=scope.max_file_bytes):
        if not entry.ok or len(files) >= MAX_SOURCE_FILES or total >= MAX_SOURCE_BYTES:
            continue
        read = read_file_safely(root, entry.path, max_bytes=scope.max_file_bytes)
        if read.data is None:
            continue
        try:
            files[entry.path] = read.data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        total += len(read.data)
    return files


def checked_validator(checks: Collection[str], base: Mapping[str, str] | None = None,
                      ) -> Callable[..., ValidationReport]:
    """``validate_draft`` running parsing plus the checks the settings leave on; with the
    repository's files as they were (``base``), a name the draft renamed or removed is
    checked for the places that still name it (``base_files``).

    When the loop asks for specific checks (``("tests",)`` for the meta-code examples), only
    the enabled ones among them run: "Check: tests" off skips the examples too.
    """
    enabled = frozenset({"parse", *checks})

    def validate(files: dict[str, str], **kwargs: Any) -> ValidationReport:  # Any: forwarded
        asked = kwargs.get("checks")
        kwargs["checks"] = enabled if asked is None else frozenset(asked) & enabled
        if base is not None:
            kwargs.setdefault("base_files", base)
        return validate_draft(files, **kwargs)

    return validate


def run_prepared(project: Project, config: PluginConfig, meta: MetaCode,
                 files: Mapping[str, str], task_id: str, notes: Notes,
                 on_progress: Callable[[ProgressEvent], None]) -> Committed | GaveUp:
    """A draft made without a model (a rename or a move): validated and committed like any
    draft, no LLM call."""
    repo = repo_sources(project.root, config.scope)
    deps = LoopDeps(llm=_no_model, store=project.commits, notes=notes, repo_files=repo,
                    validator=checked_validator(config.checks, repo), api_facts=api_facts(project))
    return run_prepared_draft(meta, dict(files), deps, task_id=task_id, config=config.loop,
                              on_progress=on_progress)


def _no_model(prompt: str) -> str:
    raise AssertionError("a prepared draft asks no model")


def run_loop(project: Project, config: PluginConfig, meta: MetaCode, task_id: str, notes: Notes,
             context: TaskContext, meter: Meter,
             on_progress: Callable[[ProgressEvent], None],
             should_stop: Callable[[], bool]) -> Committed | GaveUp:
    """One draft-loop run wired from the project, the task's retrieval and the configuration."""
    repo = repo_sources(project.root, config.scope)
    meter.begin(config.budget_s)  # the draft run is one action: its own time budget
    deps = LoopDeps(
        llm=meter.wrap(PluginLLM.of(config)),
        store=ScopedDraftStore(project.commits, task_id, context.episodes),
        notes=notes, repo_files=repo,
        repo_context=context.repo_source, associative=context.associative_source,
        validator=checked_validator(config.checks, repo), api_facts=api_facts(project))
    try:
        return run_draft_loop(meta, deps, task_id=task_id, config=config.loop,
                              on_progress=on_progress, should_stop=should_stop)
    finally:
        meter.begin(None)  # the action's budget ends with it
