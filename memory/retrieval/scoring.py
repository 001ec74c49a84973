"""LLM relevance scoring, pointwise: the prompt, the reply read by ``llm``, retries with backoff.

Why this shape: a reply that cannot be read is a *failed attempt*, retried like a network error,
and the retry prompt quotes the refusal back to the model (``llm.retry``). After the last attempt
the candidate is reported as unscored, never raised: the model's mistakes are data. The user's
LLM function is a crash boundary: whatever it raises (or a timeout) counts as one failed attempt
and the same prompt is sent again. The listwise scheme (one call for many memories) lives in
``listwise`` and shares the policy, the outcome type and the reply models.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ...llm.errors import ReplyRefused
from ...llm.reader import ReplySpec, read_reply
from ...llm.retry import Exchange, complete
from ...llm.templates import data_block
from ..errors import CodeMemoryError
from .score_replies import NO_REASON, SCORE, ScoreReply

#: Bump when the prompt changes: it is part of every score-cache key.
SCORER_VERSION = "score-v2"

LLMFn = Callable[[str], "Awaitable[str] | str"]
SleepFn = Callable[[float], Awaitable[None]]
T = TypeVar("T")


class ScoreReplyError(CodeMemoryError, ValueError):
    """The scoring LLM's reply held no readable ``{"score": 0..1, "reason": "..."}``."""


@dataclass(frozen=True)
class Score:
    """A parsed relevance judgement."""

    score: float
    reason: str


@dataclass(frozen=True)
class ScoreOutcome:
    """The result of scoring one candidate: a ``score`` or the last ``error``, never both."""

    score: Score | None
    error: str | None
    attempts: int


@dataclass(frozen=True)
class RetryPolicy:
    """``attempts`` calls at most; before call n >= 2 wait ``delay * 2 ** (n - 2)`` seconds."""

    attempts: int = 3
    delay: float = 1.0
    #: seconds one call may take before it counts as failed (None = no limit)
    timeout: float | None = 60.0

    def waits(self) -> list[float]:
        """The sleeps between attempts, e.g. ``[1.0, 2.0]`` for 3 attempts and delay 1."""
        return [self.delay * 2**i for i in range(self.attempts - 1)]


def build_scoring_prompt(context: str, memory: str) -> str:
    """The prompt asking for one memory's relevance to ``context``."""
    return SCORE.render(context=data_block("context", "query", context),
                  memory=data_block("memory", "memory", memory))


def as_score(reply: ScoreReply) -> Score:
    return Score(reply.score, reply.reason or NO_REASON)


def parse_score_reply(reply: object) -> Score:
    """Read a score from a model reply (reasoning, fences, chatter and slips tolerated)."""
    try:
        return as_score(read_reply(reply, SCORE.spec()))
    except ReplyRefused as err:
        raise ScoreReplyError(str(err)) from None


async def call_model(llm: LLMFn, prompt: str, timeout: float | None,
                     spec: ReplySpec[T]) -> str:
    """One call of the user's (sync or async) function with the spec's completion limit, its
    schema and ``timeout`` where it accepts them (``llm.bounds.call``): a client that honours the
    wait disconnects, so an abandoned call does not keep a one-request server busy."""
    result = complete(llm, prompt, spec, timeout)
    if inspect.isawaitable(result):
        result = await asyncio.wait_for(result, timeout) if timeout else await result
    return str(result) if not isinstance(result, str) else result


def failure(err: BaseException, timeout: float | None) -> str:
    """Why a call produced no reply, in the words of ``ScoreOutcome.error``."""
    if isinstance(err, asyncio.TimeoutError):
        return f"timed out after {timeout} s"
    return f"LLM call failed: {type(err).__name__}: {err}"


async def score_with_retry(llm: LLMFn, prompt: str, policy: RetryPolicy, *,
                           sleep: SleepFn = asyncio.sleep,
                           on_call: Callable[[], None] = lambda: None) -> ScoreOutcome:
    """Call ``llm`` until a reply is read, at most ``policy.attempts`` times, backing off."""
    spec = SCORE.spec()
    exchange = Exchange(prompt, spec, attempts=policy.attempts)
    waits = policy.waits()
    while (next_prompt := exchange.next_prompt()) is not None:
        if exchange.result().calls:
            await sleep(waits[exchange.result().calls - 1])
        on_call()
        try:
            reply = await call_model(llm, next_prompt, policy.timeout, spec)
        except Exception as err:  # crash boundary: the user's LLM function may raise anything
            exchange.fail(failure(err, policy.timeout))
            continue
        exchange.feed(reply)
    asked = exchange.result()
    if asked.value is not None:
        return ScoreOutcome(as_score(asked.value), None, asked.calls)
    reason = asked.refusal if asked.refusal.startswith(("timed out", "LLM call failed")) \
        else f"unusable reply: {asked.refusal}"
    return ScoreOutcome(None, f"{reason} (after {policy.attempts} attempts)", policy.attempts)


async def score_all(llm: LLMFn, prompts: Sequence[str], policy: RetryPolicy, *,
                    concurrency: int, sleep: SleepFn = asyncio.sleep,
                    on_call: Callable[[], None] = lambda: None) -> list[ScoreOutcome]:
    """Score every prompt, at most ``concurrency`` at a time; results keep the input order."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(prompt: str) -> ScoreOutcome:
        async with gate:
            return await score_with_retry(llm, prompt, policy, sleep=sleep, on_call=on_call)

    return list(await asyncio.gather(*(one(p) for p in prompts)))
