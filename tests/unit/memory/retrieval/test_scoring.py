"""Pointwise LLM scoring (``scoring_mode="pointwise"``): reply parsing,
retries with exact backoff, failures as data, caching, fan-out. Listwise: test_listwise.py."""

from __future__ import annotations

import asyncio
import json

import pytest

from codemem.memory.retrieval.scoring import (
    RetryPolicy,
    ScoreReplyError,
    build_scoring_prompt,
    parse_score_reply,
    score_with_retry,
)

from ....fakes import AsyncFunctionLLM, AsyncScriptedLLM
from ..api.helpers import FakeSleep, async_llm, make_system, memory_of, reply


def test_prompt_contains_context_memory_and_format():
    prompt = build_scoring_prompt("the context", "the memory")
    assert 'Context:\n<<<DATA kind="context" source="query">>>\nthe context\n<<<END DATA>>>' \
        in prompt
    assert 'Memory:\n<<<DATA kind="memory" source="memory">>>\nthe memory\n<<<END DATA>>>' \
        in prompt
    assert '{"score": <number' in prompt


@pytest.mark.parametrize("text,score,reason", [
    ('{"score": 0.8, "reason": "close match"}', 0.8, "close match"),
    ('```json\n{"score": 1, "reason": "exact"}\n```', 1.0, "exact"),
    ('Sure! {"score": 0, "reason": " none "} hope this helps', 0.0, "none"),
    ("{score: 0.5}", 0.5, "(no reason given)"),
    ('{"score": 0.5}', 0.5, "(no reason given)"),
    ('{"score": 0.5, "reason": ""}', 0.5, "(no reason given)"),
    ('{"score": "0.5", "reason": "r"}', 0.5, "r"),
    ('<think>{"score": 0.9}</think>{"Score": "7/10", "Reason": "close",}', 0.7, "close"),
])
def test_parse_accepts_valid_replies(text, score, reason):
    parsed = parse_score_reply(text)
    assert (parsed.score, parsed.reason) == (score, reason)


@pytest.mark.parametrize("text", [
    "", "   ", None, "not json at all", '{"score": 1.2, "reason": "r"}',
    '{"score": -0.1, "reason": "r"}', '{"score": NaN, "reason": "r"}', '{"score": 5}',
    '{"score": true, "reason": "r"}', "[0.5]", "[" * 5000 + "]" * 5000, "I can't help.",
])
def test_parse_rejects_bad_replies(text):
    with pytest.raises(ScoreReplyError):
        parse_score_reply(text)


def test_retry_policy_waits_double():
    assert RetryPolicy(attempts=5, delay=2.0).waits() == [2.0, 4.0, 8.0, 16.0]
    assert RetryPolicy(attempts=1, delay=1.0).waits() == []


def test_retry_sleeps_exact_exponential_sequence_then_succeeds():
    llm = AsyncScriptedLLM("garbage", RuntimeError("503"), "{}", reply(0.6))
    sleep = FakeSleep()
    outcome = asyncio.run(score_with_retry(llm, "p", RetryPolicy(4, 1.5, None), sleep=sleep))
    assert outcome.score.score == 0.6 and outcome.attempts == 4 and outcome.error is None
    assert sleep.calls == [1.5, 3.0, 6.0]
    llm.assert_exhausted()


def test_first_attempt_is_immediate():
    sleep = FakeSleep()
    outcome = asyncio.run(score_with_retry(AsyncScriptedLLM(reply(0.3)), "p",
                                           RetryPolicy(3, 1.0), sleep=sleep))
    assert outcome.attempts == 1 and sleep.calls == []


@pytest.mark.parametrize("bad,expected", [
    ("no json here", "unusable reply"),
    (reply(1.7), "does not say what scale"),
    (json.dumps({"score": "high"}), "score 'high' is not a number"),
    ("", "empty"),
    (ConnectionError("reset by peer"), "ConnectionError: reset by peer"),
])
def test_each_kind_of_bad_reply_is_retried_and_reported(bad, expected):
    llm = AsyncScriptedLLM(bad, bad, bad)
    sleep = FakeSleep()
    outcome = asyncio.run(score_with_retry(llm, "p", RetryPolicy(3, 1.0), sleep=sleep))
    assert outcome.score is None and expected in outcome.error
    assert "after 3 attempts" in outcome.error
    assert llm.calls == 3 and sleep.calls == [1.0, 2.0]


def test_timeout_counts_as_a_failure():
    async def slow(prompt: str) -> str:
        await asyncio.sleep(30)
        return reply(0.9)

    outcome = asyncio.run(score_with_retry(slow, "p", RetryPolicy(2, 0.0, timeout=0.05),
                                           sleep=FakeSleep()))
    assert outcome.score is None and "timed out" in outcome.error and outcome.attempts == 2


def test_a_refusal_is_quoted_back_and_a_failed_call_repeats_the_prompt():
    llm = AsyncScriptedLLM('{"score": "high"}', RuntimeError("503"), reply(0.6))
    outcome = asyncio.run(score_with_retry(llm, "THE PROMPT", RetryPolicy(3, 0.0),
                                           sleep=FakeSleep()))
    assert outcome.score.score == 0.6
    first, second, third = llm.prompts
    assert first == "THE PROMPT"
    assert second.startswith("Your previous answer could not be used: score: score 'high' is "
                             "not a number") and second.rstrip().endswith("THE PROMPT")
    assert third == second  # the client raised: the same prompt again


def test_system_retry_sequence_through_retrieval(tmp_path):
    llm = AsyncScriptedLLM("nope", "still nope", reply(0.9, "good"))
    sleep = FakeSleep()
    with make_system(tmp_path, llm, retry_attempts=4, retry_delay=0.5, sleep=sleep,
                     scoring_mode="pointwise") as system:
        system.add_memory("the only memory")
        result = asyncio.run(system.retrieve_relevant_memories("memory"))
        assert [(m.relevance_score, m.reasoning, m.error) for m in result] == [(0.9, "good", None)]
        assert sleep.calls == [0.5, 1.0]
        assert system.get_stats()["llm_calls"] == 3


def test_all_retries_failing_still_returns_candidates_in_fused_order(tmp_path):
    def answer(prompt: str) -> str:
        if "beta" in memory_of(prompt):
            raise TimeoutError("provider timeout")
        return "I cannot answer that"

    llm = AsyncFunctionLLM(answer)
    with make_system(tmp_path, llm, retry_attempts=2, use_dense=False,
                     scoring_mode="pointwise") as system:
        system.add_memories(["gamma only", "alpha beta gamma", "beta gamma"])
        result = asyncio.run(system.retrieve_relevant_memories("beta gamma"))
        texts = [m.text for m in result]
        assert set(texts) == {"gamma only", "alpha beta gamma", "beta gamma"}
        assert texts.index("beta gamma") < texts.index("gamma only")  # lexical order kept
        assert all(m.error and m.relevance_score == 0.0 for m in result)
        assert all(m.reasoning.startswith("not scored:") for m in result)
        by_text = {m.text: m.error for m in result}
        assert "TimeoutError" in by_text["beta gamma"] and "unusable" in by_text["gamma only"]
        assert llm.calls == 6
        stats = system.get_stats()
        assert stats["llm_failures"] == 3 and stats["cache_stats"]["size"] == 0


def test_scored_results_come_before_unscored_ones(tmp_path):
    def answer(prompt: str) -> str:
        return reply(0.8) if "good" in memory_of(prompt) else "???"

    with make_system(tmp_path, AsyncFunctionLLM(answer), retry_attempts=1,
                     scoring_mode="pointwise") as system:
        system.add_memories(["bad note", "good note"])
        result = asyncio.run(system.retrieve_relevant_memories("note"))
        assert [(m.text, m.error is None) for m in result] == [("good note", True),
                                                               ("bad note", False)]


def test_concurrency_is_bounded_by_batch_size(tmp_path):
    state = {"now": 0, "peak": 0}

    async def llm(prompt: str) -> str:
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        await asyncio.sleep(0.01)
        state["now"] -= 1
        return reply(0.9)

    with make_system(tmp_path, llm, batch_size=3, candidate_limit=12,
                     scoring_mode="pointwise") as system:
        system.add_memories([f"topic number {i}" for i in range(12)])
        result = asyncio.run(system.retrieve_relevant_memories("topic"))
        assert len(result) == 10
        assert state["peak"] == 3


def test_cache_hits_skip_the_llm_and_changes_invalidate(tmp_path):
    llm = async_llm({"apple": 0.9, "pear": 0.8})
    with make_system(tmp_path, llm, scoring_mode="pointwise") as system:
        apple = system.add_memory("apple pie recipe")
        system.add_memory("pear tart recipe")
        first = asyncio.run(system.retrieve_relevant_memories("recipe"))
        assert llm.calls == 2 and not any(m.cached for m in first)
        second = asyncio.run(system.retrieve_relevant_memories("recipe"))
        assert llm.calls == 2 and all(m.cached for m in second)
        assert [(m.text, m.relevance_score) for m in second] == [
            (m.text, m.relevance_score) for m in first]
        system.update_memory(apple, text="apple crumble recipe")
        asyncio.run(system.retrieve_relevant_memories("recipe"))
        assert llm.calls == 3  # only the changed memory is scored again
        asyncio.run(system.retrieve_relevant_memories("another recipe question"))
        assert llm.calls == 5  # a different context is a different cache key
        stats = system.get_stats()
        assert (stats["cache_hits"], stats["cache_misses"]) == (3, 5)
        assert stats["cache_hit_rate"] == pytest.approx(3 / 8)
        assert stats["cache_stats"]["size"] == 4
        system.clear_cache()
        assert system.get_stats()["cache_stats"]["size"] == 0


def test_cache_survives_restart_and_can_be_disabled(tmp_path):
    llm = async_llm({"apple": 0.9})
    with make_system(tmp_path, llm) as system:
        system.add_memory("apple pie")
        asyncio.run(system.retrieve_relevant_memories("apple"))
    with make_system(tmp_path, llm) as system:
        asyncio.run(system.retrieve_relevant_memories("apple"))
        assert llm.calls == 1
        system.update_retrieval_config(enable_caching=False)
        asyncio.run(system.retrieve_relevant_memories("apple"))
        assert llm.calls == 2


def test_deleting_a_memory_drops_its_cached_scores(tmp_path):
    with make_system(tmp_path, async_llm({"x": 0.9})) as system:
        memory_id = system.add_memory("x marks the spot")
        asyncio.run(system.retrieve_relevant_memories("spot"))
        assert system.get_stats()["cache_stats"]["size"] == 1
        system.delete_memory(memory_id)
        assert system.get_stats()["cache_stats"]["size"] == 0


def test_llm_timeout_parameter_and_disabled_cache_through_the_system(tmp_path):
    async def slow(prompt: str) -> str:
        await asyncio.sleep(30)
        return reply(0.9)

    sleep = FakeSleep()
    with make_system(tmp_path, slow, llm_timeout=0.05, retry_attempts=2, retry_delay=0.25,
                     enable_caching=False, sleep=sleep, scoring_mode="pointwise") as system:
        system.add_memory("slow memory")
        result = asyncio.run(system.retrieve_relevant_memories("slow"))
        assert [(m.text, m.relevance_score) for m in result] == [("slow memory", 0.0)]
        assert "timed out after 0.05 s" in result[0].error and sleep.calls == [0.25]
        stats = system.get_stats()
        assert stats["cache_stats"]["enabled"] is False and stats["cache_misses"] == 0


def test_a_plain_sync_function_is_accepted_as_small_model_fn(tmp_path):
    with make_system(tmp_path, lambda prompt: reply(0.95, "sync ok"),
                     scoring_mode="pointwise") as system:
        system.add_memory("anything at all")
        result = asyncio.run(system.retrieve_relevant_memories("anything"))
        assert [(m.relevance_score, m.reasoning) for m in result] == [(0.95, "sync ok")]
