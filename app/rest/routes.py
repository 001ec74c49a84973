"""What the plugin's REST routes answer (``endpoints.py`` registers them under
``/custom/code-memory``; docs/rest-api.md lists them with their permissions).

Each function takes the ``StrayCat`` the Cat built for the authenticated caller and the
request's plain parameters, and returns a ``Reply`` (status code and JSON body). The work is
chat's own: the status report, the indexing run, the sources' list and update, the search
tool's retrieval, the draft history's diff and "apply" are the same functions the chat
commands and tools call. A task is
the caller's only (``TaskLedger.owner``): another user's task, or one that does not exist, is
the same 404, so its existence is never revealed. Bad input is a 400 with an ``error`` saying
what to send instead.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from ...memory import CodeMemoryError, CommitInfo, TaskNotFound, redact
from ..chat.index_jobs import begin_indexing, begin_source_update
from ..chat.status import status_report
from ..chat.watcher import follow_edits
from ..drafting.draft_diff import Draft, DraftDiff, UnknownDraft, diff_drafts, task_drafts
from ..drafting.history import apply_current
from ..drafting.session import Session
from ..host.cat_types import StrayCat
from ..host.environment import missing_settings
from ..host.llm_port import turn_scope
from ..process import GENERATION
from ..projects.associative import configured_source, source_table
from ..projects.lookup import code_hits
from ..projects.registry import Project
from ..projects.workspace import Turn

#: A task id as the plugin makes them (letters, digits, ``-``, ``_``, ``.``).
TASK_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,127}")
#: The longest search query accepted (a question, not a file).
MAX_QUERY = 2000
MAX_LIMIT = 50


@dataclass(frozen=True)
class Reply:
    """An HTTP answer: status code and JSON body."""

    status: int
    body: dict[str, object] = field(default_factory=dict)


def error(status: int, message: str) -> Reply:
    return Reply(status, {"error": message})


def _caller(cat: StrayCat) -> tuple[Session, Turn]:
    GENERATION.claim()
    turn = Turn.of(cat, GENERATION.registry)
    session = GENERATION.sessions.of(str(cat.user_id), turn.workspace.config.data_dir,
                                     cat.working_memory)
    follow_edits(turn.workspace)
    return session, turn


def _project(turn: Turn) -> Project | Reply:
    if not turn.workspace.repository_configured:
        return error(409, "no repository is configured: set repository_path in the plugin "
                          "settings")
    try:
        return turn.workspace.project()
    except CodeMemoryError as err:
        return error(409, f"the repository cannot be used: {err}")


# -- status and indexing -------------------------------------------------------------------

def status(cat: StrayCat) -> Reply:
    """The status report (as "code memory status"), plus its main facts as fields."""
    session, turn = _caller(cat)
    with turn_scope(cat):
        report = status_report(session, turn, missing_settings(cat))
    state = session.state
    body: dict[str, object] = {
        "report": report, "repository": turn.workspace.settings.repository_path,
        "phase": state.phase.phase.value, "task": state.task_id or None,
        "drafting": session.drafting, "index": None}
    if turn.workspace.repository_configured:
        project = _project(turn)
        if isinstance(project, Project):
            body["index"] = _progress(project)
    return Reply(200, body)


def start_index(cat: StrayCat) -> Reply:
    """Start an incremental indexing run (202), unless one is going or the repository cannot
    be used (409); progress is read with ``index_progress``."""
    _, turn = _caller(cat)
    if isinstance(problem := _project(turn), Reply):
        return problem
    started = begin_indexing(turn, notify=False, trigger="rest")
    if started.error:
        return error(409, started.message)
    if not started.started:
        return error(409, "an indexing run is already going: read its progress with "
                          "GET /custom/code-memory/index")
    return Reply(202, {"started": True, "message": started.message})


def index_progress(cat: StrayCat) -> Reply:
    _, turn = _caller(cat)
    project = _project(turn)
    return project if isinstance(project, Reply) else Reply(200, _progress(project))


def _progress(project: Project) -> dict[str, object]:
    run = asdict(project.index_run)
    run["running"] = project.indexing or project.index_run.running
    return {**run, "repository": project.root, "generation": project.generation}


# -- associative sources -------------------------------------------------------------------

def sources(cat: StrayCat) -> Reply:
    """The associative sources, as "list sources" (a repository by URL with its ref and the
    commit indexed), and whether an indexing run or an update is going."""
    _, turn = _caller(cat)
    project = _project(turn)
    if isinstance(project, Reply):
        return project
    return Reply(200, {"sources": source_table(turn.workspace.settings, project),
                       "running": project.indexing})


def update_source(cat: StrayCat, name: str) -> Reply:
    """As "update source NAME": fetch the source again and re-index what changed (202; the
    outcome is read with ``index_progress``, trigger ``rest``)."""
    _, turn = _caller(cat)
    project = _project(turn)
    if isinstance(project, Reply):
        return project
    source = configured_source(turn.workspace.settings, project, name or "")
    if source is None:
        return error(404, f"no source `{redact(name or '')[:200]}`: GET "
                          "/custom/code-memory/sources lists them")
    started = begin_source_update(turn, source, notify=False, trigger="rest")
    if started.error or not started.started:
        return error(409, started.message)
    return Reply(202, {"started": True, "source": source.name, "message": started.message})


# -- search --------------------------------------------------------------------------------

def search(cat: StrayCat, query: str | None, *, llm: bool, limit: int) -> Reply:
    """Entities for ``query``, best first, with path, lines and score (LLM-scored on ``llm``)."""
    query = (query or "").strip()
    if not query:
        return error(400, "say what code you are looking for: ?q=how are dates parsed")
    if len(query) > MAX_QUERY:
        return error(400, f"the query is {len(query)} characters long; at most {MAX_QUERY}")
    if not 1 <= limit <= MAX_LIMIT:
        return error(400, f"limit must be between 1 and {MAX_LIMIT}, not {limit}")
    _, turn = _caller(cat)
    project = _project(turn)
    if isinstance(project, Reply):
        return project
    try:
        with turn_scope(cat):
            hits = code_hits(project, query, llm=llm, limit=limit)
    except CodeMemoryError as err:
        return error(409, f"cannot search the code: {err}")
    return Reply(200, {"query": query, "llm": llm, "results": [asdict(h) for h in hits]})


# -- tasks, drafts, diffs, apply -----------------------------------------------------------

def tasks(cat: StrayCat) -> Reply:
    """The caller's own tasks, the current one marked, each with its draft count and head."""
    session, turn = _caller(cat)
    project = _project(turn)
    if isinstance(project, Reply):
        return project
    out = []
    for task, finished in sorted(project.ledger.tasks_of(session.user_id).items()):
        line = [d for d in task_drafts(project.commits, task) if d.where == "line"]
        out.append({"id": task, "finished": finished,
                    "current": task == session.state.task_id, "drafts": len(line),
                    "head": _commit(line[0].info) if line else None})
    return Reply(200, {"user": session.user_id, "tasks": out})


def drafts(cat: StrayCat, task: str) -> Reply:
    session, turn = _caller(cat)
    found = _own_task(session, turn, task)
    if isinstance(found, Reply):
        return found
    listed = task_drafts(found.commits, task)
    return Reply(200, {"task": task, "drafts": [_draft(d) for d in listed]})


def diff(cat: StrayCat, task: str, draft: str | None, against: str | None) -> Reply:
    """The unified diff of ``draft`` (default: the current one) against its parent, or against
    the draft ``against``; each draft named by number, "start", "current" or commit id."""
    session, turn = _caller(cat)
    found = _own_task(session, turn, task)
    if isinstance(found, Reply):
        return found
    try:
        result = diff_drafts(found.commits, task, (draft or "current").strip(),
                             against.strip() if against else None)
    except UnknownDraft as err:
        return error(404, str(err))
    return Reply(200, _diff(task, result))


def apply(cat: StrayCat, task: str) -> Reply:
    """Write the task's current draft into the repository, as "apply" in chat does: 200 when
    written (or already applied), 409 when nothing was written, with the reason."""
    session, turn = _caller(cat)
    found = _own_task(session, turn, task)
    if isinstance(found, Reply):
        return found
    state = session.state
    if task != state.task_id:
        return error(409, f"task `{task}` is not your current task (`{state.task_id or 'none'}`)"
                          ": only the current task's draft can be applied")
    if not state.commit_id:
        return error(409, f"task `{task}` has no draft to apply yet")
    before = state.applied_commit
    message = apply_current(session, turn)
    commit = state.commit_id
    if state.applied_commit != commit:
        return error(409, message)
    return Reply(200, {"applied": before != commit, "commit": commit, "message": message})


def _own_task(session: Session, turn: Turn, task: str) -> Project | Reply:
    """The project, when ``task`` is the caller's; else a 400 (malformed) or 404."""
    if not TASK_ID.fullmatch(task or ""):
        return error(400, f"{task!r} is not a task id: take one from GET "
                          "/custom/code-memory/tasks")
    project = _project(turn)
    if isinstance(project, Reply):
        return project
    if project.ledger.owner(task) != session.user_id:
        return error(404, f"you have no task `{task}`")
    try:
        project.commits.head(task)
    except TaskNotFound:
        return error(404, f"task `{task}` has no drafts yet")
    return project


def _commit(info: CommitInfo) -> dict[str, object]:
    return {"id": info.id, "name": info.name, "verdict": info.verdict, "reason": info.reason,
            "time": info.time, "parent": info.parent}


def _draft(draft: Draft) -> dict[str, object]:
    return {**_commit(draft.info), "where": draft.where, "current": draft.current}


def _diff(task: str, result: DraftDiff) -> dict[str, object]:
    return {"task": task, "from": _commit(result.old) if result.old else None,
            "to": _commit(result.new), "unified": result.unified,
            "files": [{"path": f.path, "status": f.status, "diff": f.diff}
                      for f in result.files]}
