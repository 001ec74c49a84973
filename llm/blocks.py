"""Where the answer may be in a reply: fenced blocks and bare JSON, in reply order.

Fences are matched the way Markdown does (a closing fence is a line of the same character, at
least as long, and nothing else), so the closing fence of a code block written before the JSON
is never taken for an opening one. A fence still open when the reply ends is a candidate too,
marked truncated. Bare JSON is looked for only outside fenced blocks; a block tagged with another
language counts only when its whole body is one JSON-looking literal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .jsonish import Scan, scan

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)(.*)$")
_JSON_LANGS = frozenset({"", "json", "jsonc", "json5", "javascript", "js"})


@dataclass(frozen=True)
class Fenced:
    """A fenced block: its language tag, info string and body."""

    lang: str
    info: str
    body: str
    start: int
    #: offset one past the closing fence line (the end of the reply when unclosed)
    stop: int
    closed: bool


@dataclass(frozen=True)
class AnswerBlock:
    """Text that may hold the JSON answer, with where it was found."""

    text: str
    start: int
    #: the reply ended before the block or object closed
    truncated: bool
    #: what the scanner saw (None for fenced bodies, scanned when read)
    scan: Scan | None = None


def fenced_blocks(text: str) -> list[Fenced]:
    """Every fenced block of ``text`` in order; an unclosed last one runs to the end."""
    lines = text.splitlines(keepends=True)
    out: list[Fenced] = []
    i = 0
    starts = [*_line_starts(lines), len(text)]
    while i < len(lines):
        match = _FENCE.match(lines[i].rstrip("\n"))
        if not match:
            i += 1
            continue
        fence = match.group(1)
        end = _closing(lines, i, fence)
        body = "".join(lines[i + 1:end if end is not None else len(lines)])
        stop = starts[end + 1] if end is not None else len(text)
        out.append(Fenced(match.group(2).lower(), match.group(3).strip(), body,
                          starts[i], stop, end is not None))
        i = (end + 1) if end is not None else len(lines)
    return out


def _line_starts(lines: list[str]) -> list[int]:
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line)
    return starts


def _closing(lines: list[str], start: int, fence: str) -> int | None:
    for j in range(start + 1, len(lines)):
        stripped = lines[j].strip()
        if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
            return j
    return None


def json_candidates(text: str) -> list[AnswerBlock]:
    """JSON-looking candidates in reply order: objects in fenced bodies and outside fences."""
    found: list[AnswerBlock] = []
    blocks = fenced_blocks(text)
    for block in blocks:
        body = block.body.strip()
        if block.lang not in _JSON_LANGS and not (body[:1] in "{[" and body[-1:] in "}]"):
            continue
        offset = block.start + 1 + block.body.find(body[:1]) if body else block.start
        for item in _bare_objects(body):
            truncated = item.truncated or not block.closed and item.scan is not None and \
                item.scan.end is None
            found.append(AnswerBlock(item.text, offset + item.start, truncated, item.scan))
    found += _bare_objects(_blank_fences(text, blocks))
    return sorted(found, key=lambda c: c.start)


def _blank_fences(text: str, blocks: list[Fenced]) -> str:
    """``text`` with every fenced block replaced by spaces (offsets preserved)."""
    chars = list(text)
    for block in blocks:
        for k in range(block.start, block.stop):
            if chars[k] != "\n":
                chars[k] = " "
    return "".join(chars)


def _bare_objects(text: str) -> list[AnswerBlock]:
    out: list[AnswerBlock] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "{" or (ch == "[" and text[i + 1:].lstrip()[:1] == "{"):
            found = scan(text, i)
            stop = found.end if found.end is not None else len(text)
            out.append(AnswerBlock(text[i:stop], i, found.end is None, found))
            i = stop
            continue
        i += 1
    return out
