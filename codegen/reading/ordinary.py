"""Words of their own language, never read as typos of the readers' words.

The readers forgive one typo per word ("shwo", "renmae", "cancle", "wirte"): a word one edit
from a word of their vocabulary is read as that word. But what people write around a command is
made of words of their language, and many are one edit from a reader's word: "rewrote" from
"rewrite", "changed" from "change", "lost" from "last", "glasses" from "classes", "step" from
"stop", "pasta" from "basta"; and in the other languages a verb's other forms differ from its
imperative by their ending ("cambio", "modifico", "arreglo" beside "cambia", "modifica",
"arregla"; "maakt" beside "maak"). So before a word is called a typo it is checked against its
language (``not_a_typo``):

- the English words one edit from a word any reader matches (``data/ordinary_near.txt``: from
  SCOWL's small American list, which the memory core ships to split identifiers, and the
  readers' vocabularies; ``tests/unit/codegen/test_ordinary.py`` checks it is current and
  writes it anew);
- the words the readers' own lists hold, in any of the seven languages (a greeting, a
  question word, an article is never another word's typo);
- an ending of grammar: the reader's word with its last vowel another vowel, or with one
  letter more at its end (a vowel, ``s``, ``n``, ``t``, ``d`` or ``r``; not its last letter
  typed twice).

A typo is what is left: a swap, a letter missing, or a wrong or extra letter inside the word.
Pure; the list is read once.
"""

from __future__ import annotations

import threading
from pathlib import Path

from .reply_words import AFFIRMATIONS, APPLY, CANCEL, GO, PARTICLES, RESUME
from .utterance_words import (
    ASKS,
    CLAUSE_STARTS,
    FILLERS,
    GREETINGS,
    NEGATIONS,
    QUESTION_WORDS,
    THANKS,
    VOCATIVES,
)
from .words import CODE_NOUNS, IMPERATIVE_VERBS, INFORMATION_VERBS, KIND_OF_NOUN, REQUEST_VERBS

__all__ = ["english_near", "grammar_ending", "known_word", "not_a_typo"]

_FILE = Path(__file__).resolve().parent / "data" / "ordinary_near.txt"
_LOCK = threading.Lock()
_LOADED: list[frozenset[str]] = []
_VOWELS = frozenset("aeiou")
#: Letters an ending of grammar adds: a vowel (gender, number, a verb's person), s, n, t, d, r.
_ENDINGS = _VOWELS | frozenset("sntdr")


def english_near() -> frozenset[str]:
    """The English words one edit from a reader's word (read once per process)."""
    if not _LOADED:
        with _LOCK:
            if not _LOADED:
                _LOADED.append(frozenset(_FILE.read_text(encoding="ascii").split()))
    return _LOADED[0]


def _words_of(phrases: frozenset[str]) -> frozenset[str]:
    return frozenset(w for phrase in phrases for w in phrase.replace("'", " ").split())


#: Every word the readers' own lists hold, in the seven languages.
_KNOWN = frozenset().union(*(
    _words_of(frozenset(group)) for group in (
        GREETINGS, VOCATIVES, FILLERS, ASKS, THANKS, QUESTION_WORDS, NEGATIONS, CLAUSE_STARTS,
        REQUEST_VERBS, IMPERATIVE_VERBS, INFORMATION_VERBS, CODE_NOUNS, KIND_OF_NOUN,
        AFFIRMATIONS, GO, CANCEL, RESUME, APPLY, PARTICLES)))


def known_word(word: str) -> bool:
    """Whether ``word`` (lower case, accents folded) is a word the readers' lists hold."""
    return word in _KNOWN


def grammar_ending(typed: str, word: str) -> bool:
    """Whether ``typed`` is ``word`` with an ending of grammar (see the module docstring):
    "cambio" / "cambia", "changed" / "change", "lista" / "list"; never "redoo" / "redo"."""
    if len(typed) == len(word) and typed[:-1] == word[:-1]:
        return typed[-1] in _VOWELS and word[-1] in _VOWELS
    if len(typed) == len(word) + 1 and typed.startswith(word):
        return typed[-1] in _ENDINGS and typed[-1] != word[-1]
    return False


def not_a_typo(typed: str, word: str) -> bool:
    """Whether ``typed``, one edit from the reader's ``word``, is a word of its own language
    rather than a typo of ``word``."""
    return typed in english_near() or typed in _KNOWN or grammar_ending(typed, word)
