"""Find the one thing a message says (a command, a rename, a reply word) in the part that says
it, and whether the rest of the message leaves it alone.

``read_in_parts(text, read, vocabulary)`` tries ``read`` on every part of the message
(``clauses.parts``: sentences, asides, quoted text, code lines), the whole part first, then
shorter runs of its clauses, so an argument ends where its part ends ("add source pip:rich
(the terminal library)" reads ``pip:rich``). Without a reading anywhere, it tries again with
the reader's typos corrected (``typos.Vocabulary``). The reading is **confident** when every
other part leaves it alone (``part_asks``: a greeting, thanks, a statement of context, a
mention, a signature, a tag question such as "ok?" ask nothing); **unsure** when another part
asks a question or for something else, when two parts read differently, or when quoted text is
talked about ("what does 'redo' do?"); and **none at all** when another part asks for a change
of code ("rename fmt_ts to f. also make it async": a code request, for the drafting path).

Quoted earlier messages (``> ...``) and signatures are never read and never ask, unless the
message is nothing else. Pure; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Generic, TypeVar

from .clauses import Part, parts
from .details import extract_details
from .ordinary import not_a_typo
from .signals import CodeSign, Sentence, change_asked, code_sign, opening_verb, question_form, read
from .statements import announcement, bare_hedge, condition_after, conditional, statement
from .text import words
from .typos import Vocabulary
from .utterance import read_utterance
from .utterance_words import QUESTION_WORDS
from .words import IMPERATIVE_VERBS, INFORMATION_VERBS, REQUEST_VERBS

__all__ = ["Said", "hedged", "part_asks", "read_in_parts", "talked_about"]

T = TypeVar("T")

#: The most clauses of one part whose runs are tried (a long part is only read whole or by
#: single clauses), and the longest part a reader is asked about.
_MAX_RUNS, MAX_CHARS = 6, 240
#: A message of more clauses than this (code lines aside) says more than one thing: it is
#: never read for one; typos are looked for in messages of at most ``_TYPO_PARTS`` parts.
MAX_CLAUSES, _TYPO_PARTS = 12, 8


@dataclass(frozen=True)
class Said(Generic[T]):
    """A reading found in a message: ``value``, whether it is ``confident``, the text of the
    part that said it, and the other parts' texts (for checks of the caller's own)."""

    value: T
    confident: bool
    said: str
    others: tuple[str, ...] = ()
    corrected: bool = False


def read_in_parts(text: str, read_part: Callable[[str], T | None],
                  vocabulary: Vocabulary | None = None,
                  yields: Callable[[T], bool] | None = None,
                  hedges_ask: bool = True) -> Said[T] | None:
    """The reading of ``text`` (see the module docstring); None when no part reads, or when
    another part asks for a change of code. ``yields``: readings that give way to any other
    part's reading (an "ok." before "cancel"); ``hedges_ask``: a hedge anywhere ("I suppose
    ...", "not sure, but ...", "not sure.") makes the reading unsure. A phrase broken over two
    lines ("refresh source\ntoolbox", "what's the code memory\nstatus") is read joined too:
    when that reads otherwise than the lines, the joined reading is the unsure one."""
    said = _read_lines(text, read_part, vocabulary, yields, hedges_ask)
    joined = _joined_lines(text or "")
    if joined:
        whole = _read_lines(joined, read_part, vocabulary, yields, hedges_ask)
        if whole is not None and (said is None or whole.value != said.value):
            return Said(whole.value, False, whole.said, whole.others, whole.corrected)
    return said


#: A line break inside a sentence: after a word (no mark that ends a clause), before a word
#: in lower case, a number or a path ("add source\npip:rich"); never before a link on a line of
#: its own.
_BROKEN_LINE = re.compile(r"(?<=[^\s.!?:;,…])[ \t]*\n[ \t]*(?=[a-z0-9~/(])(?![a-z][\w+.-]*://)")


def _joined_lines(text: str) -> str:
    """``text`` with its lines broken inside a sentence joined, or "" (none, or code)."""
    if "\n" not in text or "```" in text:
        return ""
    joined = _BROKEN_LINE.sub(" ", text)
    return joined if joined != text else ""


def _read_lines(text: str, read_part: Callable[[str], T | None],
                vocabulary: Vocabulary | None, yields: Callable[[T], bool] | None,
                hedges_ask: bool) -> Said[T] | None:
    found = _usable(parts(text or ""))
    if sum(len(p.clauses) for p in found if p.kind != "code") > MAX_CLAUSES:
        return None
    hits = _hits(found, read_part, None, yields)
    corrected = not hits and vocabulary is not None and len(found) <= _TYPO_PARTS
    if corrected:
        assert vocabulary is not None
        hits = _hits(found, read_part, vocabulary, yields)
    if not hits:
        return None
    if yields is not None:
        hits = [h for h in hits if not yields(h[0])] or hits
    if any(h[0] != hits[0][0] for h in hits):  # a whole sentence wins over a clause of one
        whole = [h for h in hits if h[1] == h[2].text]
        if whole and all(h[0] == whole[0][0] for h in whole):
            hits = whole
    value, said, holder = hits[0]
    read_in = {id(part): text for _, text, part in hits}
    around = [(c, p, i) for p in found if p.kind != "code" for i, c in enumerate(p.clauses)
              if id(p) not in read_in or c not in read_in[id(p)]]
    others = tuple(c for c, _, _ in around)
    asides = {c for p in found if p.kind == "aside" for c in p.clauses}
    asks = [_asks_around(c, p, i, p is holder) for c, p, i in around]
    if any(a == "change" and c not in asides for a, c in zip(asks, others, strict=True)):
        return None  # an aside asking for a change makes the reading unsure, not a request
    if talked_about(holder, found):
        return None  # quoted text talked about: "what does 'redo' do?"
    agree = all(h[0] == value for h in hits)
    doubt = hedges_ask and any(hedged(c) for c in (said, *others))
    return Said(value, agree and not any(asks) and not doubt, said, others, corrected)


def talked_about(part: Part, found: list[Part]) -> bool:
    """Whether ``part`` is quoted text that the sentence holding it asks about or asks
    something of ("what does 'redo' do?", "¿qué hace 'list sources'?", "wat doet 'show the
    diff' precies?": a question however short)."""
    if part.kind != "quoted":
        return False
    return any(p.holds and p.line == part.line and (part_asks(p.text) or _asks_short(p.text))
               for p in found)


def _asks_short(text: str) -> bool:
    said = read_utterance(text)
    return said.question or text.lstrip().startswith("¿") \
        or bool(words(said.core)[:1]) and words(said.core)[0] in QUESTION_WORDS


def hedged(clause: str) -> bool:
    """Whether a clause is the speaker's doubt: opened by a hedge ("I suppose redo"), nothing
    else ("not sure."), or a condition before or after the command ("if the tests still fail",
    "falls es nicht klappt", "... once the build is green"): a command said on a condition is
    asked about, never run with the condition dropped."""
    said = words(clause)
    return read_utterance(clause).hedged or bare_hedge(said) or condition_after(said) \
        or conditional(words(re.split(r"[,:;]", clause, maxsplit=1)[0]))


def _asks_around(clause: str, part: Part, index: int, same: bool) -> str:
    """What a clause beside the reading asks (``part_asks``): a relative clause inside a
    sentence asks nothing ("..., who wants the invoices by month, ..."); in another sentence
    than the reading's, a "but" contrasts with that sentence, not with the reading, and a
    clause after the first one only asks with a verb as such ("I spent the morning on it,
    rewrote the loop": no "rewrite")."""
    opening = words(clause)[:1]
    if index and opening and opening[0] in _RELATIVES and not part.text.endswith("?"):
        return ""
    return part_asks(clause, elsewhere=not same, continued=bool(index) and not same)


def _usable(found: tuple[Part, ...]) -> list[Part]:
    """The parts to read: not an earlier message or a signature (unless the message is
    nothing else), and code lines only in a short paste (a command in a fence)."""
    own = [p for p in found if p.kind not in ("quote", "signature")] \
        or [p for p in found if p.kind == "quote"]
    code = [p for p in own if p.kind == "code"]
    return own if len(code) <= _SHORT_PASTE else [p for p in own if p.kind != "code"]


_SHORT_PASTE = 3


def _hits(found: list[Part], read_part: Callable[[str], T | None],
          vocabulary: Vocabulary | None,
          yields: Callable[[T], bool] | None = None) -> list[tuple[T, str, Part]]:
    """``(reading, text read, part)`` of every part that reads, its longest run first; a
    reading that ``yields`` lets the part's next runs be read too ("ok, trying again:
    cancel")."""
    out: list[tuple[T, str, Part]] = []
    for part in found:
        if vocabulary is not None and not _may_correct(vocabulary, part.whole or part.text):
            continue  # no word of the part is one edit from the vocabulary's
        for text in _runs(part):
            if len(text) > MAX_CHARS:
                continue
            candidate = vocabulary.correct(text) if vocabulary is not None else text
            if vocabulary is not None and candidate == text:
                continue
            value = read_part(candidate)
            if value is not None and (not out or out[-1][2] is not part
                                      or not (yields and yields(value))):
                out.append((value, text, part))
                if yields is None or not yields(value):
                    break
    return out


def _may_correct(vocabulary: Vocabulary, text: str) -> bool:
    """Whether any word of ``text`` would be corrected in some run of it (every word as if
    it opened the run)."""
    plain = text.lower()
    return vocabulary.correct(plain) != plain


def _runs(part: Part) -> list[str]:
    """The part (with its quoted text in place, then without), then runs of its clauses,
    longest first."""
    clauses = part.clauses
    out = [part.whole, part.text] if part.whole else [part.text]
    if len(clauses) > 1:
        size = len(clauses) if len(clauses) <= _MAX_RUNS else 1
        for length in range(min(size, len(clauses) - 1), 0, -1):
            out.extend(", ".join(clauses[i:i + length])
                       for i in range(len(clauses) - length + 1))
    return out


#: Words that open a clause of contrast or condition: the clause changes what was said.
_CONTRAST = frozenset({"but", "except", "only", "though", "however", "ma", "pero", "però",
                       "aber", "mais", "mas", "maar", "unless", "instead"})
#: The contrasts that only join ("but now the build is red"): in another sentence than the
#: reading's, what follows them decides.
_BUT = frozenset({"but", "though", "however", "ma", "pero", "però", "aber", "mais", "mas",
                  "maar"})
#: "only" in a sentence of its own that says more than a noun ("Only the last page failed"):
#: what follows it decides, as after a "but"; a short one restricts ("only the failed ones").
_ONLY = frozenset({"only", "solo", "soltanto", "nur", "solamente", "seulement", "apenas",
                   "alleen"})
_SHORT_ONLY = 4
#: Words that open a clause of time or condition: context, unless asked ("when ...?").
_CONDITIONS = frozenset({"when", "whenever", "if", "once", "while", "as", "after", "before",
                         "since", "quando", "se", "wenn", "falls", "cuando", "si", "quand",
                         "als", "zodra"})
#: Words that open a relative clause inside a sentence ("..., who wants the invoices by
#: month, ..."): no question there unless the sentence asks one.
_RELATIVES = frozenset({"who", "which", "whose", "whom", "where", "che", "cui", "der", "die",
                        "das", "welche", "que", "quien", "qui", "dont", "waar", "wie"})
#: Words that put a clause in a sequence ("first ..., then ..."): what follows them asks.
_SEQUENCE = frozenset({"first", "firstly", "next", "then", "finally", "afterwards", "lastly",
                       "secondly", "prima", "poi", "zuerst", "dann", "danach", "primero", "luego",
                       "despues", "ensuite", "puis", "primeiro", "depois", "eerst", "daarna"})
#: A modal, a desire or a causative: something should change ("it must raise ValueError").
_WANTS = ("modal:", "desire:", "causative:", "described:")
_SHORT_QUESTION = 3


@lru_cache(maxsize=1024)
def part_asks(text: str, *, elsewhere: bool = False, continued: bool = False) -> str:
    """What a part other than the one read asks: "change" (an imperative, a wish, a modal, a
    "but ..."), "question" (a question of more than three words), "other" (any other ask:
    "tell me ...", "could you ..."), or "" (nothing: greetings, thanks, emoji, context,
    statements, tag questions such as "ok?" or "can you?"). ``elsewhere``: the part is in
    another sentence than the reading (a "but" there joins, what follows it decides, and so
    does an "only" before four words or more: "Only the last page failed");
    ``continued``: it is not its sentence's first clause (only a verb as such is an
    imperative there, never a word one typo from one: "rewrote")."""
    said = read_utterance(text)
    if said.social or not said.core:
        return ""
    folded = words(said.core)
    if len(folded) > 1 and (folded[0] in _SEQUENCE or (elsewhere and folded[0] in _BUT)
                            or (elsewhere and folded[0] in _ONLY and len(folded) > _SHORT_ONLY)):
        return part_asks(said.core.split(None, 1)[1], elsewhere=elsewhere)
    if not folded or (len(folded) == 1 and not said.question):
        return ""  # a label or an interjection ("log: https://...", "right")
    if folded[0] in _CONTRAST:
        return "change"
    if folded[0] in _CONDITIONS and not said.question:
        return ""  # "[when you have a sec]", "(if that's ok)"
    if not said.question and (announcement(folded) or (elsewhere and statement(folded))):
        return ""  # "let me try once more.", "build #482 failed on main."
    sentence = read(said.marked + ("?" if said.question else ""), folded, asked=said.asked)
    verb = opening_verb(sentence)
    typed = sentence.words[sentence.opening] if sentence.opening < len(sentence.words) else ""
    if verb and verb not in sentence.words and (continued or not_a_typo(typed, verb)):
        verb = ""  # "rewrote the loop twice": a word of its language, or after a first clause
    if verb and verb not in INFORMATION_VERBS and (verb in REQUEST_VERBS
                                                   or verb in IMPERATIVE_VERBS):
        return "change"  # "fix parse_date?" too
    if said.question or question_form(sentence) == "question":
        return "question" if len(words(text)) > _SHORT_QUESTION else ""
    if verb in INFORMATION_VERBS:
        return "other"
    if change_asked(sentence).startswith(_WANTS) and _names_code(sentence):
        return "change"  # "it must raise ValueError", not "that should do it"
    return "other" if said.asked else ""


def _names_code(sentence: Sentence) -> bool:
    """Any sign of code at all, weak ones included, or a verb of change after the first
    words ("it should also *accept* None"); a modal about nothing is an idiom ("that should
    do it", "that should work")."""
    if any(w in REQUEST_VERBS or w in IMPERATIVE_VERBS for w in sentence.words[1:6]):
        return True
    return code_sign(sentence, extract_details(sentence.text), [], [])[0] is not CodeSign.NONE
