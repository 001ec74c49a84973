"""extract_file statuses: every failure mode is a status, never an exception."""

from __future__ import annotations

import codecs

import pytest

from codemem.memory.extract import languages as langs
from codemem.memory.extract.api import extract_file
from codemem.memory.extract.entities import CodeEntity, FileExtraction
from codemem.memory.extract.languages import detect_language
from codemem.memory.extract.safety import Limits


def test_detect_language():
    assert detect_language("a/b.py") == "python"
    assert detect_language("x.TSX") == "tsx"
    assert detect_language("lib/x.hpp") == "cpp"
    assert detect_language("Rakefile") == "ruby"
    assert detect_language("README.md") is None


def test_unsupported_and_too_large():
    assert extract_file("a.txt", b"hello").status == "skipped:unsupported_language"
    big = extract_file("a.py", b"x = 1\n" * 10, limits=Limits(max_file_bytes=10))
    assert big.status == "skipped:too_large"


def test_decoding_rules():
    cookie = "# -*- coding: latin-1 -*-\ndef caf\u00e9():\n    return '\u00e9'\n".encode("latin-1")
    result = extract_file("a.py", cookie)
    assert result.status == "indexed" and result.encoding == "iso-8859-1"
    assert result.entities[0].name == "caf\u00e9"
    no_cookie = "def f():\n    return '\u00e9'\n".encode("latin-1")
    assert extract_file("b.py", no_cookie).status == "skipped:undecodable"
    utf16 = codecs.BOM_UTF16_LE + "def g():\n    pass\n".encode("utf-16-le")
    result = extract_file("c.py", utf16)
    assert result.status == "indexed" and [e.name for e in result.entities] == ["g"]
    bom8 = codecs.BOM_UTF8 + b"class K:\n    pass\n"
    assert extract_file("d.py", bom8).entities[0].source == "class K:\n    pass"
    assert extract_file("e.py", b"x = 1\x00\x01").status == "skipped:binary"
    assert extract_file("f.js", b"\xc3\x28 function").status == "skipped:undecodable"


def test_pathological_input_is_refused_before_parsing():
    deep = b"x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n"
    result = extract_file("deep.py", deep, python_engine="libcst")
    assert result.status == "skipped:nesting" and "bracket depth" in result.detail
    long_line = b"x = '" + b"a" * 30000 + b"'\n"
    assert extract_file("long.py", long_line).status == "skipped:long_line"
    # brackets inside strings and comments do not count
    text = b"s = '" + b"(" * 300 + b"'  # " + b"[" * 300 + b"\ndef f():\n    pass\n"
    assert extract_file("ok.py", text).status == "indexed"


def test_syntax_errors_per_engine():
    broken = b"def good():\n    return 1\n\ndef bad(:\n    pass\n"
    exact = extract_file("a.py", broken, python_engine="libcst")
    assert exact.status == "error:syntax" and "line" in exact.detail
    fast = extract_file("a.py", broken)
    assert fast.status == "indexed" and fast.syntax_errors
    assert "good" in [e.name for e in fast.entities]
    with pytest.raises(ValueError):
        extract_file("a.py", b"", python_engine="ast")


def test_missing_grammar_is_a_status(monkeypatch):
    monkeypatch.setitem(langs._GRAMMARS, "go", ("tree_sitter_not_installed", "language"))
    monkeypatch.delitem(langs._languages, "go", raising=False)
    for key in [k for k in langs._parsers if k[0] == "go"]:
        monkeypatch.delitem(langs._parsers, key)
    result = extract_file("main.go", b"package main\nfunc main() {}\n")
    assert result.status == "error:grammar_unavailable"
    assert "tree_sitter_not_installed" in result.detail


def test_round_trip_and_hashes():
    source = b"import os\n\n@dec\ndef f(a):\n    '''Doc.'''\n    os.x(a)\n"
    result = extract_file("pkg/m.py", source)
    again = FileExtraction.from_dict(result.to_dict())
    assert again == result
    entity = result.entities[0]
    assert CodeEntity.from_dict(entity.to_dict()) == entity
    assert entity.decorators == ("dec",) and entity.docstring == "Doc."
    assert entity.calls == ("os.x",) and entity.imports == ("os",)
    assert entity.start_line == 3 and entity.end_line == 6
    import hashlib

    assert entity.content_hash == hashlib.sha256(entity.source.encode()).hexdigest()
