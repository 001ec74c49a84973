"""Text primitives of the intent detector (``intent``): words, accent folding, one-typo
matching, phrase lookup, and the shapes names take in code.

Kept apart so the rules (``intent_signals``) and the extraction (``intent_details``) read the
same words the same way. Pure functions; no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from .ordinary import english_near

PATH_RE = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)*[\w-]+\.(?:py|pyi|pyw|js|jsx|ts|tsx|java|c|h|"
                     r"cc|cpp|hpp|go|rs|rb|php|cs|toml|cfg|ini|json|yaml|yml))(?![\w/])")
BACKTICK_RE = re.compile(r"`([A-Za-z_][\w.]*)(?:\([^`]*\))?`")
CALL_RE = re.compile(r"(?<![\w.])([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?)\(\s*[\w ,=*'\"]*\)")
IDENT_RE = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?")
WORD_RE = re.compile(r"[\w']+", re.UNICODE)
THINK_RE = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
#: Identifiers as written, dotted ones whole ("Invoice.to_json"), for the index lookup.
NAME_RE = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")

#: Last parts of dotted words that are web addresses or documents ("example.com",
#: "report.pdf"), not ``module.name``.
NOT_CODE_ENDINGS = frozenset({
    "com", "org", "net", "io", "de", "it", "fr", "es", "nl", "pt", "br", "uk", "eu", "gov",
    "edu", "info", "co", "htm", "pdf", "doc", "docx", "odt", "rtf", "txt", "jpg", "jpeg", "png",
    "gif", "heic", "mp3", "mp4", "wav", "mov", "avi", "xls", "xlsx", "ppt", "pptx", "zip",
    "epub", "pages", "key", "numbers",
})


def words(text: str) -> list[str]:
    """The message's words, lower-case and accent-folded ("Füge" -> "fuge")."""
    return [fold(w.lower().strip("'")) for w in WORD_RE.findall(text or "")]


def fold(word: str) -> str:
    """Lower-case ASCII folding: "écris" -> "ecris", "füge" -> "fuge", "faça" -> "faca"."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def padded(words_: list[str]) -> str:
    """The words joined with a space on each side, so phrases match on word boundaries."""
    return " " + " ".join(words_) + " "


def find_phrase(padded_text: str, phrases: Iterable[str]) -> str:
    """The first of ``phrases`` (folded, space-separated words) that the text contains."""
    return next((p for p in phrases if f" {p} " in padded_text), "")


def code_shaped(token: str) -> bool:
    """Written as only code writes a name: ``snake_case`` or ``dotted.name`` (not an
    abbreviation like "e.g", a web address like "example.com" or a document "report.pdf")."""
    if not IDENT_RE.fullmatch(token) or len(token) < 3:
        return False
    if "_" in token.strip("_"):
        return True
    parts = token.split(".")
    return len(parts) > 1 and all(len(p) > 1 for p in parts) \
        and parts[-1].lower() not in NOT_CODE_ENDINGS


def camel_case(token: str) -> bool:
    """``CsvExporter``, ``parseDate``: a capital inside the word. Brands are written so too
    ("iPhone", "YouTube"), which is why this is only a weak sign of code."""
    return token.isalnum() and not token.isupper() and any(c.isupper() for c in token[1:]) \
        and any(c.islower() for c in token)


def fuzzy(word: str, vocabulary: frozenset[str] | dict[str, str], *,
          shortened: bool = False, least: int = 5, english: bool = False) -> str:
    """The vocabulary word one edit (or one swap) away from ``word``; only for long words.

    ``shortened`` also forgives a dropped letter of a five-letter word ("writ", for verbs).
    ``least``: the shortest vocabulary word a typo may stand for (short words are too close
    to ordinary ones: "testo" is Italian for text, not a typo of "tests"). Of several, the
    first in alphabetical order. ``english``: an English word is no typo of another word
    (``ordinary``: for the code nouns, "glasses" is no "classes"), only of its own stem's
    ("algorithms", "handle" are "algorithm", "handler"). Routing counts a verb's other
    forms and near words as the verb ("writ", "converts", "changed"), and the readers of
    commands check the word against its language on their own (``clause_reading.part_asks``:
    "Rewrote it twice." asks for nothing). The candidates come from an index of each vocabulary's
    one-letter deletions, built once, so a word costs a few lookups, not a pass over the list.
    """
    if len(word) < (4 if shortened else least) or word in vocabulary:
        return ""
    deletions = _deletion_index(vocabulary)
    found = set(deletions.get(word, ()))
    for variant in {word[:i] + word[i + 1:] for i in range(len(word))}:
        found |= deletions.get(variant, set())
    fitting = [c for c in found if len(c) >= least and abs(len(c) - len(word)) <= 1
               and (len(word) >= 5 or len(c) == 5) and one_edit(word, c)
               and not (english and word in english_near() and not _same_stem(word, c))]
    return min(fitting) if fitting else ""


def _same_stem(word: str, other: str) -> bool:
    """One word the other with a letter added at its end ("algorithms", "handler")."""
    return word.startswith(other) or other.startswith(word)


_INDEXES: dict[int, tuple[object, dict[str, set[str]]]] = {}


def _deletion_index(vocabulary: frozenset[str] | dict[str, str]) -> dict[str, set[str]]:
    """Each word and its one-letter deletions -> the words (built once per vocabulary)."""
    cached = _INDEXES.get(id(vocabulary))
    if cached is not None and cached[0] is vocabulary:
        return cached[1]
    deletions: dict[str, set[str]] = {}
    for candidate in vocabulary:
        for key in {candidate, *(candidate[:i] + candidate[i + 1:]
                                 for i in range(len(candidate)))}:
            deletions.setdefault(key, set()).add(candidate)
    _INDEXES[id(vocabulary)] = (vocabulary, deletions)
    return deletions


def one_edit(a: str, b: str) -> bool:
    """Damerau-Levenshtein distance exactly 1 (substitution, insertion, deletion, swap)."""
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
        if len(diff) == 1:
            return True
        return (len(diff) == 2 and diff[1] == diff[0] + 1
                and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))
