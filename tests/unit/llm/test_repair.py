"""Decoding: strict JSON, repaired slips, truncation cut back to complete values, duplicates."""

from __future__ import annotations

import pytest

from codemem.llm.errors import ReplyRefused
from codemem.llm.repair import decode


@pytest.mark.parametrize(("text", "value"), [
    ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
    ("{'reason': 'it\\'s \"fine\"', 'score': 0.5}", {"reason": 'it\'s "fine"', "score": 0.5}),
    ("{'reason': 'it's fine', 'score': 0.5}", {"reason": "it's fine", "score": 0.5}),
    ('{score: 0.5, // a comment\n reason: "x" # another\n}', {"score": 0.5, "reason": "x"}),
    ('{"ok": True, "why": None}', {"ok": True, "why": None}),
    ('{"docstring": """Return x.\n\nMore."""}', {"docstring": "Return x.\n\nMore."}),
    ('{"a": 1\n "b": 2}', {"a": 1, "b": 2}),
])
def test_slips_are_repaired(text: str, value: object) -> None:
    decoded = decode(text)
    assert decoded.value == value and decoded.repaired and not decoded.truncated


def test_valid_json_is_not_touched() -> None:
    decoded = decode('{"a": "b"}')
    assert decoded.value == {"a": "b"} and not decoded.repaired


def test_truncation_keeps_complete_values_and_reports_what_was_lost() -> None:
    decoded = decode('{"score": 0.8, "reason": "cut in the mid')
    assert decoded.value == {"score": 0.8} and decoded.truncated
    assert decoded.lost == (("reason",),)
    decoded = decode('{"verdict": "changes", "comments": ["rename x", "add a te')
    assert decoded.value == {"verdict": "changes", "comments": ["rename x"]}
    assert decoded.lost == (("comments", 1),)


@pytest.mark.parametrize("text", ['{"score": 0.', '{"score": 0.85', '{"sco'])
def test_a_number_cut_in_the_middle_is_never_read(text: str) -> None:
    with pytest.raises(ReplyRefused, match="cut off before its first complete value"):
        decode(text)


def test_a_key_given_twice_with_different_values_is_refused() -> None:
    with pytest.raises(ReplyRefused, match="'pass' is given twice with different values"):
        decode('{"check": 1, "pass": true, "pass": false}')
    assert decode('{"pass": true, "pass": true}').value == {"pass": True}


def test_rewritten_strings_do_not_shift_the_end_of_the_object() -> None:
    text = "{'a': 'x', 'b': '''long\ntext'''} and prose after"
    from codemem.llm.jsonish import scan

    assert decode(text, scan(text, 0)).value == {"a": "x", "b": "long\ntext"}
