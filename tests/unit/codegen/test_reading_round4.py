"""CheckList tests for three ways a command was still dropped silently on the fifth held-out
split (evaluated once, then read): an emoji typed as its short code beside the command, a line
pasted above or below it that the readers cannot read as words, and a condition before it (a
command meant for a case that may not be the present one is asked about, never run with the
condition dropped). Instances written here, not taken from the split."""

from __future__ import annotations

import pytest

from codemem.codegen import Kind, Situation, Stage, read_turn
from codemem.codegen.reading.typed import plain_typed

ENDED = Situation(stage=Stage.ENDED, repository=True, has_task=True, has_draft=True)


@pytest.mark.parametrize("text", [":tada: redo", "redo :ok_hand:", "list sources :eyes:",
                                  "show the draft history :-1:", ":rocket: index my repository"])
def test_an_emoji_short_code_changes_nothing(text):
    plain = " ".join(plain_typed(text).split())
    assert ":" not in plain
    assert read_turn(text, ENDED).kind is Kind.COMMAND


@pytest.mark.parametrize("text", ["meet at 10:30:00 then", "call a::b", "ratio 3:2:1",
                                  "see http://host:8080/x:y"])
def test_times_names_and_addresses_keep_their_colons(text):
    assert plain_typed(text) == text


@pytest.mark.parametrize(("pasted", "command", "phrase"), [
    ("E  ValueError: invalid literal for int() with base 10: 'x'", "redo", "redo"),
    ("2026-11-28T10:12:01Z worker-3 exited with code 137", "show the draft history",
     "show the draft history"),
    ("GET /health 503 (12 ms)", "list sources", "list sources"),
    ("npm ERR! code ELIFECYCLE", "roll back to draft 2", "roll back to draft 2"),
])
def test_a_pasted_line_beside_a_command_never_hides_it(pasted, command, phrase):
    for text in (f"{pasted}\n{command}", f"{command}\n\n{pasted}"):
        reading = read_turn(text, ENDED)
        assert reading.kind in (Kind.COMMAND, Kind.UNSURE), (text, reading.kind)
        if reading.kind is Kind.UNSURE:
            assert read_turn(reading.suggestion, ENDED).kind is Kind.COMMAND


def test_a_request_on_another_line_is_not_turned_into_the_command():
    text = "write a function parse_log in logs.py\nshow the draft history"
    assert read_turn(text, ENDED).kind is not Kind.UNSURE


@pytest.mark.parametrize("text", [
    "if the build is still red tomorrow, roll back to draft 2",
    "in case the review fails, redo",
    "unless Marco objects, roll back to the start",
    "se la CI fallisce, roll back to draft 2",
    "falls der Test wieder rot ist, redo",
    "en caso de que falle, roll back to draft 2",
    "once the linter is happy, list sources",
    "when the nightly job is green, roll back to the start",
    "as soon as CI passes, show the draft history",
    "sobald der Build grün ist, redo",
])
def test_a_command_on_a_condition_is_asked_about_never_run(text):
    reading = read_turn(text, ENDED)
    assert reading.kind is not Kind.COMMAND, text
    assert reading.kind is Kind.UNSURE and reading.suggestion


@pytest.mark.parametrize("text", ["sì, redo", "si, roll back to draft 2", "when you can, redo",
                                  "ok, roll back to draft 2", "once you're ready, redo"])
def test_a_yes_or_a_when_is_no_condition(text):
    assert read_turn(text, ENDED).kind is Kind.COMMAND


@pytest.mark.parametrize("text", ["if you can, redo", "if possible, roll back to draft 2",
                                  "s'il vous plaît, redo", "se puoi, roll back to draft 2",
                                  "if you could roll back to draft 2", "wenn möglich, redo"])
def test_a_polite_if_is_no_condition(text):
    assert read_turn(text, ENDED).kind is Kind.COMMAND


@pytest.mark.parametrize("text", ["roll back to draft 2 if the tests fail",
                                  "redo once the build is green",
                                  "rename fmt_ts to format_ts if nobody uses it"])
def test_a_condition_after_the_command_is_asked_about_too(text):
    reading = read_turn(text, ENDED)
    assert reading.kind is Kind.UNSURE and reading.suggestion


@pytest.mark.parametrize("text", ["redo when you can", "redo if you can",
                                  "roll back to draft 2 even if it is old",
                                  "I'll try once more. redo"])
def test_a_polite_or_concessive_if_after_the_command_is_none(text):
    assert read_turn(text, ENDED).kind is Kind.COMMAND
