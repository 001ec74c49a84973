"""The libcst visitor behind ``python_cst``: the raw facts of every ``def``/``class`` of a module.

This module imports libcst at its top. ``python_cst`` imports it only inside
``extract_python_cst``, so libcst is loaded where a libcst parse runs (a parsing worker with
the ``libcst`` engine), not by importing ``python_cst``.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst
from libcst.metadata import CodeRange

from .pycommon import CONSTANT_NAMES, LineIndex, RawDef, format_import

_PASS_SUITE_TEXT = "pass\n"

#: Positions of the nodes of one module (``MetadataWrapper.resolve(PositionProvider)``).
Positions = Mapping[cst.CSTNode, CodeRange]


def _dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of Attribute nodes over a Name, else None."""
    parts = []
    outer = node
    while isinstance(node, cst.Attribute) and (node is outer or not node.lpar):
        parts.append(node.attr.value)
        node = node.value
    inner_ok = node is outer or not node.lpar  # ``(a).b`` is not a plain chain in tree-sitter
    if isinstance(node, cst.Name) and inner_ok and node.value not in CONSTANT_NAMES:
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _original_span(index: LineIndex, line: int, column: int, rendered: str) -> str:
    """The original text of a header that libcst rendered out of context.

    Rendered alone, continuation lines lose the enclosing block's indentation; every
    non-whitespace character is the same, so walk the original until all are matched.
    """
    text = index.text
    start = index.starts[line - 1] + column
    wanted = sum(1 for ch in rendered if not ch.isspace())
    pos = start
    while wanted and pos < len(text):
        if not text[pos].isspace():
            wanted -= 1
        pos += 1
    return text[start:pos]


def _import_names(node: cst.Import | cst.ImportFrom, module: cst.Module) -> list[str]:
    """Dotted names a module-level ``import`` / ``from ... import`` statement brings in."""
    if isinstance(node, cst.Import):
        return [module.code_for_node(alias.name) for alias in node.names]
    prefix = "." * len(node.relative)
    base = prefix + (module.code_for_node(node.module) if node.module is not None else "")
    if isinstance(node.names, cst.ImportStar):
        return [format_import(base, "*")]
    return [format_import(base, module.code_for_node(alias.name)) for alias in node.names]


class Collector(cst.CSTVisitor):
    """Collects a ``RawDef`` per definition (with the names it calls and references) and the
    module-level imports, in source order."""

    def __init__(self, module: cst.Module, positions: Positions, index: LineIndex) -> None:
        super().__init__()
        self.module = module
        self.positions = positions
        self.index = index
        self.stack: list[RawDef] = []
        self.defs: list[RawDef] = []
        self.imports: list[str] = []
        self.ignore: set[int] = set()

    # -- definitions --------------------------------------------------------------------------
    def _open(self, node: cst.FunctionDef | cst.ClassDef) -> None:
        is_class = isinstance(node, cst.ClassDef)
        first = node.decorators[0] if node.decorators else node
        raw = RawDef(
            is_class=is_class,
            is_async=isinstance(node, cst.FunctionDef) and node.asynchronous is not None,
            name=node.name.value,
            start_line=self.positions[first].start.line,
            end_line=self.positions[node].end.line,
            signature=self._signature(node),
            decorators=tuple(self._decorator(d) for d in node.decorators),
            docstring_literal=self._doc_literal(node.body),
            parent=self.stack[-1] if self.stack else None,
            order=len(self.defs),
        )
        self.ignore.add(id(node.name))
        self.defs.append(raw)
        self.stack.append(raw)

    def _signature(self, node: cst.FunctionDef | cst.ClassDef) -> str:
        """The original text of the header, from ``def``/``class`` to the colon."""
        header = node.with_changes(
            body=cst.SimpleStatementSuite(
                body=[cst.Pass()], leading_whitespace=cst.SimpleWhitespace("")
            ),
            decorators=(),
            leading_lines=(),
        )
        rendered = self.module.code_for_node(header)[: -len(_PASS_SUITE_TEXT)]
        def_pos = self.positions[node].start
        return _original_span(self.index, def_pos.line, def_pos.column, rendered)

    def _decorator(self, decorator: cst.Decorator) -> str:
        """Exact original text (out of context libcst would re-indent continuations)."""
        pos = self.positions[decorator.decorator].start
        rendered = self.module.code_for_node(decorator.decorator)
        return _original_span(self.index, pos.line, pos.column, rendered).strip()

    def _doc_literal(self, body: cst.BaseSuite) -> str | None:
        first: cst.CSTNode | None = body.body[0] if body.body else None
        if isinstance(first, cst.SimpleStatementLine):
            first = first.body[0] if first.body else None
        if isinstance(first, cst.Expr) and isinstance(
            first.value, (cst.SimpleString, cst.ConcatenatedString)
        ):
            return self.module.code_for_node(first.value)
        return None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._open(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._open(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.stack.pop()

    # -- imports and names --------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        if not self.stack:
            self.imports.extend(_import_names(node, self.module))
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not self.stack:
            self.imports.extend(_import_names(node, self.module))
        return False

    def visit_Global(self, node: cst.Global) -> bool:
        return False

    def visit_Nonlocal(self, node: cst.Nonlocal) -> bool:
        return False

    def visit_Param(self, node: cst.Param) -> None:
        self.ignore.add(id(node.name))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.ignore.add(id(node.keyword))

    def visit_Call(self, node: cst.Call) -> None:
        if self.stack:
            dotted = _dotted(node.func)
            if dotted is not None:
                self.stack[-1].calls.add(dotted)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        dotted = _dotted(node)
        if dotted is None:
            self.ignore.add(id(node.attr))
            return True
        if self.stack:
            self.stack[-1].references.add(dotted)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if self.stack and id(node) not in self.ignore:
            self.stack[-1].references.add(node.value)
