"""Replies to a proposal: only explicit words confirm or cancel; the rest is feedback."""

import pytest

from codemem.codegen.reading.intent import KnownNames, detect_intent
from codemem.codegen.reading.replies import (
    Aside,
    ReplyIntent,
    classify_reply,
    is_resume,
    reply_aside,
    waiting_line,
)


@pytest.mark.parametrize("text", ["go", "Yes!", "  OK. ", "looks good", "Go ahead", "LGTM"])
def test_confirmations(text):
    assert classify_reply(text) is ReplyIntent.CONFIRM


@pytest.mark.parametrize("text", ["cancel", "Stop.", "no", "never mind", "forget it"])
def test_cancellations(text):
    assert classify_reply(text) is ReplyIntent.CANCEL


@pytest.mark.parametrize("text", ["yes, but make it async", "no timezone naive results please",
                                  "", "use dateutil", "go with a regex instead"])
def test_anything_else_is_feedback(text):
    assert classify_reply(text) is ReplyIntent.FEEDBACK


@pytest.mark.parametrize("text, wanted", [
    ("continue", True), ("Resume!", True), ("go on", True), ("weiter", True),
    ("continue with a regex instead", False), ("go", False), ("", False),
])
def test_continue_words(text, wanted):
    assert is_resume(text) is wanted


@pytest.mark.parametrize("text, wanted", [
    ("yes please 🙏", ReplyIntent.CONFIRM), ("go ahead, thanks!", ReplyIntent.CONFIRM),
    ("ok 👍", ReplyIntent.CONFIRM), ("hey cat, go", ReplyIntent.CONFIRM),
    ("no thanks", ReplyIntent.CANCEL), ("cancel, sorry :)", ReplyIntent.CANCEL),
    ("thanks!", ReplyIntent.FEEDBACK), ("continue please", ReplyIntent.FEEDBACK),
])
def test_replies_are_read_by_their_core_phrase(text, wanted):
    assert classify_reply(text) is wanted


INDEX = KnownNames(["parse_date", "utils/dates.py", "slugify"])


@pytest.mark.parametrize("text, aside", [
    ("hi, how are you?", Aside.CHAT), ("what's the capital of France?", Aside.CHAT),
    ("thanks 🙂", Aside.CHAT), ("where are dates parsed?", Aside.QUESTION),
    ("what does parse_date return?", Aside.QUESTION), ("apply", Aside.APPLY),
    ("apply it, thanks", Aside.APPLY),
    ("go", Aside.NONE), ("cancel", Aside.NONE), ("continue", Aside.NONE),
    ("it must raise ValueError on empty input", Aside.NONE),
    ("what about None?", Aside.NONE), ("could you put it in utils/dates.py instead?", Aside.NONE),
    ("make it async", Aside.NONE), ("no, call it make_slug", Aside.NONE),
    ("also handle empty strings", Aside.NONE),
])
def test_while_a_proposal_waits_asides_are_told_from_corrections(text, aside):
    assert reply_aside(text, detect_intent(text, INDEX)) is aside


def test_the_waiting_line_names_the_symbol():
    assert waiting_line("slugify") == ("Your proposal for `slugify` is still waiting: say "
                                       "**go**, **cancel**, or what to change.")
    assert waiting_line("").startswith("Your proposal is still waiting")
