"""Safe coercions: what a value can only mean is read; what it could mean twice is refused."""

from __future__ import annotations

import pytest

from codemem.llm.coerce import (
    as_flag,
    as_text_list,
    as_unit_score,
    normalise_keys,
    scale_hint,
    squash,
)


@pytest.mark.parametrize("key", ["docstring", "Docstring", "doc_string", "docString", "DOC-STRING"])
def test_key_spellings_squash_to_one(key: str) -> None:
    assert squash(key) == "docstring"


def test_two_spellings_with_different_values_are_ambiguous() -> None:
    names = {"pass": "passed", "passed": "passed"}
    assert normalise_keys({"Pass": True, "passed": True}, names) == {"passed": True}
    with pytest.raises(ValueError, match="two different values for 'passed'"):
        normalise_keys({"pass": True, "Passed": False}, names)


@pytest.mark.parametrize(("value", "scale", "score"), [
    (0.8, None, 0.8), ("0.8", None, 0.8), ("8/10", None, 0.8), ("80%", None, 0.8),
    (8, 10.0, 0.8), ("85 out of 100", None, 0.85), (1, None, 1.0), (0, None, 0.0),
    (".5", None, 0.5), (75, 100.0, 0.75),
])
def test_unit_scores(value: object, scale: float | None, score: float) -> None:
    assert as_unit_score(value, scale) == pytest.approx(score)


@pytest.mark.parametrize(("value", "message"), [
    (5, "does not say what scale"), ("high", "not a number"), (True, "not a number"),
    (-0.2, "negative"), ("12/10", "above its own scale"), (None, "not a number"),
    (float("nan"), "not a number"),
])
def test_ambiguous_or_bad_scores_are_refused(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        as_unit_score(value)


def test_scale_hints_come_from_the_words_of_the_reply() -> None:
    assert scale_hint("I'd rate it 8/10.") == 10.0
    assert scale_hint("On a 0-10 scale: 7") == 10.0
    assert scale_hint("out of 100") == 100.0
    assert scale_hint("no scale here, just 5") is None
    assert scale_hint("8/10 or maybe 80/100") is None  # two scales: no hint


@pytest.mark.parametrize(("value", "flag"), [
    (True, True), ("PASS", True), ("yes", True), ("Passed.", True), ("✅", True),
    (False, False), ("FAIL", False), ("no", False), ("not met", False), ("not_met", False),
])
def test_flags(value: object, flag: bool) -> None:
    assert as_flag(value) is flag


@pytest.mark.parametrize("value", ["maybe", 1, None, "partially"])
def test_unclear_flags_are_refused(value: object) -> None:
    with pytest.raises(ValueError, match="neither pass"):
        as_flag(value)


def test_text_lists() -> None:
    assert as_text_list("one change") == ["one change"]
    assert as_text_list(None) == [] and as_text_list("  ") == []
    assert as_text_list(["a", " ", {"comment": "b"}, 3], ("comment",)) == ["a", "b", "3"]
    with pytest.raises(ValueError, match="not a string"):
        as_text_list([{"line": 3}], ("comment",))
