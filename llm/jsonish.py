"""A lenient lexical scan of JSON as models write it: extent, safe truncation points, duplicates.

Why a scanner of our own before the repair library: choosing the answer needs the exact extent of
each object in prose (braces inside strings, single-quoted strings, comments); a truncated answer
may only be cut back to its last *complete* value (a number cut in the middle, ``0.`` of
``0.85``, must never be read); and a key given twice with different values is ambiguous, which the
repair library would hide by keeping the last one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_VALUE_START = "{[,:"
_AFTER_SQ = ",}]:"


@dataclass
class Scan:
    """What :func:`scan` found from an opening bracket."""

    start: int
    #: index one past the matching closing bracket; None when the text ends first (truncated)
    end: int | None = None
    #: prefix lengths that end right after a complete value (for cutting a truncated answer)
    cuts: list[int] = field(default_factory=list)
    #: (key, first raw value, second raw value) for keys given twice in one object
    duplicates: list[tuple[str, str, str]] = field(default_factory=list)
    #: (start, end) of strings JSON does not allow: single-quoted and triple-quoted ones
    odd_strings: list[tuple[int, int]] = field(default_factory=list)


class _Frame:
    __slots__ = ("is_object", "keys", "key", "value_at")

    def __init__(self, is_object: bool) -> None:
        self.is_object = is_object
        self.keys: dict[str, str] = {}
        self.key: str | None = None
        self.value_at = -1


def scan(text: str, start: int) -> Scan:
    """Scan the object or array opening at ``text[start]`` (``{`` or ``[``)."""
    result = Scan(start)
    stack: list[_Frame] = []
    i, last_sig = start, ""
    pending_key: str | None = None
    while i < len(text):
        ch = text[i]
        if ch in "\"'" and (ch == '"' or last_sig in _VALUE_START):
            end = _string_end(text, i)
            if end is None:
                return result
            if ch == "'" or text.startswith('"""', i):
                result.odd_strings.append((i, end))
            pending_key, i, last_sig = _unquote(text[i:end]), end, ch
            continue
        comment_end = _comment_end(text, i) if ch in "#/" else None
        if comment_end is not None:
            i = comment_end
            continue
        if _structural(ch, text, i, stack, pending_key, result):
            return result
        if not ch.isspace():
            last_sig, pending_key = ch, None
        i += 1
    return result


def _structural(ch: str, text: str, i: int, stack: list[_Frame], pending_key: str | None,
                result: Scan) -> bool:
    """Apply one structural character; True when the outermost bracket closed (or broke)."""
    if ch in "{[":
        stack.append(_Frame(ch == "{"))
        result.cuts.append(i + 1)
    elif ch in "}]":
        if not stack:
            return True
        _close_value(stack.pop(), text, i, result)
        result.cuts.append(i + 1)
        if not stack:
            result.end = i + 1
            return True
    elif ch == ":" and stack and stack[-1].is_object:
        key = pending_key if pending_key is not None else _bare_key(text, i)
        stack[-1].key, stack[-1].value_at = key, i + 1
    elif ch == "," and stack:
        _close_value(stack[-1], text, i, result)
        result.cuts.append(i)
    return False


def _string_end(text: str, i: int) -> int | None:
    """One past the closing quote of the string opening at ``i`` (``\"\"\"`` strings too)."""
    quote = text[i]
    if text.startswith(quote * 3, i):
        close = text.find(quote * 3, i + 3)
        return None if close < 0 else close + 3
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == quote and (quote == '"' or _sq_closes(text, j)):
            return j + 1
        j += 1
    return None


def _sq_closes(text: str, j: int) -> bool:
    """A single quote ends a string only where a JSON token may follow (not ``it's``)."""
    rest = text[j + 1:].lstrip(" \t")
    return not rest or rest[0] in _AFTER_SQ or rest[0] == "\n"


def _comment_end(text: str, i: int) -> int | None:
    if text.startswith("//", i) or text[i] == "#":
        nl = text.find("\n", i)
        return len(text) if nl < 0 else nl
    if text.startswith("/*", i):
        close = text.find("*/", i + 2)
        return len(text) if close < 0 else close + 2
    return None


def as_json_string(token: str) -> str:
    """A single- or triple-quoted string token rewritten as a JSON string literal."""
    body = _unquote(token)
    if token[:1] == "'":
        body = body.replace("\\'", "'")
    body = re.sub(r'(?<!\\)"', r'\\"', body)
    return '"' + body.replace("\n", "\\n") + '"'


def _unquote(token: str) -> str:
    q = 3 if token[:3] in ('"""', "'''") else 1
    return token[q:-q] if len(token) >= 2 * q else token


def _bare_key(text: str, colon: int) -> str:
    j = colon
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_-$"):
        j -= 1
    return text[j:colon].strip()


def _close_value(frame: _Frame, text: str, i: int, result: Scan) -> None:
    if frame.is_object and frame.key is not None and frame.value_at >= 0:
        raw = " ".join(text[frame.value_at:i].split())
        seen = frame.keys.get(frame.key)
        if seen is not None and seen != raw:
            result.duplicates.append((frame.key, seen, raw))
        frame.keys.setdefault(frame.key, raw)
    frame.key, frame.value_at = None, -1
