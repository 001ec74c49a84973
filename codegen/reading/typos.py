"""Typos in the plugin's own words, numbers said as words, and punctuation said aloud.

The command readers match exact words; a user types "roll bakc to draft 3", "shwo the draft
history", "renmae fmt_ts to format_timestamp", "cancle". ``Vocabulary.correct`` replaces each
word one edit away (a swap, a missing, extra or wrong letter) from exactly one word of *that
reader's* vocabulary: a word of the message is never turned into a word the reader does not
use, and a corrected phrase is only ever a command when the whole of it is the command's shape
(the readers match the corrected text with the same anchored patterns). Short words change
less: two or three letters only by a swap ("teh", "ot", "yse") or a doubled letter typed once
("ad", "dif"); names (a capital inside the message, ``_``, dots) never change, and neither
does a word of its own language (``ordinary``: "step" is no "stop", "lista" no "list") but
for two neighbouring letters swapped ("form" is "from" to the move reader). Of two vocabulary
words one edit away, the likelier slip wins (a swap, a letter missing, one extra, one wrong:
"godo" is "good", not Dutch "goed"). A
letter held down ("roooll", "redooo") and digits typed for the letters they look like ("r0ll",
"r3do", "g0") count when the plain word is the vocabulary's.

``said_numbers`` writes "draft three" as "draft 3"; ``spoken_punctuation`` writes dictated
"fmt underscore ts" as ``fmt_ts`` (for suggestions only: a guess). Pure; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from .ordinary import not_a_typo
from .text import fold

__all__ = ["Vocabulary", "edit_kind", "said_numbers", "spoken_punctuation"]

_TOKEN = re.compile(r"\S+")
_WORD = re.compile(r"[a-z]+(?:-[a-z]+)?")


class Vocabulary:
    """The words one reader matches, with an index of their one-letter deletions."""

    def __init__(self, words: Iterable[str], same: Mapping[str, str] | None = None) -> None:
        """``same``: words that read alike (a reply's kind: "continue", "continua"); several
        such words one edit away are no ambiguity."""
        self.words = frozenset(w for w in words if w)
        self._same = dict(same or {})
        self._deletions: dict[str, set[str]] = {}
        for word in self.words:
            for variant in _deletions(word):
                self._deletions.setdefault(variant, set()).add(word)

    def near(self, typed: str) -> str:
        """The one vocabulary word one edit from ``typed`` (see the module docstring), or ""."""
        if typed in self.words or len(typed) < 2:
            return ""
        found = {w for w in self._candidates(typed) if _allowed(typed, w)
                 and (edit_kind(typed, w) == "swap" or not not_a_typo(typed, w))}
        if len({self._same.get(w, w) for w in found}) == 1:
            return min(found)
        for kind in _LIKELIEST:  # "godo": "good" (a swap), not Dutch "goed"
            of_kind = {w for w in found if edit_kind(typed, w) == kind}
            if of_kind:
                return min(of_kind) if len({self._same.get(w, w) for w in of_kind}) == 1 else ""
        return ""

    def loosely_near(self, typed: str) -> str:
        """For a guess to ask about: the word with the same first letter one edit of any kind
        from ``typed`` (three letters or more): the one with a letter left out, else a swap,
        an extra or a wrong letter, when only one is."""
        if typed in self.words or len(typed) < 3:
            return ""
        found: dict[str, set[str]] = {}
        for word in self._candidates(typed):
            if word[:1] == typed[:1] and not not_a_typo(typed, word):
                found.setdefault(edit_kind(typed, word), set()).add(word)
        for kind in ("missing", "swap", "extra", "wrong"):
            if found.get(kind):
                return found[kind].pop() if len(found[kind]) == 1 else ""
        return ""

    def _candidates(self, typed: str) -> set[str]:
        out = set(self._deletions.get(typed, ()))  # a letter typed twice or one extra
        for variant in _deletions(typed):
            if variant in self.words:
                out.add(variant)  # one letter too many
            out |= self._deletions.get(variant, set())  # swapped or wrong letter
        return out

    def correct(self, text: str) -> str:
        """``text`` with every plain word one edit from this vocabulary corrected (the first
        word may be capitalised; other capitalised words are names and stay)."""
        return _corrected(self, text)


#: The kinds of one edit, likeliest first: of two words one edit away, the one a typist's
#: slip more likely made is meant.
_LIKELIEST = ("swap", "missing", "extra", "wrong")


@lru_cache(maxsize=512)
def _corrected(vocabulary: Vocabulary, text: str) -> str:
    out = []
    for i, match in enumerate(_TOKEN.finditer(text)):
        token = match.group(0)
        head, core, tail = _split_token(token)
        plain = core.lower() if i == 0 or core.islower() else ""
        fixed = _fixed(vocabulary, plain, first=i == 0) if plain else ""
        out.append(head + fixed + tail if fixed else token)
    return " ".join(out)


#: Digits typed for the letters they look like.
_LEET = str.maketrans("01345", "oleas")
_HELD = re.compile(r"([a-z])\1{2,}")


@lru_cache(maxsize=4096)
def _fixed(vocabulary: Vocabulary, plain: str, *, first: bool) -> str:
    """The vocabulary word ``plain`` (lower case) stands for, or "" (digits for letters in
    a word of two letters only as the message's first: "g0", never a name such as "t0");
    accents are folded ("dépl4ce", "déplaaace" are "deplace")."""
    plain = fold(plain)
    if _WORD.fullmatch(plain):
        if _HELD.search(plain):
            for shorter in (_HELD.sub(r"\1", plain), _HELD.sub(r"\1\1", plain)):
                if shorter in vocabulary.words:
                    return shorter
            plain = _HELD.sub(r"\1", plain)
        return vocabulary.near(plain)
    if plain.isalnum() and not plain.isdigit() and not plain.isalpha():
        letters = plain.translate(_LEET)
        return letters if letters in vocabulary.words and (len(letters) > 2 or first) else ""
    return ""


def _split_token(token: str) -> tuple[str, str, str]:
    start, end = 0, len(token)
    while start < end and not token[start].isalnum():
        start += 1
    while end > start and not token[end - 1].isalnum():
        end -= 1
    return token[:start], token[start:end], token[end:]


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1:] for i in range(len(word))}


def _allowed(typed: str, word: str) -> bool:
    """One edit, and for short words only a swap or a doubled letter typed once."""
    kind = edit_kind(typed, word)
    if not kind:
        return False
    if len(typed) >= 4:
        return True
    return kind == "swap" or (kind == "missing" and _doubled_once(typed, word))


def _doubled_once(typed: str, word: str) -> bool:
    return any(word[i] == word[i + 1] and word[:i] + word[i + 1:] == typed
               for i in range(len(word) - 1))


def edit_kind(a: str, b: str) -> str:
    """"swap", "wrong", "missing" (a lacks one of b's letters), "extra", or "" (not one edit)."""
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
        if len(diff) == 1:
            return "wrong"
        swap = len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] \
            and a[diff[1]] == b[diff[0]]
        return "swap" if swap else ""
    if len(a) + 1 == len(b) and a in _deletions(b):
        return "missing"
    if len(a) == len(b) + 1 and b in _deletions(a):
        return "extra"
    return ""


#: Numbers said as words (one to twenty), in the languages of the readers (not the words that
#: are also articles: "un", "um", "een").
NUMBER_WORDS = {
    w: str(n) for n, group in enumerate((
        ("zero", "zero", "null", "cero", "zero", "nul"),
        ("one", "uno", "eins", "first", "primo", "erste"),
        ("two", "due", "zwei", "dos", "deux", "dois", "twee", "second", "secondo", "zweite"),
        ("three", "tre", "drei", "tres", "trois", "três", "drie", "third", "terzo", "dritte"),
        ("four", "quattro", "vier", "cuatro", "quatre", "quatro", "fourth", "quarto"),
        ("five", "cinque", "funf", "cinco", "cinq", "vijf", "fifth", "quinto"),
        ("six", "sei", "sechs", "seis", "zes", "sixth", "sesto"),
        ("seven", "sette", "sieben", "siete", "sept", "sete", "zeven", "seventh"),
        ("eight", "otto", "acht", "ocho", "huit", "oito", "eighth"),
        ("nine", "nove", "neun", "nueve", "neuf", "negen", "ninth"),
        ("ten", "dieci", "zehn", "diez", "dix", "dez", "tien", "tenth"),
        ("eleven",), ("twelve",), ("thirteen",), ("fourteen",), ("fifteen",), ("sixteen",),
        ("seventeen",), ("eighteen",), ("nineteen",), ("twenty",),
    )) for w in group
}
#: Where a said number stands for a draft ("draft three", "draft 2 and five").
_SAID_NUMBER = re.compile(r"\b(drafts?\s*#?\s*|(?<=\d)\s+(?:and|to|with|vs\.?)\s+(?:draft\s+)?)"
                          r"([a-z]+)\b", re.I)
#: The same after "since" and "to" of a draft command ("what changed since draft one").


def said_numbers(text: str) -> str:
    """"draft three" -> "draft 3", "draft 2 and five" -> "draft 2 and 5" (a number word
    after "draft", or after another draft number and "and")."""
    def number(match: re.Match[str]) -> str:
        digit = NUMBER_WORDS.get(match.group(2).lower())
        return match.group(1) + digit if digit else match.group(0)
    once = _SAID_NUMBER.sub(number, text)
    return _SAID_NUMBER.sub(number, once) if once != text else once


_SPOKEN = ((re.compile(r"\s+underscore\s+", re.I), "_"), (re.compile(r"\s+slash\s+", re.I), "/"),
           (re.compile(r"\s+dot\s+(?=py\b|[a-z_]+\s*/|[a-z_]+\.)", re.I), "."),
           (re.compile(r"(?<=\bpip)\s+colon\s+", re.I), ":"))


def spoken_punctuation(text: str) -> str:
    """Dictated punctuation written out: "fmt underscore ts" -> "fmt_ts", "utils slash dates
    dot py" -> "utils/dates.py", "pip colon rich" -> "pip:rich"."""
    for pattern, mark in _SPOKEN:
        text = pattern.sub(mark, text)
    return text
