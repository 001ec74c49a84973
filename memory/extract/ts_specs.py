"""Per-language tables for the generic tree-sitter extractor: which nodes are entities.

One ``Rule`` per node type. Adding a language or a construct is a table edit; the
engine in ``treesitter.py`` stays the same. Kinds follow each language's own vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """How to turn one node type into an entity.

    ``kind``: entity kind; for ``callable`` rules with kind ``function`` the engine refines it
    to ``method`` (inside a container), ``nested_function`` (inside a callable) or
    ``constructor``/``destructor``. ``name``: a field name, or a resolver key of
    ``treesitter._RESOLVERS``. ``container``: children's qualified names go through it.
    ``body``: fields tried in order for the body; the signature is the text before it.
    ``emit``: False for nodes that only scope names (anonymous or file-level wrappers).
    """

    kind: str
    name: str = "name"
    container: bool = False
    callable: bool = False
    body: tuple[str, ...] = ("body",)
    emit: bool = True


def _fn(kind: str = "function", name: str = "name", body: tuple[str, ...] = ("body",)) -> Rule:
    return Rule(kind, name=name, callable=True, body=body)


def _box(kind: str, name: str = "name", body: tuple[str, ...] = ("body",)) -> Rule:
    return Rule(kind, name=name, container=True, body=body)


def _scope(kind: str, name: str = "name") -> Rule:
    """A namespace or module: scopes qualified names, but functions in it stay functions."""
    return Rule(kind, name=name)


_JS: dict[str, Rule] = {
    "function_declaration": _fn(),
    "generator_function_declaration": _fn(),
    "variable_declarator": _fn(name="js_declarator"),
    "field_definition": _fn("method", name="js_field"),
    "method_definition": _fn("method"),
    "class_declaration": _box("class"),
    "class": _box("class", name="optional_name"),
}

_TS: dict[str, Rule] = {
    **_JS,
    # TypeScript's grammar names a class field ``public_field_definition`` (field ``name``)
    "public_field_definition": _fn("method", name="ts_field"),
    "abstract_class_declaration": _box("class"),
    "interface_declaration": _box("interface"),
    "enum_declaration": _box("enum"),
    "type_alias_declaration": Rule("type_alias", body=("value",)),
    "internal_module": _scope("namespace"),
    "module": _scope("module"),
}

_C: dict[str, Rule] = {
    "function_definition": _fn(name="c_declarator"),
    "struct_specifier": _box("struct", name="c_tag"),
    "union_specifier": _box("union", name="c_tag"),
    "enum_specifier": _box("enum", name="c_tag"),
    "type_definition": _box("typedef", name="c_typedef", body=()),
}

_CPP: dict[str, Rule] = {
    **_C,
    "class_specifier": _box("class", name="c_tag"),
    "namespace_definition": _scope("namespace", name="optional_name"),
}

SPECS: dict[str, dict[str, Rule]] = {
    "javascript": _JS,
    "typescript": _TS,
    "tsx": _TS,
    "java": {
        "class_declaration": _box("class"),
        "interface_declaration": _box("interface"),
        "enum_declaration": _box("enum"),
        "record_declaration": _box("record"),
        "annotation_type_declaration": _box("annotation"),
        "method_declaration": _fn("method"),
        "constructor_declaration": _fn("constructor"),
        "compact_constructor_declaration": _fn("constructor"),
    },
    "c": _C,
    "cpp": _CPP,
    "go": {
        "function_declaration": _fn(),
        "method_declaration": _fn("method", name="go_method"),
        "type_spec": _box("type", name="go_type", body=()),
    },
    "rust": {
        "function_item": _fn(),
        "struct_item": _box("struct"),
        "union_item": _box("union"),
        "enum_item": _box("enum"),
        "trait_item": _box("trait"),
        "impl_item": _box("impl", name="rust_impl"),
        "mod_item": _scope("module", name="rust_mod"),
        "macro_definition": Rule("macro", body=()),
        "type_item": Rule("type_alias", body=("type",)),
    },
    "ruby": {
        "method": _fn(),
        "singleton_method": _fn("class_method"),
        "class": _box("class"),
        "module": _box("module"),
    },
    "php": {
        "function_definition": _fn(),
        "method_declaration": _fn("method"),
        "class_declaration": _box("class"),
        "interface_declaration": _box("interface"),
        "trait_declaration": _box("trait"),
        "enum_declaration": _box("enum"),
        "namespace_definition": _scope("namespace", name="php_namespace"),
    },
    "csharp": {
        "class_declaration": _box("class"),
        "interface_declaration": _box("interface"),
        "struct_declaration": _box("struct"),
        "enum_declaration": _box("enum"),
        "record_declaration": _box("record"),
        "namespace_declaration": _scope("namespace"),
        "method_declaration": _fn("method"),
        "local_function_statement": _fn(),
        "constructor_declaration": _fn("constructor"),
        "destructor_declaration": _fn("destructor"),
        "property_declaration": Rule("property", body=("accessors", "value")),
    },
}
"""language id -> node type -> rule (Python has its own engines)."""

WRAPPERS: dict[str, frozenset[str]] = {
    "javascript": frozenset({"export_statement", "lexical_declaration", "variable_declaration"}),
    "typescript": frozenset({
        "export_statement", "lexical_declaration", "variable_declaration", "ambient_declaration",
    }),
    "tsx": frozenset({"export_statement", "lexical_declaration", "variable_declaration"}),
    "cpp": frozenset({"template_declaration"}),
    "go": frozenset({"type_declaration"}),
}
"""Parent node types whose text belongs to the entity (``export``, ``template <...>``, ``const``),
taken into the span when the wrapper holds only this one entity."""

LEADING_SIBLINGS: dict[str, frozenset[str]] = {
    "rust": frozenset({"attribute_item"}),
}
"""Preceding sibling node types that belong to the entity (``#[derive(...)]``)."""

CONSTRUCTOR_NAMES = frozenset({"constructor", "__construct"})
