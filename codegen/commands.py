"""The plugin's own chat commands, recognised without the LLM or the embedder.

The Cat offers a tool to its agent only when the message is close, by embedding similarity, to
one of the tool's examples, and then asks the LLM to pick it: with the Cat's default
``DumbEmbedder`` that is a coin toss, and it costs a call. These commands ("index my
repository", "code memory status", "show the draft history", "roll back to draft 2", "redo")
name the plugin's own features, so a short, anchored pattern decides: the whole message must be
the command (politeness and punctuation aside), so "update the index function in utils.py" stays
a code request and "what is a rollback?" stays a question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Command(str, Enum):
    """A plugin feature a message asks for by name."""

    INDEX = "index"
    STATUS = "status"
    HISTORY = "history"
    ROLL_BACK = "roll_back"
    REDO = "redo"


@dataclass(frozen=True)
class Found:
    """A recognised command and its argument ("2" in "roll back to draft 2", else "")."""

    command: Command
    argument: str = ""


_POLITE = r"(?:(?:please|pls|kindly|can you|could you|would you)\s+)*"
_END = r"\s*(?:please|now|for me)?\s*[.!?]*\s*$"
_CODE = r"(?:the\s+|my\s+|this\s+|our\s+)?(?:code\s*base|code|repo(?:sitory)?|project|sources?)"

_PATTERNS: tuple[tuple[Command, re.Pattern[str]], ...] = tuple(
    (command, re.compile("^" + _POLITE + body + _END, re.I)) for command, body in (
        (Command.INDEX, r"(?:re-?index|index|scan|refresh|update|rebuild)\s+" + _CODE
         + r"(?:\s+index)?"),
        (Command.INDEX, r"(?:update|refresh|rebuild|redo)\s+(?:the\s+)?(?:code\s+)?index"),
        (Command.STATUS, r"(?:show\s+)?(?:the\s+)?code\s+(?:working\s+)?memory\s+status"),
        (Command.STATUS, r"(?:what(?:'s| is)\s+)?(?:the\s+)?status\s+of\s+(?:the\s+)?code\s+"
         r"(?:working\s+)?memory"),
        (Command.HISTORY, r"(?:show|list|display)\s+(?:me\s+)?(?:the\s+)?(?:draft\s+history|"
         r"history\s+of\s+(?:the\s+)?drafts|drafts|draft\s+list)"),
        (Command.HISTORY, r"what\s+(?:did\s+we\s+try|have\s+we\s+tried)\s+so\s+far"),
        (Command.ROLL_BACK, r"(?:roll\s*back|revert|go\s+back)(?:\s+to)?\s+(?:draft\s+)?"
         r"(?P<arg>\d+|the\s+last\s+good(?:\s+(?:one|draft))?|last\s+good)"),
        (Command.ROLL_BACK, r"(?:undo\s+the\s+last\s+draft|roll\s*back(?:\s+the\s+(?:last\s+)?"
         r"draft)?)"),
        (Command.REDO, r"(?:redo|undo\s+the\s+roll\s*-?\s*back|restore\s+the\s+(?:rolled[- ]"
         r"back\s+draft|draft\s+i\s+rolled\s+back))"),
    ))


def detect_command(text: str) -> Found | None:
    """The plugin command the whole message asks for, or ``None``."""
    message = " ".join((text or "").split())
    if not message or len(message) > 80:
        return None
    for command, pattern in _PATTERNS:
        found = pattern.match(message)
        if found:
            argument = (found.groupdict().get("arg") or "").strip()
            return Found(command, argument)
    return None
