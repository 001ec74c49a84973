"""Replies to a proposal: only explicit words confirm or cancel; the rest is feedback."""

import pytest

from codemem.codegen.replies import ReplyIntent, classify_reply, is_resume


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
