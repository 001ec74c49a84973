"""decode.decode_source: strict bytes -> text with BOMs, coding cookies and binary detection."""

from __future__ import annotations

import codecs

from codemem.memory.extract.decode import Decoded, decode_source


def test_utf8_without_a_bom_for_any_language():
    assert decode_source("caf\u00e9\n".encode(), "javascript") == Decoded("caf\u00e9\n", "utf-8")
    assert decode_source(b"x = 1\n", "python") == Decoded("x = 1\n", "utf-8")


def test_boms_choose_the_encoding_and_are_dropped():
    utf8 = decode_source(codecs.BOM_UTF8 + b"int x;\n", "c")
    assert utf8 == Decoded("int x;\n", "utf-8-sig")
    utf16 = decode_source(codecs.BOM_UTF16_BE + "fn f() {}\n".encode("utf-16-be"), "rust")
    assert utf16.text == "fn f() {}\n" and utf16.encoding == "utf-16"
    utf32 = decode_source(codecs.BOM_UTF32_LE + "x\n".encode("utf-32-le"), "go")
    assert utf32.text == "x\n" and utf32.encoding == "utf-32"  # its NUL bytes are not binary


def test_python_follows_pep_263():
    latin = "# coding: latin-1\ns = '\u00e9'\n".encode("latin-1")
    assert decode_source(latin, "python") == Decoded("# coding: latin-1\ns = '\u00e9'\n",
                                                    "iso-8859-1")
    unknown = decode_source(b"# coding: klingon\nx = 1\n", "python")
    assert unknown.text is None and unknown.reason == "skipped:undecodable"
    assert "klingon" in unknown.detail
    clash = decode_source(codecs.BOM_UTF8 + b"# coding: latin-1\n", "python")
    assert clash.reason == "skipped:undecodable"  # a BOM and another cookie disagree


def test_undecodable_and_binary_are_reasons_not_text():
    bad = decode_source(b"\xc3\x28 not utf-8", "javascript")
    assert bad.text is None and bad.reason == "skipped:undecodable"
    assert bad.detail.startswith("utf-8: ")
    assert decode_source(b"ab\x00cd", "c") == Decoded(None, None, "skipped:binary",
                                                     "NUL byte in file")
    nul_text = decode_source(codecs.BOM_UTF16_LE + "a\x00b".encode("utf-16-le"), "c")
    assert nul_text == Decoded(None, None, "skipped:binary", "NUL character in decoded text")
