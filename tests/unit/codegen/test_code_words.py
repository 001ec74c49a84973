"""With a repository configured, a question is about the code when it names the code, not when
it shares a word with every program ("function", "call", "test", "class", "bug", "error",
"fix", "file", "type"); pasted code is read as the code it names, the user's words after it
decide; a dictated run-on request stays a request; in any word order, the function the index
knows is the target, not the new name beside it."""

from __future__ import annotations

import pytest

from codemem.bench.target_links import linked_targets
from codemem.codegen.reading.details import extract_details
from codemem.codegen.reading.intent import Intent, KnownNames, detect_intent
from codemem.codegen.reading.pasted import pasted

INDEX = KnownNames(["estimate_eta", "assign_courier", "dispatch.py", "Courier", "haversine",
                    "geo.py", "Order", "Order.total", "apply_coupon", "notify", "refund",
                    "payments/stripe.py", "webhooks.py"])


@pytest.mark.parametrize("text", [
    "what's the function of the kidneys?", "who do I call to fix the fridge?",
    "is there a blood test for iron?", "which class is best for a beginner, yoga or pilates?",
    "what type of rice for risotto?", "how do I report a bug to Apple?",
    "what's the best method to learn German?", "which file format is best for photos?",
    "is this error in my essay serious?", "qual è la funzione della milza?",
    "welche Klasse soll ich in der Volkshochschule nehmen?", "¿qué tipo de harina uso?",
    "quelle méthode pour apprendre le solfège ?", "qual é a função do fígado?",
    "welk type band past op mijn fiets?",
])
def test_an_everyday_question_with_a_generic_code_word_is_no_question_about_the_code(text):
    assert detect_intent(text, INDEX).intent is Intent.OTHER


@pytest.mark.parametrize("text", [
    "which function computes the ETA?", "what does the assign function do?",
    "who calls haversine?", "which test covers Order.total?", "is there a bug in refund?",
    "what type does estimate_eta return?", "which file handles the webhooks?",
    "dove viene chiamata apply_coupon?",
])
def test_a_question_that_names_the_code_or_its_words_still_is_one(text):
    assert detect_intent(text, INDEX).intent is Intent.CODE_QUESTION


def test_without_a_repository_generic_words_still_read_as_before():
    """No repository: no question reaches the retrieval, and the older splits' questions
    that name code only by a generic noun ("who calls the checkout method?") keep reading."""
    assert detect_intent("who calls the checkout method?").intent is Intent.CODE_QUESTION


@pytest.mark.parametrize("people", [
    "when will my courier arrive, do you think?",
    "what's a good order of courses for a dinner party?",
])
def test_one_word_of_the_repository_in_a_personal_question_is_not_enough(people):
    assert detect_intent(people, INDEX).intent is Intent.OTHER


TRACEBACK = ('Traceback (most recent call last):\n  File "dispatch.py", line 12, in '
             'assign_courier\n    return estimate_eta(order) + delay\nTypeError: unsupported '
             'operand\n')


@pytest.mark.parametrize("after", ["why does this happen?", "what is going on", "any idea?",
                                   "can you explain this?", "is the delay a string here?"])
def test_a_traceback_and_a_question_is_a_question_about_that_code(after):
    assert detect_intent(TRACEBACK + after, INDEX).intent is Intent.CODE_QUESTION
    assert detect_intent("make test fails with\n" + TRACEBACK + after,
                         INDEX).intent is Intent.CODE_QUESTION


@pytest.mark.parametrize("after", ["fix this so a missing delay counts as zero",
                                   "can you fix it?", "make estimate_eta accept a string"])
def test_a_traceback_and_a_change_is_a_request(after):
    assert detect_intent(TRACEBACK + after, INDEX).intent is Intent.CODE_REQUEST


def test_only_the_prose_around_a_paste_is_read():
    found = pasted("I get this:\n```\nKeyError: 'x'\n```\nwhy?")
    assert found is not None and found.before == "I get this:" and found.after == "why?"
    assert pasted("ValueError: math domain error in haversine, why?") is None
    assert pasted("just some words\nover two lines") is None


@pytest.mark.parametrize("text", [
    "so what I want is the haversine function should take miles too and also round the "
    "result and could you also add a test for it",
    "ok what we need is for notify to skip customers who opted out and log it yeah",
])
def test_a_dictated_run_on_request_stays_a_request(text):
    assert detect_intent(text, INDEX).intent is Intent.CODE_REQUEST


ENTITIES = [["format_price", "utils/money.py", "function"], ["fetch", "net/http.py", "function"],
            ["Invoice", "billing.py", "class"], ["Invoice.total", "billing.py", "method"],
            ["render", "views.py", "function"], ["load_config", "config.py", "function"]]


@pytest.mark.parametrize("text, target", [
    ("aggiungi un parametro currency a format_price", "format_price"),
    ("aggiungi un parametro timeout a fetch", "fetch"),
    ("añade un parámetro retries a fetch", "fetch"),
    ("adicione um parâmetro strict a load_config", "load_config"),
    ("ajoute un champ due_date à Invoice", "Invoice"),
    ("voeg een parameter locale toe aan render", "render"),
    ("füge render einen Parameter locale hinzu", "render"),
    ("agrega un argumento verbose a load_config", "load_config"),
    ("add a parameter locale to render", "render"),
])
def test_the_function_the_index_knows_wins_over_the_new_name(text, target):
    right, total, wrong = linked_targets([{"label": "request", "text": text,
                                           "target": target}], ENTITIES)
    assert (right, total) == (1, 1), wrong


def test_a_new_member_name_is_not_the_symbol():
    assert extract_details("aggiungi un parametro dry_run a export").symbol == ""
    assert extract_details("añade un parámetro dry_run a export").symbol == ""


def test_a_clause_of_time_before_an_imperative_is_a_request_not_a_question():
    text = "when the coupon is applied twice we charge twice - make apply_coupon idempotent"
    assert detect_intent(text, INDEX).intent is Intent.CODE_REQUEST
    assert detect_intent("when does apply_coupon run", INDEX).intent is Intent.CODE_QUESTION


def test_a_generic_word_used_as_a_verb_names_no_code():
    assert detect_intent("I have to file the report on Monday", INDEX).intent is Intent.OTHER
    assert detect_intent("thanks, that answer helped a lot", INDEX).intent is Intent.OTHER
