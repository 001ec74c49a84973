"""GLUE: the plugin's REST routes, under ``/custom/code-memory`` (docs/rest-api.md).

Each route checks the Cat's permission for the caller (``check_permissions``: a JWT from
``/auth/token``, or the API key) and hands the ``StrayCat`` the Cat built to
``app/rest/routes.py``; no logic here. The handler module is looked up at call time, never
imported by name: a re-upload leaves the previous import's routes in the Cat's app (its new
plugin object has none to remove, docs/cat-plugin-api.md, "REST endpoints"), and they must run
the live import's code.
"""

from importlib import import_module

from cat.auth.permissions import AuthPermission, AuthResource, check_permissions
from cat.mad_hatter.decorators import endpoint

TAGS = ["Code Working Memory"]


def _answer(name: str, *args, **kwargs):
    """Call ``app/rest/routes.py``'s ``name`` of the live import; its reply as JSON."""
    from fastapi.responses import JSONResponse  # the Cat's; imported where it is used

    reply = getattr(import_module(".app.rest.routes", __package__), name)(*args, **kwargs)
    return JSONResponse(status_code=reply.status, content=reply.body)


@endpoint.get("/code-memory/status", tags=TAGS)
def code_memory_rest_status(cat=check_permissions(AuthResource.STATUS, AuthPermission.READ)):
    """The plugin's status: repository, phase, current task, index progress, problems."""
    return _answer("status", cat)


@endpoint.post("/code-memory/index", tags=TAGS)
def code_memory_rest_start_index(
        cat=check_permissions(AuthResource.MEMORY, AuthPermission.WRITE)):
    """Start an incremental indexing run of the configured repository (202; 409 if one is
    going or the repository cannot be used)."""
    return _answer("start_index", cat)


@endpoint.get("/code-memory/index", tags=TAGS)
def code_memory_rest_index_progress(
        cat=check_permissions(AuthResource.MEMORY, AuthPermission.READ)):
    """The latest indexing run: running, phase, done/total, summary or error."""
    return _answer("index_progress", cat)


@endpoint.get("/code-memory/sources", tags=TAGS)
def code_memory_rest_sources(cat=check_permissions(AuthResource.MEMORY, AuthPermission.READ)):
    """The associative sources: kind, version (a repository's ref), commit indexed, entities,
    status."""
    return _answer("sources", cat)


@endpoint.post("/code-memory/sources/{name}/update", tags=TAGS)
def code_memory_rest_update_source(
        name: str, cat=check_permissions(AuthResource.MEMORY, AuthPermission.WRITE)):
    """Fetch a source again and re-index only what changed, as "update source NAME" (202;
    404 for no such source, 409 while an indexing run or update is going)."""
    return _answer("update_source", cat, name)


@endpoint.get("/code-memory/search", tags=TAGS)
def code_memory_rest_search(q: str | None = None, llm: bool = False, limit: int = 10,
                            cat=check_permissions(AuthResource.MEMORY, AuthPermission.READ)):
    """Code entities for the query ``q``, best first, with path, lines and score; ``llm=true``
    has the LLM score them (one call for the list), else the candidate ranking is used."""
    return _answer("search", cat, q, llm=llm, limit=limit)


@endpoint.get("/code-memory/tasks", tags=TAGS)
def code_memory_rest_tasks(
        cat=check_permissions(AuthResource.CONVERSATION, AuthPermission.READ)):
    """The caller's own code tasks, the current one marked."""
    return _answer("tasks", cat)


@endpoint.get("/code-memory/tasks/{task_id}/drafts", tags=TAGS)
def code_memory_rest_drafts(
        task_id: str, cat=check_permissions(AuthResource.CONVERSATION, AuthPermission.READ)):
    """The drafts of one of the caller's tasks: its line (newest first), rolled back, set
    aside."""
    return _answer("drafts", cat, task_id)


@endpoint.get("/code-memory/tasks/{task_id}/diff", tags=TAGS)
def code_memory_rest_diff(
        task_id: str, draft: str | None = None, against: str | None = None,
        cat=check_permissions(AuthResource.CONVERSATION, AuthPermission.READ)):
    """The unified diff of ``draft`` (number, "start", "current", commit id; default the
    current draft) against its parent, or against the draft ``against``."""
    return _answer("diff", cat, task_id, draft, against)


@endpoint.post("/code-memory/tasks/{task_id}/apply", tags=TAGS)
def code_memory_rest_apply(
        task_id: str, cat=check_permissions(AuthResource.CONVERSATION, AuthPermission.WRITE)):
    """Write the task's current draft into the repository, as "apply" in chat (same
    write-back policy and checks); 409 with the reason when nothing was written."""
    return _answer("apply", cat, task_id)
