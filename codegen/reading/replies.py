"""What a user's reply to a proposal means: go ahead, cancel, or change something.

Used when the plugin shows the meta-code and waits: short, explicit words decide ("yes please
🙏" is "yes": the reply's core phrase is read, ``utterance``). A message that is not about the
proposal is an aside (``reply_aside``): a question about the code, ordinary chat ("hi, how are
you?", "what's the capital of France?"), thanks, or "apply" (there is no draft yet); it is
answered as such and the proposal keeps waiting. Anything else is feedback to fold into the
next proposal. Deliberately conservative: "yes, but make it async" is feedback, not a
confirmation, so nothing starts on a half-agreement.

The reply word is read in the part of the message that says it (``clause_reading``: "@cat go
(this is the one)", "> your proposal ...\ngo", "go\n-- Anna" are "go"), with one typo forgiven
("cancle", "contineu"); every other part must ask nothing and name no code ("no, call it
make_slug" is feedback).
"""

from __future__ import annotations

import re
from enum import Enum
from functools import lru_cache

from .clause_reading import read_in_parts
from .intent import Detection, Intent
from .reply_words import AFFIRMATIONS, APPLY, CANCEL, GO, PARTICLES, RESUME
from .text import BACKTICK_RE, CALL_RE, PATH_RE, code_shaped, fold
from .typos import Vocabulary
from .utterance import Utterance, read_utterance
from .utterance_words import FILLERS

#: The words of each reply, in the seven languages (``reply_words``).
CONFIRM_WORDS = AFFIRMATIONS | GO
CANCEL_WORDS = CANCEL
#: "Go on with the task from its last good draft" (after a stop, a give-up or a restart).
RESUME_WORDS = RESUME


class ReplyIntent(str, Enum):
    """The three ways a proposal can be answered."""

    CONFIRM = "confirm"
    CANCEL = "cancel"
    FEEDBACK = "feedback"


def _plain(text: str) -> str:
    """Lower case, accents folded, marks and hyphens a space ("Vas-y !" -> "vas y")."""
    return " ".join(re.sub(r"[^\w\s']", " ", fold(text.lower().replace("\u2019", "'"))).split())


@lru_cache(maxsize=256)
def _plain_words(text: str) -> str:
    """The reply words of the message's one part that says them, when every other part asks
    nothing and names no code; else the whole core phrase in plain words (``utterance``:
    "yes please 🙏" is "yes"), for the feedback."""
    said = read_in_parts(text or "", _reply_part, VOCABULARY, yields=_ACK.__eq__,
                         hedges_ask=False)
    if said is not None and said.confident and not any(_names_code(o) for o in said.others):
        return "ok" if said.value == _ACK else said.value
    return _core_words(read_utterance(text or ""), whole=True)


def _reply_part(text: str) -> str | None:
    """The reply's kind, as its first word list's representative ("go ahead" -> "yes"); a
    run of reply phrases of one kind is that kind ("yes go ahead", "ok sure"), particles
    aside wherever they stand ("vai pure", "ga maar door", "mach mal weiter"); a filler
    affirmation alone ("ok.") is an acknowledgement (``_ACK``)."""
    if len(text) > _LONGEST_REPLY or _REPLY_TOKENS.isdisjoint(_plain(text).split()):
        return None
    if _plain(text) in _ACK_WORDS:
        return _ACK  # "ok." before "cancel" acknowledges it; alone, it is a yes
    said = read_utterance(text)
    words = _core_words(said, whole=False)
    kind = _kind_of_words(words)
    if kind is None and said.asked and not said.question:  # "pode ir": the ask is the reply's
        kind = next((k for r in said.removed if (k := _kind_of(_plain(f"{r} {said.core}")))),
                    None)
    if kind is None and PARTICLES.intersection(words.split()):  # "mach mal weiter"
        kind = _kind_of_words(" ".join(w for w in words.split() if w not in PARTICLES))
    return kind


def _kind_of_words(words: str) -> str | None:
    """The reply kind of a part's core words (see ``_reply_part``): an affirmation beside
    another reply in one part gives way to it ("sì, continua"); alone it is a yes ("sì")."""
    phrases = _phrases(words)
    phrases = [p for i, p in enumerate(phrases) if not (i and p in _BACK_TO_IT)] or phrases
    phrases = [p for p in phrases if p not in PARTICLES] or phrases
    if phrases and all(p in AFFIRMATIONS for p in phrases):
        return "yes"
    phrases = [p for p in phrases if p not in AFFIRMATIONS]
    kinds = {_kind_of(phrase) for phrase in phrases} if words else {None}
    return kinds.pop() if len(kinds) == 1 else None


#: Words after a reply phrase that point back at the proposal ("go ahead with it", "go for
#: it"): part of the reply, not a change.
_BACK_TO_IT = frozenset({"it", "this", "that", "with it", "with this", "with that", "for it",
                         "on it"})


def _kind_of(phrase: str) -> str | None:
    for kind in (CONFIRM_WORDS, CANCEL_WORDS, RESUME_WORDS, APPLY_WORDS):
        if phrase in kind:
            return _KIND_WORDS[id(kind)]
    return None


def _phrases(words: str) -> list[str]:
    """``words`` cut into reply phrases, the longest first at each place ("yes go ahead" ->
    "yes", "go ahead"); a word that starts none is a phrase of its own (no reply)."""
    tokens, out, i = words.split(), [], 0
    while i < len(tokens):
        size = next((n for n in range(min(4, len(tokens) - i), 0, -1)
                     if " ".join(tokens[i:i + n]) in _PHRASES), 1)
        out.append(" ".join(tokens[i:i + size]))
        i += size
    return out


def _core_words(said: Utterance, *, whole: bool) -> str:
    """A reply's core phrase in plain words; a reply that is only wrapper ("ok, thanks!")
    keeps its words; an asked "apply?" is no apply word."""
    words = _plain(said.core)
    if said.social and words not in CONFIRM_WORDS | CANCEL_WORDS:
        removed = [_plain(piece) for piece in said.removed]
        words = next((r for r in removed if r in CONFIRM_WORDS), words)  # "please ok"
    elif not whole:
        words = _without_interjections(words)
        if words in _CLOSINGS | _INTERJECTIONS:  # "ok already!": the reply was the wrapper
            removed = [_plain(piece) for piece in said.removed]
            words = next((r for r in removed if r in CONFIRM_WORDS | CANCEL_WORDS), words)
    if said.question and not said.asked and words in APPLY_WORDS:
        return "" if not whole else "apply?"  # "could you apply it?" asks for it
    return words


#: Interjections and closings around a reply word that change nothing ("omg go", "go
#: already!"); never a negation, a contrast or a word of code.
_INTERJECTIONS = frozenset({"omg", "wow", "ugh", "argh", "meh", "phew", "whew", "yay", "welp",
                            "ahh", "aah", "ooh", "lol", "haha", "hehe", "damn", "dude",
                            "seriously", "finally"})
_CLOSINGS = frozenset({"already", "finally", "asap", "now", "then", "pls", "plz", "please",
                       "seriously", "lol", "haha"})


def _without_interjections(words: str) -> str:
    tokens = words.split()
    while len(tokens) > 1 and tokens[0] in _INTERJECTIONS:
        tokens = tokens[1:]
    while len(tokens) > 1 and tokens[-1] in _CLOSINGS:
        tokens = tokens[:-1]
    return " ".join(tokens)


def _names_code(text: str) -> bool:
    """A part that names code (a path, a backticked or called name, a ``snake_case`` or
    ``dotted.name``): a correction, whatever its form ("no, call it make_slug")."""
    if PATH_RE.search(text) or BACKTICK_RE.search(text) or CALL_RE.search(text):
        return True
    return any(code_shaped(t.strip(".,;:!?()'\"")) for t in text.split())


def is_resume(text: str) -> bool:
    """Whether the message asks to go on with the task ("continue", "resume", ...)."""
    return _plain_words(text) in RESUME_WORDS


def is_apply(text: str) -> bool:
    """Whether the message's core phrase is one of the apply words: "apply", "apply it",
    "apply the draft", also wrapped ("ok, apply it please 🙏"), never inside a longer request
    ("apply the changes to parse_date" is not one) and never asked ("apply?" writes nothing)."""
    return _plain_words(text) in APPLY_WORDS


def classify_reply(text: str) -> ReplyIntent:
    """Classify a reply to a proposal (punctuation and case are ignored)."""
    words = _plain_words(text)
    if words in CONFIRM_WORDS:
        return ReplyIntent.CONFIRM
    if words in CANCEL_WORDS:
        return ReplyIntent.CANCEL
    return ReplyIntent.FEEDBACK


#: The words that write a draft into the repository (``app/drafting/history.py`` answers them).
APPLY_WORDS = APPLY
REPLY_WORDS = CONFIRM_WORDS | CANCEL_WORDS | RESUME_WORDS | APPLY_WORDS
_PHRASES = REPLY_WORDS | _BACK_TO_IT | PARTICLES
#: A part longer than this is never one reply (wrappers included: "hey cat, go ahead please").
_LONGEST_REPLY = 80
#: An acknowledgement ("ok", "okay", "vale"): a yes, unless another part says another reply
#: ("ok, read it. cancel"); an affirmation that is no filler ("yes", "sì", "oui") standing as
#: a sentence of its own says yes, and another sentence's reply contradicts it ("yes. cancel").
_ACK = "ack"
_ACK_WORDS = AFFIRMATIONS & FILLERS
#: The first word of every reply phrase: a part without one is no reply.
_REPLY_TOKENS = frozenset(_plain(phrase).split()[0] for phrase in REPLY_WORDS)
_KIND_WORDS = {id(CONFIRM_WORDS): "yes", id(CANCEL_WORDS): "cancel", id(RESUME_WORDS): "continue",
               id(APPLY_WORDS): "apply"}
#: The words of the replies, for one-typo corrections (``typos``).
VOCABULARY = Vocabulary(" ".join(REPLY_WORDS).replace("'", " ").split(),
                        same={w: _kind_of(w) or w for w in REPLY_WORDS if " " not in w})


class Aside(str, Enum):
    """What a message that is not a reply to the waiting proposal is."""

    NONE = ""          # a reply: go, cancel, or a correction
    QUESTION = "question"  # about the code: answered with retrieval
    CHAT = "chat"      # ordinary chat or thanks: the Cat answers
    APPLY = "apply"    # "apply" before there is a draft


def reply_aside(text: str, found: Detection) -> Aside:
    """Whether a message sent while a proposal waits is an aside rather than a reply;
    ``found``: the detector's reading of it (``intent.detect_intent``). A question that names
    no code ("what's the capital of France?") is chat; "what about None?" asks for a change."""
    intent, asks = found.intent, "question" in found.evidence
    words = _plain_words(text)
    if words in CONFIRM_WORDS | CANCEL_WORDS or words in RESUME_WORDS:
        return Aside.NONE
    said = read_utterance(text or "")
    if is_apply(text):
        return Aside.APPLY
    if intent is Intent.CODE_QUESTION:
        return Aside.QUESTION
    if said.social or (intent is Intent.OTHER and asks and not said.asked):
        return Aside.CHAT
    return Aside.NONE


def waiting_line(symbol: str) -> str:
    """The one line said after an aside: the proposal still waits."""
    what = f"Your proposal for `{symbol}`" if symbol else "Your proposal"
    return f"{what} is still waiting: say **go**, **cancel**, or what to change."
