"""Reasoning blocks: what a reasoning model thinks is never its answer.

DeepSeek-R1, Qwen3 and others put their chain of thought inline, in ``<think>`` (or
``<thinking>``, ``<reasoning>``) tags, often with braces, fenced JSON and code inside. Anything in
there may be a draft the model rejected a moment later, so it is removed before an answer is
looked for. Servers that strip the opening tag leave an orphan closing tag: everything before it
is reasoning too. A block still open when the reply ends (the model ran out of tokens while
thinking) swallows the rest of the reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TAGS = r"(?:think|thinking|reasoning|thought|reflection)"
_BLOCK = re.compile(rf"<({_TAGS})\b[^>]*>.*?</\1\s*>", re.I | re.S)
_OPEN = re.compile(rf"<{_TAGS}\b[^>]*>", re.I)
_CLOSE = re.compile(rf"</{_TAGS}\s*>", re.I)


@dataclass(frozen=True)
class Visible:
    """The part of a reply meant as the answer, and what was removed on the way."""

    text: str
    had_reasoning: bool
    #: a reasoning block was still open at the end of the reply (the answer never came)
    unterminated: bool


def strip_reasoning(reply: str) -> Visible:
    """``reply`` without its reasoning blocks (CRLF normalised to LF)."""
    text = reply.replace("\r\n", "\n").replace("\r", "\n")
    stripped = _BLOCK.sub("", text)
    had = stripped != text
    orphan = list(_CLOSE.finditer(stripped))
    if orphan:  # the opening tag was eaten by the server: all before the last close is thought
        stripped, had = stripped[orphan[-1].end():], True
    opened = _OPEN.search(stripped)
    if opened:
        return Visible(stripped[:opened.start()].strip(), True, True)
    return Visible(stripped.strip(), had, False)
