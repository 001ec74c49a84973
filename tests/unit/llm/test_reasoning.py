"""Reasoning blocks are never the answer: closed, orphan-closed and unterminated ones."""

from __future__ import annotations

import pytest

from codemem.llm.reasoning import strip_reasoning


@pytest.mark.parametrize("tag", ["think", "thinking", "reasoning", "THINK"])
def test_closed_blocks_are_removed_with_their_braces_and_fences(tag: str) -> None:
    reply = (f"<{tag}>Maybe {{\"score\": 1}}?\n```json\n{{\"score\": 0.9}}\n```\n</{tag}>\n"
             '{"score": 0.2, "reason": "unrelated"}')
    visible = strip_reasoning(reply)
    assert visible.text == '{"score": 0.2, "reason": "unrelated"}'
    assert visible.had_reasoning and not visible.unterminated


def test_an_orphan_closing_tag_means_everything_before_it_was_thought() -> None:
    visible = strip_reasoning('The user wants {"a": 1}...\n</think>\n\n{"a": 2}')
    assert visible.text == '{"a": 2}' and visible.had_reasoning


def test_an_unterminated_block_swallows_the_rest() -> None:
    visible = strip_reasoning('<think>\nLet me weigh {"score": 0.9} against')
    assert visible.text == "" and visible.unterminated
    visible = strip_reasoning('Answer first.\n<think> then more {"x": 1}')
    assert visible.text == "Answer first." and visible.unterminated


def test_crlf_is_normalised_and_plain_replies_pass_through() -> None:
    visible = strip_reasoning('{"a": 1,\r\n "b": 2}\r\n')
    assert visible.text == '{"a": 1,\n "b": 2}' and not visible.had_reasoning
