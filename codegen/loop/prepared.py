"""A rename or a move as a task of the draft history: its meta-code, validated and committed.

Why through the loop's own commit path (``loop.run_prepared_draft``): the result is then a
draft like any other, with a baseline commit of the repository's versions, a validation report
(every changed file parsed, linted and its calls checked, the related tests run in the
sandbox), a commit the user can roll back, and "apply" writing every file or none. The only
thing skipped is the model: the rewrite is done, there is nothing to generate or judge.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Mapping

from ..metacode.model import MetaCode
from ..module_names import module_of
from ..refactor.edits import Refused, Renamed
from ..refactor.move import move_symbol
from ..refactor.rename import rename_symbol
from ..refactor.request import MoveRequest, RenameRequest
from .draft_loop import Outcome, run_prepared_draft
from .state import LoopConfig, LoopDeps, ProgressEvent

Request = RenameRequest | MoveRequest


def apply_request(files: Mapping[str, str], request: Request, path: str) -> Renamed | Refused:
    """The rewrite ``request`` asks for, with ``symbol`` defined in ``path``."""
    if isinstance(request, RenameRequest):
        return rename_symbol(files, path, request.symbol, request.new_name)
    return move_symbol(files, path, request.symbol, request.new_path)


def structural_metacode(request: Request, path: str, change: Renamed) -> MetaCode:
    """The goal of a rename or move, as the proposal shows it and the history stores it."""
    if isinstance(request, RenameRequest):
        owner = request.symbol.rsplit(".", 1)[0] + "." if "." in request.symbol else ""
        target, symbol = path, owner + request.new_name
        what = f"Rename `{request.symbol}` to `{request.new_name}`"
    else:
        target, symbol = request.new_path, request.symbol
        what = f"Move `{request.symbol}` from {path} ({module_of(path)}) to {request.new_path}"
    kind, signature = _shape(change.files.get(target, ""), symbol)
    places = len(change.sites)
    return MetaCode.from_dict({
        "target_path": target, "symbol": symbol, "kind": kind, "signature": signature,
        "behaviour": f"{what}: the definition, its imports and every use ({places} change(s) "
                     f"in {len(change.files)} file(s)); what the code does is unchanged.",
        "acceptance_checks": ["every use names the new place", "the repository's tests pass"],
        "assumptions": list(change.notes),
        "scope": [{"path": p, "symbol": "", "why": "rewritten by structure (imports and uses)"}
                  for p in sorted(change.files) if p != target]})


def _shape(source: str, symbol: str) -> tuple[str, str]:
    """The kind and the header (``def f(a, b=1)``) of ``symbol`` in ``source``."""
    head, _, rest = symbol.partition(".")
    tree = ast.parse(source)
    node = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                         ast.ClassDef)) and n.name == head), None)
    if rest and isinstance(node, ast.ClassDef):
        node = next((n for n in node.body if isinstance(n, (ast.FunctionDef,
                                                            ast.AsyncFunctionDef))
                     and n.name == rest), None)
    if node is None:
        return "module", ""
    bare = copy.copy(node)
    bare.body, bare.decorator_list = [ast.Pass()], []
    header = ast.unparse(bare).split("\n", 1)[0].rstrip(":")
    kind = "class" if isinstance(node, ast.ClassDef) else "method" if rest else "function"
    return kind, header


def run_structural(request: Request, path: str, deps: LoopDeps, *, task_id: str,
                   config: LoopConfig | None = None,
                   on_progress: Callable[[ProgressEvent], None] | None = None
                   ) -> tuple[MetaCode, Outcome] | Refused:
    """Rewrite ``deps.repo_files`` as ``request`` says, then validate and commit the result
    as the task's draft (no LLM call); ``Refused`` when the rewrite is not safe."""
    change = apply_request(deps.repo_files, request, path)
    if isinstance(change, Refused):
        return change
    meta = structural_metacode(request, path, change)
    return meta, run_prepared_draft(meta, change.files, deps, task_id=task_id, config=config,
                                    on_progress=on_progress)
