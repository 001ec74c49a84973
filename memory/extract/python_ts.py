"""Python extraction with tree-sitter: the bulk engine (about 20x faster than libcst).

It walks the tree iteratively (a 10,000-deep expression must not hit Python's recursion
limit) and reports the same raw facts as ``python_cst``; ``pycommon`` builds the entities.
It tolerates syntax errors: entities of a partly broken file are extracted best effort.
"""

from __future__ import annotations

from typing import Any

from .entities import CodeEntity
from .languages import get_parser
from .pycommon import LineIndex, RawDef, build_entities, format_import

_DEFS = frozenset({"function_definition", "class_definition"})
_IMPORTS = frozenset({"import_statement", "import_from_statement", "future_import_statement"})
_SKIP = frozenset({"comment", "global_statement", "nonlocal_statement"})
# Statements that may contain definitions when we are not inside one (module level).
_MODULE_LEVEL = frozenset({
    "module", "block", "if_statement", "elif_clause", "else_clause", "try_statement",
    "except_clause", "except_group_clause", "finally_clause", "with_statement", "for_statement",
    "while_statement", "match_statement", "case_clause", "ERROR", "decorated_definition",
})
_PARAM_NAMES = frozenset({"identifier", "list_splat_pattern", "dictionary_splat_pattern"})


def _text(data: bytes, node: Any) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _dotted(node: Any, data: bytes) -> str | None:
    """``a.b.c`` for an attribute chain over an identifier, else None."""
    parts = []
    while node.type == "attribute":
        attr = node.child_by_field_name("attribute")
        if attr is None:
            return None
        parts.append(_text(data, attr))
        node = node.child_by_field_name("object")
        if node is None:
            return None
    if node.type == "identifier":
        parts.append(_text(data, node))
        return ".".join(reversed(parts))
    return None


def _code_end_line(node: Any) -> int:
    """1-based line of the last non-comment token inside ``node``."""
    current = node
    while current.child_count:
        children = current.children
        i = len(children) - 1
        while i >= 0 and children[i].type == "comment":
            i -= 1
        if i < 0:
            break
        current = children[i]
    return current.end_point[0] + 1


def _doc_literal(body: Any, data: bytes) -> str | None:
    if body is None:
        return None
    for child in body.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_child_count == 1:
            value = child.named_children[0]
            if value.type in ("string", "concatenated_string"):
                return _text(data, value)
        return None
    return None


def _import_names(node: Any, data: bytes) -> list[str]:
    def name_of(child: Any) -> str | None:
        if child.type == "aliased_import":
            child = child.child_by_field_name("name")
        return _text(data, child) if child is not None and child.type == "dotted_name" else None

    if node.type == "import_statement":
        return [n for n in map(name_of, node.named_children) if n]
    module_node = node.child_by_field_name("module_name")
    base = _text(data, module_node) if module_node is not None else "__future__"
    out = []
    for child in node.named_children:
        if module_node is not None and child.id == module_node.id:
            continue
        if child.type == "wildcard_import":
            out.append(format_import(base, "*"))
            continue
        name = name_of(child)
        if name:
            out.append(format_import(base, name))
    return out


class _Walker:
    """Iterative walk that opens a ``RawDef`` per definition and collects names per definition."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.defs: list[RawDef] = []
        self.imports: list[str] = []

    def run(self, root: Any) -> None:
        stack: list[tuple[Any, RawDef | None]] = [(root, None)]
        while stack:
            node, frame = stack.pop()
            kind = node.type
            if kind in _SKIP:
                continue
            if kind in _IMPORTS:
                if frame is None:
                    self.imports.extend(_import_names(node, self.data))
                continue
            if kind in _DEFS or kind == "decorated_definition":
                self._open(node, frame, stack)
                continue
            if frame is None:
                if kind in _MODULE_LEVEL:
                    stack.extend((c, None) for c in reversed(node.named_children))
                continue
            self._names(node, kind, frame, stack)

    def _names(self, node: Any, kind: str, frame: RawDef, stack: list) -> None:
        data = self.data
        if kind == "identifier":
            frame.references.add(_text(data, node))
            return
        if kind == "attribute":
            dotted = _dotted(node, data)
            if dotted is not None:
                frame.references.add(dotted)
            else:
                obj = node.child_by_field_name("object")
                if obj is not None:
                    stack.append((obj, frame))
            return
        if kind == "call":
            func = node.child_by_field_name("function")
            dotted = _dotted(func, data) if func is not None else None
            if dotted is not None:
                frame.calls.add(dotted)
        elif kind == "keyword_argument":
            value = node.child_by_field_name("value")
            if value is not None:
                stack.append((value, frame))
            return
        elif kind in ("parameters", "lambda_parameters"):
            self._params(node, frame, stack)
            return
        stack.extend((c, frame) for c in reversed(node.named_children))

    @staticmethod
    def _params(node: Any, frame: RawDef, stack: list) -> None:
        for param in reversed(node.named_children):
            if param.type in _PARAM_NAMES or param.type == "comment":
                continue
            if param.type in ("typed_parameter", "default_parameter", "typed_default_parameter"):
                for field_name in ("value", "type"):
                    sub = param.child_by_field_name(field_name)
                    if sub is not None:
                        stack.append((sub, frame))
            else:
                stack.append((param, frame))

    def _open(self, node: Any, frame: RawDef | None, stack: list) -> None:
        data = self.data
        outer = node
        decorators: list[Any] = []
        if node.type == "decorated_definition":
            decorators = [c for c in node.named_children if c.type == "decorator"]
            node = node.child_by_field_name("definition")
            if node is None:
                return
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or body is None:
            return
        colon_end = node.end_byte
        for child in node.children:
            if child.type == ":":
                colon_end = child.end_byte
            elif child.id == body.id:
                break
        raw = RawDef(
            is_class=node.type == "class_definition",
            is_async=node.type == "function_definition" and node.children[0].type == "async",
            name=_text(data, name),
            start_line=outer.start_point[0] + 1,
            end_line=_code_end_line(body),
            signature=data[node.start_byte:colon_end].decode("utf-8", "replace"),
            decorators=tuple(_text(data, d)[1:].strip() for d in decorators),
            docstring_literal=_doc_literal(body, data),
            parent=frame,
            order=len(self.defs),
        )
        self.defs.append(raw)
        own = [body]
        for field_name in ("return_type", "parameters", "superclasses"):
            sub = node.child_by_field_name(field_name)
            if sub is not None:
                own.append(sub)
        own.extend(d.named_children[0] for d in reversed(decorators) if d.named_child_count)
        stack.extend((c, raw) for c in own)


def extract_python_ts(
    path: str, text: str
) -> tuple[tuple[CodeEntity, ...], tuple[str, ...], int, bool]:
    """Entities, module-level imports, line count and has-syntax-errors of a Python text."""
    data = text.encode("utf-8", "surrogatepass")
    tree = get_parser("python").parse(data)
    walker = _Walker(data)
    walker.run(tree.root_node)
    imports = tuple(walker.imports)
    index = LineIndex(text)
    entities = build_entities(path, index, walker.defs, imports)
    return entities, imports, index.line_count, tree.root_node.has_error
