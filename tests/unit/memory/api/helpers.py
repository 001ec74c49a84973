"""Shared helpers for the MemorySystem tests: a rule-based fake scorer and a system factory."""

from __future__ import annotations

import json
from collections.abc import Callable

from codemem.memory.system import MemorySystem

from .... import fakes
from ....fakes import AsyncFunctionLLM, FunctionLLM, scoring_blocks


def memory_of(prompt: str) -> str:
    """The memory text inside a pointwise scoring prompt (all memories of a listwise one)."""
    return "\n".join(text for _, text in scoring_blocks(prompt)[1])


def memories_of(prompts: list[str]) -> set[str]:
    """Every memory text the scoring prompts showed (either scheme)."""
    return {text for prompt in prompts for _, text in scoring_blocks(prompt)[1]}


def context_of(prompt: str) -> str:
    return scoring_blocks(prompt)[0]


def reply(score: float, reason: str = "because") -> str:
    return json.dumps({"score": score, "reason": reason})


def keyword_scorer(rules: dict[str, float], default: float = 0.1) -> Callable[[str], str]:
    """Score = rules[k] for the first keyword k found in the memory text, else ``default``."""
    return fakes.keyword_scorer(rules, default, "unrelated")


def async_llm(rules: dict[str, float] | None = None, default: float = 0.1,
              limit: int = 10_000) -> AsyncFunctionLLM:
    return AsyncFunctionLLM(keyword_scorer(rules or {}, default), limit=limit)


def sync_llm(rules: dict[str, float] | None = None, default: float = 0.1) -> FunctionLLM:
    return FunctionLLM(keyword_scorer(rules or {}, default))


class FakeSleep:
    """Async sleep that records the requested delays and returns at once."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def make_system(tmp_path, llm=None, **kwargs) -> MemorySystem:
    kwargs.setdefault("sleep", FakeSleep())
    return MemorySystem(llm or async_llm(), str(tmp_path / "memories.db"), **kwargs)
