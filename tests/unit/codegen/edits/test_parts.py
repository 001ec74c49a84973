"""SEARCH/REPLACE matching (edits/search.py) and whole-entity replacement (edits/entity.py)."""

from __future__ import annotations

import pytest

from codemem.codegen.edits.entity import add_docstring, replace_entity
from codemem.codegen.edits.search import search_replace
from codemem.codegen.errors import EditRejected

SOURCE = ("import os\n\n\ndef f(x):\n    return x\n\n\n"
          "class C:\n    def m(self):\n        return 1\n")


def test_search_replace_exact_then_whitespace_insensitive() -> None:
    assert search_replace("a = 1\nb = 2\n", "b = 2\n", "b = 3\n") == "a = 1\nb = 3\n"
    loose = search_replace("def f():\n    x  =  1\n", "    x = 1\n", "    x = 2\n")
    assert loose == "def f():\n    x = 2\n"
    assert search_replace("", "", "new\n") == "new\n"


def test_search_replace_refuses_ambiguous_and_missing_text() -> None:
    with pytest.raises(EditRejected, match="matches 2 places"):
        search_replace("x = 1\nx = 1\n", "x = 1\n", "x = 2\n", path="m.py")
    with pytest.raises(EditRejected, match="not found in m.py"):
        search_replace("alpha\n", "completely different text\n", "z\n", path="m.py")
    with pytest.raises(EditRejected, match="empty SEARCH"):
        search_replace("x\n", "  ", "y\n")


def test_replace_entity_swaps_only_the_named_definition() -> None:
    out = replace_entity(SOURCE, "f", "import sys\ndef f(x):\n    return -x\n")
    assert "def f(x):\n    return -x\n" in out and "import os\nimport sys\n" in out
    assert out.endswith("class C:\n    def m(self):\n        return 1\n")
    method = replace_entity(SOURCE, "C.m", "def m(self):\n    return 2\n")
    assert "    def m(self):\n        return 2\n" in method and "return x\n" in method
    added = replace_entity(SOURCE, "g", "def g():\n    pass\n")
    assert added.startswith(SOURCE) and added.endswith("\n\n\ndef g():\n    pass\n")


def test_replace_entity_refuses_code_that_is_not_one_matching_definition() -> None:
    with pytest.raises(EditRejected, match="defines 'h'"):
        replace_entity(SOURCE, "f", "def h():\n    pass\n")
    with pytest.raises(EditRejected, match="does not parse"):
        replace_entity(SOURCE, "f", "def f(:\n")
    with pytest.raises(EditRejected, match="class 'D' not found"):
        replace_entity(SOURCE, "D.m", "def m(self):\n    pass\n")


def test_add_docstring_keeps_an_existing_one() -> None:
    out = add_docstring(SOURCE, "f", "Return x.")
    assert '    """Return x."""\n    return x\n' in out
    assert add_docstring(out, "f", "Other.") == out
