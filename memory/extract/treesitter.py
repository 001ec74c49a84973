"""Generic tree-sitter extraction for the ten non-Python languages, driven by ``ts_specs``.

One C-level query per language finds every candidate node (fast: no Python walk over the
whole tree); nesting comes from byte-range containment. Per-language quirks (C declarators,
Go receivers, Rust impls) are small resolver functions keyed by the rule's ``name``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .entities import CodeEntity, sha256_hex
from .languages import get_language, get_parser
from .pycommon import LineIndex
from .ts_specs import CONSTRUCTOR_NAMES, LEADING_SIBLINGS, SPECS, WRAPPERS, Rule

if TYPE_CHECKING:  # typing only: tree-sitter is imported lazily, where a parse needs it
    from tree_sitter import Node, Query

_MAX_SIGNATURE = 400
_queries: dict[str, Query] = {}
_lock = threading.Lock()
_JS_FUNCTIONS = frozenset({
    "arrow_function", "function_expression", "function", "generator_function",
})
_C_NAMES = frozenset({
    "identifier", "field_identifier", "qualified_identifier", "destructor_name", "operator_name",
    "type_identifier", "template_function", "operator_cast",
})


@dataclass(frozen=True)
class _Named:
    """A resolver's answer: the name, extra scope (``Widget::`` / Go receiver), body node."""

    name: str
    scope: tuple[str, ...] = ()
    body: Node | None = None
    kind: str | None = None


@dataclass
class _Frame:
    start: int
    end: int
    qualified: str
    container: bool
    callable: bool
    name: str


def _text(data: bytes, node: Node) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _field_text(data: bytes, node: Node, field: str) -> str | None:
    child = node.child_by_field_name(field)
    return _text(data, child) if child is not None else None


def _by_field(node: Node, data: bytes) -> _Named | None:
    name = _field_text(data, node, "name")
    return _Named(name) if name else None


def _optional_name(node: Node, data: bytes) -> _Named:
    return _Named(_field_text(data, node, "name") or "<anonymous>")


def _js_declarator(node: Node, data: bytes) -> _Named | None:
    value = node.child_by_field_name("value")
    name = node.child_by_field_name("name")
    if value is None or name is None or value.type not in _JS_FUNCTIONS:
        return None
    if name.type != "identifier":
        return None
    return _Named(_text(data, name), body=value.child_by_field_name("body"))


def _js_field(node: Node, data: bytes) -> _Named | None:
    """A class field holding a function (``handle = () => ...``): a method."""
    return _field_function(node, data, "property")


def _ts_field(node: Node, data: bytes) -> _Named | None:
    return _field_function(node, data, "name")


def _field_function(node: Node, data: bytes, name_field: str) -> _Named | None:
    value = node.child_by_field_name("value")
    prop = node.child_by_field_name(name_field)
    if value is None or prop is None or value.type not in _JS_FUNCTIONS:
        return None
    return _Named(_text(data, prop), body=value.child_by_field_name("body"))


def _split_scope(text: str) -> tuple[str, tuple[str, ...]]:
    parts = [p for p in text.replace(" ", "").split("::") if p]
    if not parts:
        return text, ()
    return parts[-1], tuple(parts[:-1])


def _c_declarator(node: Node, data: bytes) -> _Named | None:
    current = node.child_by_field_name("declarator")
    for _ in range(64):  # declarators nest a handful of levels; bound the loop anyway
        if current is None:
            return None
        if current.type in _C_NAMES:
            name, scope = _split_scope(_text(data, current))
            return _Named(name, scope)
        nxt = current.child_by_field_name("declarator")
        if nxt is None:
            named = [c for c in current.named_children if c.type != "parameter_list"]
            nxt = named[0] if named else None
        current = nxt
    return None


def _c_tag(node: Node, data: bytes) -> _Named | None:
    if node.child_by_field_name("body") is None:
        return None  # a use (``struct item *p``), not a definition
    name = _field_text(data, node, "name")
    if name:
        return _Named(name)
    parent = node.parent
    if parent is not None and parent.type == "type_definition":
        return None
    return _Named("<anonymous>")


def _c_typedef(node: Node, data: bytes) -> _Named | None:
    inner = node.child_by_field_name("type")
    declarator = node.child_by_field_name("declarator")
    if inner is None or declarator is None or inner.child_by_field_name("body") is None:
        return None
    if inner.child_by_field_name("name") is not None:
        return None  # ``typedef struct item {...} item_t``: the struct itself is the entity
    return _Named(_text(data, declarator), body=inner.child_by_field_name("body"))


def _type_name(node: Node, data: bytes) -> str | None:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "type_identifier":
            return _text(data, current)
        stack.extend(reversed(current.named_children))
    return None


def _go_method(node: Node, data: bytes) -> _Named | None:
    name = _field_text(data, node, "name")
    receiver = node.child_by_field_name("receiver")
    if not name:
        return None
    owner = _type_name(receiver, data) if receiver is not None else None
    return _Named(name, (owner,) if owner else ())


_GO_KINDS = {"struct_type": "struct", "interface_type": "interface"}


def _go_type(node: Node, data: bytes) -> _Named | None:
    name = _field_text(data, node, "name")
    target = node.child_by_field_name("type")
    if not name:
        return None
    return _Named(name, kind=_GO_KINDS.get(target.type if target is not None else "", "type"))


def _rust_impl(node: Node, data: bytes) -> _Named | None:
    target = node.child_by_field_name("type")
    if target is None:
        return None
    while target.type in ("generic_type", "scoped_type_identifier"):
        inner = target.child_by_field_name("type" if target.type == "generic_type" else "name")
        if inner is None:
            break
        target = inner
    return _Named(_text(data, target))


def _rust_mod(node: Node, data: bytes) -> _Named | None:
    return _by_field(node, data) if node.child_by_field_name("body") is not None else None


def _php_namespace(node: Node, data: bytes) -> _Named | None:
    return _by_field(node, data) if node.child_by_field_name("body") is not None else None


_RESOLVERS: dict[str, Callable[[Node, bytes], _Named | None]] = {
    "name": _by_field,
    "optional_name": _optional_name,
    "js_declarator": _js_declarator,
    "js_field": _js_field,
    "ts_field": _ts_field,
    "c_declarator": _c_declarator,
    "c_tag": _c_tag,
    "c_typedef": _c_typedef,
    "go_method": _go_method,
    "go_type": _go_type,
    "rust_impl": _rust_impl,
    "rust_mod": _rust_mod,
    "php_namespace": _php_namespace,
}


def _query(lang: str) -> Query:
    """The cached capture-everything query of a language (invalid node types are dropped)."""
    cached = _queries.get(lang)
    if cached is not None:
        return cached
    import tree_sitter

    language = get_language(lang)
    valid = []
    for node_type in SPECS[lang]:
        try:
            tree_sitter.Query(language, f"({node_type}) @def")
        except (tree_sitter.QueryError, ValueError, NameError):  # pragma: no cover - grammar drift
            continue
        valid.append(f"({node_type})")
    query = tree_sitter.Query(language, "[" + " ".join(valid) + "] @def")
    with _lock:
        _queries.setdefault(lang, query)
    return _queries[lang]


def _outer(node: Node, lang: str) -> tuple[Node, Node]:
    """(span start node, signature start node): wrappers and leading attributes included."""
    wrappers = WRAPPERS.get(lang, frozenset())
    outer = node
    for _ in range(4):
        parent = outer.parent
        if parent is None or parent.type not in wrappers:
            break
        if sum(1 for c in parent.named_children if c.type == outer.type) != 1:
            break
        outer = parent
    first = outer
    leading = LEADING_SIBLINGS.get(lang, frozenset())
    prev = first.prev_named_sibling
    while prev is not None and prev.type in leading:
        first = prev
        prev = prev.prev_named_sibling
    return first, outer


def _signature(data: bytes, start: Node, node: Node, rule: Rule, body: Node | None) -> str:
    if body is None:
        for field_name in rule.body:
            body = node.child_by_field_name(field_name)
            if body is not None:
                break
    if body is not None and body.start_byte > start.start_byte:
        header = data[start.start_byte:body.start_byte]
    else:
        end = data.find(b"\n", start.start_byte, node.end_byte)
        header = data[start.start_byte:node.end_byte if end == -1 else end]
    text = " ".join(header.decode("utf-8", "replace").split())
    if text.endswith("{"):
        text = text[:-1].rstrip()
    return text[:_MAX_SIGNATURE]


def _refine_kind(rule: Rule, named: _Named, parent: _Frame | None, lang: str) -> str:
    if named.kind is not None:
        return named.kind
    if not rule.callable:
        return rule.kind
    name = named.name
    owner = named.scope[-1] if named.scope else None
    if owner is None and parent is not None and parent.container:
        owner = parent.name
    if name in CONSTRUCTOR_NAMES or (lang == "cpp" and owner is not None and name == owner):
        return "constructor"
    if name.startswith("~"):
        return "destructor"
    if rule.kind != "function":
        return rule.kind
    if named.scope or (parent is not None and parent.container):
        return "method"
    if parent is not None and parent.callable:
        return "nested_function"
    return "function"


def extract_treesitter(
    path: str, lang: str, text: str
) -> tuple[tuple[CodeEntity, ...], int, bool]:
    """Entities, line count and has-syntax-errors of a non-Python source text."""
    import tree_sitter

    data = text.encode("utf-8", "surrogatepass")
    tree = get_parser(lang).parse(data)
    captures = tree_sitter.QueryCursor(_query(lang)).captures(tree.root_node).get("def", [])
    nodes = sorted(captures, key=lambda n: (n.start_byte, -n.end_byte))
    index = LineIndex(text)
    rules = SPECS[lang]
    frames: list[_Frame] = []
    seen: dict[str, int] = {}
    out: list[CodeEntity] = []
    for node in nodes:
        rule = rules[node.type]
        named = _RESOLVERS[rule.name](node, data)
        if named is None:
            continue
        while frames and frames[-1].end <= node.start_byte:
            frames.pop()
        parent = frames[-1] if frames else None
        prefix = parent.qualified + "." if parent is not None else ""
        qualified = prefix + ".".join((*named.scope, named.name))
        frames.append(_Frame(node.start_byte, node.end_byte, qualified, rule.container,
                             rule.callable, named.name))
        if not rule.emit or named.name == "<anonymous>":
            continue
        first, outer = _outer(node, lang)
        start_line = first.start_point[0] + 1
        end_line = max(start_line, outer.end_point[0] + 1 - (outer.end_point[1] == 0))
        source = index.lines(start_line, end_line)
        occurrence = seen.get(qualified, 0)
        seen[qualified] = occurrence + 1
        out.append(CodeEntity(
            path=path, language=lang, kind=_refine_kind(rule, named, parent, lang),
            name=named.name, qualified_name=qualified,
            signature=_signature(data, outer, node, rule, named.body), source=source,
            start_line=start_line, end_line=end_line, content_hash=sha256_hex(source),
            parent=parent.qualified if parent is not None else None, occurrence=occurrence,
        ))
    return tuple(out), index.line_count, tree.root_node.has_error
