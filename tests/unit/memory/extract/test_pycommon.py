"""pycommon: the rules both Python engines share (line index, kinds, names, entity building)."""

from __future__ import annotations

from codemem.memory.extract.entities import sha256_hex
from codemem.memory.extract.pycommon import (
    LineIndex,
    RawDef,
    build_entities,
    docstring_value,
    format_import,
)


def _raw(name: str, order: int, parent: RawDef | None = None, *, is_class: bool = False,
         is_async: bool = False, lines: tuple[int, int] = (1, 1)) -> RawDef:
    return RawDef(is_class=is_class, is_async=is_async, name=name, start_line=lines[0],
                  end_line=lines[1], signature=f"def {name}():", decorators=(),
                  docstring_literal=None, parent=parent, order=order)


def test_line_index_counts_and_slices_lines():
    index = LineIndex("a\nbb\r\nccc\n")
    assert index.line_count == 3  # the trailing newline opens no line
    assert LineIndex("a\nb").line_count == 2
    assert LineIndex("").line_count == 1
    assert index.starts == [0, 2, 6, 10]
    assert [index.line_of(o) for o in (0, 1, 2, 5, 6, 9)] == [1, 1, 2, 2, 3, 3]
    assert index.lines(2, 2) == "bb"  # without the \r\n
    assert index.lines(1, 3) == "a\nbb\r\nccc"
    assert LineIndex("x\ny").lines(2, 2) == "y"  # the last line has no line break


def test_kinds_and_qualified_names_follow_the_nesting():
    cls = _raw("Box", 0, is_class=True)
    method = _raw("get", 1, cls, is_async=True)
    inner = _raw("helper", 2, method)
    assert (cls.kind, method.kind, inner.kind) == ("class", "async_method", "nested_function")
    assert inner.qualified_name == "Box.get.helper"
    assert _raw("f", 3).kind == "function"
    assert _raw("g", 4, is_async=True).kind == "async_function"
    assert _raw("h", 5, _raw("f", 3), is_async=True).kind == "nested_async_function"


def test_docstring_value_cleans_like_getdoc():
    assert docstring_value('"""Title.\n\n    Body line.\n    """') == "Title.\n\nBody line."
    assert docstring_value("'one' 'two'") == "onetwo"
    assert docstring_value(None) is None
    assert docstring_value("b'bytes'") is None  # not a str literal
    assert docstring_value("not a literal(") is None


def test_format_import_joins_module_and_name():
    assert format_import("a.b") == "a.b"
    assert format_import("a.b", "c") == "a.b.c"
    assert format_import(".m", "x") == ".m.x"
    assert format_import(".", "x") == ".x"
    assert format_import("..", "x") == "..x"
    assert format_import("", "x") == "x"


def test_build_entities_orders_numbers_and_derives_fields():
    text = "class A:\n    def f(self):\n        return None\n    def f(self, x):\n        pass\n"
    index = LineIndex(text)
    cls = _raw("A", 0, is_class=True, lines=(1, 5))
    first = _raw("f", 1, cls, lines=(2, 3))
    second = _raw("f", 2, cls, lines=(4, 5))
    first.references |= {"None", "x.y"}
    first.calls |= {"b", "a"}
    cls.docstring_literal = "'''Doc.'''"
    entities = build_entities("m.py", index, [second, cls, first], ("os",))
    assert [(e.qualified_name, e.occurrence) for e in entities] == [
        ("A", 0), ("A.f", 0), ("A.f", 1)]
    top, getter, setter = entities
    assert top.kind == "class" and top.parent is None and top.docstring == "Doc."
    assert getter.kind == "method" and getter.parent == "A"
    assert getter.source == "    def f(self):\n        return None"
    assert getter.content_hash == sha256_hex(getter.source)
    assert getter.calls == ("a", "b") and getter.references == ("x.y",)  # constants dropped
    assert all(e.imports == ("os",) and e.language == "python" for e in entities)
    assert setter.start_line == 4 and setter.end_line == 5
