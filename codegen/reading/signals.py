"""The evidence ``intent`` weighs: how strongly a message names code, how it asks for a change,
and whether it is a question.

Code is named STRONGLY by what only code is: a path, a backticked or called name, a
``snake_case`` or ``dotted.name``, a name the repository's index knows, a code noun ("function",
"Klasse", "método"). It is named WEAKLY by programming jargon ("JSON", "timeout", "validator")
and ``CamelCase`` words (brands are written so too). A change is asked for by the structure of
the sentence (``intent_frames``), not only by a verb from a list. Pure functions; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from .details import RequestDetails
from .frames import (
    CAUSATIVE_PHRASES,
    CODE_QUESTION_STEMS,
    COMPARE_PHRASES,
    DESCRIBED_THINGS,
    DESIRE_PHRASES,
    FAULT_NEGATIONS,
    MODAL_PHRASES,
    NEGATIONS,
    PERSONS,
    POLITE_OPENINGS,
    PROBLEM_PHRASES,
    QUESTION_STARTS,
    REQUEST_FRAMES,
    TECH_PHRASES,
    WALK_PHRASES,
)
from .text import (
    CALL_RE,
    NAME_RE,
    PATH_RE,
    camel_case,
    code_shaped,
    find_phrase,
    fuzzy,
    padded,
    words,
)
from .utterance_words import ASKS
from .words import (
    CODE_NOUN_PHRASES,
    CODE_NOUNS,
    DETERMINERS,
    GENERIC_CODE_WORDS,
    IMPERATIVE_VERBS,
    INFORMATION_VERBS,
    LINK_WORDS,
    NOT_SYMBOLS,
    REQUEST_VERBS,
    TECH_WORDS,
)


class CodeSign(IntEnum):
    """How strongly a message names code."""

    NONE = 0
    WEAK = 1
    STRONG = 2


@dataclass(frozen=True)
class Sentence:
    """A message read once: its words, the same padded for phrases, where its verb may stand."""

    text: str
    words: list[str]
    padded: str
    opening: int
    #: An ask for an action opens the message or one of its clauses ("..., could you fix
    #: it?"): the question mark then asks for the action, not for a yes.
    asked: bool = False


def read(text: str, words: list[str], *, asked: bool = False) -> Sentence:
    """``text`` with its folded ``words`` (``intent_text.words``), read once for every rule;
    ``asked``: the message's wrapper opened with an ask (``utterance.Utterance.asked``)."""
    asks = asked or any(_opens_with(clause, ASKING) for clause in clauses(text)[1:])
    return Sentence(text, words, padded(words), _opening_length(words), asks)


#: Asks for an action, at the start of a clause ("..., could you fix it?").
ASKING = tuple(sorted(set(REQUEST_FRAMES) | ASKS, key=len, reverse=True))
_CLAUSE_RE = re.compile(r"[.!?;,:]+(?:\s|$)|\s+[-–—]+\s+|\s*[–—]\s*")


def clauses(text: str) -> list[list[str]]:
    """The message's clauses (split at sentence and clause punctuation), as folded words."""
    return [w for w in (words(part) for part in _CLAUSE_RE.split(text or "")) if w]


def _opens_with(clause: list[str], phrases: Sequence[str]) -> bool:
    head = " ".join(clause[:6])
    return any(head == p or head.startswith(p + " ") for p in phrases)


# -- names ----------------------------------------------------------------------------------

#: Words never sent to the index: articles, pronouns, prepositions, question words, code nouns.
_NOT_NAMES = NOT_SYMBOLS | DETERMINERS | LINK_WORDS | CODE_NOUNS | PERSONS | QUESTION_STARTS
MAX_NAMES = 40


def candidate_names(text: str) -> list[str]:
    """What the message contains that could name code, as written, for one index lookup:
    paths, dotted names (and their parts), identifiers; function words left out."""
    found: list[str] = [m.group(1) for m in PATH_RE.finditer(text or "")]
    rest = PATH_RE.sub(" ", text or "")
    for match in NAME_RE.finditer(rest):
        token = match.group(0)
        parts = token.split(".") if "." in token else []
        for name in (token, *parts):
            if len(name) > 2 and name.lower() not in _NOT_NAMES and name not in found:
                found.append(name)
    first = NAME_RE.search(rest)
    if first and first.group(0).istitle() and first.group(0).lower() not in found:
        found.append(first.group(0).lower())  # "Paginate should ...": the sentence's capital
    return found[:MAX_NAMES]


#: Words after an imperative verb's object starts ("retry *the* recipe", "update *me*").
_OBJECT_STARTS = DETERMINERS | frozenset({"me", "it", "them", "us", "him", "her", "to", "up",
                                          "out", "off", "on", "my", "your", "our", "all"})
#: Articles and possessives: "the data", "my order" may be ordinary nouns.
_ARTICLES = DETERMINERS | frozenset({"your", "his", "her", "their", "mio", "mia", "mein", "meine",
                                     "mi", "mon", "ma", "mes", "meu", "minha", "mijn", "het",
                                     "de", "o", "os", "as"})
#: Words before a verb ("I'll *retry*", "want to *login*").
_VERB_BEFORE = PERSONS | frozenset({"to", "i'll", "we'll", "you'll", "will", "can", "could",
                                    "would", "should", "must", "don't", "dont", "not", "let's"})


def used_as_names(sentence: Sentence, confirmed: set[str]) -> tuple[list[str], list[str]]:
    """The index's names the message uses as names, strong and weak, in the message's order.

    A plain word like ``login`` or ``retry`` is also a verb ("I'll retry the recipe", "login to
    my bank"), and then names nothing; after an article or a possessive it may be an ordinary
    noun ("the data looks wrong"), a weak sign only. Other names (``parse_date``, ``Cart``,
    ``Invoice.to_json``, a path) are strong wherever they stand.
    """
    strong, weak = [], []
    for name in sorted(confirmed, key=sentence.text.find):
        if not name.isalpha() or not name.islower():
            strong.append(name)
            continue
        places = [i for i, w in enumerate(sentence.words)
                  if w == name and not _verb_use(sentence, i)]
        if any(i == 0 or sentence.words[i - 1] not in _ARTICLES for i in places):
            strong.append(name)
        elif places:
            weak.append(name)
    return strong, weak


def _verb_use(sentence: Sentence, i: int) -> bool:
    words = sentence.words
    if i > 0 and words[i - 1] in _VERB_BEFORE:
        return True
    return i == sentence.opening and i + 1 < len(words) and words[i + 1] in _OBJECT_STARTS


def code_sign(sentence: Sentence, details: RequestDetails, strong: Sequence[str],
              weak: Sequence[str] = ()) -> tuple[CodeSign, str]:
    """How strongly the message names code, and the evidence for it (``strong``, ``weak``:
    the index's names as ``used_as_names`` sorts them)."""
    text = sentence.text
    if details.target_path or details.symbol or "`" in text or CALL_RE.search(text):
        return CodeSign.STRONG, "named"
    if strong:
        return CodeSign.STRONG, "known:" + ",".join(strong)
    tokens = text.split()
    if any(code_shaped(t.strip(".,;:!?()'\"")) for t in tokens):
        return CodeSign.STRONG, "code-shaped"
    noun = next((w for i, w in enumerate(sentence.words)
                 if (w in CODE_NOUNS or fuzzy(w, CODE_NOUNS, least=6, english=True))
                 and not (w in GENERIC_CODE_WORDS and i > 0
                          and sentence.words[i - 1] in _VERB_BEFORE)), "") \
        or find_phrase(sentence.padded, CODE_NOUN_PHRASES)
    if noun:
        return CodeSign.STRONG, f"noun:{noun}"
    jargon = next((w for w in sentence.words if w in TECH_WORDS), "") \
        or find_phrase(sentence.padded, TECH_PHRASES)
    if jargon:
        return CodeSign.WEAK, f"jargon:{jargon}"
    if weak:
        return CodeSign.WEAK, "known-word:" + ",".join(weak)
    if any(camel_case(t.strip(".,;:!?()'\"")) for t in tokens):
        return CodeSign.WEAK, "camel-case"
    stem = next((w for w in sentence.words if w.startswith(CODE_STEMS)), "")
    return (CodeSign.WEAK, f"stem:{stem}") if stem else (CodeSign.NONE, "")


#: Word beginnings of code nouns across languages, for a language the lists do not cover
#: ("funkcje", "funktio", "metodu", "klasse"): a weak sign only.
CODE_STEMS = ("funk", "func", "fonc", "funz", "metod", "method", "klass", "modul", "skript",
              "regex", "dekor", "decor")


def asks_about_code(sentence: Sentence) -> bool:
    """A question's words that are about a program's workings ("where is the config loaded")."""
    return any(w.startswith(CODE_QUESTION_STEMS) for w in sentence.words)


# -- the shape of the sentence --------------------------------------------------------------

def opening_verb(sentence: Sentence) -> str:
    """The verb where an imperative stands (after "please", "can you" ...), or ""."""
    if sentence.opening >= len(sentence.words):
        return ""
    word = sentence.words[sentence.opening]
    if word in REQUEST_VERBS or word in IMPERATIVE_VERBS or word in INFORMATION_VERBS:
        return word
    return fuzzy(word, REQUEST_VERBS, shortened=True)


def request_verb(sentence: Sentence) -> str:
    """The first request verb of the message's first twelve words (exact or a one-typo
    match of a long verb), not negated ("don't write any code")."""
    words = sentence.words
    for i, word in enumerate(words[:12]):
        if i > 0 and (words[i - 1] in NEGATIONS or " ".join(words[max(0, i - 2):i])
                      in NEGATIONS):
            continue
        if word in REQUEST_VERBS:
            return word
        near = fuzzy(word, REQUEST_VERBS, shortened=True)
        if near:
            return near
    return ""


def change_asked(sentence: Sentence) -> str:
    """How the message asks for a change, "" when it does not: a verb, a causative, a
    desire, a thing described, a modal, a bug report."""
    verb = opening_verb(sentence)
    if verb and verb not in INFORMATION_VERBS:
        return f"verb:{verb}"
    verb = request_verb(sentence)
    if verb:
        return f"verb:{verb}"
    at_start = padded(sentence.words[sentence.opening:sentence.opening + 3])
    for kind, phrases, where in (
            ("causative", CAUSATIVE_PHRASES, sentence.padded),
            ("desire", DESIRE_PHRASES, sentence.padded),
            ("described", DESCRIBED_THINGS, at_start),
            ("modal", MODAL_PHRASES, sentence.padded),
            ("bug", PROBLEM_PHRASES, sentence.padded)):
        found = find_phrase(where, phrases)
        if found:
            return f"{kind}:{found}"
    fault = _fault(sentence)
    return f"bug:{fault}" if fault else ""


def _fault(sentence: Sentence) -> str:
    """A negation after a subject other than the speaker ("verify_token doesn't reject")."""
    words = sentence.words
    for i in range(1, len(words)):
        for phrase in (" ".join(words[i:i + 2]), words[i]):
            if phrase in FAULT_NEGATIONS and words[i - 1] not in PERSONS \
                    and words[i - 1] not in POLITE_OPENINGS:
                return phrase
    return ""


def question_form(sentence: Sentence) -> str:
    """"question" (a question word or a question mark without a request verb), "walk" or
    "compare" (a walk-through or comparison, whatever the form), or ""."""
    words, head = sentence.words, " ".join(sentence.words[:3])
    if any(head.startswith(frame) for frame in REQUEST_FRAMES) or _cleft(sentence) \
            or _subordinate(sentence):
        return ""
    if _question_start(words) or _topic_first(sentence):
        return "question"
    if sentence.asked:
        return ""
    verb = opening_verb(sentence)
    if verb in REQUEST_VERBS or verb in IMPERATIVE_VERBS:
        return ""
    if sentence.text.strip().endswith("?") and not request_verb(sentence):
        return "question"
    for kind, phrases in (("walk", WALK_PHRASES), ("compare", COMPARE_PHRASES)):
        if find_phrase(sentence.padded, phrases):
            return kind
    return ""


#: "what I want is ...", "what we need is ...": a wish said in a cleft, not a question.
_CLEFTS = ("what i want", "what i need", "what i'd like", "what id like", "what i would like",
           "what we need", "what we want", "what i'd love", "what you should do",
           "what i wanted", "what i meant")


#: "when"/"if" before a subject: a clause of time or condition, not a question ("when a
#: webhook arrives twice we create two shipments - make it idempotent").
_SUBORDINATORS = frozenset({"when", "if", "whenever", "quando", "wenn", "cuando", "quand"})
_AUXILIARIES = frozenset({"is", "are", "was", "were", "do", "does", "did", "will", "would",
                          "can", "could", "should", "has", "have", "had", "must", "may",
                          "might", "shall", "e", "viene", "vengono", "wird", "werden", "ist",
                          "es", "se", "est", "sont"})


def _subordinate(sentence: Sentence) -> bool:
    words = sentence.words[sentence.opening:]
    return len(words) > 2 and words[0] in _SUBORDINATORS and words[1] not in _AUXILIARIES \
        and not sentence.text.rstrip().endswith("?")


def _cleft(sentence: Sentence) -> bool:
    head = " ".join(sentence.words[sentence.opening:sentence.opening + 5])
    return not sentence.text.rstrip().endswith("?") and head.startswith(_CLEFTS)


def _topic_first(sentence: Sentence) -> bool:
    """A question about a thing named first ("price_for, which module defines it?",
    "send_receipt - which file?"): a short opening clause, then a question word."""
    if not sentence.text.rstrip().endswith("?"):
        return False
    parts = clauses(sentence.text)
    return len(parts) > 1 and len(parts[0]) <= 3 and _question_start(parts[1])


def _question_start(words: list[str]) -> bool:
    """A question word first; "have" is one only before a person ("have you ...", not
    "have authenticate return None")."""
    if words[0] in IMPERATIVE_VERBS and (len(words) < 2 or words[1] not in PERSONS):
        return False
    return words[0] in QUESTION_STARTS or " ".join(words[:2]) in QUESTION_STARTS


def _opening_length(words: list[str]) -> int:
    """Index of the first word after a polite opening ("please", "can you", "hey cat, ...")."""
    i = 0
    while i < len(words):
        two = " ".join(words[i:i + 2])
        if two in POLITE_OPENINGS:
            i += 2
        elif words[i] in POLITE_OPENINGS:
            i += 1
        else:
            break
    return i
