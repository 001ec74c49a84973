"""ts_specs: the per-language tables name node types, fields and resolvers that really exist."""

from __future__ import annotations

import pytest

from codemem.memory.extract.languages import LANGUAGES, get_language
from codemem.memory.extract.treesitter import _RESOLVERS
from codemem.memory.extract.ts_specs import (
    CONSTRUCTOR_NAMES,
    LEADING_SIBLINGS,
    SPECS,
    WRAPPERS,
    Rule,
)

#: Node types a grammar does not have: inherited from the JavaScript table, where class fields
#: are ``field_definition`` (TypeScript names them ``public_field_definition``). The extractor's
#: query drops unknown node types, so they are harmless.
ABSENT = {("typescript", "field_definition"), ("tsx", "field_definition")}


def test_every_tree_sitter_language_has_a_table():
    assert set(SPECS) == set(LANGUAGES) - {"python"}  # Python has its own engines
    assert set(WRAPPERS) <= set(SPECS) and set(LEADING_SIBLINGS) <= set(SPECS)


@pytest.mark.parametrize("lang", sorted(SPECS))
def test_node_types_and_fields_exist_in_the_grammar(lang):
    language = get_language(lang)
    for node_type, rule in SPECS[lang].items():
        if (lang, node_type) not in ABSENT:
            assert language.id_for_node_kind(node_type, True) is not None, node_type
        for field in rule.body:
            assert language.field_id_for_name(field) is not None, (node_type, field)
    for node_type in WRAPPERS.get(lang, frozenset()) | LEADING_SIBLINGS.get(lang, frozenset()):
        assert language.id_for_node_kind(node_type, True) is not None, node_type


def test_absent_node_types_are_still_absent():
    for lang, node_type in ABSENT:
        assert node_type in SPECS[lang]
        assert get_language(lang).id_for_node_kind(node_type, True) is None


def test_every_rule_names_a_known_resolver():
    names = {rule.name for rules in SPECS.values() for rule in rules.values()}
    assert names <= set(_RESOLVERS)


def test_rule_shapes():
    java = SPECS["java"]
    assert java["method_declaration"] == Rule("method", callable=True)
    assert java["class_declaration"] == Rule("class", container=True)
    go_type = SPECS["go"]["type_spec"]
    assert go_type.container and go_type.body == () and go_type.name == "go_type"
    namespace = SPECS["cpp"]["namespace_definition"]
    assert not namespace.container and not namespace.callable and namespace.emit
    assert SPECS["tsx"] is SPECS["typescript"]
    assert set(SPECS["javascript"]) < set(SPECS["typescript"])
    assert set(SPECS["c"]) < set(SPECS["cpp"])
    assert "__construct" in CONSTRUCTOR_NAMES
