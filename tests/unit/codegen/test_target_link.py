"""Which words of a request stand where the thing to change stands (``target_words``): plain
words in a target place are candidates, new names, members and infinitives never are."""

from __future__ import annotations

import pytest

from codemem.codegen.reading.target_link import target_words

TARGETS = [
    ("add a timeout parameter to fetch and pass it from every caller (default 10 seconds)",
     "fetch"),
    ("fix load when the file is missing", "load"),
    ("make fetch retry on 503", "fetch"),
    ("speed up render", "render"),
    ("the save function should return a bool", "save"),
    ("add a timeout to the fetch function", "fetch"),
    ("add a timeout flag to run", "run"),
    ("add retries in send", "send"),
    ("refactor the load in net/http.py", "load"),
    ("add logging to save, please", "save"),
    ("change the method send so it retries", "send"),
    ("aggiungi un parametro timeout alla funzione fetch", "fetch"),
    ("ajoute un paramètre timeout à fetch", "fetch"),
    ("füge einen Parameter timeout zu fetch hinzu", "fetch"),
    ("add a cache to load_config", "load_config"),
    ("I want to refactor load so it is lazy", "load"),
]

NO_TARGET = [
    "add a function that parses dates",
    "write a function to parse dates",
    "add a function called fetch",
    "I want to load the config lazily",
    "write a parser",
    "how do I save a file?",
    "add a new helper named render",
    "create a class that can send emails",
    "i want a function to validate email addresses in validators.py",
]


@pytest.mark.parametrize(("text", "word"), TARGETS)
def test_a_plain_word_where_the_target_stands_is_the_first_candidate(text, word):
    assert target_words(text)[:1] == [word]


@pytest.mark.parametrize("text", NO_TARGET)
def test_new_names_members_infinitives_and_relative_clauses_are_never_candidates(text):
    assert target_words(text) == []


def test_a_member_before_its_noun_is_not_the_target():
    assert "timeout" not in target_words("add a timeout parameter to fetch")
    assert "verbose" not in target_words("fix the verbose flag in run")


def test_paths_are_left_out_and_each_word_comes_once():
    assert target_words("fix fetch in net/http.py and fix fetch again") == ["fetch"]
