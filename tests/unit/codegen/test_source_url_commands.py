"""The source commands of issue 37 (kept apart from test_commands.py for an easy merge with
the reader's rewrite): "update/refresh/pull source NAME", and "add source <url>" keeping the
URL whole, its ``@ref`` included, and counting as naming the plugin's things."""

from __future__ import annotations

import pytest

from codemem.codegen.reading.commands import Command, Found, claimed, detect_command


@pytest.mark.parametrize(("text", "argument"), [
    ("update source kit", "kit"),
    ("refresh source kit", "kit"),
    ("pull source kit", "kit"),
    ("please update the source kit", "kit"),
    ("hey cat, pull source kit thanks!", "kit"),
    ("update source `kit`", "kit"),
    ("Update the associative source: requests", "requests"),
    ("update source https://github.com/psf/requests@v2.32.3",
     "https://github.com/psf/requests@v2.32.3"),
])
def test_update_source_takes_one_name_or_url(text, argument):
    found = detect_command(text)
    assert found is not None and found.command is Command.UPDATE_SOURCE, text
    assert found.argument == argument


@pytest.mark.parametrize("text", [
    "update the source code of parse_date",
    "update the source file utils.py so it parses dates",
    "refresh the source for the billing module please now",
])
def test_a_code_request_about_source_code_is_no_command(text):
    found = detect_command(text)
    assert found is None or found.command is not Command.UPDATE_SOURCE


def test_update_sources_in_the_plural_still_indexes_everything():
    assert detect_command("update sources") == Found(Command.INDEX, "", False)


@pytest.mark.parametrize("url", [
    "https://github.com/psf/requests",
    "https://github.com/psf/requests.git@v2.32.3",
    "http://127.0.0.1:8080/repo.git",
    "ssh://git@example.org:2222/team/tool.git@feature/x",
    "git@github.com:psf/requests.git@main",
    "https://user:token@git.example.org/team/kit.git@0123abc",
    "file:///srv/git/tool.git@v1",
])
def test_add_source_keeps_a_url_whole_and_explicit(url):
    for text in (f"add source {url}", f"please add source: {url}", f"add source `{url}`"):
        found = detect_command(text)
        assert found == Found(Command.ADD_SOURCE, url, True), text
        assert claimed(found, repository_configured=False, has_task=False)
    removed = detect_command(f"remove source {url}")
    assert removed == Found(Command.REMOVE_SOURCE, url, True)
