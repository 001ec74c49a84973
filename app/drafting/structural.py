"""Renames and moves asked in chat, done by structure, with no LLM call.

"rename fmt_ts to format_timestamp", "move parse_date to utils/dates.py" are read without a
model (``codegen.refactor.request``) and rewritten with libcst over the repository's Python
files (definitions, imports, uses, re-exports; ``codegen.refactor``). What cannot be rewritten
safely (the name in a string or in dynamic access, star imports, a taken name ...) is refused
with every place named, and nothing is committed. Otherwise the result becomes the task's draft:
validated and committed by the draft loop's own steps in the session's worker, with a diff per
file; "apply" writes it, as for any draft.
"""

from __future__ import annotations

from ...codegen import MoveRequest, Refused, RenameRequest, apply_request, structural_metacode
from ...memory import CodeMemoryError
from ..projects.lookup import defining_file
from ..projects.workspace import Turn
from .loop_run import repo_sources
from .session import Session


def structural_change(session: Session, turn: Turn, request: RenameRequest | MoveRequest,
                      text: str) -> str:
    """The answer to a rename or move request (the draft follows from the worker)."""
    busy = session.busy()
    if busy is not None:
        return busy
    verb = "rename" if isinstance(request, RenameRequest) else "move"
    try:
        project = turn.workspace.project()
    except CodeMemoryError as err:
        return f"I cannot {verb} `{request.symbol}`: {err}"
    path = request.path or defining_file(project, request.symbol)
    if not path:
        return (f"Which file defines `{request.symbol}`? The index knows no single one: say, "
                f"for example, \"{verb} {request.symbol} in path/to/module.py "
                f"{'to' if verb == 'rename' else 'to'} ...\".")
    files = repo_sources(project.root, turn.workspace.config.scope)
    change = apply_request(files, request, path)
    if isinstance(change, Refused):
        return f"I did not {verb} `{request.symbol}`: nothing was changed. {change.message()}"
    meta = structural_metacode(request, path, change)
    started = session.start_prepared(turn, project, text, meta, change.files)
    return f"{started}\n\n{change.summary()}"
