"""LLM relevance scoring: the prompt, strict reply parsing, retries with backoff, bounded fan-out.

Why strict parsing: a reply we cannot read is a *failed attempt*, retried like a network error
(ecosystem.md 2.6). After the last attempt the candidate is reported as unscored, never raised:
the model's mistakes are data. The user's LLM function is a crash boundary: whatever it raises
(or a timeout) counts as one failed attempt.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from .errors import CodeMemoryError

#: Bump when the prompt changes: it is part of every score-cache key.
SCORER_VERSION = "score-v1"

SCORING_PROMPT = """You rate how useful a stored memory is for the context below.

Context:
<<<
{context}
>>>

Memory:
<<<
{memory}
>>>

Answer with JSON only, no other text:
{{"score": <number from 0.0 (irrelevant) to 1.0 (essential)>, "reason": "<one short sentence>"}}"""

_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")

LLMFn = Callable[[str], "Awaitable[str] | str"]
SleepFn = Callable[[float], Awaitable[None]]


class ScoreReplyError(CodeMemoryError, ValueError):
    """The scoring LLM's reply was not ``{"score": 0..1, "reason": "..."}``."""


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
    return SCORING_PROMPT.format(context=context, memory=memory)


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")


def parse_score_reply(reply: object) -> Score:
    """Read ``{"score": x, "reason": "..."}`` (code fences and chatter around it tolerated)."""
    if not isinstance(reply, str) or not reply.strip():
        raise ScoreReplyError(f"empty or non-text reply: {reply!r:.80}")
    text = _FENCE.sub("", reply.strip())
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ScoreReplyError(f"no JSON object in reply: {reply!r:.80}")
    try:
        data = json.loads(text[start:end + 1], parse_constant=_reject_constant)
    except (ValueError, RecursionError) as err:
        raise ScoreReplyError(f"reply is not valid JSON ({err}): {reply!r:.80}") from err
    if not isinstance(data, dict):
        raise ScoreReplyError(f"reply is not a JSON object: {reply!r:.80}")
    score, reason = data.get("score"), data.get("reason")
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise ScoreReplyError(f"score is missing or not a number: {score!r}")
    if not math.isfinite(score) or not 0.0 <= score <= 1.0:
        raise ScoreReplyError(f"score {score!r} is outside [0, 1]")
    if not isinstance(reason, str) or not reason.strip():
        raise ScoreReplyError("reason is missing or empty")
    return Score(float(score), reason.strip())


async def _call_once(llm: LLMFn, prompt: str, timeout: float | None) -> Score:
    result = llm(prompt)
    if inspect.isawaitable(result):
        result = await asyncio.wait_for(result, timeout) if timeout else await result
    return parse_score_reply(result)


async def score_with_retry(llm: LLMFn, prompt: str, policy: RetryPolicy, *,
                           sleep: SleepFn = asyncio.sleep,
                           on_call: Callable[[], None] = lambda: None) -> ScoreOutcome:
    """Call ``llm`` until a reply parses, at most ``policy.attempts`` times, backing off."""
    waits = policy.waits()
    error = "not attempted"
    for attempt in range(1, policy.attempts + 1):
        if attempt > 1:
            await sleep(waits[attempt - 2])
        on_call()
        try:
            return ScoreOutcome(await _call_once(llm, prompt, policy.timeout), None, attempt)
        except asyncio.TimeoutError:
            error = f"timed out after {policy.timeout} s"
        except ScoreReplyError as err:
            error = f"unusable reply: {err}"
        except Exception as err:  # crash boundary: the user's LLM function may raise anything
            error = f"LLM call failed: {type(err).__name__}: {err}"
    return ScoreOutcome(None, f"{error} (after {policy.attempts} attempts)", policy.attempts)


async def score_all(llm: LLMFn, prompts: Sequence[str], policy: RetryPolicy, *,
                    concurrency: int, sleep: SleepFn = asyncio.sleep,
                    on_call: Callable[[], None] = lambda: None) -> list[ScoreOutcome]:
    """Score every prompt, at most ``concurrency`` at a time; results keep the input order."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(prompt: str) -> ScoreOutcome:
        async with gate:
            return await score_with_retry(llm, prompt, policy, sleep=sleep, on_call=on_call)

    return list(await asyncio.gather(*(one(p) for p in prompts)))
