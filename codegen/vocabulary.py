"""The base of codegen's word lists: check statuses, draft outcomes, loop and run statuses.

Why one base: each list is stored or shown as its plain words (reports, scratchpad notes,
commit names), and ``str()`` of a ``str`` enum member changed between Python versions (3.12
formats it as ``Class.MEMBER``); the override that keeps the word lives here once.
"""

from __future__ import annotations

from enum import Enum


class Vocabulary(str, Enum):
    """A ``str`` enum whose ``str()`` and f-string form is its value on every Python."""

    def __str__(self) -> str:
        return str(self.value)
