"""Code-aware lexical analysis (memory/store/lexical.py): tokens, outlines, FTS5 fields."""

from __future__ import annotations

import pytest

from codemem.memory.store.lexical import (
    COLUMN_WEIGHTS,
    COLUMNS,
    MAX_PHRASE_TOKENS,
    analyzed,
    asks_for_action,
    compound_tokens,
    document_fields,
    lexical_query,
    outline,
    query_tokens,
    tokens,
    with_container_prior,
)
from codemem.memory.store.memory_store import MemoryStore, NewRow, canonical_json, content_hash


def test_identifiers_add_their_parts_and_everything_is_stemmed():
    assert tokens("getUserNames") == ["getusernam", "get", "user", "name"]
    assert tokens("parse_args") == ["parse_arg", "pars", "arg"]
    assert tokens("HTTPServer2") == ["httpserver2", "http", "server", "2"]
    assert tokens("Returns the running processes") == ["return", "run", "process"]
    assert tokens("Same as a >= b, not a // b") == [">=", "b", "//", "b"]  # operators count


def test_query_tokens_are_distinct_and_bounded():
    assert query_tokens("Query the user; the USER query") == ["queri", "user"]
    assert len(query_tokens(" ".join(f"word{i}x" for i in range(100)), limit=32)) == 32
    assert query_tokens("the of and") == []


def test_outline_keeps_a_class_header_and_member_signatures_only():
    source = ('class Parser:\n'
              '    """Parse things."""\n'
              '    limit = 3\n\n'
              '    def parse_header(self, raw):\n'
              '        checksum = compute(raw)\n'
              '        return checksum\n')
    assert outline(source) == ('class Parser:\n    """Parse things."""\n    limit = 3\n'
                               '    def parse_header(self, raw):')
    assert outline("def f(): pass") == "def f(): pass"


def test_code_entity_fields_go_to_their_columns():
    meta = {"type": "code_entity", "kind": "class", "name": "Parser", "language": "python",
            "qualified_name": "net.Parser", "path": "net/parse.py",
            "signature": "class Parser(Base):", "calls": ["compute"], "repo_id": "r-123",
            "entity_hash": "ab12"}
    source = "class Parser(Base):\n    def go(self):\n        checksum = compute()\n"
    fields = dict(zip(COLUMNS, document_fields(source, meta), strict=True))
    assert fields["name"] == "parser"
    assert fields["qualname"] == analyzed("net.Parser net/parse.py")
    assert fields["signature"] == analyzed("class Parser(Base):")
    assert "checksum" not in fields["body"] and "go" in fields["body"].split()
    assert fields["calls"] == "comput"
    assert fields["meta"] == analyzed("kind class language python")  # no ids, no hashes
    assert len(COLUMN_WEIGHTS) == len(COLUMNS)


def test_other_memories_index_their_text_and_all_metadata():
    fields = document_fields("Returns are accepted for 30 days", {"category": "returns"})
    assert fields[:3] == ("", "", "") and fields[4] == ""
    assert fields[3] == analyzed("Returns are accepted for 30 days")
    assert fields[5] == "categori return"


def test_compound_tokens_join_query_words_as_a_name_would():
    compounds = compound_tokens("Names of all active fixtures")
    assert tokens("fixturenames")[0] == "fixturenam" and "fixturenam" in compounds
    assert tokens("activefixtures")[0] in compounds
    assert "recursionindex" in compound_tokens("the index where recursion starts")
    assert not set(compounds) & set(query_tokens("Names of all active fixtures"))
    assert compound_tokens("the") == []


def test_lexical_query_has_a_phrase_only_for_two_to_max_tokens():
    query = lexical_query("Parse the HTTP headers")
    assert query.terms == ("pars", "http", "header") and query.phrase == "pars http header"
    assert lexical_query("headers").phrase == ""
    assert lexical_query(" ".join(["word"] * (MAX_PHRASE_TOKENS + 1))).phrase == ""


def test_store_matches_compounds_in_names_and_ranks_a_verbatim_phrase_first(tmp_path):
    store = MemoryStore(str(tmp_path / "m.db"))

    def code(name, body):
        meta = canonical_json({"type": "code_entity", "kind": "function", "name": name,
                               "qualified_name": name, "path": "m.py"})
        text = f"def {name}():\n    {body}"
        return NewRow(name, text, meta, content_hash(text, meta))
    store.insert_many([
        code("fixturenames", "return self._names"),
        code("other", "x = fixturenames  # mentioned in a body only"),
        code("shuffled", "# headers are parsed from the raw HTTP reply"),
        code("verbatim", "# parse the HTTP headers of a reply"),
    ], None)
    found = store.lexical(lexical_query("names of fixtures"), 10)
    # the compound counts in names only; the body that mentions it matches by its words
    # (segment.py), below the name
    assert found == [1, 2]
    assert store.lexical(lexical_query("Parse the HTTP headers"), 10)[0] == 4
    store.close()


def test_the_container_prior_lowers_classes_only():
    scored = [(1, -10.0), (2, -9.0), (3, -8.5)]  # SQLite bm25: lower is better
    assert with_container_prior(scored, {1: "class", 2: "method", 3: "function"}) == [2, 3, 1]
    assert with_container_prior(scored, {}) == [1, 2, 3]


def test_without_a_stemmer_library_the_error_says_what_to_install(monkeypatch):
    import sys

    from codemem.memory.errors import BackendUnavailable
    from codemem.memory.store import lexical

    monkeypatch.setitem(sys.modules, "Stemmer", None)  # import fails
    monkeypatch.setitem(sys.modules, "snowballstemmer", None)
    with pytest.raises(BackendUnavailable, match="PyStemmer.*requirements.txt"):
        lexical._new_stemmer()


def test_a_question_that_opens_without_an_action_verb_may_ask_for_a_class():
    assert asks_for_action("Return the loader for a module")
    assert asks_for_action("Returns the loader") and asks_for_action("parsing the headers")
    assert not asks_for_action("A loader that finds modules on a path")
    assert not asks_for_action("Base class for importers") and not asks_for_action("")
    assert lexical_query("A loader that finds modules").container_lift
    assert not lexical_query("Find the module loader").container_lift


def test_the_container_lift_ranks_a_described_class_among_methods(tmp_path):
    store = MemoryStore(str(tmp_path / "m.db"))

    def entity(name, kind, text, path="loader.py"):
        meta = canonical_json({"type": "code_entity", "kind": kind, "path": path,
                               "name": name.rsplit(".")[-1], "qualified_name": name})
        return NewRow(name, text, meta, content_hash(text, meta))
    store.insert_many([
        entity("Loader.find", "method", "def find(self, module):\n    return self.path.module"),
        entity("Loader.load", "method", "def load(self, module):\n    return self.find(module)"),
        entity("Loader", "class", "class Loader:\n    module_path = None"),
        *(entity(f"f{i}", "function", f"def f{i}(x):\n    return x + {i}", f"m{i}.py")
          for i in range(12)),  # other code, so that the query's words are rare
    ], None)
    assert store.lexical(lexical_query("Find the module loader path"), 3) == [1, 2, 3]
    assert store.lexical(lexical_query("A loader of a module path"), 3) == [1, 3, 2]
    store.close()
