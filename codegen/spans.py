"""The shortest run of a message that reads with confidence as a command, a rename or a move:
what the message may mean when the readers are not sure of the whole of it.

Why a run and not one more wrapping rule: whatever people type around a command ("Luca says
we should roll back to draft 4", "first redo, and then show the status", "remove source docs
already!"), the command's own words are still there, one after the other. So when a message
is not read with confidence, each of its parts is searched for the shortest run of words that
is a command (``reading.commands.command_run``) or a rename or move
(``refactor.request.structural_run``) on its own, standing as a clause of its own
(``reading.runs``: never after a negation, a question word or an article, never with an object
after it), and that run is what to ask about (``suggest``: "Did you mean: roll back to draft
4?"), unless the rest of the message asks for a change of code: a clause that asks for one
and holds no command's words makes a code request ("rename A to B and add a docstring"),
while a clause with a command of its own makes two commands, asked about one of them, never
half done with confidence. Pure; no model, no I/O.
"""

from __future__ import annotations

import re

from .reading.clause_reading import MAX_CLAUSES, part_asks, talked_about
from .reading.clauses import Part, parts
from .reading.commands import Found, command_run
from .reading.runs import JOINS, Run
from .refactor.request import MoveRequest, RenameRequest, structural_run

__all__ = ["shortest_span"]

#: Bounds: the parts searched, and the longest message searched at all.
MAX_PARTS, MAX_CHARS = 6, 1200

Reading = Found | RenameRequest | MoveRequest

_WORDS_OF_COMMANDS = re.compile(
    r"\b(?:drafts?|version|history|diffs?|changes?|changed|compare|roll|rollback|revert|back|"
    r"restore|redo|undo|renam\w*|move|index|reindex|status|sources?|rinomina|benenne|renombra|"
    r"renomme|renomei[ae]|hernoem|sposta|verschiebe|mueve|d[ée]place|mova|verplaats)\b", re.I)


def shortest_span(text: str) -> Run[Reading] | None:
    """The shortest run of ``text`` that reads with confidence and stands as a clause of its
    own, nothing around it asking for a change of code (see the module docstring), or None."""
    if len(text or "") > MAX_CHARS:
        return None
    found = _usable(parts(text or ""))
    if sum(len(p.clauses) for p in found) > MAX_CLAUSES:
        return None
    for part in found[:MAX_PARTS]:
        if talked_about(part, found):
            continue  # quoted text talked about: "does 'list sources' show pip packages?"
        runs: list[Run[Reading]] = [r for r in (command_run(part.text),
                                                structural_run(part.text)) if r is not None]
        if runs:
            run = min(runs, key=lambda r: len(r.before))  # the first said
            return run if _leaves_it_alone(run, part, found) else None
    return None


def _usable(found: tuple[Part, ...]) -> list[Part]:
    own = [p for p in found if p.kind not in ("quote", "signature", "code")]
    return own or [p for p in found if p.kind == "quote"]


def _leaves_it_alone(run: Run[Reading], part: Part, found: list[Part]) -> bool:
    """Whether nothing else in the message asks for a change of code (a clause that asks for
    one and holds no command's words: a code request)."""
    beside = [run.before, _after_join(run.after)]
    if any(_asks_a_change(c) for text in beside for c in _clauses(text)):
        return False
    return not any(_asks_a_change(c, elsewhere=True, continued=bool(i))
                   for p in found if p is not part for i, c in enumerate(p.clauses))


def _after_join(text: str) -> str:
    words = text.split()
    while words and words[0].lower().strip(",;:") in JOINS:
        words = words[1:]
    return " ".join(words)


_SPLIT = re.compile(r"\s*[,;]\s+|(?<=[^\s:/]):\s+|\s+[-–—]{1,2}\s+|[.!?]\s+|"
                    r"\s+(?:and\s+then|and|then|also|plus|but)\s+", re.I)


def _clauses(text: str) -> list[str]:
    return [c for c in _SPLIT.split(text) if c and c.strip(" ,;:.!?-–—")]


def _asks_a_change(clause: str, *, elsewhere: bool = False, continued: bool = False) -> bool:
    """A clause that asks for a change and holds no command's words (``part_asks``)."""
    return part_asks(clause, elsewhere=elsewhere, continued=continued) == "change" \
        and not _WORDS_OF_COMMANDS.search(clause)
