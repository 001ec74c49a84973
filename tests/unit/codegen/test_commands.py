"""The plugin's own commands are recognised by name, they say whether they name the plugin's
things explicitly, and no ordinary message is claimed from a user without a repository."""

from __future__ import annotations

import json
import pathlib

import pytest

from codemem.codegen.reading.commands import Command, Found, claimed, detect_command
from codemem.codegen.reading.intent import Intent, detect_intent

DATA = pathlib.Path(__file__).parent / "data"
CLAIMS = json.loads((DATA / "command_corpus.json").read_text(encoding="utf-8"))
COMMANDS = [(c["text"], Found(Command(c["command"]), c["argument"], c["explicit"]))
            for c in CLAIMS["commands"]]

NOT_COMMANDS = [
    "update the index function in utils/search.py",
    "write a function that indexes my repository files by extension",
    "how does the index work?",
    "what is a rollback?",
    "roll back the database migration in migrate.py when it fails",
    "show me the history module",
    "redo the parser so it handles tabs",
    "what's the status of my order?",
    "write a function that lists sources",
    "index",
    "hello",
    "",
]


def test_the_claim_corpus_is_big_enough():
    assert len(CLAIMS["ordinary"]) >= 45
    assert {c["command"] for c in CLAIMS["commands"]} == {c.value for c in Command}
    assert {c["explicit"] for c in CLAIMS["commands"]} == {True, False}


@pytest.mark.parametrize("text, expected", COMMANDS)
def test_each_command_is_recognised_with_its_argument_and_explicitness(text, expected):
    assert detect_command(text) == expected


@pytest.mark.parametrize("text", NOT_COMMANDS)
def test_requests_questions_and_small_talk_are_not_commands(text):
    assert detect_command(text) is None


@pytest.mark.parametrize("text", CLAIMS["ordinary"])
def test_no_ordinary_message_is_claimed_without_a_repository_or_a_task(text):
    assert not claimed(detect_command(text), repository_configured=False, has_task=False)


def test_some_ordinary_messages_are_commands_where_the_user_has_the_context():
    """The same words are the plugin's for a user with a repository (indexing, sources) or a
    task (drafts): the corpus is not made of messages no pattern matches."""
    with_repo = [t for t in CLAIMS["ordinary"]
                 if claimed(detect_command(t), repository_configured=True, has_task=False)]
    with_task = [t for t in CLAIMS["ordinary"]
                 if claimed(detect_command(t), repository_configured=False, has_task=True)]
    assert {"update the project", "rebuild the index", "list sources", "scan my project",
            "refresh the sources"} <= set(with_repo)
    assert {"redo", "roll back to draft 2", "show the draft history"} <= set(with_task)


@pytest.mark.parametrize("text, expected", COMMANDS)
def test_every_command_phrasing_is_claimed_where_it_belongs(text, expected):
    found = detect_command(text)
    drafts = found is not None and found.command in (Command.HISTORY, Command.ROLL_BACK,
                                                     Command.REDO)
    assert claimed(found, repository_configured=True, has_task=True)
    assert claimed(found, repository_configured=False, has_task=False) is \
        (expected.explicit and not drafts)


def test_no_request_or_question_of_the_routing_corpus_is_taken_for_a_command():
    """Every labelled request and question of the routing corpus keeps its route (a command
    pattern that swallowed one would hijack it); among the "other" messages, only the plugin's
    own command phrasings are commands."""
    corpus = json.loads((DATA / "intent_corpus.json").read_text(encoding="utf-8"))["items"]
    assert len(corpus) >= 80
    taken = {item["text"]: item["label"] for item in corpus if detect_command(item["text"])}
    assert set(taken.values()) <= {"other"}
    assert sorted(taken) == ["code memory status", "index my repository",
                             "roll back to draft 2", "show the draft history"]


def test_a_command_the_request_detector_misread_is_caught_first():
    """"update the code index" reads like a change request to the request detector; the
    command detector, asked first, keeps it a command."""
    assert detect_intent("update the code index").intent is Intent.CODE_REQUEST
    assert detect_command("update the code index") == Found(Command.INDEX, explicit=True)
