"""Words of their own language are never read as typos of the readers' words (issue 36):
English words one edit from a reader's word, the words the readers' own lists hold, endings of
grammar; typos are still forgiven. CheckList style: one test per way a word is told from a
typo, with the sentences it protects.

``ordinary_near.txt`` is generated from the memory core's English list and the readers'
vocabularies; after changing a vocabulary, write it anew with
``.venv/bin/python -m tests.run tests.unit.codegen.test_ordinary --write``.
"""

from __future__ import annotations

import sys

import pytest

from codemem.codegen.reading import commands, replies
from codemem.codegen.reading.clause_reading import part_asks
from codemem.codegen.reading.ordinary import _FILE, english_near, grammar_ending, not_a_typo
from codemem.codegen.reading.text import fuzzy, one_edit
from codemem.codegen.reading.typos import Vocabulary
from codemem.codegen.reading.words import CODE_NOUNS, KIND_OF_NOUN, REQUEST_VERBS
from codemem.codegen.refactor import request
from codemem.memory.store.segment import english_words


def readers_words() -> frozenset[str]:
    """Every word a typo may be read as: the detector's request verbs and code nouns, the
    commands', renames' and moves', and replies' vocabularies (three letters or more)."""
    every = set(REQUEST_VERBS) | CODE_NOUNS | set(KIND_OF_NOUN) | commands.VOCABULARY.words \
        | request.VOCABULARY.words | replies.VOCABULARY.words
    return frozenset(w for w in every if len(w) >= 3 and w.isalpha())


def near_english() -> list[str]:
    """The English words one edit from a reader's word (a reader's word too: "changed" is
    the commands' and one edit from the detector's "change")."""
    targets = readers_words()
    index: dict[str, set[str]] = {}
    for target in targets:
        for key in {target, *(target[:i] + target[i + 1:] for i in range(len(target)))}:
            index.setdefault(key, set()).add(target)
    out = []
    for word in english_words():
        found = set(index.get(word, ()))
        for i in range(len(word)):
            found |= index.get(word[:i] + word[i + 1:], set())
        if any(one_edit(word, t) for t in found):
            out.append(word)
    return sorted(out)


def test_the_list_of_english_words_is_current():
    assert sorted(english_near()) == near_english(), (
        "write it anew: .venv/bin/python -m tests.run tests.unit.codegen.test_ordinary --write")


@pytest.mark.parametrize("typed, word", [
    ("rewrote", "rewrite"), ("changed", "change"), ("updated", "update"), ("step", "stop"),
    ("glasses", "classes"), ("pasta", "basta"), ("lost", "last"), ("apple", "apply"),
])
def test_an_english_word_is_no_typo(typed, word):
    assert not_a_typo(typed, word)


@pytest.mark.parametrize("typed, word", [
    ("cambio", "cambia"), ("modifico", "modifica"), ("arreglo", "arregla"), ("maakt", "maak"),
    ("lista", "list"), ("creas", "crea"), ("changes", "change"),
])
def test_an_ending_of_grammar_is_no_typo(typed, word):
    assert grammar_ending(typed, word) and not_a_typo(typed, word)


@pytest.mark.parametrize("typed, word", [
    ("chnage", "change"), ("wirte", "write"), ("redoo", "redo"), ("shwo", "show"),
    ("renmae", "rename"), ("cancle", "cancel"), ("contiue", "continue"), ("aplly", "apply"),
])
def test_a_typo_is_still_a_typo(typed, word):
    assert not not_a_typo(typed, word)


@pytest.mark.parametrize("word, verb", [("chnage", "change"), ("implment", "implement"),
                                        ("wirte", "write")])
def test_the_detector_still_forgives_a_typo(word, verb):
    assert fuzzy(word, REQUEST_VERBS, shortened=True) == verb


@pytest.mark.parametrize("text", ["rewrote the parser twice.", "changed the parser.",
                                  "updated the docs.", "cambio il parser.",
                                  "modifico il codice.", "removed two helpers.",
                                  "created a mess."])
def test_the_command_readers_never_take_a_word_for_a_verb_it_is_one_letter_from(text):
    """Beside a command, a sentence opening with a word of its language asks for nothing."""
    assert part_asks(text, elsewhere=True) == ""


@pytest.mark.parametrize("word, verb", [("changed", "change"), ("converts", "convert"),
                                        ("writ", "write")])
def test_routing_counts_a_verbs_other_forms_as_the_verb(word, verb):
    """Issue 36, fourth split's tuning: refusing them moved six routing figures (holdout2,
    holdout3, holdout6, holdout7); routing reads them as on ``main``."""
    assert fuzzy(word, REQUEST_VERBS, shortened=True) == verb


@pytest.mark.parametrize("word", ["glasses", "clash", "module"])
def test_an_everyday_word_is_no_code_noun(word):
    assert fuzzy(word, CODE_NOUNS, least=6, english=True) in ("", word)


def test_a_readers_vocabulary_corrects_typos_only():
    vocabulary = Vocabulary(["list", "redo", "stop", "basta", "change"])
    assert [vocabulary.near(w) for w in ("lsit", "rdeo", "stpo", "bsata", "chnage")] == \
        ["list", "redo", "stop", "basta", "change"]
    assert [vocabulary.near(w) for w in ("lista", "step", "pasta", "changed", "redos")] == \
        [""] * 5


if __name__ == "__main__" and "--write" in sys.argv:
    _FILE.write_text("\n".join(near_english()) + "\n", encoding="ascii")
    print(f"{_FILE}: {len(near_english())} words")
