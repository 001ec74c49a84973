"""A rename or a move read from the model's proposal, whatever words the request used.

"fetch should be called get from now on", "let's call fetch get": the message is not the
anchored "rename X to Y" (``request``), so it reaches the meta-code proposal, and the model's
meta-code shows what it understood: a target in the same file, named by a new name the
request uses, with exactly the parameters of a definition the file already has and the
request names. That is a rename, and it is done by structure (with its refusals for dynamic
uses, strings and star imports) rather than drafted by a model. A request that asks for new
code ("add a function get that wraps fetch") is never read this way.

Moves the same way ("parse_date belongs in utils/dates.py"): the proposal targets another
file, under the name and with the parameters of the one top-level definition the request
names, which that file does not define yet, and the request names that file. A copy, a
re-export or a second version ("copy parse_date into ...", "utils/dates.py should re-export
parse_date") is not a move. Pure; no I/O.
"""

from __future__ import annotations

import ast

from ..metacode.model import MetaCode
from ..reading.target_link import CREATION_VERBS
from ..reading.text import words
from .edits import word
from .request import MoveRequest, RenameRequest

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

#: Words that keep the original where it is: a copy, a re-export, a second version.
NOT_A_MOVE = frozenset({
    "copy", "copies", "duplicate", "clone", "keep", "also", "both", "too", "export", "exports",
    "reexport", "import", "imports", "alias", "expose", "twin", "wrapper", "wrap", "another",
    "own", "second", "variant", "version",
    "copia", "copiare", "duplica", "anche", "importa", "kopiere", "kopieren", "auch",
    "importiere", "copie", "copier", "aussi", "importe", "copiar", "tambien", "importar",
})


def move_reading(meta: MetaCode, request: str, source_path: str, source_text: str,
                 target_text: str) -> MoveRequest | None:
    """The move ``meta`` (proposed for ``request``) reads as, given the file the index says
    defines ``meta.symbol`` (``source_path``, its text ``source_text``) and the proposal's
    target file's text (``target_text``, "" for a new file); None when it is not one."""
    said = set(words(request))
    if (meta.kind not in ("function", "class") or "." in meta.symbol
            or meta.target_path == source_path or said & (CREATION_VERBS | NOT_A_MOVE)):
        return None
    defined = _definitions(source_text)
    if meta.symbol not in defined or meta.symbol in _definitions(target_text):
        return None
    if not word(meta.symbol).search(request) or not _names_file(request, meta.target_path):
        return None
    if (meta.kind == "class") != (defined[meta.symbol] is None):
        return None
    if meta.kind == "function" and defined[meta.symbol] != meta.params():
        return None
    return MoveRequest(meta.symbol, meta.target_path, source_path)


def _names_file(request: str, path: str) -> bool:
    """Whether the request names ``path``: as a path, a dotted module, or its module's name."""
    module = path[:-3] if path.endswith(".py") else path
    stem = module.rpartition("/")[2]
    return any(word(name).search(request) for name in (path, module.replace("/", "."), stem)
               if name and name != "__init__")


def rename_reading(meta: MetaCode, request: str, before: str) -> RenameRequest | None:
    """The rename ``meta`` (proposed for ``request``) reads as, given the target file's text
    ``before`` the change; None when it is not one."""
    if meta.kind not in ("function", "method", "class") or set(words(request)) & CREATION_VERBS:
        return None
    defined = _definitions(before)
    new_owner, _, new = meta.symbol.rpartition(".")
    if meta.symbol in defined or not word(new).search(request):
        return None
    olds = [q for q, params in defined.items()
            if q.rpartition(".")[0] == new_owner and q.rpartition(".")[2] != new
            and word(q.rpartition(".")[2]).search(request)
            and (meta.kind == "class" or params == meta.params())]
    if len(olds) != 1:
        return None
    return RenameRequest(olds[0], new, meta.target_path)


def _definitions(text: str) -> dict[str, tuple[str, ...] | None]:
    """Qualified name -> parameters (None for a class) of the file's top-level functions and
    classes and its classes' methods (``self``/``cls`` dropped)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    found: dict[str, tuple[str, ...] | None] = {}
    for node in tree.body:
        if isinstance(node, FunctionNode):
            found[node.name] = _params(node, method=False)
        elif isinstance(node, ast.ClassDef):
            found[node.name] = None
            for item in node.body:
                if isinstance(item, FunctionNode):
                    found[f"{node.name}.{item.name}"] = _params(item, method=True)
    return found


def _params(fn: FunctionNode, *, method: bool) -> tuple[str, ...]:
    """The names ``MetaCode.params`` gives for the same header."""
    a = fn.args
    names = [x.arg for x in (*a.posonlyargs, *a.args)]
    names += [f"*{a.vararg.arg}"] if a.vararg else []
    names += [x.arg for x in a.kwonlyargs]
    names += [f"**{a.kwarg.arg}"] if a.kwarg else []
    if method and names and names[0] in ("self", "cls"):
        names = names[1:]
    return tuple(names)
