"""The reply corpus (tests/golden/replies): every case read as expected by the real readers.

Target: 0 silently wrong, 0 crashes, every reply whose meaning is unambiguous read
correctly. ``python -m tests.run bench.reply_corpus`` prints the same figures as a table.
"""

from __future__ import annotations

from collections import Counter

import pytest

from codemem.bench.reply_corpus import STAGES, evaluate, load

RESULTS = {stage: evaluate(stage) for stage in STAGES}
ALL = [r for stage in STAGES for r in RESULTS[stage]]


@pytest.mark.parametrize("result", ALL, ids=[f"{r.stage}/{r.case}" for r in ALL])
def test_case_outcome_is_the_expected_one(result) -> None:
    assert result.outcome in ("read correctly", "refused (right)"), (
        f"{result.stage}/{result.case} [{result.style}]: {result.outcome}: {result.detail}")


def test_the_corpus_is_big_and_varied_enough() -> None:
    assert len(ALL) >= 150
    per_stage = Counter(r.stage for r in ALL)
    assert min(per_stage.values()) >= 20, per_stage
    styles = Counter(r.style for r in ALL)
    for style in ("gpt-4o", "claude", "llama3-8b", "qwen2.5-coder-7b", "deepseek-r1", "qwen3",
                  "edge"):
        assert styles[style] >= 5, styles
    ids = [case["id"] for stage in STAGES for case in load(stage)["cases"]]
    for needed in ("empty", "refusal", "crlf"):
        assert sum(i == needed for i in ids) >= 6, needed
    assert sum("truncated" in i for i in ids) >= 8
    assert sum(r.style in ("deepseek-r1", "qwen3") for r in ALL) >= 20
