"""The repository's own words and process questions (``codegen/reading/repo_terms.py``), and
what the detector makes of them: a question about the code that names none of it."""

from __future__ import annotations

import pytest

from codemem.codegen.reading.intent import Intent, KnownNames, detect_intent
from codemem.codegen.reading.repo_terms import (
    message_terms,
    name_terms,
    process_question,
    stem,
)
from codemem.codegen.reading.text import words

INDEX = KnownNames(["Loan", "Loan.renew", "compute_fine", "due_date", "barcode.py",
                    "reports/monthly.py", "MemberCard", "notify", "utils/helpers.py"])


def test_names_and_paths_split_into_their_words_without_the_generic_ones():
    assert name_terms(["compute_fine", "reports/monthly.py", "MemberCard", "utils/helpers.py",
                       "HTTPClient", "isbn13", "get_data"]) == {
        stem(w) for w in ("compute", "fine", "reports", "monthly", "member", "card", "http",
                          "client", "isbn")}


@pytest.mark.parametrize("one, other", [
    ("barcodes", "barcode"), ("renews", "renew"), ("renewed", "renew"), ("members", "Member"),
    ("computed", "compute"), ("orders", "order"), ("delivered", "delivery"), ("E-Mails", "mailer"),
])
def test_the_stemmer_meets_a_word_and_its_name(one, other):
    assert message_terms([one]) == name_terms([other])


@pytest.mark.parametrize("text", [
    "where are barcodes decoded?", "how is the due date decided?", "where's the fine computed?",
    "where does it store the loans?", "dove viene calcolata la multa?",
    "come vengono scelti i corrieri?", "wo werden die Mails verschickt?",
    "wie wird der Rabatt berechnet?", "¿dónde se genera el informe?",
    "comment sont envoyées les notifications ?", "onde é guardada a data?",
    "waar wordt de boete berekend?", "hoe worden de koeriers gekozen?",
])
def test_present_passive_or_impersonal_where_and_how_questions_ask_about_a_process(text):
    assert process_question(words(text))


@pytest.mark.parametrize("text", [
    "where was pizza invented?", "how do I renew my passport?", "where is the station?",
    "how are you today?", "where is the house?", "how long should I boil an egg?",
    "who wrote The Name of the Rose?",
])
def test_the_past_instructions_and_places_are_not_process_questions(text):
    assert not process_question(words(text))


@pytest.mark.parametrize("text", [
    "what does the monthly report include exactly?", "what happens when a member renews a loan?",
    "where are barcodes decoded?", "dove viene calcolata la multa per i ritardi?",
])
def test_with_a_repository_a_question_in_its_words_or_about_a_process_is_about_the_code(text):
    assert detect_intent(text, INDEX).intent is Intent.CODE_QUESTION
    assert detect_intent(text, None).intent is Intent.OTHER  # no repository: the Cat's


@pytest.mark.parametrize("text", [
    "how do I renew my passport?", "how are you today?", "thanks, the loan came through!",
    "I'll renew the loan at the bank tomorrow", "what's the capital of France?",
])
def test_instructions_thanks_and_chat_stay_chat_whatever_their_words(text):
    assert detect_intent(text, INDEX).intent is Intent.OTHER


def test_a_change_asked_in_the_repository_s_words_is_for_the_tie_break_never_confident():
    said = "the monthly report crashes when a loan has no due date, please fix it"
    assert detect_intent(said, INDEX).intent is Intent.AMBIGUOUS
    assert detect_intent("please fix my bike", INDEX).intent is Intent.OTHER  # no such words
    assert detect_intent(said, None).intent is Intent.OTHER
