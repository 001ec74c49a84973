"""Move a top-level function or class to another module, by structure (libcst).

What happens: the definition (decorators and leading comments included) leaves its module and
is appended to the destination (created when absent) with the imports it uses, copied as
absolute imports; ``from old import name`` becomes ``from new import name`` everywhere (split
out of a statement that imports other names too); the old module imports the name back when it
still uses it. What is refused, with its place: a definition that uses another top-level name
of its old module (moving it would need an import cycle: move that one too), ``old.name``
through a module import or ``from old import *``, the name already bound in the destination,
the name in a string or in the old module's ``__all__``, a file that does not parse. No model
is asked.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from ..edits.api import path_problem
from ..module_names import module_of
from .edits import (
    FileEdits,
    Outcome,
    Refused,
    Renamed,
    StringUses,
    bound_node,
    dotted,
    from_module,
    nodes_of,
    parse,
    string_places,
)
from .rename import mentions


def move_symbol(files: Mapping[str, str], path: str, symbol: str, new_path: str) -> Outcome:
    """``files`` with top-level ``symbol`` moved from ``path`` to ``new_path``: ``Renamed``
    (the changed and created files) or ``Refused`` naming each place in the way."""
    problem = _problem(files, path, symbol, new_path)
    if problem:
        return Refused(problem)
    plans, notes, broken = mentions(files, symbol)
    if broken:
        return Refused(f"`{symbol}` cannot be moved safely: files that mention it do not parse",
                       tuple(broken))
    if path not in plans:
        return Refused(f"`{symbol}` is not defined in {path}")
    move = _Move(plans[path], symbol, module_of(path), module_of(new_path))
    imports = move.plan_home()
    for file_path, edits in plans.items():
        if file_path != path:
            move.plan_importer(edits)
    refusals = tuple(r for e in plans.values() for r in e.refusals)
    if new_path in files:
        wrapper = parse(files[new_path])
        if wrapper is None:
            refusals += (f"{new_path}: does not parse, so nothing can be added to it",)
        else:
            refusals += move.destination_problems(plans.get(new_path)
                                                  or FileEdits(new_path, wrapper))
    if refusals:
        return Refused(f"`{symbol}` cannot be moved safely; settle these places first:",
                       refusals)
    out = {p: move.rewrite(e) for p, e in plans.items() if p in move.touched}
    out[path] = move.home_code
    out[new_path] = move.destination(files.get(new_path, ""), imports)
    sites = [f"{path}: definition moved to {new_path}", *move.sites,
             *(s for e in plans.values() for s in e.sites)]
    return Renamed({p: t for p, t in out.items() if t != files.get(p)}, tuple(sites),
                   tuple([*notes, *(n for e in plans.values() for n in e.notes)]))


def _problem(files: Mapping[str, str], path: str, symbol: str, new_path: str) -> str | None:
    if path not in files or not path.endswith(".py"):
        return f"{path} is not a Python file of the repository"
    bad = path_problem(new_path)
    if bad or not new_path.endswith(".py"):
        return f"{new_path!r} is not a place for a Python module ({bad or 'not a .py file'})"
    if new_path == path:
        return f"`{symbol}` is already in {path}"
    if not symbol.isidentifier():
        return f"{symbol!r}: only a top-level function or class can be moved"
    return None


class _Move:
    def __init__(self, home: FileEdits, name: str, old: str, new: str) -> None:
        self.home, self.name, self.old, self.new = home, name, old, new
        self.sites: list[str] = []
        self.definition: cst.FunctionDef | cst.ClassDef | None = None
        self.home_code = home.wrapper.module.code
        #: ``from old import name`` statements to rewrite (by node id), and their files
        self.split: dict[int, cst.ImportFrom] = {}
        self.touched: set[str] = set()

    # -- the old module ---------------------------------------------------------------------
    def plan_home(self) -> list[str]:
        """Find the definition and the imports it needs; refuse what would need a cycle."""
        module = self.home.wrapper.module
        defs = [s for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))
                and s.name.value == self.name]
        if len(defs) != 1:
            self.home.refusals.append(f"{self.home.path}: `{self.name}` is not defined exactly "
                                      "once at its top level")
            return []
        self.definition = defs[0]
        inner = {id(n) for n in nodes_of(self.definition, (cst.Name, cst.Attribute))}
        imports: list[str] = []
        for assignment in self.home.scope().assignments:
            if assignment.name == self.name or not any(
                    id(a.node) in inner for a in assignment.references):
                continue
            node = bound_node(assignment)
            if isinstance(node, (cst.Import, cst.ImportFrom)):
                imports.append(self._absolute(node, assignment.name))
            else:
                self.home.refuse(node, f"`{self.name}` uses `{assignment.name}`, defined here; "
                                       "move it too (an import back would be a cycle)")
        uses = StringUses(self.name)
        self.home.wrapper.visit(uses)
        exported = any(kind == "all" for _, kind in uses.found)
        string_places(self.home, self.name, owns_all=False)
        self._rebuild_home(self._used_outside(inner) or exported)
        return list(dict.fromkeys(imports))

    def _absolute(self, node: cst.Import | cst.ImportFrom, bound: str) -> str:
        if isinstance(node, cst.Import):
            alias = next(a for a in node.names if bound in (
                dotted(a.asname.name) if a.asname else dotted(a.name).split(".")[0],))
            return self.home.wrapper.module.code_for_node(
                cst.Import(names=[alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)]))
        assert not isinstance(node.names, cst.ImportStar)
        alias = next(a for a in node.names
                     if (dotted(a.asname.name) if a.asname else dotted(a.name)) == bound)
        base = from_module(node, self.home.path)
        return f"from {base} import " + self.home.wrapper.module.code_for_node(
            alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))

    def _rebuild_home(self, still_used: bool) -> None:
        """The old module without the definition; it imports the name back when it still
        uses it or lists it in ``__all__`` (its importers' ``import *`` keep working)."""
        module = self.home.wrapper.module
        body = [s for s in module.body if s is not self.definition]
        if still_used:
            back = cst.parse_statement(f"from {self.new} import {self.name}\n")
            last = max((i for i, s in enumerate(body) if _is_import(s)), default=-1)
            body.insert(last + 1, back)
            self.sites.append(f"{self.home.path}: imports `{self.name}` from {self.new}")
        self.home_code = module.with_changes(body=body).code

    def _used_outside(self, inner: set[int]) -> bool:
        return any(id(access.node) not in inner
                   for assignment in self.home.scope().assignments[self.name]
                   for access in assignment.references)

    # -- the importers ----------------------------------------------------------------------
    def plan_importer(self, edits: FileEdits) -> None:
        modules: set[str] = set()
        for node in nodes_of(edits.wrapper.module, (cst.Import, cst.ImportFrom)):
            if isinstance(node, cst.ImportFrom):
                modules |= self._import_from(edits, node)
            else:
                assert isinstance(node, cst.Import)
                modules |= {dotted(a.asname.name) if a.asname else dotted(a.name)
                            for a in node.names if dotted(a.name) == self.old}
        for node in nodes_of(edits.wrapper.module, (cst.Attribute,)):
            assert isinstance(node, cst.Attribute)
            if node.attr.value == self.name and dotted(node.value) in modules:
                edits.refuse(node, f"uses `{edits.wrapper.module.code_for_node(node)}` through "
                                   f"the module; import `{self.name}` from {self.new} instead")
        string_places(edits, self.name, owns_all=False)

    def _import_from(self, edits: FileEdits, node: cst.ImportFrom) -> set[str]:
        """Plan the rewrite of one ``from ... import``; the names it binds to the old module."""
        base = from_module(node, edits.path)
        if isinstance(node.names, cst.ImportStar):
            if base == self.old:
                edits.refuse(node, f"`from {self.old} import *` brings `{self.name}` in; "
                                   "import it by name first")
            return set()
        if base != self.old:
            return {dotted(a.asname.name) if a.asname else dotted(a.name)
                    for a in node.names if f"{base}.{dotted(a.name)}" == self.old}
        if any(dotted(a.name) == self.name for a in node.names):
            self.split[id(node)] = node
            self.touched.add(edits.path)
            edits.sites.append(f"{edits.where(node)}: imports `{self.name}` from {self.new}")
        return set()

    def rewrite(self, edits: FileEdits) -> str:
        return edits.wrapper.module.visit(_Imports(self, edits.path)).code

    # -- the destination --------------------------------------------------------------------
    def destination_problems(self, dest: FileEdits) -> tuple[str, ...]:
        return tuple(f"{dest.path}: `{self.name}` is already bound in the destination"
                     for _ in dest.scope().assignments[self.name])[:1]

    def destination(self, text: str, imports: list[str]) -> str:
        assert self.definition is not None
        code = cst.Module(body=[self.definition]).code.strip("\n") + "\n"
        head = [i for i in imports if i not in text]
        module = cst.parse_module(text) if text.strip() else cst.Module(body=[])
        if head:
            body = list(module.body)
            last = max((i for i, s in enumerate(body) if _is_import(s)), default=-1)
            added = [cst.parse_statement(i + "\n") for i in head]
            module = module.with_changes(body=[*body[:last + 1], *added, *body[last + 1:]])
        base = module.code.rstrip("\n")
        return (base + "\n\n\n" if base else "") + code


class _Imports(cst.CSTTransformer):
    """``from old import name`` -> ``from new import name`` (split when it imports more)."""

    def __init__(self, move: _Move, path: str) -> None:
        super().__init__()
        self.move, self.path = move, path

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine
                                  ) -> cst.SimpleStatementLine | cst.FlattenSentinel[
                                      cst.SimpleStatementLine]:
        node = original_node.body[0] if len(original_node.body) == 1 else None
        if not isinstance(node, cst.ImportFrom) or id(node) not in self.move.split:
            return updated_node
        assert not isinstance(node.names, cst.ImportStar)
        mine = [a for a in node.names if dotted(a.name) == self.move.name]
        rest = [a for a in node.names if dotted(a.name) != self.move.name]
        moved = cst.ImportFrom(module=cst.parse_expression(self.move.new),  # type: ignore[arg-type]
                               names=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
                                      for a in mine])
        if not rest:
            return updated_node.with_changes(body=[moved])
        kept = node.with_changes(names=[*rest[:-1], rest[-1].with_changes(
            comma=cst.MaybeSentinel.DEFAULT)], lpar=None, rpar=None)
        return cst.FlattenSentinel([updated_node.with_changes(body=[kept]),
                                    cst.SimpleStatementLine(body=[moved])])


def _is_import(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)
