"""Cheap pre-checks that keep pathological files away from the parsers.

libcst dies (SIGSEGV) on ~10,000 nested brackets and takes minutes on 10,000-term
expressions (docs/threat-model.md); no real source file needs more than a few dozen
levels. These checks run in linear time with C-level helpers (regex, bytes.translate)
so they cost a fraction of a parse. They approximate (strings and comments are stripped
with a regex), so the limits are generous; the worker pool's time limit and crash
containment remain the real guarantee.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate

_PY_STRIP = re.compile(
    rb"#[^\n]*"
    rb"|\"\"\"(?:[^\\\"]|\\.|\"(?!\"\"))*\"\"\""
    rb"|'''(?:[^\\']|\\.|'(?!''))*'''"
    rb"|\"(?:[^\"\\\n]|\\.)*\""
    rb"|'(?:[^'\\\n]|\\.)*'",
    re.S,
)
_C_STRIP = re.compile(
    rb"//[^\n]*|/\*.*?\*/|\"(?:[^\"\\\n]|\\.)*\"|`(?:[^`\\]|\\.)*`",
    re.S,
)
_HASH_STRIP = re.compile(rb"#[^\n]*|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'", re.S)
_STRIPPERS = {"python": _PY_STRIP, "ruby": _HASH_STRIP, "php": _C_STRIP}
_BRACKETS = b"([{)]}"
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _BRACKETS)
_DELTA = {ord("("): 1, ord("["): 1, ord("{"): 1, ord(")"): -1, ord("]"): -1, ord("}"): -1}


@dataclass(frozen=True)
class Limits:
    """Per-file limits; the defaults are far above any hand-written source file."""

    max_file_bytes: int = 1 << 20
    max_line_chars: int = 20_000
    max_bracket_depth: int = 100
    max_indent_chars: int = 800


def _max_depth(code: bytes) -> int:
    brackets = code.translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    return max(accumulate(map(_DELTA.__getitem__, brackets)))


def _longest_line(text: str) -> int:
    if len(text) < 2048:
        return max(map(len, text.split("\n")))
    longest, start = 0, 0
    find = text.find
    while True:
        end = find("\n", start)
        if end == -1:
            return max(longest, len(text) - start)
        longest = max(longest, end - start)
        start = end + 1


def precheck(text: str, language: str, limits: Limits) -> tuple[str, str] | None:
    """``(reason, detail)`` when the file must not be parsed, else None."""
    longest = _longest_line(text)
    if longest > limits.max_line_chars:
        detail = f"a line has {longest} characters (limit {limits.max_line_chars})"
        return "skipped:long_line", detail
    data = text.encode("utf-8", "surrogatepass")
    if len(data) > limits.max_indent_chars:
        deep = re.search(rb"^[ \t]{%d,}\S" % limits.max_indent_chars, data, re.M)
        if deep is not None:
            return "skipped:nesting", f"indentation over {limits.max_indent_chars} characters"
    stripped = _STRIPPERS.get(language, _C_STRIP).sub(b"", data)
    depth = _max_depth(stripped)
    if depth > limits.max_bracket_depth:
        return "skipped:nesting", f"bracket depth {depth} (limit {limits.max_bracket_depth})"
    return None
