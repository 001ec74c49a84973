"""Answer candidates: Markdown fence rules, bare objects outside fences, truncation flags."""

from __future__ import annotations

from codemem.llm.blocks import fenced_blocks, json_candidates


def test_a_code_block_before_the_json_does_not_open_a_fake_fence() -> None:
    reply = ("Here is the code:\n```python\ndef f():\n    return {'a': 1}\n```\n"
             "And the verdict:\n```json\n{\"verdict\": \"approve\"}\n```\n")
    blocks = fenced_blocks(reply)
    assert [(b.lang, b.closed) for b in blocks] == [("python", True), ("json", True)]
    assert [c.text for c in json_candidates(reply)] == ['{"verdict": "approve"}']


def test_bare_objects_in_prose_in_order_and_strings_with_braces() -> None:
    reply = 'First {"a": "}"} then {"b": [1, {"c": 2}]} end'
    assert [c.text for c in json_candidates(reply)] == ['{"a": "}"}', '{"b": [1, {"c": 2}]}']


def test_unclosed_fence_and_object_are_marked_truncated() -> None:
    reply = 'Sure:\n```json\n{"score": 0.7, "reason": "it is'
    (candidate,) = json_candidates(reply)
    assert candidate.truncated and candidate.text.startswith('{"score": 0.7')


def test_other_language_block_counts_only_when_it_is_one_literal() -> None:
    reply = "```python\n{\"score\": 0.4, \"reason\": \"x\"}\n```\n```python\nx = {1: 2}\n```"
    assert [c.text for c in json_candidates(reply)] == ['{"score": 0.4, "reason": "x"}']


def test_arrays_of_objects_are_candidates_but_bracketed_prose_is_not() -> None:
    reply = 'See [1] and [the docs]. [{"id": "M1", "score": 0.5}]'
    assert [c.text for c in json_candidates(reply)] == ['[{"id": "M1", "score": 0.5}]']
