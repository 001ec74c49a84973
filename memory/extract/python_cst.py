"""Python extraction with libcst: the exact-structure engine.

libcst is slow (about 20x tree-sitter) and can crash the process on pathological input,
so it runs only where exact structure matters and, for untrusted files, inside the worker
pool (``pool.py``). It reports the raw facts; ``pycommon`` derives the entities, exactly
as it does for the tree-sitter engine, so both agree on the golden fixtures.
"""

from __future__ import annotations

from typing import Any

from .entities import CodeEntity
from .pycommon import CONSTANT_NAMES, LineIndex, RawDef, build_entities, format_import

_PASS_SUITE_TEXT = "pass\n"


def _dotted(node: Any, cst: Any) -> str | None:
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


def _import_names(node: Any, cst: Any, module: Any) -> list[str]:
    """Dotted names a module-level ``import`` / ``from ... import`` statement brings in."""
    if isinstance(node, cst.Import):
        return [module.code_for_node(alias.name) for alias in node.names]
    prefix = "." * len(node.relative)
    base = prefix + (module.code_for_node(node.module) if node.module is not None else "")
    if isinstance(node.names, cst.ImportStar):
        return [format_import(base, "*")]
    return [format_import(base, module.code_for_node(alias.name)) for alias in node.names]


def _make_visitor(cst: Any, module: Any, positions: Any, index: LineIndex) -> Any:
    """Build the collecting visitor (a closure so libcst is imported lazily)."""

    class Collector(cst.CSTVisitor):
        def __init__(self) -> None:
            self.stack: list[RawDef] = []
            self.defs: list[RawDef] = []
            self.imports: list[str] = []
            self.ignore: set[int] = set()

        def _open(self, node: Any, is_class: bool) -> None:
            start = positions[node.decorators[0]] if node.decorators else positions[node]
            header = node.with_changes(
                body=cst.SimpleStatementSuite(
                    body=[cst.Pass()], leading_whitespace=cst.SimpleWhitespace("")
                ),
                decorators=(),
                leading_lines=(),
            )
            rendered = module.code_for_node(header)[: -len(_PASS_SUITE_TEXT)]
            def_pos = positions[node].start
            signature = _original_span(index, def_pos.line, def_pos.column, rendered)
            raw = RawDef(
                is_class=is_class,
                is_async=not is_class and node.asynchronous is not None,
                name=node.name.value,
                start_line=start.start.line,
                end_line=positions[node].end.line,
                signature=signature,
                decorators=tuple(self._decorator(d) for d in node.decorators),
                docstring_literal=self._doc_literal(node.body),
                parent=self.stack[-1] if self.stack else None,
                order=len(self.defs),
            )
            self.ignore.add(id(node.name))
            self.defs.append(raw)
            self.stack.append(raw)

        @staticmethod
        def _decorator(decorator: Any) -> str:
            """Exact original text (out of context libcst would re-indent continuations)."""
            pos = positions[decorator.decorator].start
            rendered = module.code_for_node(decorator.decorator)
            return _original_span(index, pos.line, pos.column, rendered).strip()

        @staticmethod
        def _doc_literal(body: Any) -> str | None:
            first = body.body[0] if body.body else None
            if isinstance(first, cst.SimpleStatementLine):
                first = first.body[0] if first.body else None
            if isinstance(first, cst.Expr) and isinstance(
                first.value, (cst.SimpleString, cst.ConcatenatedString)
            ):
                return module.code_for_node(first.value)
            return None

        def visit_FunctionDef(self, node: Any) -> None:
            self._open(node, is_class=False)

        def leave_FunctionDef(self, original_node: Any) -> None:
            self.stack.pop()

        def visit_ClassDef(self, node: Any) -> None:
            self._open(node, is_class=True)

        def leave_ClassDef(self, original_node: Any) -> None:
            self.stack.pop()

        def visit_Import(self, node: Any) -> bool:
            if not self.stack:
                self.imports.extend(_import_names(node, cst, module))
            return False

        def visit_ImportFrom(self, node: Any) -> bool:
            if not self.stack:
                self.imports.extend(_import_names(node, cst, module))
            return False

        def visit_Global(self, node: Any) -> bool:
            return False

        def visit_Nonlocal(self, node: Any) -> bool:
            return False

        def visit_Param(self, node: Any) -> None:
            self.ignore.add(id(node.name))

        def visit_Arg(self, node: Any) -> None:
            if node.keyword is not None:
                self.ignore.add(id(node.keyword))

        def visit_Call(self, node: Any) -> None:
            if self.stack:
                dotted = _dotted(node.func, cst)
                if dotted is not None:
                    self.stack[-1].calls.add(dotted)

        def visit_Attribute(self, node: Any) -> bool:
            dotted = _dotted(node, cst)
            if dotted is None:
                self.ignore.add(id(node.attr))
                return True
            if self.stack:
                self.stack[-1].references.add(dotted)
            return False

        def visit_Name(self, node: Any) -> None:
            if self.stack and id(node) not in self.ignore:
                self.stack[-1].references.add(node.value)

    return Collector()


def extract_python_cst(path: str, text: str) -> tuple[tuple[CodeEntity, ...], tuple[str, ...], int]:
    """Entities, module-level imports and line count of a Python source text.

    Raises ``libcst.ParserSyntaxError`` on invalid Python (the caller turns it into
    ``error:syntax``). Must not be called in the host process on untrusted input.
    """
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    index = LineIndex(text)
    visitor = _make_visitor(cst, wrapper.module, positions, index)
    wrapper.module.visit(visitor)
    imports = tuple(visitor.imports)
    return build_entities(path, index, visitor.defs, imports), imports, index.line_count
