"""Is a chat message a request for code, a question about the code, or neither? And what does it
name (file, symbol, kind)?

Why deterministic: the Cat routes a message to a form or tool by the embedding similarity of
the message to the form's example sentences; with its default embedder (character bigrams) and
other weak ones that is a coin toss, so a plain "write a function slugify in text_utils.py" was
answered by the Cat with inline code. This detector reads the sentence the way a person would:
an action verb (write, add, implement, change, fix, refactor ... in English, Italian, German,
Spanish and French, typos forgiven) applied to something made of code (a function, class,
method, file, a ``snake_case`` or ``dotted.name``, a ``path.py``), not framed as a question. A
message it cannot place with confidence is ``AMBIGUOUS``: the caller may ask the LLM
(``tie_break_prompt``), never the only path. Pure functions; no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import Enum

from .intent_words import (
    CODE_FOR_NOUNS,
    CODE_NOUNS,
    CODE_ONLY_VERBS,
    CODE_QUESTION_STEMS,
    DEFINITE,
    DESIRE_PHRASES,
    DETERMINERS,
    FOR_WORDS,
    INFORMATION_VERBS,
    KIND_OF_NOUN,
    LINK_WORDS,
    MEMBER_NOUNS,
    NAMING_WORDS,
    NEGATIONS,
    NOT_SYMBOLS,
    OWNER_MARKERS,
    POLITE_OPENINGS,
    PROBLEM_WORDS,
    QUESTION_STARTS,
    REQUEST_FRAMES,
    REQUEST_VERBS,
)
from .prompts import data_block, render


class Intent(str, Enum):
    """What a message asks of the plugin."""

    CODE_REQUEST = "code_request"
    CODE_QUESTION = "code_question"
    OTHER = "other"
    #: Could be a request; let the LLM decide (``tie_break_prompt``) or treat it as OTHER.
    AMBIGUOUS = "ambiguous"


@dataclass(frozen=True)
class RequestDetails:
    """What the message itself says about the code it wants (empty strings: not said)."""

    target_path: str = ""
    symbol: str = ""
    #: function, method, class, test or module.
    kind: str = ""


@dataclass(frozen=True)
class Detection:
    """The detector's verdict, the evidence for it, and what the message names."""

    intent: Intent
    details: RequestDetails
    evidence: tuple[str, ...] = ()


PATH_RE = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)*[\w-]+\.(?:py|pyi|pyw|js|jsx|ts|tsx|java|c|h|"
                     r"cc|cpp|hpp|go|rs|rb|php|cs|toml|cfg|ini|json|yaml|yml))(?![\w/])")
BACKTICK_RE = re.compile(r"`([A-Za-z_][\w.]*)(?:\([^`]*\))?`")
CALL_RE = re.compile(r"(?<![\w.])([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?)\(\s*[\w ,=*'\"]*\)")
IDENT_RE = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?")
WORD_RE = re.compile(r"[\w']+", re.UNICODE)

def tie_break_prompt(message: str) -> str:
    """The yes/no question for an ``AMBIGUOUS`` message (``prompts`` template ``tie_break``);
    the message is a data block, so it cannot pose as instructions."""
    return render("tie_break", message=data_block("message", "user", message))


def detect_intent(text: str) -> Detection:
    """Classify ``text`` (see the module docstring) and extract what it names."""
    details = extract_details(text)
    words = _words(text)
    if not words:
        return Detection(Intent.OTHER, details)
    verb = _request_verb(words)
    code = _mentions_code(words, text, details)
    question = _is_question(words, text)
    evidence = tuple(e for e in (f"verb:{verb}" if verb else "", "code" if code else "",
                                 "question" if question else "") if e)
    return Detection(_decide(words, verb, code, question), details, evidence)


def _decide(words: list[str], verb: str, code: bool, question: bool) -> Intent:
    if question:
        return Intent.CODE_QUESTION if code or _asks_about_code(words) else Intent.OTHER
    if verb and verb in INFORMATION_VERBS:
        return Intent.CODE_QUESTION if code else Intent.OTHER
    if verb and code:
        return Intent.CODE_REQUEST
    if _desires_code(words) and code:
        return Intent.CODE_REQUEST
    if verb in CODE_ONLY_VERBS or ((code or verb) and any(w in PROBLEM_WORDS for w in words)):
        return Intent.AMBIGUOUS
    return Intent.OTHER


THINK_RE = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)


def parse_tie_break(reply: str) -> bool:
    """The LLM's yes/no, after any ``<think>`` block and an "Answer:" label (anything
    unreadable counts as no: the Cat then answers as usual)."""
    words = [w for w in _words(THINK_RE.sub(" ", reply or "")) if w != "answer"]
    return bool(words) and words[0] in ("yes", "y", "si", "ja", "oui", "true")


# -- extraction -----------------------------------------------------------------------------

def extract_details(text: str) -> RequestDetails:
    """The file, symbol and kind a message names; deterministic, conservative."""
    text = text or ""
    path_match = PATH_RE.search(text)
    path = path_match.group(1) if path_match else ""
    rest = text.replace(path, " ") if path else text
    named = _named_entities(rest)  # (kind, name, is_owner) triples, in order
    main = [(k, n) for k, n, owner in named if not owner] or [(k, n) for k, n, _ in named]
    kind = main[0][0] if main else _kind(_words(text))
    symbol = _explicit_symbol(rest) or next((n for k, n in main if k == kind and n), "") \
        or next((n for _, n, _ in named if n), "") or _code_shaped(rest)
    if kind == "method" and symbol and "." not in symbol:
        owner = next((n for k, n, _ in named if k == "class" and n and n != symbol), "") \
            or _owner_class(text, symbol)
        symbol = f"{owner}.{symbol}" if owner else symbol
    if not kind and "." in symbol:
        kind = "method"
    return RequestDetails(target_path=path, symbol=symbol, kind=kind)


def _kind(words: list[str]) -> str:
    for word in words:
        kind = KIND_OF_NOUN.get(word) or KIND_OF_NOUN.get(_fuzzy(word, KIND_OF_NOUN))
        if kind:
            return kind
    return ""


def _explicit_symbol(text: str) -> str:
    """A name in backticks, or written as a call: ``slugify`` / ``divide()`` (not one that is
    a parameter or field of something else: "a `timeout` parameter")."""
    for pattern in (BACKTICK_RE, CALL_RE):
        for match in pattern.finditer(text):
            following = _words(text[match.end():])[:1]
            if _plausible(match.group(1)) and not set(following) & MEMBER_NOUNS:
                return match.group(1)
    return ""


def _code_shaped(text: str) -> str:
    """A ``snake_case`` or ``dotted.name`` that is not a field, flag or argument."""
    tokens: list[str] = re.findall(r"[\w.]+", text)
    for i, token in enumerate(tokens):
        neighbours = {_fold(t.lower()) for t in tokens[max(0, i - 1):i + 2]}
        if _plausible(token) and ("_" in token.strip("_") or "." in token) \
                and not neighbours & MEMBER_NOUNS:
            return token
    return ""


def _named_entities(text: str) -> list[tuple[str, str, bool]]:
    """``(kind, name, is_owner)`` for each code noun: "function slugify", "a method called
    save", "the Stack class", "a test for slugify" (name "" when none is given). ``is_owner``:
    the noun is where something goes ("add a method *to the class* Konto")."""
    tokens = re.findall(r"[\w.]+|[^\w\s]", text)
    folded = [_fold(t.lower()) for t in tokens]
    found = []
    for i, word in enumerate(folded):
        if word in CODE_FOR_NOUNS and i + 2 < len(tokens) and folded[i + 1] in FOR_WORDS \
                and _plausible(tokens[i + 2]) and not _ordinary(tokens[i + 2]) \
                and _ends_phrase(folded, i + 2):
            found.append(("function", tokens[i + 2], False))
            continue
        kind = KIND_OF_NOUN.get(word) or KIND_OF_NOUN.get(_fuzzy(word, KIND_OF_NOUN))
        if kind:
            name = _name_after(tokens, folded, i) or _name_before(tokens, folded, i)
            owner = kind == "class" and any(w in OWNER_MARKERS for w in folded[max(0, i - 2):i])
            found.append((kind, name, owner))
    return found


def _name_after(tokens: list[str], folded: list[str], i: int) -> str:
    j, naming = i + 1, False
    while j < len(tokens) and folded[j] in NAMING_WORDS:
        j, naming = j + 1, True
    singular = not folded[i].endswith("s") or folded[i] in ("class", "classe")
    if j < len(tokens) and folded[j] in FOR_WORDS and singular and _ends_phrase(folded, j + 1):
        j, naming = j + 1, True  # "a test for slugify" (not "functions for area and ...")
    if j >= len(tokens) or not _plausible(tokens[j]) or _ordinary(tokens[j]) \
            or tokens[j].isupper():
        return ""
    if naming or _code_like(tokens[j]):
        return tokens[j]
    determined = i > 0 and (folded[i - 1] in DETERMINERS or folded[i - 1] in REQUEST_VERBS)
    return tokens[j] if determined and _ends_phrase(folded, j) else ""


def _name_before(tokens: list[str], folded: list[str], i: int) -> str:
    j = i - 1
    if j < 0 or not _plausible(tokens[j]) or _ordinary(tokens[j]) or tokens[j].isupper():
        return ""
    if _code_like(tokens[j]):
        return tokens[j]
    return tokens[j] if j > 0 and folded[j - 1] in DEFINITE else ""


def _ends_phrase(folded: list[str], j: int) -> bool:
    """Whether the word at ``j`` is the last of its phrase (end, punctuation, a linking word)."""
    nxt = j + 1
    return nxt >= len(folded) or not folded[nxt][:1].isalnum() or folded[nxt] in LINK_WORDS


def _code_like(token: str) -> bool:
    """Written like a name in code: ``snake_case``, ``CamelCase``, ``Capitalised``,
    ``dotted.name`` (an all-caps word like CSV is an acronym, not a name)."""
    if token.isupper() and "_" not in token:
        return False
    return "_" in token.strip("_") or "." in token or token[:1].isupper() \
        or any(c.isupper() for c in token[1:])


def _ordinary(token: str) -> bool:
    """A word of the language, not a name (``Parser`` written as a name is not ordinary)."""
    folded = _fold(token.lower())
    if folded in NOT_SYMBOLS or folded in REQUEST_VERBS or folded in KIND_OF_NOUN:
        return True
    return folded in CODE_NOUNS and not _code_like(token)


def _owner_class(text: str, method: str) -> str:
    """``Invoice`` in "add a method to_json to the Invoice class" (a capitalised class name)."""
    for match in re.finditer(r"\b([A-Z][A-Za-z0-9]*)\b", text):
        name = match.group(1)
        if name != method and not _ordinary(name) and len(name) > 1 \
                and not name.isupper() and match.start() > 0:
            return name
    return ""


def _plausible(name: str) -> bool:
    return (bool(IDENT_RE.fullmatch(name)) and len(name) > 1
            and _fold(name.lower()) not in NOT_SYMBOLS)


# -- evidence -------------------------------------------------------------------------------

def _words(text: str) -> list[str]:
    return [_fold(w.lower().strip("'")) for w in WORD_RE.findall(text or "")]


def _fold(word: str) -> str:
    """Lower-case ASCII folding: "écris" -> "ecris", "füge" -> "fuge"."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _request_verb(words: list[str]) -> str:
    """The first action verb of the message (exact or a one-typo match of a long verb).

    A negated verb ("don't write") does not count; an information verb ("explain", "show",
    "list") counts only where an imperative stands, since "a list" or "the show" are nouns.
    """
    opening = _opening_length(words)
    for i, word in enumerate(words[:12]):
        if i > 0 and (words[i - 1] in NEGATIONS or " ".join(words[max(0, i - 2):i])
                      in NEGATIONS):
            continue
        if word in INFORMATION_VERBS and i <= opening:
            return word
        if word in REQUEST_VERBS:
            return word
        near = _fuzzy(word, REQUEST_VERBS, shortened=True)
        if near:
            return near
    return ""


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


def _mentions_code(words: list[str], text: str, details: RequestDetails) -> bool:
    if details.target_path or details.symbol or "`" in text:
        return True
    return any(w in CODE_NOUNS or _fuzzy(w, CODE_NOUNS) for w in words)


def _asks_about_code(words: list[str]) -> bool:
    """A question's words that are about a program's workings ("where is the config loaded")."""
    return any(w.startswith(CODE_QUESTION_STEMS) for w in words)


def _is_question(words: list[str], text: str) -> bool:
    """A question about something, not a polite request ("can you write ...?")."""
    head = " ".join(words[:3])
    if any(head.startswith(frame) for frame in REQUEST_FRAMES):
        return False
    if words[0] in QUESTION_STARTS or (len(words) > 1 and " ".join(words[:2])
                                       in QUESTION_STARTS):
        return True
    return text.strip().endswith("?") and _request_verb(words) == ""


def _desires_code(words: list[str]) -> bool:
    joined = " ".join(words)
    return any(joined.startswith(p) or f" {p} " in f" {joined} " for p in DESIRE_PHRASES)


def _fuzzy(word: str, vocabulary: frozenset[str] | dict[str, str], *,
           shortened: bool = False) -> str:
    """The vocabulary word one edit (or one swap) away from ``word``; only for long words.

    ``shortened`` also forgives a dropped letter of a five-letter word ("writ", for verbs).
    """
    if len(word) < (4 if shortened else 5) or word in vocabulary:
        return ""
    for candidate in vocabulary:
        close = len(candidate) >= 5 and abs(len(candidate) - len(word)) <= 1
        if close and (len(word) >= 5 or len(candidate) == 5) and _one_edit(word, candidate):
            return candidate
    return ""


def _one_edit(a: str, b: str) -> bool:
    """Damerau-Levenshtein distance exactly 1 (substitution, insertion, deletion, swap)."""
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
        if len(diff) == 1:
            return True
        return (len(diff) == 2 and diff[1] == diff[0] + 1
                and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))
