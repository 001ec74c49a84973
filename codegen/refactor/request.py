""""rename fmt_ts to format_timestamp", "move parse_date to utils/dates.py": read without a model.

Why anchored patterns: a rename or a move is fully stated by its words (a name, a new name or
a path), so reading it costs nothing and a message that says more ("rename fmt_ts and make it
return an aware datetime") is not one: it goes to the ordinary proposal, where a model reads it.
The file that defines the symbol may be named ("in utils/time.py") or left to the index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NAME = r"`?(?P<{0}>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)`?(?:\(\))?"
_PATH = r"`?(?P<{0}>[\w./-]+\.py)`?"
_KIND = r"(?:(?:the\s+)?(?:function|method|class|def)\s+)?"
_WHERE = r"(?:\s+(?:in|from)\s+" + _PATH.format("path") + r")?"
_POLITE = r"^\s*(?:(?:please|pls|kindly|can you|could you|would you)\s+)*"
_END = r"\s*(?:please)?\s*[.!?]*\s*$"

_RENAME = re.compile(_POLITE + r"rename\s+" + _KIND + _NAME.format("symbol") + _WHERE
                     + r"\s+(?:to|as|into)\s+" + _NAME.format("new") + _END, re.I)
_MOVE = re.compile(_POLITE + r"move\s+" + _KIND + _NAME.format("symbol") + _WHERE
                   + r"\s+(?:to|into)\s+(?:the\s+(?:module|file)\s+)?" + _PATH.format("dest")
                   + _END, re.I)


@dataclass(frozen=True)
class RenameRequest:
    """Rename ``symbol`` (``Class.method`` for a method) to ``new_name``; ``path`` when named."""

    symbol: str
    new_name: str
    path: str = ""


@dataclass(frozen=True)
class MoveRequest:
    """Move top-level ``symbol`` to the module ``new_path``; ``path`` when named."""

    symbol: str
    new_path: str
    path: str = ""


def read_structural(message: str) -> RenameRequest | MoveRequest | None:
    """The rename or move the whole message asks for, or None."""
    text = " ".join((message or "").split())
    if not text or len(text) > 200:
        return None
    found = _RENAME.match(text)
    if found:
        new = found["new"].rsplit(".", 1)[-1]
        return RenameRequest(found["symbol"], new, found["path"] or "")
    found = _MOVE.match(text)
    if found:
        return MoveRequest(found["symbol"], found["dest"], found["path"] or "")
    return None
