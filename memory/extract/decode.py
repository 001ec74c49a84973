"""Bytes -> text for source files: BOMs, PEP 263 coding cookies, binary detection.

Decoding is strict: a file that does not decode is reported (``skipped:undecodable``)
rather than indexed with replacement characters that would poison hashes and search.
"""

from __future__ import annotations

import codecs
import io
import tokenize
from dataclasses import dataclass

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


@dataclass(frozen=True)
class Decoded:
    """Either ``text`` (with the encoding used) or a ``skipped:``/``error:`` reason."""

    text: str | None
    encoding: str | None
    reason: str | None = None
    detail: str = ""


def _bom_encoding(data: bytes) -> str | None:
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    return None


def _python_encoding(data: bytes) -> tuple[str | None, str]:
    """PEP 263 / BOM encoding of Python source, as the interpreter would pick it."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        return None, str(exc)
    return encoding, ""


def decode_source(data: bytes, language: str) -> Decoded:
    """Decode a source file; NUL bytes outside a UTF-16/32 BOM mean binary."""
    encoding = _bom_encoding(data)
    if encoding is None and b"\x00" in data:
        return Decoded(None, None, "skipped:binary", "NUL byte in file")
    detail = ""
    if encoding is None or encoding == "utf-8-sig":
        if language == "python":
            encoding, detail = _python_encoding(data)
            if encoding is None:
                return Decoded(None, None, "skipped:undecodable", detail)
        elif encoding is None:
            encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        return Decoded(None, None, "skipped:undecodable", f"{encoding}: {exc}"[:200])
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        return Decoded(None, None, "skipped:binary", "NUL character in decoded text")
    return Decoded(text, encoding)
