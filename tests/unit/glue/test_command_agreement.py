"""The core's source commands (``codegen.commands``) read a message as the glue's own parser
(``sources.parse_command``) does, so the glue can take either without a message changing route."""

from __future__ import annotations

import json
import pathlib

from codemem import sources
from codemem.codegen.commands import Command, detect_command

DATA = pathlib.Path(__file__).parents[1] / "codegen" / "data" / "command_corpus.json"
VERBS = {Command.ADD_SOURCE: "add", Command.LIST_SOURCES: "list",
         Command.REMOVE_SOURCE: "remove"}


def test_source_commands_agree_with_the_glue_parser():
    corpus = json.loads(DATA.read_text(encoding="utf-8"))
    texts = corpus["ordinary"] + [c["text"] for c in corpus["commands"]] + [
        "write a function that lists sources", "add source /a, /b", "drop source   x  "]
    seen = 0
    for text in texts:
        found = detect_command(text)
        mine = (VERBS[found.command], found.argument) \
            if found is not None and found.command in VERBS else None
        assert mine == sources.parse_command(text), text
        seen += mine is not None
    assert seen >= 10
