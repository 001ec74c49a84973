"""Code or a log pasted into a chat message, and the prose around it.

"Traceback (most recent call last): ... KeyError: 'zone'" followed by "why does this happen?"
is a question about that code; followed by "fix this so unknown zones fall back" a request. The
pasted lines themselves (a traceback's ``File "x.py", line 4, in f``, an ``ValueError: ...``
line, a pytest ``E   assert ...`` line, indented code, a code fence) hold verbs and question
words of their own ("raise ...", "return ...", "where 3 = total(order)"), so the reader
decides from the prose after the paste, the user's own words. Pure; no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Pasted", "pasted", "pasted_line", "split_pasted"]

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_PASTED_LINE = re.compile(
    r"^(?:\s*Traceback \(most recent call last\)|\s*File \"[^\"]+\", line \d+|"
    r"\s*[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt)(?::|\s*$)|E\s{2,}|"
    r"(?:FAILED|ERROR|PASSED)\s+\S+|\s*[\w/.-]+\.py:\d+|\s*>>>\s|\s*During handling of|"
    r"\s*The above exception|\s{2,}\S|\t\S|\s*\^+\s*$|\s*~+\^*~*\s*$)")


@dataclass(frozen=True)
class Pasted:
    """A message with pasted code: its prose before and after the paste (lines, joined)."""

    before: str
    after: str


def pasted_line(line: str) -> bool:
    """Whether one line (as typed, indentation kept) is a line of a traceback, a log or
    indented code."""
    return bool(_PASTED_LINE.match(line))


#: An exception's line ("TypeError: ...", "KeyError: 'zone'"), and where the user's own words
#: may follow it on the same line: after the end of its sentence or a spaced dash
#: ("ModuleNotFoundError: No module named 'yaml' — scan my codebase").
_ERROR_LINE = re.compile(r"^\s*[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt):\s")
_AFTER_ERROR = re.compile(r"(?<=[.!?])\s+(?=[^\W\d_])|\s+(?:—|–|--)\s+(?=[^\W\d_])")


def split_pasted(line: str) -> tuple[str, str]:
    """An exception's line and the words typed after it on the same line (``"", ""`` for
    the rest after none): ``("TypeError: ... 'str'.", "scan my codebase")``. A line of any
    other kind is pasted whole."""
    if not _ERROR_LINE.match(line):
        return line, ""
    found = _AFTER_ERROR.search(line)
    if found is None:
        return line, ""
    return line[:found.start()].rstrip(), line[found.end():].strip()


def pasted(text: str) -> Pasted | None:
    """The prose around the code or log pasted into ``text``; None when nothing is pasted
    (or nothing but the paste is there)."""
    body = _FENCE.sub("\n\u0000\n", (text or "").replace("\r\n", "\n"))
    lines = body.split("\n")
    marks = [line == "\u0000" or bool(_PASTED_LINE.match(line)) for line in lines]
    if not any(marks):
        return None
    first = marks.index(True)
    last = len(marks) - 1 - marks[::-1].index(True)
    before = " ".join(x.strip() for x in lines[:first] if x.strip())
    after = " ".join(x.strip() for x in lines[last + 1:] if x.strip())
    return Pasted(before, after) if before or after else None
