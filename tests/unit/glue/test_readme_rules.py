"""The README's "Conversation rules" table is the plugin's own table (``codegen.rules``), and
the reading never gives a kind of message in a stage the table marks as impossible."""

from __future__ import annotations

import itertools
import pathlib

from codemem.codegen import Kind, Situation, Stage, read_turn, route, rules_markdown
from codemem.codegen.conversation.rules import READ_IN
from codemem.codegen.reading.known_code import KnownNames

from .conversation_model import CHATS, CORRECTION, QUESTION, REQUESTS

README = pathlib.Path(__file__).resolve().parents[3] / "README.md"
MESSAGES = (*[r[0] for r in REQUESTS], *CHATS, QUESTION, CORRECTION, "go", "yes", "cancel",
            "stop", "continue", "apply", "text/words.py", "put it in text/words.py",
            "same file as parse_date", "show the draft history", "roll back to draft 2",
            "rename parse_date to parse_day", "implement retries", "/code a helper",
            "/ask how are dates parsed", "I had a long day", "what about None?")


def test_the_readme_shows_the_table_the_plugin_follows():
    text = README.read_text()
    shown = text.split("<!-- rules:start -->\n", 1)[1].split("\n<!-- rules:end -->", 1)[0]
    assert shown == rules_markdown()


def test_every_stage_and_kind_has_a_rule_and_interruptions_come_first():
    for stage, kind in itertools.product(Stage, Kind):
        found = route(stage, kind)
        if stage is Stage.INTERRUPTED and kind not in (Kind.RESUME, Kind.NOT_OURS):
            assert str(found.action) == "reports the interrupted draft"
        if found.remind:
            assert stage in (Stage.ASKED_FILE, Stage.PROPOSED)


def test_the_reading_gives_each_kind_only_where_the_table_expects_it():
    known = KnownNames(["parse_date", "dates.py", "Invoice", "Invoice.total", "text/slug.py"])
    for stage, repository, suggestion, text in itertools.product(
            Stage, (True, False), ("", "show the draft history"), MESSAGES):
        has_task = stage is not Stage.NO_TASK
        situation = Situation(stage=stage, repository=repository, has_task=has_task,
                              has_draft=has_task, proposal=("text/slug.py", "slugify"),
                              suggestion=suggestion)
        kind = read_turn(text, situation, known if repository else None).kind
        assert stage in READ_IN[kind], (stage, text, kind)
