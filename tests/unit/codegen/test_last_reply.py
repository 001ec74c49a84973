"""While a proposal waits: a reply said last after words the readers do not know is asked about
(never folded into the proposal as a change), and a "go" beside a part that asks for a change
is that change first (never a draft that drops it). Instances written here."""

from __future__ import annotations

import pytest

from codemem.codegen import Kind, Situation, Stage, read_turn
from codemem.codegen.conversation.last_reply import change_beside_reply, last_reply

PROPOSED = Situation(stage=Stage.PROPOSED, repository=True, has_task=True,
                     proposal=("text_utils.py", "slugify"))


@pytest.mark.parametrize(("text", "reply"), [
    ("E0425 worker timeout after 30s\ngo", "go"),
    ("is the build green yet? never mind, go", "go"),
    ("no clue why the runner is slow today. anyway: go", "go"),
    ("2026-11-28 09:00:01 INFO started\ncancel", "cancel"),
])
def test_a_reply_said_last_after_unknown_words_is_read_or_asked_about(text, reply):
    assert last_reply(text) == reply
    reading = read_turn(text, PROPOSED)
    read = {"go": Kind.CONFIRM, "cancel": Kind.CANCEL}[reply]
    assert reading.kind is read or (reading.kind is Kind.UNSURE and reading.suggestion == reply)
    asked = Situation(stage=Stage.PROPOSED, repository=True, has_task=True,
                      proposal=PROPOSED.proposal, suggestion=reply)
    assert read_turn("yes", asked).kind is Kind.YES


@pytest.mark.parametrize("text", ["yes, but make it async", "make it async. go",
                                  "use a regex instead. go", "go", "it must keep dashes, go"])
def test_a_change_before_or_after_the_reply_is_no_reply_to_ask_about(text):
    assert last_reply(text) == ""


@pytest.mark.parametrize("text", ["it should also strip accents. go",
                                  "go. but keep the dashes", "ok, go, and call it make_slug",
                                  "never return None. go ahead",
                                  "go\n```python\ndef slugify(t):\n    return t.lower()\n```"])
def test_a_go_beside_a_change_is_the_change_first(text):
    assert change_beside_reply(text)
    assert read_turn(text, PROPOSED).kind is Kind.CORRECTION


@pytest.mark.parametrize("text", ["go", "ok, go", "go, it looks fine", "perfect, go",
                                  "go. thanks!", "sounds good, go ahead",
                                  "the examples look fine. go"])
def test_a_go_beside_approval_or_thanks_is_go(text):
    assert read_turn(text, PROPOSED).kind is Kind.CONFIRM
