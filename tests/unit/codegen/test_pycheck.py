"""The in-process parse and signature checks."""

from __future__ import annotations

import libcst as cst

from codemem.codegen.checks.pycheck import (
    check_parse,
    check_signature,
    find_definition,
    param_names,
)
from codemem.codegen.report import FAILED, PASSED

CODE = ("class K:\n    def run(self, a, *rest, key=1, **kw):\n        pass\n\n"
        "def top(x, y):\n    return x\n")


def _module() -> cst.Module:
    parsed = check_parse(CODE, "m.py", "3.10")
    assert parsed.result.status is PASSED and parsed.module is not None
    return parsed.module


def test_parse_reports_syntax_errors_with_their_place() -> None:
    bad = check_parse("def f(:\n    pass\n", "m.py", "3.10")
    assert bad.result.status is FAILED and bad.module is None
    assert bad.result.where.startswith("m.py:1")
    deep = check_parse("x = " + "[" * 300 + "]" * 300 + "\n", "d.py", "3.10")
    assert deep.result.status is FAILED and "nested deeper" in deep.result.message


def test_find_definition_and_parameter_names() -> None:
    module = _module()
    method = find_definition(module, "K.run")
    assert isinstance(method, cst.FunctionDef) and method.name.value == "run"
    assert find_definition(module, "K.missing") is None and find_definition(module, "nope") is None
    assert param_names(method, method=True) == ["a", "*rest", "key", "**kw"]


def test_signature_check_compares_kind_and_parameters() -> None:
    module = _module()
    assert check_signature(module, "m.py", "top", ["x", "y"], "function").status is PASSED
    wrong = check_signature(module, "m.py", "top", ["x"], "function")
    assert wrong.status is FAILED and "expected (x)" in wrong.message and wrong.where == "m.py:5"
    assert check_signature(module, "m.py", "K", None, "function").status is FAILED
    assert check_signature(module, "m.py", "gone", None).status is FAILED
    assert check_signature(module, "m.py", None, None).status is PASSED
