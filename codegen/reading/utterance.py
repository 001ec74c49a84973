"""One reading of a chat message: its core phrase, and the wrapper people type around it.

People do not type commands; they type "hey cat, show the draft history please 🙏", "redo,
thanks", "could you rename fmt_ts to format_timestamp? ty :)". Every reader of a message (the
plugin's commands, the structural rename/move reader, the replies to a proposal, the intent
detector) reads the *core phrase* this module finds, once: greetings, vocatives (the Cat's name,
"kitty", "bot" where they address it), fillers ("please", "just", "ok so"), asks for an action
("could you", "I'd like you to", "puoi", "kannst du"), thanks and politeness after it, emoji and
smileys, outer punctuation and backticks are removed, in the detector's languages and a few
more (``utterance_words``). What was removed stays available (``Utterance.removed``, ``asked``,
``question``, ``hedged``), and so does the text as typed, for readers that need it (code in
backticks).

Only the edges are read: a word inside the core phrase is never removed, so "rename the cat
class" keeps its cat. Pure functions; no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from .utterance_words import (
    ASKS,
    CLAUSE_STARTS,
    ESCAPES,
    FILLERS,
    GREETINGS,
    HEDGES,
    NEGATIONS,
    PLAIN_VOCATIVES,
    QUESTION_WORDS,
    THANKS,
    VOCATIVES,
)

__all__ = ["SUBJECTS", "Utterance", "chatter_closing", "fold_text", "read_utterance", "spans"]

_EMOJI = (r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u2300-\u23FF\uFE0F\u200D\u20E3"
          r"\u2190-\u21FF\u2700-\u27BF]")
#: Smileys as the folded (lower-case) text shows them: ":D" is ":d", "XD" is "xd".
_SMILEY = r"(?:[:;=][-o'^]?[)(\]\[dpo/\\|*3]+|xd+|<3+|\^[_.-]?\^|-_-|o_o|t_t)"
#: Emoji or a smiley standing on its own at an edge of the message.
_LEADING_MARK = re.compile(rf"(?:{_EMOJI}+|{_SMILEY}(?![\w]))")
_TRAILING_MARK = re.compile(rf"(?:{_EMOJI}+|(?<![\w]){_SMILEY})$")
#: Punctuation at the edges (not "/", a path or an escape; not "(" or ")", a call; not "`").
_EDGE = frozenset(" \t\r\n,.;:!?¡¿…-–—~*\"'«»„“”")
_WRAPPERS = GREETINGS | FILLERS | ASKS | THANKS | VOCATIVES
_LONGEST = max(len(p) for p in _WRAPPERS)


@dataclass(frozen=True)
class Utterance:
    """A message read once (``read_utterance``).

    ``core``: the core phrase as typed (case kept), without its wrapper, outer punctuation and
    backticks; ``marked``: the same with its backticks. ``removed``: what was removed, as typed,
    in order. ``asked``: an ask for an action opened it ("could you ..."). ``question``: a
    question mark ended the core phrase. ``escape``: "code" after ``/code``, "ask" after
    ``/ask``, else "". ``social``: the message was nothing but wrapper ("thanks!", "hi 👋"); its
    core is then the wrapper itself.
    """

    text: str
    core: str
    marked: str
    removed: tuple[str, ...] = ()
    asked: bool = False
    question: bool = False
    escape: str = ""
    social: bool = False
    #: A hedge opened it ("I suppose redo", "not sure, but go"): the speaker is unsure.
    hedged: bool = False

    @property
    def key(self) -> str:
        """The core phrase in lower case, accents folded, for word lookups."""
        return fold_text(self.core)


def fold_text(text: str) -> str:
    """Lower case, accents folded, typographic apostrophes plain; one character for one, so
    offsets in the result are offsets in ``text``."""
    return "".join(_fold_char(c) for c in text)


def _fold_char(c: str) -> str:
    if c in "’‘ʼ´":
        return "'"
    base = [b for b in unicodedata.normalize("NFKD", c) if not unicodedata.combining(b)]
    low = (base[0] if base else c).lower()
    return low[0] if low else c


@lru_cache(maxsize=512)
def read_utterance(text: str) -> Utterance:
    """The core phrase of ``text`` and its wrapper (see the module docstring)."""
    text = text or ""
    reader = _narrowed(text)
    if reader.start >= reader.end:  # nothing but wrapper: the message is social
        return _social(text, reader)
    marked = " ".join(text[reader.start:reader.end].split())
    return Utterance(text, marked.replace("`", ""), marked, tuple(reader.removed), reader.asked,
                     reader.question, reader.escaped, False, reader.hedged)


def _narrowed(text: str) -> _Reader:
    reader = _Reader(text)
    reader.escape()
    reader.leading()
    if not reader.escaped and reader.escape():  # "hi, /code ..."
        reader.leading()
    reader.trailing()
    return reader


def spans(said: Utterance, *, marked: bool = False) -> list[str]:
    """The core phrase, then the same without chatter the wrapper lists do not know, for the
    readers of whole phrases (commands, renames, moves): an opening that ends in "to", a
    comma or "you could" ("would you be able to ...", "could I ask you to ...", "any chance
    you could ...") and a closing of a few plain
    words ("... asap", "... if you don't mind", "... überall im Code"). Chatter names no code
    (no ``_ . / ` (`` or digit), an opening asks no question and negates nothing ("how to
    index my repository?", "don't rename ..."), a closing starts no clause of its own ("...
    and make it async", "... but keep an alias") and holds no gerund ("... keeping both")."""
    return list(_spans(said.marked if marked else said.core))


@lru_cache(maxsize=1024)
def _spans(text: str) -> tuple[str, ...]:
    tokens = text.split()
    out = [" ".join(tokens)]
    plain = [fold_text(t).strip(",;:!?.") for t in tokens]  # each token folded once
    starts = [0] + [i for i in range(1, min(len(tokens), _MAX_ASKING_OPENING + 1))
                    if _chatter_opening(tokens[:i], plain[:i])]
    ends = [len(tokens)] + [j for j in range(len(tokens) - 1, len(tokens) - _MAX_CLOSING - 1, -1)
                            if j > 0 and _chatter_closing(tokens[j:], plain[j:])]
    for i in starts:
        for j in ends:
            if j > i and (i, j) != (0, len(tokens)):
                out.append(" ".join(tokens[i:j]).rstrip(",;:"))
    return tuple(out)


_MAX_OPENING, _MAX_ASKING_OPENING, _MAX_CLOSING = 6, 9, 5
_CODE_CHARS = frozenset("_./`()0123456789")


def _plain(tokens: list[str], folded: list[str] | None = None) -> list[str]:
    words = folded if folded is not None else [fold_text(t).strip(",;:!?.") for t in tokens]
    return [] if any(c in _CODE_CHARS for w in words for c in w) else words


def _chatter_opening(tokens: list[str], folded: list[str] | None = None) -> bool:
    words = _plain(tokens, folded)
    if not words or any(w in NEGATIONS for w in words):
        return False
    if len(words) > 1 and words[-2] in ("you", "u") and words[-1] in _ASKING_MODALS:
        return words[0] not in _ASKING_QUESTIONS  # "... if you could", not "how could you"
    if words[0] in QUESTION_WORDS or len(words) > _MAX_OPENING or reports_past(words):
        return False
    return tokens[-1].endswith(",") or words[-1] in ("to", "a", "zu", "de", "que", "om")


def reports_past(words: list[str]) -> bool:
    """Whether ``words`` open with a subject and a verb in the past ("we did a rollback",
    "we had to roll back prices", "I went back to draft 2 of my essay"): a report of what
    happened, never a wrapper around a command. A wish stays one ("I wanted to ...")."""
    if len(words) < 2 or words[0] not in SUBJECTS:
        return False
    verb = words[2] if words[1] in _ADVERBS and len(words) > 2 else words[1]
    return verb not in _WISHES and (verb in _PAST or (verb.endswith("ed") and len(verb) > 4))


#: Verbs in the past that are no ``-ed`` form, and wishes in the past that still ask.
_PAST = frozenset({"did", "had", "was", "were", "went", "made", "got", "took", "came", "saw",
                   "said", "told", "gave", "found", "thought", "knew", "left", "ran", "spent",
                   "lost", "kept", "put", "set", "sent", "wrote", "broke", "began", "brought"})
_WISHES = frozenset({"wanted", "needed", "meant", "hoped", "wished", "asked", "liked",
                     "loved", "wondered"})
_ADVERBS = frozenset({"already", "just", "also", "then", "once", "finally", "actually"})


#: "... if you could", "any chance you can": an opening that asks for the action after it,
#: unless a question word opens it.
_ASKING_MODALS = frozenset({"could", "can", "would", "will", "might"})
_ASKING_QUESTIONS = frozenset({"how", "what", "why", "where", "when", "which", "who", "do",
                               "does", "did"})


def chatter_closing(text: str) -> bool:
    """Whether ``text`` is only chatter after a phrase ("asap", "if you don't mind")."""
    tokens = text.split()
    return 0 < len(tokens) <= _MAX_CLOSING and _chatter_closing(tokens)


def _chatter_closing(tokens: list[str], folded: list[str] | None = None) -> bool:
    words = _plain(tokens, folded)
    return bool(words) and words[0] not in CLAUSE_STARTS and words[0] not in SUBJECTS \
        and not any(w.endswith("ing") or w in _JOINERS or w in _OF for w in words)


#: Words that join a second clause: a closing with one says more than chatter ("index and
#: then redo").
_JOINERS = frozenset({"and", "then", "but", "or", "plus", "also", "e", "poi", "und", "dann",
                      "y", "luego", "et", "puis", "en", "dan"})
#: A subject: a closing that opens with one is a clause of its own ("the sources *you used*").
SUBJECTS = frozenset({"i", "you", "we", "they", "he", "she", "u", "io", "tu", "noi", "ich",
                       "du", "wir", "yo", "nosotros", "je", "nous", "eu", "nos", "jij", "wij"})
#: "of" and its kin: a closing with one continues a noun ("the index page of the website").
_OF = frozenset({"of", "di", "del", "della", "von", "vom", "des", "du", "de", "van"})


def _social(text: str, reader: _Reader) -> Utterance:
    plain = _Reader(text)
    plain.edges_only()
    core = " ".join(text[plain.start:plain.end].split())
    return Utterance(text, core.replace("`", ""), core, tuple(reader.removed), reader.asked,
                     reader.question, reader.escaped, not reader.escaped, reader.hedged)


class _Reader:
    """The edges of one message, narrowed step by step on its folded copy."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded = fold_text(text)
        self.start, self.end = 0, len(text)
        self.removed: list[str] = []
        self.asked = self.question = self.hedged = False
        self.escaped = ""
        self._after_greeting = False

    def _take(self, start: int, end: int) -> None:
        piece = self.text[start:end].strip()
        if piece and any(c not in _EDGE for c in piece):
            self.removed.append(piece)

    def escape(self) -> bool:
        self._leading_edge()
        for prefix, kind in ESCAPES.items():
            if self.folded.startswith(prefix, self.start) and self._boundary_after(
                    self.start + len(prefix)):
                self._take(self.start, self.start + len(prefix))
                self.start += len(prefix)
                self.escaped = kind
                return True
        return False

    def edges_only(self) -> None:
        self._leading_edge()
        while self.end > self.start and self._trailing_edge():
            pass

    # -- the start -------------------------------------------------------------------------
    def leading(self) -> None:
        while self.start < self.end:
            self._leading_edge()
            phrase = self._phrase_at_start()
            if not phrase:
                return
            self._take(self.start, self.start + len(phrase))
            self.asked = self.asked or phrase in ASKS
            self.hedged = self.hedged or phrase in HEDGES
            self._after_greeting = phrase in GREETINGS or phrase in VOCATIVES
            self.start += len(phrase)

    def _leading_edge(self) -> None:
        while self.start < self.end:
            mark = _LEADING_MARK.match(self.folded, self.start, self.end)
            if mark and mark.end() > self.start:
                self._take(mark.start(), mark.end())
                self.start = mark.end()
            elif self.folded[self.start] in _EDGE:
                self.start += 1
            else:
                return

    def _phrase_at_start(self) -> str:
        window = self.folded[self.start:min(self.end, self.start + _LONGEST + 1)]
        for size in range(min(len(window), _LONGEST), 0, -1):
            phrase = window[:size]
            if phrase in _WRAPPERS and self._boundary_after(self.start + size) \
                    and self._may_lead(phrase, self.start + size):
                return phrase
        return ""

    def _may_lead(self, phrase: str, after: int) -> bool:
        if phrase not in VOCATIVES or phrase in _WRAPPERS - VOCATIVES:
            return True
        if phrase in PLAIN_VOCATIVES or self._after_greeting:
            return True
        rest = self.folded[after:self.end].lstrip()
        return not rest or rest[0] in ",:!;."

    def _boundary_after(self, i: int) -> bool:
        return i >= self.end or not (self.folded[i].isalnum() or self.folded[i] in "_'-")

    # -- the end ---------------------------------------------------------------------------
    def trailing(self) -> None:
        while self.end > self.start:
            while self._trailing_edge():
                pass
            phrase = self._phrase_at_end()
            if not phrase:
                return
            self._take(self.end - len(phrase), self.end)
            self.end -= len(phrase)

    def _trailing_edge(self) -> bool:
        if self.end <= self.start:
            return False
        char = self.folded[self.end - 1]
        if char in _EDGE:
            self.question = self.question or char == "?"
            self.end -= 1
            return True
        mark = _TRAILING_MARK.search(self.folded, self.start, self.end)
        if not mark:
            return False
        self._take(mark.start(), mark.end())
        self.end = mark.start()
        return True

    def _phrase_at_end(self) -> str:
        window = self.folded[max(self.start, self.end - _LONGEST - 1):self.end]
        for size in range(min(len(window), _LONGEST), 0, -1):
            phrase = window[len(window) - size:]
            begin = self.end - size
            if phrase in THANKS | VOCATIVES and self._boundary_before(begin) \
                    and self._may_end(phrase, begin):
                return phrase
        return ""

    def _boundary_before(self, i: int) -> bool:
        return i <= self.start or not (self.folded[i - 1].isalnum() or self.folded[i - 1]
                                       in "_'-/.")

    def _may_end(self, phrase: str, begin: int) -> bool:
        if phrase not in VOCATIVES or phrase in THANKS or phrase in PLAIN_VOCATIVES:
            return True
        before = self.folded[self.start:begin].rstrip()
        if not before or before.endswith(","):
            return True
        last = before.rsplit(None, 1)[-1].strip(",.!")
        return last in THANKS or last in GREETINGS
