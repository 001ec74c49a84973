"""Python extraction with tree-sitter: the bulk engine (about 20x faster than libcst).

It walks the tree iteratively (a 10,000-deep expression must not hit Python's recursion
limit) and reports the same raw facts as ``python_cst``; ``pycommon`` builds the entities.
It tolerates syntax errors: entities of a partly broken file are extracted best effort.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING

from .entities import CodeEntity
from .languages import get_language, get_parser
from .pycommon import CONSTANT_NAMES, LineIndex, RawDef, build_entities, format_import

if TYPE_CHECKING:  # typing only: tree-sitter is imported lazily, where a parse needs it
    from tree_sitter import Node, Query

_DEFS = frozenset({"function_definition", "class_definition"})
_IMPORTS = frozenset({"import_statement", "import_from_statement", "future_import_statement"})
_SKIP = frozenset({"comment", "global_statement", "nonlocal_statement"})
# Statements that may contain definitions when we are not inside one (module level).
_MODULE_LEVEL = frozenset({
    "module", "block", "if_statement", "elif_clause", "else_clause", "try_statement",
    "except_clause", "except_group_clause", "finally_clause", "with_statement", "for_statement",
    "while_statement", "match_statement", "case_clause", "ERROR", "decorated_definition",
})
_NAMES_QUERY = """
(identifier) @id
(attribute) @attr
(call function: [(identifier) (attribute)] @callee)
(keyword_argument name: (identifier) @skip)
(attribute attribute: (identifier) @skip)
(parameters (identifier) @skip)
(lambda_parameters (identifier) @skip)
(parameters (list_splat_pattern (identifier) @skip))
(parameters (dictionary_splat_pattern (identifier) @skip))
(lambda_parameters (list_splat_pattern (identifier) @skip))
(lambda_parameters (dictionary_splat_pattern (identifier) @skip))
(typed_parameter (list_splat_pattern (identifier) @skip))
(typed_parameter (dictionary_splat_pattern (identifier) @skip))
(default_parameter name: (identifier) @skip)
(typed_default_parameter name: (identifier) @skip)
(typed_parameter . (identifier) @skip)
(function_definition name: (identifier) @skip)
(class_definition name: (identifier) @skip)
[(import_statement) (import_from_statement) (future_import_statement) (global_statement)
 (nonlocal_statement)] @imp
"""
_PURE_CHAIN = re.compile(r"[^\W\d]\w*(?:\s*\.\s*[^\W\d]\w*)*\Z")
_WHITESPACE = re.compile(r"\s+")
_query_cache: list[Query] = []


def _text(data: bytes, node: Node) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _dotted(node: Node, data: bytes) -> str | None:
    """``a.b.c`` for an attribute chain over an identifier, else None."""
    parts = []
    while node.type == "attribute":
        attr = node.child_by_field_name("attribute")
        if attr is None:
            return None
        parts.append(_text(data, attr))
        obj = node.child_by_field_name("object")
        if obj is None:
            return None
        node = obj
    if node.type == "identifier":
        parts.append(_text(data, node))
        return ".".join(reversed(parts))
    return None


def _code_end_line(node: Node) -> int:
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


def _decorator_text(data: bytes, decorator: Node) -> str:
    """The decorator expression without ``@`` and without a trailing comment."""
    expressions = [c for c in decorator.named_children if c.type != "comment"]
    if not expressions:
        return _text(data, decorator)[1:].strip()
    return data[expressions[0].start_byte:expressions[-1].end_byte].decode("utf-8", "replace")


def _doc_literal(body: Node | None, data: bytes) -> str | None:
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


def _import_names(node: Node, data: bytes) -> list[str]:
    def name_of(child: Node) -> str | None:
        named = child.child_by_field_name("name") if child.type == "aliased_import" else child
        return _text(data, named) if named is not None and named.type == "dotted_name" else None

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
        self.spans: list[tuple[int, int, RawDef]] = []

    def run(self, root: Node) -> None:
        stack: list[tuple[Node, RawDef | None]] = [(root, None)]
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
            if kind in _MODULE_LEVEL:
                stack.extend((c, frame) for c in reversed(node.named_children))

    def _open(
        self, node: Node, frame: RawDef | None, stack: list[tuple[Node, RawDef | None]]
    ) -> None:
        data = self.data
        outer = node
        decorators: list[Node] = []
        if node.type == "decorated_definition":
            decorators = [c for c in node.named_children if c.type == "decorator"]
            definition = node.child_by_field_name("definition")
            if definition is None:
                return
            node = definition
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
            decorators=tuple(_decorator_text(data, d) for d in decorators),
            docstring_literal=_doc_literal(body, data),
            parent=frame,
            order=len(self.defs),
        )
        self.defs.append(raw)
        self.spans.append((outer.start_byte, outer.end_byte, raw))
        stack.append((body, raw))


def extract_python_ts(
    path: str, text: str
) -> tuple[tuple[CodeEntity, ...], tuple[str, ...], int, bool]:
    """Entities, module-level imports, line count and has-syntax-errors of a Python text."""
    data = text.encode("utf-8", "surrogatepass")
    tree = get_parser("python").parse(data)
    walker = _Walker(data)
    walker.run(tree.root_node)
    if walker.spans:
        _collect_names(tree.root_node, data, walker.spans)
    imports = tuple(walker.imports)
    index = LineIndex(text)
    entities = build_entities(path, index, walker.defs, imports)
    return entities, imports, index.line_count, tree.root_node.has_error


def _names_query() -> Query:
    if not _query_cache:
        import tree_sitter

        _query_cache.append(tree_sitter.Query(get_language("python"), _NAMES_QUERY))
    return _query_cache[0]


def _owner_sweep(spans: list[tuple[int, int, RawDef]], events: list[tuple[int, str, str]]) -> None:
    """Give each (offset, kind, name) to the innermost definition around it (one sweep)."""
    spans = sorted(spans, key=lambda s: (s[0], -s[1]))
    open_defs: list[tuple[int, int, RawDef]] = []
    i = 0
    for offset, kind, name in sorted(events):
        while i < len(spans) and spans[i][0] <= offset:
            while open_defs and open_defs[-1][1] <= spans[i][0]:
                open_defs.pop()
            open_defs.append(spans[i])
            i += 1
        while open_defs and open_defs[-1][1] <= offset:
            open_defs.pop()
        if open_defs:
            target = open_defs[-1][2]
            (target.calls if kind == "call" else target.references).add(name)


def _collect_names(root: Node, data: bytes, spans: list[tuple[int, int, RawDef]]) -> None:
    """Names each definition references or calls, found with one C-level query.

    An attribute chain over a name (``a.b.c``) counts once, as the whole chain; parameter,
    keyword-argument and definition names, imports and ``global`` names do not count.
    """
    import tree_sitter

    captures = tree_sitter.QueryCursor(_names_query()).captures(root)
    skip = {n.start_byte for n in captures.get("skip", ())}
    blocked = sorted((n.start_byte, n.end_byte) for n in captures.get("imp", ()))
    chains: dict[int, tuple[int, str]] = {}
    for node in captures.get("attr", ()):
        text = data[node.start_byte:node.end_byte].decode("utf-8", "replace")
        if _PURE_CHAIN.match(text) and text.split(".", 1)[0].strip() not in CONSTANT_NAMES:
            best = chains.get(node.start_byte)
            if best is None or best[0] < node.end_byte:
                chains[node.start_byte] = (node.end_byte, _WHITESPACE.sub("", text))
    events: list[tuple[int, str, str]] = []
    chain_ends = sorted((s, e) for s, (e, _) in chains.items())
    covered = _Intervals(chain_ends)
    blocked_iv = _Intervals(blocked)
    for start, (_end, dotted) in chains.items():
        if not covered.inside_other(start) and not blocked_iv.contains(start):
            events.append((start, "ref", dotted))
    for node in captures.get("id", ()):
        start = node.start_byte
        if start in skip or covered.contains(start) or blocked_iv.contains(start):
            continue
        events.append((start, "ref", data[start:node.end_byte].decode("utf-8", "replace")))
    for node in captures.get("callee", ()):
        text = data[node.start_byte:node.end_byte].decode("utf-8", "replace")
        if node.type == "identifier" or (
            _PURE_CHAIN.match(text) and text.split(".", 1)[0].strip() not in CONSTANT_NAMES
        ):
            events.append((node.start_byte, "call", _WHITESPACE.sub("", text)))
    _owner_sweep(spans, events)


class _Intervals:
    """Sorted, possibly nested intervals; membership by bisect on the outermost ones."""

    def __init__(self, intervals: list[tuple[int, int]]) -> None:
        merged: list[tuple[int, int]] = []
        for start, end in intervals:
            if merged and start < merged[-1][1]:
                if end > merged[-1][1]:
                    merged[-1] = (merged[-1][0], end)
                continue
            merged.append((start, end))
        self.starts = [s for s, _ in merged]
        self.ends = [e for _, e in merged]

    def contains(self, offset: int) -> bool:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i >= 0 and offset < self.ends[i]

    def inside_other(self, start: int) -> bool:
        """True when an interval starting at ``start`` lies strictly inside a longer one."""
        i = bisect.bisect_right(self.starts, start) - 1
        return i >= 0 and self.starts[i] < start < self.ends[i]
