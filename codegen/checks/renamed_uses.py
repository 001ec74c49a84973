"""A draft that renames or removes a name, checked for the places that still name it where no
parser follows (the model-drafted counterpart of the structural rename's refusals).

A rename done by structure (``refactor``) refuses when a string names the symbol; a rename the
model drafts would otherwise leave those places behind silently. So a draft that no longer
defines a function, class or method its files defined before is checked against every
repository file for: dynamic access naming it in a string (``getattr(mod, "fetch")``,
``mock.patch("pkg.mod.fetch")``), a string that is exactly the name or a dotted path ending in
it (a registry key, a plugin entry), an ``__all__`` entry, and ``from module import *`` of its
module in a file that mentions it. Each place is named ``path:line`` and fails the
``signature`` check, so the model sees them as feedback and the user sees them before any draft
passes. Prose (docstrings, messages that merely contain the word) is left alone. Pure; a
file that does not parse is skipped.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

import libcst as cst
from libcst.metadata import PositionProvider

from ..module_names import module_of
from ..refactor.edits import StringUses, from_module, parse, word
from ..report import FAILED, CheckResult

#: Places named per removed name (a longer list is cut, saying how many more).
MAX_PLACES = 12


def check_removed_names(base: Mapping[str, str], files: Mapping[str, str],
                        paths: Sequence[str]) -> list[CheckResult]:
    """One failed ``signature`` result per name the draft's ``paths`` no longer define while a
    file of ``files`` (the repository with the draft merged) still names it dynamically."""
    results = []
    for path, name in removed_names(base, files, paths):
        places = dynamic_uses(files, name, path)
        if places:
            more = f" (and {len(places) - MAX_PLACES} more)" if len(places) > MAX_PLACES else ""
            results.append(CheckResult(
                "signature", FAILED, f"`{name}` is no longer defined in {path}, but these "
                f"places still name it where no parser follows (update them, or keep the old "
                f"name): {'; '.join(places[:MAX_PLACES])}{more}", path))
    return results


def removed_names(base: Mapping[str, str], files: Mapping[str, str],
                  paths: Sequence[str]) -> list[tuple[str, str]]:
    """``(path, name)`` for each function, class or method (its bare name) of ``paths`` before
    the draft that no file of ``paths`` defines after it."""
    after: set[str] = set()
    for path in paths:
        after |= _defined(files.get(path, ""))
    removed = []
    for path in paths:
        if path.endswith(".py") and path in base and base[path] != files.get(path):
            removed += [(path, name) for name in sorted(_defined(base[path]) - after)]
    return removed


def dynamic_uses(files: Mapping[str, str], name: str, home: str) -> list[str]:
    """``path:line: what`` for each place that names ``name`` (defined in ``home``) where a
    rename by structure would refuse."""
    pattern, places = word(name), []
    for path in sorted(files):
        if path.endswith(".py") and pattern.search(files[path]):
            wrapper = parse(files[path])
            if wrapper is not None:
                places += _places(wrapper, path, name, module_of(home))
    return places


def _places(wrapper: cst.MetadataWrapper, path: str, name: str, home: str) -> list[str]:
    positions = wrapper.resolve(PositionProvider)
    uses = StringUses(name)
    wrapper.visit(uses)
    found = []
    for node, kind in uses.found:
        where = f"{path}:{positions[node].start.line}"
        value = _text(node)
        if kind == "dynamic":
            found.append(f"{where}: dynamic access names `{name}` in a string")
        elif kind == "all":
            found.append(f"{where}: `__all__` lists `{name}`")
        elif kind == "text" and (value == name or value.endswith("." + name)) \
                and value.replace(".", "_").isidentifier():
            found.append(f"{where}: the string {value!r} names `{name}`")
    for node in _star_imports(wrapper.module, path, home):
        found.append(f"{path}:{positions[node].start.line}: `from {home} import *` may bring "
                     f"`{name}`")
    return found


def _star_imports(module: cst.Module, path: str, home: str) -> list[cst.ImportFrom]:
    stars: list[cst.ImportFrom] = []

    class _Stars(cst.CSTVisitor):
        def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
            if isinstance(node.names, cst.ImportStar) and from_module(node, path) == home:
                stars.append(node)

    module.visit(_Stars())
    return stars


def _text(node: cst.CSTNode) -> str:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value.strip() if isinstance(value, str) else ""
    return str(getattr(node, "value", "")).strip()


def _defined(text: str) -> set[str]:
    """Bare names a module defines at top level (functions, classes, assigned names) and its
    classes' methods."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            names |= {n.name for n in node.body
                      if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names
