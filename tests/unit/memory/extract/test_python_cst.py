"""python_cst: the exact-structure engine on a snippet that exercises every raw fact."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import libcst
import pytest

from codemem.memory.extract.python_cst import extract_python_cst

from .python_snippet import IMPORTS, OUTLINE, SNIPPET, outline

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture(scope="module")
def extracted():
    return extract_python_cst("pkg/s.py", SNIPPET)


def test_outline_imports_and_line_count(extracted):
    entities, imports, lines = extracted
    assert outline(entities) == OUTLINE
    assert imports == IMPORTS  # module level only: ``import inner_mod`` is not one
    assert lines == 45
    assert all(e.path == "pkg/s.py" and e.imports == IMPORTS for e in entities)


def test_headers_keep_their_original_text(extracted):
    fetch, _store, put, size, setter = extracted[0][:5]
    assert fetch.signature == "async def fetch(url, *, retries=3):"
    assert fetch.decorators == ('decorate(\n    "arg",\n)',)
    assert put.signature == "def put(self, key,\n            value):"
    assert size.decorators == ("property",) and setter.decorators == ("size.setter",)
    assert fetch.source.startswith("@decorate(\n")  # decorators included, full lines
    assert fetch.source.endswith("or None  # trailing comment")


def test_docstrings(extracted):
    fetch, store, put = extracted[0][:3]
    assert fetch.docstring == "Fetch a thing.\n\nMore."
    assert store.docstring == "Short."
    assert put.docstring is None


def test_calls_and_references(extracted):
    fetch, store, put = extracted[0][:3]
    assert fetch.calls == ("client.session.get", "decorate", "json.loads")
    # keyword names, the parenthesised ``(client).value`` chain and None do not count
    assert fetch.references == ("client", "client.session.get", "data", "decorate",
                                "json.loads", "result", "retries", "url")
    assert store.references == ("Base", "Meta")
    assert put.calls == ("helper",)
    assert put.references == ("helper", "key", "self.items", "value")  # not ``counter``


def test_a_syntax_error_raises_for_the_caller():
    with pytest.raises(libcst.ParserSyntaxError):
        extract_python_cst("bad.py", "def f(:\n    pass\n")


def test_an_empty_module_has_nothing():
    assert extract_python_cst("e.py", "") == ((), (), 1)


def test_importing_the_module_does_not_load_libcst():
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import tests\n"
            "import codemem.memory.extract.python_cst\n"
            "print('libcst' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT)], capture_output=True,
                          text=True, timeout=120, check=True)
    assert done.stdout.strip() == "False"
