"""Call options through every wrapper, the action's time budget, the token estimate, and the
schema sent to a constraining server (small and strict: no ``{}`` answer, no extra keys)."""

from __future__ import annotations

import pytest

from codemem.codegen.metacode.reply import MetaCodeReply
from codemem.llm.bounds import (
    CallOptions,
    TimeBudget,
    TimeBudgetSpent,
    call,
    estimate_tokens,
)
from codemem.llm.completer import Decorated, Meter, Metered
from codemem.memory.retrieval.score_replies import SCORE_LIST, list_spec


class Bounded:
    """A completer honouring options; records them."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, CallOptions]] = []

    def __call__(self, prompt: str) -> str:
        raise AssertionError("a wrapper must route plain calls through complete_with")

    def complete_with(self, prompt: str, options: CallOptions) -> str:
        self.seen.append((prompt, options))
        return "ok"


def test_options_reach_the_model_through_every_wrapper_and_plain_calls_take_that_path():
    inner = Bounded()
    wrapped = Metered(Decorated(Metered(inner)))
    assert call(wrapped, "p", CallOptions(max_tokens=7)) == "ok"
    assert wrapped("q") == "ok"
    assert wrapped.complete_json("r", {"type": "object"}) == "ok"
    assert [(p, o.max_tokens, o.json_schema) for p, o in inner.seen] == [
        ("p", 7, None), ("q", None, None), ("r", None, {"type": "object"})]
    assert call(lambda prompt: prompt.upper(), "plain", CallOptions(max_tokens=3)) == "PLAIN"


def test_the_budget_caps_each_wait_and_refuses_calls_once_spent():
    now = [100.0]
    meter = Meter()
    meter.begin(10.0)
    meter.budget = TimeBudget(10.0, clock=lambda: now[0])
    inner = Bounded()
    counted = meter.wrap(inner)
    counted.complete_with("a", CallOptions(timeout_s=60.0))
    now[0] += 4
    counted.complete_with("b", CallOptions(timeout_s=2.0))
    assert [o.timeout_s for _, o in inner.seen] == [10.0, 2.0]
    now[0] += 7
    with pytest.raises(TimeBudgetSpent, match="10 s per action"):
        counted("c")
    assert meter.calls == 2
    meter.begin(None)
    counted("d")  # a new action without a budget
    assert meter.calls == 3


def test_the_estimate_over_counts_common_text():
    code = "def parse(value: str) -> int:\n    return int(value.strip())\n" * 20
    assert estimate_tokens(code) >= len(code) / 3.5
    assert estimate_tokens("é" * 10) == 10
    assert SCORE_LIST.limit(0) == SCORE_LIST.limit(1) == 40 + 35
    assert SCORE_LIST.limit(20) == 40 + 35 * 20


def test_the_schema_sent_requires_the_answer_and_allows_nothing_else():
    schema = MetaCodeReply.reply_schema()
    assert {"target_path", "symbol", "behaviour", "examples"} <= set(schema["required"])
    assert schema["additionalProperties"] is False
    assert schema["properties"]["symbol"]["type"] == "string"  # not nullable once required
    text = repr(schema)
    assert "'title'" not in text and "'default'" not in text and "$ref" not in text
    inputs = schema["properties"]["inputs"]["items"]
    assert "description" in inputs["properties"]  # a property, kept
    assert "scope" not in schema["properties"]  # asked for only with the index's impact
    listing = list_spec(("M1", "M2")).json_schema
    first, second = listing["properties"]["scores"]["items"]
    assert first["additionalProperties"] is False and second["properties"]["id"] == {
        "const": "M2"}
    assert set(first["required"]) == {"id", "score", "reason"}
