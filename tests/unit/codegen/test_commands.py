"""The plugin's own commands are recognised by name, and nothing else is taken for one."""

from __future__ import annotations

import json
import pathlib

import pytest

from codemem.codegen.commands import Command, Found, detect_command
from codemem.codegen.intent import Intent, detect_intent

COMMANDS = [
    ("index my repository", Found(Command.INDEX)),
    ("Please re-index the code.", Found(Command.INDEX)),
    ("update the code index", Found(Command.INDEX)),
    ("refresh the index", Found(Command.INDEX)),
    ("scan my codebase", Found(Command.INDEX)),
    ("reindex the repo now", Found(Command.INDEX)),
    ("code memory status", Found(Command.STATUS)),
    ("what's the status of the code working memory?", Found(Command.STATUS)),
    ("show the draft history", Found(Command.HISTORY)),
    ("list the drafts", Found(Command.HISTORY)),
    ("what did we try so far?", Found(Command.HISTORY)),
    ("roll back to draft 2", Found(Command.ROLL_BACK, "2")),
    ("rollback to 3", Found(Command.ROLL_BACK, "3")),
    ("go back to the last good draft", Found(Command.ROLL_BACK, "the last good draft")),
    ("undo the last draft", Found(Command.ROLL_BACK)),
    ("redo", Found(Command.REDO)),
    ("Redo!", Found(Command.REDO)),
    ("restore the draft I rolled back", Found(Command.REDO)),
    ("undo the roll-back", Found(Command.REDO)),
]

NOT_COMMANDS = [
    "update the index function in utils/search.py",
    "write a function that indexes my repository files by extension",
    "how does the index work?",
    "what is a rollback?",
    "roll back the database migration in migrate.py when it fails",
    "show me the history module",
    "redo the parser so it handles tabs",
    "what's the status of my order?",
    "index",
    "hello",
    "",
]


@pytest.mark.parametrize("text, expected", COMMANDS)
def test_each_command_is_recognised_with_its_argument(text, expected):
    assert detect_command(text) == expected


@pytest.mark.parametrize("text", NOT_COMMANDS)
def test_requests_questions_and_small_talk_are_not_commands(text):
    assert detect_command(text) is None


def test_no_request_or_question_of_the_routing_corpus_is_taken_for_a_command():
    """Every labelled request and question of the routing corpus keeps its route (a command
    pattern that swallowed one would hijack it); among the "other" messages, only the plugin's
    own command phrasings are commands."""
    corpus = json.loads((pathlib.Path(__file__).parent / "data" / "intent_corpus.json")
                        .read_text(encoding="utf-8"))["items"]
    assert len(corpus) >= 80
    taken = {item["text"]: item["label"] for item in corpus if detect_command(item["text"])}
    assert set(taken.values()) <= {"other"}
    assert sorted(taken) == ["code memory status", "index my repository",
                             "roll back to draft 2", "show the draft history"]


def test_a_command_the_request_detector_misread_is_caught_first():
    """"update the code index" reads like a change request to the request detector; the
    command detector, asked first, keeps it a command."""
    assert detect_intent("update the code index").intent is Intent.CODE_REQUEST
    assert detect_command("update the code index") == Found(Command.INDEX)
