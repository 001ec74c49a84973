"""treesitter: the generic engine's names, scopes, kinds and spans on small snippets."""

from __future__ import annotations

import pytest

from codemem.memory.extract.treesitter import extract_treesitter

CASES = {
    "javascript": (
        "export const add = (a, b) => a + b;\nclass Box {\n  constructor(n) { this.n = n; }\n"
        "  get = () => this.n;\n  size() { return 1; }\n}\n",
        [("function", "add", 1, 1, "export const add = (a, b) =>", None),
         ("class", "Box", 2, 6, "class Box", None),
         ("constructor", "Box.constructor", 3, 3, "constructor(n)", "Box"),
         ("method", "Box.get", 4, 4, "get = () =>", "Box"),
         ("method", "Box.size", 5, 5, "size()", "Box")]),
    "typescript": (  # TypeScript names a class field public_field_definition
        "class Box {\n  private n: number = 0;\n  get = (): number => this.n;\n"
        "  size(): number { return 1; }\n}\n",
        [("class", "Box", 1, 5, "class Box", None),
         ("method", "Box.get", 3, 3, "get = (): number =>", "Box"),
         ("method", "Box.size", 4, 4, "size(): number", "Box")]),
    "cpp": (
        "namespace geo {\nclass Widget {\n public:\n  Widget();\n  ~Widget();\n};\n}\n"
        "Widget::Widget() {}\nWidget::~Widget() {}\n"
        "template <typename T>\nT twice(T x) { return x + x; }\n",
        [("namespace", "geo", 1, 7, "namespace geo", None),
         ("class", "geo.Widget", 2, 6, "class Widget", "geo"),
         ("constructor", "Widget.Widget", 8, 8, "Widget::Widget()", None),
         ("destructor", "Widget.~Widget", 9, 9, "Widget::~Widget()", None),
         ("function", "twice", 10, 11, "template <typename T> T twice(T x)", None)]),
    "go": (
        "package main\n\ntype Point struct { X int }\n\ntype Shape interface { Area() float64 }"
        "\n\nfunc (p *Point) Move(dx int) { p.X += dx }\n\nfunc main() {}\n",
        [("struct", "Point", 3, 3, "type Point struct { X int }", None),
         ("interface", "Shape", 5, 5, "type Shape interface { Area() float64 }", None),
         ("method", "Point.Move", 7, 7, "func (p *Point) Move(dx int)", None),
         ("function", "main", 9, 9, "func main()", None)]),
    "rust": (
        "#[derive(Debug)]\nstruct P { x: i32 }\n\nimpl<T> Show for Vec<T> {\n"
        "    fn show(&self) {}\n}\n\nmod inner {\n    pub fn f() {}\n}\n",
        [("struct", "P", 1, 2, "struct P", None),  # the attribute belongs to it
         ("impl", "Vec", 4, 6, "impl<T> Show for Vec<T>", None),
         ("method", "Vec.show", 5, 5, "fn show(&self)", "Vec"),
         ("module", "inner", 8, 10, "mod inner", None),
         ("function", "inner.f", 9, 9, "pub fn f()", "inner")]),
    "c": (
        "typedef struct { int x; } point_t;\nstruct item { int v; };\nstruct item *use;\n"
        "int main(void) { return 0; }\n",
        [("typedef", "point_t", 1, 1, "typedef struct", None),
         ("struct", "item", 2, 2, "struct item", None),  # not the use on line 3
         ("function", "main", 4, 4, "int main(void)", None)]),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_outline(lang):
    text, expected = CASES[lang]
    entities, lines, broken = extract_treesitter(f"src/f.{lang}", lang, text)
    assert [(e.kind, e.qualified_name, e.start_line, e.end_line, e.signature, e.parent)
            for e in entities] == expected
    assert lines == text.count("\n") and not broken
    for entity in entities:
        assert entity.language == lang and entity.path == f"src/f.{lang}"
        assert entity.source == "\n".join(text.split("\n")[entity.start_line - 1:
                                                           entity.end_line])


def test_same_names_are_numbered_and_broken_files_flagged():
    text = "function f() {}\nfunction f() {}\nfunction g( {\n"
    entities, _lines, broken = extract_treesitter("a.js", "javascript", text)
    assert [(e.qualified_name, e.occurrence) for e in entities][:2] == [("f", 0), ("f", 1)]
    assert broken
