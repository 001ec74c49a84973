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

from collections.abc import Mapping

from ...codegen import (
    CodegenError,
    MetaCode,
    MoveRequest,
    Refused,
    RenameRequest,
    apply_request,
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
    """The proposal for a code request, unless the model's meta-code reads as a rename
    (``codegen.rename_reading``: "fetch should be called get"): then the rename is done by
    structure, or refused with the places named while the proposal keeps waiting."""
    proposal = session.propose(turn, request)
    rename = _rename_in_proposal(session, turn, str(request.get("request", "")))
    if rename is None:
        return proposal
    answer = structural_change(session, turn, rename, str(request.get("request", "")))
    if session.state.awaiting_confirmation:  # refused: the drafted proposal is still there
        return f"{answer}\n\nDrafted by the model instead, the proposal is:\n\n{proposal}"
    return answer


def _rename_in_proposal(session: Session, turn: Turn, text: str) -> RenameRequest | None:
    data = session.state.note("metacode") if session.state.awaiting_confirmation else None
    if not isinstance(data, dict):
        return None
    try:
        meta = MetaCode.from_dict(data)
        read = read_file_safely(turn.workspace.project().root, meta.target_path,
                                max_bytes=turn.workspace.config.scope.max_file_bytes)
    except (CodegenError, CodeMemoryError):
        return None
    if read.data is None:
        return None
    return rename_reading(meta, text, read.data.decode("utf-8", errors="replace"))
