"""Retrieval configuration and add_memories parsing (memory/system_config.py)."""

from __future__ import annotations

import dataclasses

import pytest

from codemem.memory.system_config import RetrievalConfig, parse_items


def test_defaults_are_the_seeds():
    cfg = RetrievalConfig()
    assert (cfg.relevance_threshold, cfg.max_memories, cfg.batch_size, cfg.retry_attempts,
            cfg.retry_delay, cfg.candidate_limit, cfg.scoring_mode) == (
        0.7, 10, 10, 3, 1.0, 20, "listwise")


@pytest.mark.parametrize(("field", "value", "wanted"), [
    ("relevance_threshold", 1.5, "a number in [0.0, 1.0]"),
    ("relevance_threshold", float("nan"), "a number in [0.0, 1.0]"),
    ("max_memories", 0, "an int >= 1"),
    ("max_memories", True, "an int >= 1"),
    ("batch_size", 2.0, "an int >= 1"),
    ("retry_attempts", 0, "an int >= 1"),
    ("retry_delay", -1, "a number >= 0"),
    ("candidate_limit", "20", "an int >= 1"),
    ("enable_caching", 1, "a bool"),
    ("llm_timeout", 0, "None or a number > 0"),
    ("scoring_mode", "pairwise", "one of ['listwise', 'pointwise']"),
])
def test_out_of_range_values_are_refused_by_name(field, value, wanted):
    with pytest.raises(ValueError, match=rf"^{field} must be {__import__('re').escape(wanted)}"):
        dataclasses.replace(RetrievalConfig(), **{field: value})


def test_none_timeout_is_allowed():
    assert RetrievalConfig(llm_timeout=None).llm_timeout is None


def test_items_of_every_shape_parse_to_triples():
    vec = [0.1, 0.2]
    assert parse_items(["plain", ("t", {"a": 1}), ("t2", None, vec),
                        {"text": "m", "metadata": {"b": 2}, "embedding": vec}]) == [
        ("plain", None, None), ("t", {"a": 1}, None), ("t2", None, vec),
        ("m", {"b": 2}, vec)]
    assert parse_items([]) == []


@pytest.mark.parametrize(("items", "message"), [
    ("one string", "not a single item"),
    ({"text": "x"}, "not a single item"),
    ([{"text": "x", "vector": []}], r"item 0: unknown keys \['vector'\]"),
    ([42], "item 0: expected str"),
    (["ok", ("t",)], "item 1: expected str"),
    (["  "], "non-empty string"),
    ([("t", ["not", "a", "mapping"])], "metadata must be a dict or None"),
])
def test_bad_items_are_refused_before_anything_is_written(items, message):
    with pytest.raises(ValueError, match=message):
        parse_items(items)
