"""Behavioural tests of the message readers in the CheckList style (Ribeiro et al., 2020).

Minimum functionality: every documented phrase (the README's chat sections, the command corpus,
the renames, moves, requests and questions of ``bench/invariance_bench.py``) is read as its
kind. Invariance: the variants generated from the perturbation lists there (greetings, the
Cat's name, fillers, thanks, politeness, emoji, smileys, case, backticks, scope words, other
languages' greetings and thanks) read the same, at least 97 % per kind, with the failures in the
assertion message. Directional: a change that should keep (or make) a reading does.
"""

from __future__ import annotations

import pytest

from codemem.bench.invariance_bench import (
    DEV_LISTS,
    HELD_OUT_SHA256,
    INDEX_NAMES,
    cases,
    expected_ok,
    held_out_digest,
    measure,
    variants,
)
from codemem.codegen.reading.commands import Command, detect_command
from codemem.codegen.reading.intent import Intent, KnownNames, detect_intent
from codemem.codegen.reading.utterance import read_utterance
from codemem.codegen.refactor.request import MoveRequest, RenameRequest, read_structural

KINDS = ("commands", "renames", "moves", "code requests", "questions", "replies")
INDEX = KnownNames(INDEX_NAMES)
FIGURES = measure(DEV_LISTS)


@pytest.mark.parametrize("case", cases(), ids=lambda c: f"{c.kind}:{c.text}")
def test_every_documented_phrase_is_read_as_its_kind(case):
    assert expected_ok(case, case.read(case.text)), case.read(case.text)


@pytest.mark.parametrize("kind", KINDS)
def test_invariance_is_at_least_97_percent_for_every_kind(kind):
    tally = FIGURES[kind]
    assert tally.total >= 100
    assert tally.share >= 0.97, "\n".join([f"{kind}: {tally.share:.3f}", *tally.failures])


def test_every_list_entry_is_used_for_every_kind():
    """The variants really carry each perturbation (no list silently skipped)."""
    for case in cases():
        generated = list(variants(case, DEV_LISTS))
        for prefix in DEV_LISTS["prefixes"]:
            assert prefix + case.text in generated
        for suffix in DEV_LISTS["suffixes"]:
            assert case.text + suffix in generated
        if case.kind in ("renames", "moves"):
            assert all(f"{case.text} {scope}" in generated for scope in DEV_LISTS["scope"])


@pytest.mark.parametrize("scope", DEV_LISTS["scope"])
@pytest.mark.parametrize("text", ["rename fmt_ts to format_timestamp",
                                  "rename Invoice.to_json to as_json",
                                  "move parse_date to utils/dates.py"])
def test_a_scope_word_keeps_a_rename_or_move_with_the_same_names(text, scope):
    assert read_structural(f"{text} {scope}") == read_structural(text) is not None


def test_a_scope_word_may_also_stand_before_the_new_name():
    assert read_structural("rename fmt_ts everywhere to format_timestamp") \
        == RenameRequest("fmt_ts", "format_timestamp")
    assert read_structural("could you rename `fmt_ts` to `format_timestamp` across the code "
                           "base? thanks :)") == RenameRequest("fmt_ts", "format_timestamp")


@pytest.mark.parametrize("text", ["where is parse_date defined", "what does fetch return",
                                  "which functions call paginate",
                                  "why do both load_config and read_settings exist"])
def test_a_question_mark_keeps_a_question(text):
    assert detect_intent(text, INDEX).intent is detect_intent(text + "?", INDEX).intent \
        is Intent.CODE_QUESTION


@pytest.mark.parametrize("report", ["parse_date drops the time zone",
                                    "fetch hangs when the server never answers",
                                    "export_csv writes the header twice"])
@pytest.mark.parametrize("ask", [" could you fix it?", ". Can you take a look and fix that?",
                                 ", puoi sistemarlo?", ". Kannst du das beheben?",
                                 ", ¿lo puedes arreglar?", ", tu peux corriger ça ?",
                                 ", kun je dat fixen?"])
def test_a_bug_report_ending_in_a_polite_ask_is_a_request(report, ask):
    assert detect_intent(report + ask, INDEX).intent is Intent.CODE_REQUEST


@pytest.mark.parametrize("text", ["what's the capital of France?", "write a haiku about rain",
                                  "my cat keeps scratching the sofa, how do I make it stop?",
                                  "how are you today?", "fix my bike"])
@pytest.mark.parametrize("wrapper", [("hi, ", ""), ("hey cat, ", " thanks"), ("", " 😊"),
                                     ("ok so ", " :)")])
def test_a_wrapper_never_makes_chat_about_code(text, wrapper):
    assert detect_intent(wrapper[0] + text + wrapper[1], INDEX).intent is Intent.OTHER


@pytest.mark.parametrize("text", ["hi!", "thanks 🙂", "ok", "👍", "good night, Cheshire Cat",
                                  "grazie mille!", "danke schön", "merci beaucoup"])
def test_a_message_of_wrapper_only_is_social_and_other(text):
    assert read_utterance(text).social or read_utterance(text).core == "good night"
    assert detect_intent(text, INDEX).intent is Intent.OTHER


@pytest.mark.parametrize("text", ["what's the weather like?", "hi", "parse_date", "thanks",
                                  "write a poem about the sea", "where is parse_date defined?"])
def test_the_code_escape_always_starts_a_request_and_the_ask_escape_a_question(text):
    assert detect_intent("/code " + text, INDEX).intent is Intent.CODE_REQUEST
    assert detect_intent("/ask " + text, INDEX).intent is Intent.CODE_QUESTION
    assert detect_command("/ask show the draft history") is None


def test_the_core_phrase_and_what_was_removed():
    said = read_utterance("Hey Cheshire Cat, could you rename `fmt_ts` to `format_timestamp`? "
                          "thanks a lot 🙏")
    assert said.core == "rename fmt_ts to format_timestamp"
    assert said.marked == "rename `fmt_ts` to `format_timestamp`"
    assert said.removed == ("Hey", "Cheshire Cat", "could you", "🙏", "thanks a lot")
    assert said.asked and said.question and not said.social
    assert said.key == "rename fmt_ts to format_timestamp"


@pytest.mark.parametrize("text, core", [
    ("the cat knocked my coffee over", "the cat knocked my coffee over"),
    ("rename the cat class to Feline", "rename the cat class to Feline"),
    ("cat food is expensive", "cat food is expensive"),
    ("hey cat make it async", "make it async"),
    ("show the draft history, cat", "show the draft history"),
    ("move fmt_ts to utils/time.py.", "move fmt_ts to utils/time.py"),
    ("rename f() to g()", "rename f() to g()"),
    ("¿dónde se define Venue?", "dónde se define Venue"),
    ("s’il vous plaît, ajoute un test", "ajoute un test"),
])
def test_only_the_edges_are_read(text, core):
    """A word inside the core phrase stays ("rename the cat class"); "cat" is a vocative only
    where it addresses the Cat (a comma, a greeting before it)."""
    assert read_utterance(text).core == core


def test_commands_are_read_inside_their_wrapper():
    assert detect_command("hey, show the draft history") == detect_command("show the draft "
                                                                           "history")
    assert detect_command("redo, thanks").command is Command.REDO
    assert detect_command("Cheshire Cat, roll back to draft 2 please 🙏").argument == "2"
    assert detect_command("add source /srv/lib, thanks").argument == "/srv/lib"
    assert detect_command("hey, update the index function in search.py") is None


def test_a_move_inside_a_wrapper_is_a_move():
    assert read_structural("ciao! sposta load_config in config/loading.py, grazie") \
        == MoveRequest("load_config", "config/loading.py")


@pytest.mark.parametrize("text", ["would you be able to show the draft history",
                                  "could I ask you to roll back to draft 2",
                                  "right, redo", "redo if you don't mind",
                                  "index my repository asap", "add source pip:rich asap"])
def test_chatter_the_lists_do_not_know_is_read_around_a_command(text):
    assert detect_command(text) is not None
    assert detect_command("add source pip:rich asap").argument == "pip:rich"


@pytest.mark.parametrize("text", ["how to index my repository?", "don't index my repository",
                                  "show the draft history and then rename fmt_ts to f",
                                  "update the index function in search.py",
                                  "rename fmt_ts to format_ts and make it async",
                                  "rename fmt_ts to format_ts keeping an alias",
                                  "never rename fmt_ts to format_ts",
                                  "redo the layout of my slides",
                                  "show the draft history of the parser",
                                  "list sources for my essay"])
def test_chatter_is_never_a_question_a_negation_or_another_clause(text):
    assert detect_command(text) is None and read_structural(text) is None


def test_the_held_out_perturbations_are_unchanged_since_they_were_written():
    """Evaluated once, by the bench, never by a test (docs/benchmarks.md)."""
    assert held_out_digest() == HELD_OUT_SHA256
