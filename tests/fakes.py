"""Test doubles for the LLM: the one thing tests replace.

``ScriptedLLM`` replays replies in order, records every prompt and fails on an unexpected call.
``FunctionLLM`` answers through a function for tests that need logic. Both exist in a
synchronous (``str -> str``, like ``cat.llm``) and an async flavour (the memory API's
``small_model_fn``).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable


class UnexpectedLLMCall(AssertionError):
    """The code under test called the LLM more often than the test scripted."""


class ScriptedLLM:
    """Replay ``replies`` in order; an ``Exception`` instance in the script is raised instead."""

    def __init__(self, *replies: str | BaseException) -> None:
        self._replies = list(replies)
        self.prompts: list[str] = []
        self._lock = threading.Lock()

    def _next(self, prompt: str) -> str:
        with self._lock:
            self.prompts.append(prompt)
            if not self._replies:
                raise UnexpectedLLMCall(
                    f"LLM called {len(self.prompts)} times, scripted for "
                    f"{len(self.prompts) - 1}; unexpected prompt starts: {prompt[:300]!r}"
                )
            reply = self._replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def __call__(self, prompt: str) -> str:
        return self._next(prompt)

    @property
    def calls(self) -> int:
        return len(self.prompts)

    @property
    def remaining(self) -> int:
        return len(self._replies)

    def assert_exhausted(self) -> None:
        assert not self._replies, f"{len(self._replies)} scripted replies were never used"


class AsyncScriptedLLM(ScriptedLLM):
    """``ScriptedLLM`` with an ``async`` call, for the memory API's ``small_model_fn``."""

    async def __call__(self, prompt: str) -> str:  # type: ignore[override]
        return self._next(prompt)


class FunctionLLM:
    """Answer every prompt with ``fn(prompt)``; records prompts; ``limit`` caps the calls."""

    def __init__(self, fn: Callable[[str], str], *, limit: int = 10_000) -> None:
        self._fn = fn
        self._limit = limit
        self.prompts: list[str] = []
        self._lock = threading.Lock()

    def _record(self, prompt: str) -> None:
        with self._lock:
            self.prompts.append(prompt)
            if len(self.prompts) > self._limit:
                raise UnexpectedLLMCall(f"LLM called more than {self._limit} times")

    def __call__(self, prompt: str) -> str:
        self._record(prompt)
        return self._fn(prompt)

    @property
    def calls(self) -> int:
        return len(self.prompts)


class AsyncFunctionLLM(FunctionLLM):
    """``FunctionLLM`` with an ``async`` call."""

    async def __call__(self, prompt: str) -> str:  # type: ignore[override]
        self._record(prompt)
        return self._fn(prompt)


# -- scoring prompts ---------------------------------------------------------------------------

_BLOCK = re.compile(r'<<<DATA kind="(?P<kind>[^"]*)" source="(?P<source>[^"]*)">>>\n'
                    r"(?P<text>.*?)\n<<<END DATA>>>", re.S)
POINTWISE_MARK = "You rate how useful a stored memory is"
LISTWISE_MARK = "You rate how useful each stored memory below is"


def scoring_blocks(prompt: str) -> tuple[str, list[tuple[str, str]]]:
    """``(context, [(id, memory text), ...])`` of a scoring prompt (pointwise id: "memory")."""
    blocks = list(_BLOCK.finditer(prompt))
    context = next((b["text"] for b in blocks if b["kind"] == "context"), "")
    return context, [(b["source"], b["text"]) for b in blocks if b["kind"] == "memory"]


def answer_scoring(prompt: str, score_of: Callable[[str], tuple[float, str]]) -> str | None:
    """The canonical reply to a scoring prompt of either scheme, or None for other prompts.

    ``score_of(memory text) -> (score, reason)``; listwise replies cover every id asked for.
    """
    if LISTWISE_MARK in prompt:
        _, items = scoring_blocks(prompt)
        return json.dumps({"scores": [{"id": key, "score": score_of(text)[0],
                                       "reason": score_of(text)[1]} for key, text in items]})
    if POINTWISE_MARK in prompt:
        _, items = scoring_blocks(prompt)
        score, reason = score_of(items[0][1])
        return json.dumps({"score": score, "reason": reason})
    return None


def keyword_scorer(rules: dict[str, float], default: float, other: str
                   ) -> Callable[[str], str]:
    """A scoring model: ``rules[k]`` for the first keyword ``k`` in a memory, else ``default``
    (reason ``other``); answers both schemes, fails on any other prompt."""

    def score_of(memory: str) -> tuple[float, str]:
        for key, value in rules.items():
            if key in memory:
                return value, f"mentions {key}"
        return default, other

    def score(prompt: str) -> str:
        answer = answer_scoring(prompt, score_of)
        assert answer is not None, f"not a scoring prompt: {prompt[:200]!r}"
        return answer

    return score
