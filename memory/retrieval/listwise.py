"""Listwise relevance scoring: one LLM call scores all candidates of a retrieval, by short id.

Why: pointwise scoring costs one call per candidate (20 per question, 49 for one code request in
a real Cat). Here each candidate gets an id (``M1``...) in one prompt, and one reply gives every
score and reason. Entries the reply leaves out, or whose values are refused, are asked for again
TOGETHER in one follow-up call that says what was wrong with each; after the retry budget the
leftovers are returned unscored with ``error`` set, exactly as pointwise does. Timeouts, raising
clients and backoff follow the same ``RetryPolicy``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from ...llm.errors import ReplyRefused
from ...llm.reader import read_reply
from ...llm.templates import data_block
from .score_replies import SCORE_LIST, ListRead, list_spec
from .scoring import LLMFn, RetryPolicy, ScoreOutcome, SleepFn, as_score, call_model, failure

#: Bump when the prompt changes: it is part of every score-cache key.
LISTWISE_VERSION = "listwise-v1"
#: characters of one candidate shown in a listwise prompt (20 candidates stay a short prompt)
ITEM_CHARS = 1500


def build_list_prompt(context: str, items: Sequence[tuple[str, str]]) -> str:
    """The prompt asking for the relevance of every ``(id, text)`` item to ``context``."""
    blocks = "\n".join(data_block("memory", key, _cut(text)) for key, text in items)
    return SCORE_LIST.render(context=data_block("context", "query", context),
                  memories=blocks, ids=", ".join(key for key, _ in items))


def _cut(text: str) -> str:
    return text if len(text) <= ITEM_CHARS else text[:ITEM_CHARS] + "\n... (truncated)"


def _retry_prompt(context: str, items: Sequence[tuple[str, str]], problems: dict[str, str]
                  ) -> str:
    said = "; ".join(f"{key}: {problems[key]}" for key, _ in items if key in problems)
    return SCORE_LIST.render_retry(problems=said, original=build_list_prompt(context, items))


async def score_listwise(llm: LLMFn, context: str, texts: Sequence[str], policy: RetryPolicy, *,
                         sleep: SleepFn = asyncio.sleep,
                         on_call: Callable[[], None] = lambda: None) -> list[ScoreOutcome]:
    """Score ``texts`` for ``context`` in one call (plus follow-ups for what is left over)."""
    items = [(f"M{i}", text) for i, text in enumerate(texts, 1)]
    done: dict[str, ScoreOutcome] = {}
    problems: dict[str, str] = {}
    waits = policy.waits()
    for attempt in range(1, policy.attempts + 1):
        pending = [(key, text) for key, text in items if key not in done]
        if not pending:
            break
        if attempt > 1:
            await sleep(waits[attempt - 2])
        prompt = (_retry_prompt(context, pending, problems) if problems
                  else build_list_prompt(context, pending))
        spec = list_spec(tuple(key for key, _ in pending))
        on_call()
        try:
            reply = await call_model(llm, prompt, policy.timeout, spec)
        except Exception as err:  # crash boundary: the user's LLM function may raise anything
            problems.update(dict.fromkeys((k for k, _ in pending), failure(err, policy.timeout)))
            continue
        try:
            read: ListRead = read_reply(reply, spec)
        except ReplyRefused as err:
            problems.update(dict.fromkeys((k for k, _ in pending), f"unusable reply: {err}"))
            continue
        _record(read, pending, attempt, done, problems)
    return [done.get(key) or ScoreOutcome(
        None, f"{problems.get(key, 'not attempted')} (after {policy.attempts} attempts)",
        policy.attempts) for key, _ in items]


def _record(read: ListRead, pending: Sequence[tuple[str, str]], attempt: int,
            done: dict[str, ScoreOutcome], problems: dict[str, str]) -> None:
    for key, _ in pending:
        if key in read.scores:
            done[key] = ScoreOutcome(as_score(read.scores[key]), None, attempt)
            problems.pop(key, None)
        elif key in read.refused:
            problems[key] = f"unusable entry: {read.refused[key]}"
        else:
            problems[key] = "the reply gave no score for it"


async def score_listwise_chunks(llm: LLMFn, context: str, texts: Sequence[str],
                                policy: RetryPolicy, *, chunk: int, concurrency: int,
                                sleep: SleepFn = asyncio.sleep,
                                on_call: Callable[[], None] = lambda: None
                                ) -> list[ScoreOutcome]:
    """``score_listwise`` over chunks of at most ``chunk`` texts, ``concurrency`` at a time."""
    gate = asyncio.Semaphore(max(1, concurrency))
    size = max(1, chunk)

    async def one(part: Sequence[str]) -> list[ScoreOutcome]:
        async with gate:
            return await score_listwise(llm, context, part, policy, sleep=sleep, on_call=on_call)

    parts = [texts[i:i + size] for i in range(0, len(texts), size)]
    results = await asyncio.gather(*(one(p) for p in parts))
    return [outcome for part in results for outcome in part]
