"""Rename a method (``Class.method``): its definitions, ``self.``/``cls.`` uses inside the class,
``Class.method`` wherever the class is known, and ``@method.setter``-style decorators.

Why so strict: ``obj.method`` on an object whose type is unknown may be this method or any
other class's method of the same name, and no parser can tell; each such use is refused with
its place, as is a subclass that overrides the method (renaming one would stop the override).
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from ..module_names import module_of
from .edits import FileEdits, bound_node, dotted, from_module, nodes_of, string_places


def plan_member(plans: Mapping[str, FileEdits], path: str, symbol: str, new: str) -> None:
    owner, name = symbol.split(".")
    home = plans.get(path)
    if home is None:
        return
    cls = next((s for s in home.wrapper.module.body
                if isinstance(s, cst.ClassDef) and s.name.value == owner), None)
    if cls is None or not isinstance(cls.body, cst.IndentedBlock):
        home.refusals.append(f"{path}: class `{owner}` is not defined at its top level")
        return
    methods = [s for s in cls.body.body if isinstance(s, cst.FunctionDef)
               and s.name.value == name]
    if not methods:
        home.refusals.append(f"{path}: `{owner}` has no method `{name}`")
        return
    _definitions(home, cls, methods, name, new)
    module = module_of(path)
    for file_path, edits in plans.items():
        _Member(edits, module, owner, name, new, cls if file_path == path else None).plan()


def _definitions(home: FileEdits, cls: cst.ClassDef, methods: list[cst.FunctionDef],
                 name: str, new: str) -> None:
    scope = home.scope(methods[0])
    for assignment in scope.assignments[new]:
        home.refuse(bound_node(assignment), f"`{new}` is already a member of `{cls.name.value}`")
        return
    for method in methods:
        home.rename(method.name, new, "definition")
    for assignment in scope.assignments[name]:
        for access in assignment.references:  # @name.setter and other class-body uses
            if isinstance(access.node, cst.Name):
                home.rename(access.node, new, "use in the class body")


class _Member:
    """The rename of ``owner.name`` in one file."""

    def __init__(self, edits: FileEdits, module: str, owner: str, name: str, new: str,
                 cls: cst.ClassDef | None) -> None:
        self.edits, self.module, self.owner, self.name, self.new = edits, module, owner, name, new
        self.cls = cls
        self.class_names = {owner} if cls is not None else set()

    def plan(self) -> None:
        module = self.edits.wrapper.module
        self._bindings(module)
        inside = {id(n) for n in nodes_of(self.cls, (cst.Attribute,))} if self.cls else set()
        for node in nodes_of(module, (cst.Attribute, cst.ClassDef)):
            if isinstance(node, cst.ClassDef):
                self._override(node)
            elif isinstance(node, cst.Attribute) and node.attr.value == self.name:
                self._attribute(node, id(node) in inside)
        string_places(self.edits, self.name, owns_all=False)

    def _bindings(self, module: cst.Module) -> None:
        for node in nodes_of(module, (cst.Import, cst.ImportFrom)):
            if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
                if from_module(node, self.edits.path) == self.module:
                    self.class_names |= {dotted(a.asname.name) if a.asname else self.owner
                                         for a in node.names if dotted(a.name) == self.owner}
            elif isinstance(node, cst.Import):
                self.class_names |= {
                    f"{dotted(a.asname.name) if a.asname else dotted(a.name)}.{self.owner}"
                    for a in node.names if dotted(a.name) == self.module}

    def _attribute(self, node: cst.Attribute, in_class: bool) -> None:
        receiver = dotted(node.value)
        if (in_class and receiver in ("self", "cls")) or receiver in self.class_names:
            self.edits.rename(node.attr, self.new, "method use")
            return
        shown = self.edits.wrapper.module.code_for_node(node.value)
        self.edits.refuse(node, f"cannot tell whether `{shown}.{self.name}` is "
                                f"`{self.owner}.{self.name}` (the object's type is unknown)")

    def _override(self, node: cst.ClassDef) -> None:
        if node is self.cls or not isinstance(node.body, cst.IndentedBlock):
            return
        bases = {dotted(b.value) for b in node.bases}
        if not bases & (self.class_names | {self.owner}):
            return
        for stmt in node.body.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == self.name:
                self.edits.refuse(stmt, f"`{node.name.value}.{self.name}` overrides "
                                        f"`{self.owner}.{self.name}`; rename it too, by hand")
