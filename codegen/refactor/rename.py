"""Rename a top-level function or class everywhere it is named, by structure (libcst).

What is rewritten: the definition; every use bound to it (libcst's scope analysis, so a local
variable or parameter of the same name is left alone); ``from module import name`` (the imported
name, and the file's uses when there is no ``as``); ``module.name`` after ``import module`` or
``from package import module``; re-exports (``from .dates import name`` in a package
``__init__``, followed to their importers); ``__all__`` entries. What is refused, with every
place named: the name in a string or in dynamic access, ``from module import *``, a file that
does not parse, the new name already bound where it would land, a local of the new name that
would hide a renamed use. Docstrings and non-Python files that mention the name are reported,
not changed. No model is asked: the rewrite costs no LLM call.

Methods (``Class.method``) are renamed by ``rename_member``.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Mapping

import libcst as cst
from libcst.metadata import Access, BaseAssignment, GlobalScope, Scope

from ..module_names import module_of
from .edits import (
    FileEdits,
    Outcome,
    Refused,
    Renamed,
    bound_node,
    dotted,
    from_module,
    nodes_of,
    parse,
    string_places,
    word,
)
from .rename_member import plan_member


def rename_symbol(files: Mapping[str, str], path: str, symbol: str, new_name: str) -> Outcome:
    """``files`` (repository path -> text) with ``symbol`` of ``path`` renamed ``new_name``:
    ``Renamed`` (only the changed files) or ``Refused`` naming each place in the way."""
    problem = request_problem(files, path, symbol, new_name)
    if problem:
        return Refused(problem)
    old = symbol.rsplit(".", 1)[-1]
    plans, notes, broken = mentions(files, old)
    if broken:
        return Refused(f"`{symbol}` cannot be renamed safely: files that mention it do not "
                       "parse", tuple(broken))
    if path not in plans:
        return Refused(f"`{symbol}` is not defined in {path}")
    if "." in symbol:
        plan_member(plans, path, symbol, new_name)
    else:
        plan_top(plans, path, old, new_name)
    return finish(plans, files, symbol, notes)


def request_problem(files: Mapping[str, str], path: str, symbol: str, new_name: str
                    ) -> str | None:
    if path not in files:
        return f"{path} is not among the repository's files"
    if not path.endswith(".py"):
        return f"{path}: only Python definitions can be renamed by structure"
    if not new_name.isidentifier() or keyword.iskeyword(new_name):
        return f"{new_name!r} is not a valid Python name"
    if symbol.count(".") > 1 or not all(p.isidentifier() for p in symbol.split(".")):
        return (f"{symbol!r}: only a top-level function or class, or a method (Class.method), "
                "can be renamed")
    if symbol.rsplit(".", 1)[-1] == new_name:
        return f"`{symbol}` is already called {new_name}"
    return None


def mentions(files: Mapping[str, str], name: str
             ) -> tuple[dict[str, FileEdits], list[str], list[str]]:
    """A plan per Python file that mentions ``name``; notes for the other files; the Python
    files that do not parse."""
    plans, notes, broken = {}, [], []
    pattern = word(name)
    for path in sorted(files):
        if not pattern.search(files[path]):
            continue
        if not path.endswith(".py"):
            notes.append(f"{path}: mentions `{name}` (not Python, left as it is)")
            continue
        wrapper = parse(files[path])
        if wrapper is None:
            broken.append(f"{path}: does not parse, so its uses of `{name}` cannot be found")
        else:
            plans[path] = FileEdits(path, wrapper)
    return plans, notes, broken


def finish(plans: Mapping[str, FileEdits], files: Mapping[str, str], symbol: str,
           notes: list[str]) -> Outcome:
    refusals = tuple(r for e in plans.values() for r in e.refusals)
    if refusals:
        return Refused(f"`{symbol}` cannot be renamed safely; settle these places first "
                       "(or rename them by hand):", refusals)
    changed = {p: e.rewritten() for p, e in plans.items() if e.names or e.strings}
    return Renamed({p: t for p, t in changed.items() if t != files[p]},
                   tuple(s for e in plans.values() for s in e.sites),
                   tuple([*notes, *(n for e in plans.values() for n in e.notes)]))


def exporters(plans: Mapping[str, FileEdits], module: str, name: str) -> set[str]:
    """``module`` and every module re-exporting ``name`` from it (``from m import name``
    without ``as``), followed until no new one appears."""
    found = {module}
    grew = True
    while grew:
        grew = False
        for path, edits in plans.items():
            mine = module_of(path)
            if mine in found:
                continue
            for node in nodes_of(edits.wrapper.module, (cst.ImportFrom,)):
                assert isinstance(node, cst.ImportFrom)
                if from_module(node, path) in found and not isinstance(
                        node.names, cst.ImportStar) and any(
                        dotted(a.name) == name and a.asname is None for a in node.names):
                    found.add(mine)
                    grew = True
                    break
    return found


def plan_top(plans: Mapping[str, FileEdits], path: str, old: str, new: str) -> None:
    home = plans.get(path)
    if home is None:
        return  # cannot happen: the defining file mentions the name
    sources = exporters(plans, module_of(path), old)
    for file_path, edits in plans.items():
        _TopFile(edits, old, new, sources, home=file_path == path).plan()


class _TopFile:
    """The rename in one file (see the module docstring)."""

    def __init__(self, edits: FileEdits, old: str, new: str, sources: set[str], *,
                 home: bool) -> None:
        self.edits, self.old, self.new, self.sources, self.home = edits, old, new, sources, home
        self.module = edits.wrapper.module
        self.module_names: set[str] = set()

    def plan(self) -> None:
        if self.home:
            self._definition()
        for node in nodes_of(self.module, (cst.Import, cst.ImportFrom)):
            if isinstance(node, cst.ImportFrom):
                self._import_from(node)
            else:
                assert isinstance(node, cst.Import)
                self.module_names |= {dotted(a.asname.name) if a.asname else dotted(a.name)
                                      for a in node.names if dotted(a.name) in self.sources}
        for node in nodes_of(self.module, (cst.Attribute,)):
            assert isinstance(node, cst.Attribute)
            if node.attr.value == self.old and dotted(node.value) in self.module_names:
                self.edits.rename(node.attr, self.new, "module attribute")
        string_places(self.edits, self.old, owns_all=module_of(self.edits.path) in self.sources,
                      new=self.new)

    def _definition(self) -> None:
        scope = self.edits.scope()
        defs = [s for s in self.module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))
                and s.name.value == self.old]
        if not defs:
            self.edits.refusals.append(f"{self.edits.path}: `{self.old}` is not defined at its "
                                       "top level")
            return
        for assignment in scope.assignments[self.old]:
            if bound_node(assignment) not in defs:
                self.edits.refuse(bound_node(assignment), f"`{self.old}` is also bound here")
        for node in defs:
            self.edits.rename(node.name, self.new, "definition")
        self._uses(scope, lambda a: bound_node(a) in defs)
        self._collision(scope)

    def _import_from(self, node: cst.ImportFrom) -> None:
        base = from_module(node, self.edits.path)
        if isinstance(node.names, cst.ImportStar):
            if base in self.sources:
                self.edits.refuse(node, f"`from {base} import *` brings `{self.old}` in; "
                                        "import it by name first")
            return
        for alias in node.names:
            name = dotted(alias.name)
            if f"{base}.{name}" in self.sources:  # from package import module
                self.module_names.add(dotted(alias.asname.name) if alias.asname else name)
            elif base in self.sources and name == self.old and isinstance(alias.name, cst.Name):
                self.edits.rename(alias.name, self.new, "import")
                if alias.asname is None:
                    scope = self.edits.scope(node)
                    self._uses(scope, lambda a: bound_node(a) is node)
                    self._collision(scope)

    def _uses(self, scope: Scope, mine: Callable[[BaseAssignment], bool]) -> None:
        """Rename every access of the old name's assignments in ``scope`` that are ``mine``."""
        for assignment in scope.assignments[self.old]:
            if not mine(assignment):
                continue
            for access in assignment.references:
                node = access.node
                if isinstance(node, cst.Name) and node.value == self.old:
                    self.edits.rename(node, self.new, "use")
                    self._hidden(access, scope)

    def _hidden(self, access: Access, home: Scope) -> None:
        current: Scope | None = access.scope
        while current is not None and current is not home and not isinstance(
                current, GlobalScope):
            if self.new in current.assignments:
                self.edits.refuse(access.node, f"a local `{self.new}` here would hide the "
                                               f"renamed `{self.old}`")
                return
            current = current.parent if current.parent is not current else None

    def _collision(self, scope: Scope) -> None:
        for assignment in scope.assignments[self.new]:
            self.edits.refuse(bound_node(assignment), f"`{self.new}` is already bound here")
            return

