"""Renames and moves asked in chat, done by structure, with no drafting call.

"rename fmt_ts to format_timestamp", "move parse_date to utils/dates.py" are read without a
model (``codegen.refactor.request``) and rewritten with libcst over the repository's Python
files (definitions, imports, uses, re-exports; ``codegen.refactor``). What cannot be rewritten
safely (the name in a string or in dynamic access, star imports, a taken name ...) is refused
with every place named, and nothing is committed. Otherwise the result becomes the task's draft:
validated and committed by the draft loop's own steps in the session's worker, with a diff per
file; "apply" writes it, as for any draft.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ...codegen import (
    CodegenError,
    MetaCode,
    MoveRequest,
    Refused,
    RenameRequest,
    apply_request,
    move_reading,
    rename_reading,
    structural_metacode,
)
from ...memory import CodeMemoryError, read_file_safely
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


def propose_or_rename(session: Session, turn: Turn, request: Mapping[str, str]) -> str:
    """The proposal for a code request, unless the model's meta-code reads as a rename or a
    move (``codegen.rename_reading``: "fetch should be called get"; ``codegen.move_reading``:
    "parse_date belongs in utils/dates.py"): then the change is done by structure, or refused
    with the places named while the drafted proposal keeps waiting."""
    proposal = session.propose(turn, request)
    text = str(request.get("request", ""))
    structural = _structural_in_proposal(session, turn, text)
    if structural is None:
        return proposal
    answer = structural_change(session, turn, structural, text)
    if session.state.awaiting_confirmation:  # refused: the drafted proposal is still there
        return f"{answer}\n\nDrafted by the model instead, the proposal is:\n\n{proposal}"
    return answer


def _structural_in_proposal(session: Session, turn: Turn,
                            text: str) -> RenameRequest | MoveRequest | None:
    data = session.state.note("metacode") if session.state.awaiting_confirmation else None
    if not isinstance(data, dict):
        return None
    try:
        meta = MetaCode.from_dict(data)
        project = turn.workspace.project()
        target = _text_of(turn, project.root, meta.target_path)
        if target is None:
            return None
        rename = rename_reading(meta, text, target)
        if rename is not None or "." in meta.symbol:
            return rename
        source_path = defining_file(project, meta.symbol)
        source = _text_of(turn, project.root, source_path) if source_path else None
    except (CodegenError, CodeMemoryError, OSError):  # unreadable: the proposal stands
        return None
    if source is None:
        return None
    return move_reading(meta, text, source_path, source, target)


def _text_of(turn: Turn, root: str, path: str) -> str | None:
    """A repository file's text; "" when it does not exist yet, None when it cannot be read."""
    read = read_file_safely(root, path, max_bytes=turn.workspace.config.scope.max_file_bytes)
    if read.data is not None:
        return read.data.decode("utf-8", errors="replace")
    return None if os.path.lexists(os.path.join(root, path)) else ""
