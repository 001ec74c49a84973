"""The shortest run of a part's words that a whole-phrase reader reads, where it stands as a
clause of its own.

Why runs: whatever people type around a command ("Luca says we should roll back to draft 4",
"first redo, and then show the status", "remove source docs already!"), the command's own words
are still there, one after the other. ``shortest_run`` reads the runs of consecutive words of
one part of a message (``clauses.parts``) with a reader of whole phrases (a command, a rename
or a move), shortest first, each starting at a word that can start what the reader reads, and
takes the first run that reads and stands as a clause of its own:

- **before it**, the start of the part, a mark that ends a clause (``. , ; : ! ? ) ]`` or a
  dash), a word that joins clauses ("and", "then", "so"), or a few words that make it no other
  thing than an order ("Luca says we should", "my lead asked me to": ``"lead"``): never a
  negation, a question word or a condition ("don't", "is it safe to", "if we"), never an
  article or a preposition ("the diff between ...", "we did a rollback");
- **after it**, the end of its part, a mark that ends a clause, a word that opens another
  clause ("and", "but", "because", "before", "by" ...), or a few words of chatter that end the
  clause ("... already!": ``"tail"``), but not both a lead and a tail: "redo my hair
  appointment", "we had to roll back prices" are no command.

Runs standing between two clause edges come first, then those after a lead, then those before
a tail ("update source rich before lunch" is the source's update, not "update source" with a
tail); of one rank, the first in the part, and from one start the shortest.

What the other words ask is the caller's to judge (``codegen.spans``). Bounded: a part of at
most ``MAX_TOKENS`` words, runs of at most ``MAX_RUN`` words. Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from .utterance import SUBJECTS, chatter_closing, read_utterance
from .utterance_words import CLAUSE_STARTS, NEGATIONS, QUESTION_WORDS

__all__ = ["Run", "read_or_corrected", "shortest_run", "unwrapped"]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
#: A reading that may be None (``read_or_corrected``).
R = TypeVar("R")

MAX_TOKENS, MAX_RUN, MAX_LEAD, MAX_TAIL = 60, 14, 6, 3


@dataclass(frozen=True)
class Run(Generic[T_co]):
    """A run of a part's words that reads as ``value``; ``before`` and ``after``: the part's
    words around it."""

    value: T_co
    text: str
    before: str
    after: str


#: Marks that end a clause, at the end of the word before a run or of its last word.
_CLOSES = tuple(".,;:!?)]}»”\"'…")
_DASHES = frozenset({"-", "--", "–", "—", "->", "|", "/"})
#: Words that join a new clause: a run may start after one, or end before one.
JOINS = frozenset({"and", "then", "so", "also", "plus", "now", "e", "poi", "und", "dann", "y",
                   "luego", "et", "puis", "en", "dan", "depois", "entonces", "allora", "dus"})
_OPENS = JOINS | frozenset({"but", "or", "because", "cause", "cuz", "since", "before", "after",
                            "until", "till", "while", "when", "once", "unless", "if", "though",
                            "although", "by", "at", "during", "for", "ma", "pero", "aber",
                            "mais", "mas", "maar"})
#: Words that make what follows them something else than an order.
NOT_AN_ORDER = NEGATIONS | frozenset({
    "how", "what", "why", "where", "when", "which", "who", "whose", "whether", "if", "unless",
    "whenever", "not", "never", "didn't", "won't", "shouldn't", "can't", "cannot", "wouldn't",
    "doesn't", "isn't", "wasn't", "nobody", "nothing", "without", "except",
})
#: Openings that propose the run's action ("how about we redo?", "what if we roll back?",
#: "why don't we ..."): a question word that asks for the action after it.
_PROPOSING = frozenset({"how about", "what about", "why don't", "why dont", "why not",
                        "what if", "shall we", "shall i"})
#: An article or a preposition right before a run makes it a noun ("the diff between ...").
_ARTICLES = CLAUSE_STARTS - JOINS - {"to", "zu", "om"}


def shortest_run(text: str, read: Callable[[str], T | None],
                 may_start: Callable[[str], bool]) -> Run[T] | None:
    """The shortest run of ``text`` (one part of a message) that ``read`` reads as a whole
    and that stands as a clause of its own (see the module docstring), or None.
    ``may_start``: whether a word (lower case) can start what ``read`` reads."""
    tokens = text.split()[:MAX_TOKENS]
    starts = {i: _free_before(tokens, i) for i, t in enumerate(tokens)
              if may_start(t.lower().strip(_MARKS))}
    candidates = []
    for i, before in starts.items():
        for end in range(i + 1, min(i + MAX_RUN, len(tokens)) + 1):
            after = _free_after(tokens, end) if before else ""
            if after and not (before == "lead" and after == "tail"):
                rank = (before == "lead") + 2 * (after == "tail")
                candidates.append((rank, i, end))
    for _, i, end in sorted(candidates):
        run = unwrapped(" ".join(tokens[i:end]))
        value = read(run) if run else None
        if value is not None:
            return Run(value, run, " ".join(tokens[:i]), " ".join(tokens[end:]))
    return None


def read_or_corrected(run: str, read: Callable[[str], R], correct: Callable[[str], str]) -> R:
    """``read(run)``, or else the reading of ``run`` with one typo per word forgiven
    (``correct``: a reader's vocabulary, ``typos.Vocabulary.correct``)."""
    found = read(run)
    if found is None:
        corrected = correct(run)
        if corrected != run:
            return read(corrected)
    return found


#: Marks around a word that are not its own ("__redo__", "(redo", "«redo»").
_MARKS = "([{\"'*_«“”»)]}.,;:!?"


def unwrapped(run: str) -> str:
    """``run`` without marks around it that are not its own (a clause mark, an emphasis
    star, a bracket it does not close or open)."""
    run = run.strip(" ,;:.!?*_\"'«»“”")
    while len(run) > 1 and run[0] + run[-1] in ("()", "[]", "{}"):
        run = run[1:-1].strip(" ,;:.!?*_\"'«»“”")
    while run[:1] in ("(", "[", "{") and not any(c in run[1:] for c in ")]}"):
        run = run[1:].lstrip()
    while run[-1:] in (")", "]", "}") and not any(c in run[:-1] for c in "([{"):
        run = run[:-1].rstrip(" ,;:.!?")
    return run


def _free_before(tokens: list[str], i: int) -> str:
    """"edge" (a clause starts with the run), "lead" (a few words before it that make it no
    other thing than an order) or "" (see the module docstring)."""
    if i == 0 or _closes(tokens[i - 1]) or tokens[i - 1] in _DASHES:
        return "edge"
    previous = tokens[i - 1].lower()
    if previous in JOINS:
        return "edge"
    if previous in _ARTICLES:
        return ""
    k = i
    while k > 0 and not _closes(tokens[k - 1]) and tokens[k - 1] not in _DASHES:
        k -= 1
    said = read_utterance(" ".join(tokens[k:i]))
    if said.social:
        return "edge"  # only wrapper words before it: "can you", "hey cat, please"
    core = said.core.lower().replace(",", " ").split()
    if 1 < len(core) <= MAX_LEAD and " ".join(core[:2]) in _PROPOSING:
        return "lead"  # "how about we ...", "why don't we ...": a proposal, to be asked
    if len(core) > MAX_LEAD or any(w in NOT_AN_ORDER for w in core):
        return ""
    if core and core[0] in QUESTION_WORDS:
        return ""
    return "lead" if core else "edge"


def _free_after(tokens: list[str], end: int) -> str:
    """"edge" (the run ends its clause, or another clause opens after it), "tail" (a few
    words of chatter end the clause: "... already!") or ""."""
    if end == len(tokens) or _closes(tokens[end - 1]) or tokens[end] in _DASHES:
        return "edge"
    if tokens[end].lower().strip(",;:") in _OPENS:
        return "edge"
    tail: list[str] = []
    for token in tokens[end:end + MAX_TAIL + 1]:
        tail.append(token)
        if _closes(token):
            break
    if len(tail) > MAX_TAIL or (end + len(tail) < len(tokens) and not _closes(tail[-1])):
        return ""
    if any(t.lower().strip(",;:.!?") in NOT_AN_ORDER for t in tail):
        return ""
    plain = [t.rstrip(",;:.!?") for t in tail]
    if plain[0].lower() in SUBJECTS:  # "list the sources we added": asked, never read
        plain = plain[1:]
    return "tail" if not plain or chatter_closing(" ".join(plain)) else ""


def _closes(token: str) -> bool:
    return token.endswith(_CLOSES)
