"""python_ts: the bulk engine agrees with libcst and tolerates broken and deep files."""

from __future__ import annotations

from codemem.memory.extract.python_cst import extract_python_cst
from codemem.memory.extract.python_ts import extract_python_ts

from .python_snippet import IMPORTS, OUTLINE, SNIPPET, outline


def test_outline_and_imports():
    entities, imports, lines, broken = extract_python_ts("pkg/s.py", SNIPPET)
    assert outline(entities) == OUTLINE
    assert imports == IMPORTS and lines == 45 and not broken


def test_agrees_with_libcst_entity_by_entity():
    fast = extract_python_ts("pkg/s.py", SNIPPET)
    exact = extract_python_cst("pkg/s.py", SNIPPET)
    assert [e.to_dict() for e in fast[0]] == [e.to_dict() for e in exact[0]]
    assert fast[1:3] == exact[1:]


def test_a_broken_file_is_indexed_best_effort():
    text = "def good(a):\n    return a\n\ndef bad(:\n    pass\n\nclass K:\n    x = 1\n"
    entities, _imports, _lines, broken = extract_python_ts("b.py", text)
    assert broken
    names = [e.qualified_name for e in entities]
    assert "good" in names and "K" in names


def test_deep_nesting_does_not_hit_the_recursion_limit():
    deep = "def f():\n    return " + "(" * 3000 + "x" + ")" * 3000 + "\n"
    entities, _imports, _lines, broken = extract_python_ts("d.py", deep)
    assert [e.name for e in entities] == ["f"] and not broken
    assert entities[0].references == ("x",)


def test_decorator_comments_and_unicode_names():
    text = "@cache  # memoise\ndef caf\u00e9(x):  # \u00e9\n    return x\n"
    (entity,), *_ = extract_python_ts("u.py", text)
    assert entity.name == "caf\u00e9" and entity.decorators == ("cache",)
    assert entity.signature == "def caf\u00e9(x):"
