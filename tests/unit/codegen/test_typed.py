"""Ways of typing that change nothing, undone before the part readers read
(``codegen/reading/typed.py``), CheckList style: one test per way, and what is never touched."""

from __future__ import annotations

import pytest

from codemem.codegen.reading.commands import Command, Found, detect_command
from codemem.codegen.reading.replies import ReplyIntent, classify_reply
from codemem.codegen.reading.typed import plain_typed, unstretched
from codemem.codegen.refactor.request import RenameRequest, read_structural


@pytest.mark.parametrize("typed, plain", [
    ("re\u200bdo", "redo"), ("\ufeffredo", "redo"), ("roll\u200d back", "roll back"),
    ("roll\u00a0back", "roll back"), ("roll\u202fback", "roll back"),
    ("list\u2009sources", "list sources"), ("co\u00adde", "code"),
])
def test_invisible_characters_and_odd_spaces(typed, plain):
    assert plain_typed(typed) == plain


@pytest.mark.parametrize("typed", ["roll 👉 back to draft 2", "roll back ✨ to draft 2",
                                   "✨roll back to draft 2✨"])
def test_emoji_between_words_are_spaces(typed):
    assert plain_typed(typed).split() == "roll back to draft 2".split()


@pytest.mark.parametrize("typed, plain", [
    ("[show the draft history](https://example.org/docs)", "show the draft history"),
    ("[redo](#)", "redo"),
    ("__roll back to draft 2__", "roll back to draft 2"),
    ("_rename fmt_ts to format_ts_", "rename fmt_ts to format_ts"),
    ("_go_", "go"), ("__redo__ thanks", "redo thanks"),
])
def test_markdown_links_and_emphasis(typed, plain):
    assert plain_typed(typed) == plain


@pytest.mark.parametrize("text", [
    "rename fmt_ts to format_ts", "rename _private to _public", "call __init__ twice",
    "move __all__ to pkg/api.py", "rename fmt_ts → format_ts", "`_x_` is a name",
    "see [1] and (2)",
])
def test_names_arrows_and_backticks_are_never_touched(text):
    assert plain_typed(text) == text


@pytest.mark.parametrize("typed, plain", [
    ("hey cat comma redo period", "hey cat, redo."),
    ("add source pip:rich period", "add source pip:rich."),
    ("what changed since draft one question mark", "what changed since draft one?"),
    ("go exclamation mark", "go!"),
    ("redo new line thank you", "redo\nthank you"),
])
def test_punctuation_said_to_a_dictation_app(typed, plain):
    assert plain_typed(typed) == plain


@pytest.mark.parametrize("text", ["the trial period ends today, right?",
                                  "put a comma here, please", "use a full stop."])
def test_spoken_words_stay_words_where_punctuation_was_typed(text):
    assert plain_typed(text) == text


@pytest.mark.parametrize("typed, plain", [
    ("hey,redo", "hey, redo"), ("redo!!thx", "redo!! thx"), ("redo,thanks", "redo, thanks"),
    ("ok.redo", "ok. redo"),
    ("add source https://example.org/a/lib.git@main,thanks",
     "add source https://example.org/a/lib.git@main, thanks"),
])
def test_punctuation_typed_without_its_space(typed, plain):
    assert plain_typed(typed) == plain


@pytest.mark.parametrize("text", ["utils/dates.py", "https://example.org/a?b=c,d",
                                  "Basket.add_item", "hey.py", "e.g. this"])
def test_a_dot_or_mark_inside_a_path_url_or_name_stays(text):
    assert plain_typed(text) == text


@pytest.mark.parametrize("typed, plain", [
    ("pleaaase", "please"), ("thaaaanks!!", "thanks!!"), ("heyyy", "hey"), ("sooo", "so"),
    ("PLEEEASE", "please"), ("looks goooood", "looks good"),
])
def test_a_held_down_letter_in_a_wrapper_word(typed, plain):
    assert " ".join(unstretched(w) for w in typed.split()) == plain


@pytest.mark.parametrize("word", ["brrr", "zzz", "xxx_test", "hmmmph"])
def test_a_held_down_letter_elsewhere_stays(word):
    assert unstretched(word) == word


@pytest.mark.parametrize("text, found", [
    ("ro\u200bll back to draft 2", Found(Command.ROLL_BACK, "2")),
    ("show\u00a0the\u00a0draft\u00a0history", Found(Command.HISTORY)),
    ("[redo](https://example.org/x)", Found(Command.REDO)),
    ("hey cat comma redo period", Found(Command.REDO)),
    ("pleaaase redo", Found(Command.REDO)),
    ("roll 🙏 back to draft 2", Found(Command.ROLL_BACK, "2")),
])
def test_the_command_reader_reads_through_the_typing(text, found):
    assert detect_command(text) == found


def test_the_structural_and_reply_readers_read_through_the_typing():
    assert read_structural("_rename fmt_ts to format_ts_") == RenameRequest("fmt_ts", "format_ts")
    assert classify_reply("__go__ thanks") is ReplyIntent.CONFIRM
    assert classify_reply("ok comma cancel period") is ReplyIntent.CANCEL
