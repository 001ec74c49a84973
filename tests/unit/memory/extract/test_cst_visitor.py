"""cst_visitor: the libcst visitor's helpers and its collection, driven directly."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from codemem.memory.extract.cst_visitor import (
    Collector,
    _dotted,
    _import_names,
    _original_span,
)
from codemem.memory.extract.pycommon import LineIndex


def _collect(text: str) -> Collector:
    wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    visitor = Collector(wrapper.module, wrapper.resolve(PositionProvider), LineIndex(text))
    wrapper.module.visit(visitor)
    return visitor


def test_dotted_names_only_plain_chains():
    assert _dotted(cst.parse_expression("a.b.c")) == "a.b.c"
    assert _dotted(cst.parse_expression("name")) == "name"
    assert _dotted(cst.parse_expression("(a).b")) is None
    assert _dotted(cst.parse_expression("(a.b)")) == "a.b"  # the whole chain in parentheses
    assert _dotted(cst.parse_expression("f().x")) is None
    assert _dotted(cst.parse_expression("None")) is None
    assert _dotted(cst.parse_expression("x[0].y")) is None


def test_original_span_walks_the_original_text():
    text = "class A:\n    def f(a,\n          b):\n        pass\n"
    rendered = "def f(a,\nb):"  # what libcst gives out of context: indentation lost
    assert _original_span(LineIndex(text), 2, 4, rendered) == "def f(a,\n          b):"


def test_import_names():
    module = cst.parse_module("import a.b as c, d\nfrom ..x import (y as z, w)\n"
                              "from . import m\nfrom q import *\n")
    names = [_import_names(stmt.body[0], module) for stmt in module.body]
    assert names == [["a.b", "d"], ["..x.y", "..x.w"], [".m"], ["q.*"]]


def test_collector_stacks_definitions_and_module_level_imports():
    visitor = _collect("import os\n\nclass A:\n    import json\n    def f(self, k=v):\n"
                       "        nonlocal_ = g(key=self.x)\n        return k\n")
    assert visitor.imports == ["os"]  # not the class-level ``import json``
    assert visitor.stack == []  # every definition opened was closed
    cls, method = visitor.defs
    assert (cls.name, cls.is_class, method.parent is cls, method.order) == ("A", True, True, 1)
    assert method.calls == {"g"}
    assert method.references == {"g", "self.x", "k", "v", "nonlocal_"}  # no ``key``, ``self``
    assert method.signature == "def f(self, k=v):"
