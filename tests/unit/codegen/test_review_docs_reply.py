"""The merged after-commit answer (peer review + documentation) in the styles models write it."""

from __future__ import annotations

import pytest

from codemem.codegen.steps import REVIEW_DOCS
from codemem.llm.errors import ReplyRefused
from codemem.llm.reader import read_reply


def read(reply: str):
    return read_reply(reply, REVIEW_DOCS.spec())


def test_fenced_json_with_prose_around_it() -> None:
    value = read('Here is my review.\n\n```json\n{"verdict": "approve", "comments": [], '
                 '"docstring": "Count the words of text.", "note": "Adds `word_count`."}\n```\n'
                 "Let me know if you need more.")
    assert (value.verdict, value.comments) == ("approve", [])
    assert value.docstring == "Count the words of text." and value.note == "Adds `word_count`."


def test_missing_documentation_is_a_review_without_a_docstring() -> None:
    value = read('{"verdict": "approve", "comments": []}')
    assert value.verdict == "approve" and value.docstring is None and value.note == ""


def test_missing_comments_with_approval_and_synonyms_of_every_key() -> None:
    value = read('{"Decision": "LGTM", "Documentation": "\\"\\"\\"Make a slug.\\"\\"\\"", '
                 '"summary_note": "ok"}')
    assert value.verdict == "approve" and value.docstring == "Make a slug."
    assert value.note == "ok"


def test_changes_as_a_single_string_and_a_docstring_as_lines() -> None:
    value = read("<think>maybe {\"verdict\": \"approve\"}</think>\n"
                 '{"verdict": "request changes", "comments": "use a regex", '
                 '"docstring": ["Count words.", "", "Punctuation is ignored."], "note": null}')
    assert value.verdict == "changes" and value.comments == ["use a regex"]
    assert value.docstring == "Count words.\n\nPunctuation is ignored." and value.note == ""


@pytest.mark.parametrize("reply, why", [
    ('{"docstring": "Count words.", "note": "n"}', "verdict"),
    ('{"verdict": "changes", "comments": [], "docstring": "x"}', "names none"),
    ('{"verdict": "maybe", "docstring": "x"}', "neither"),
    ("The code looks fine to me.", "no JSON"),
])
def test_a_reply_without_a_usable_verdict_is_refused(reply: str, why: str) -> None:
    with pytest.raises(ReplyRefused) as err:
        read(reply)
    assert why in str(err.value)
