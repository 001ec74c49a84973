"""Shared helpers for the MemorySystem tests: a rule-based fake scorer and a system factory."""

from __future__ import annotations

import json
from collections.abc import Callable

from codemem.memory.system import MemorySystem

from ....fakes import AsyncFunctionLLM, FunctionLLM


def memory_of(prompt: str) -> str:
    """The memory text inside a scoring prompt."""
    return prompt.split("Memory:\n<<<\n", 1)[1].split("\n>>>", 1)[0]


def context_of(prompt: str) -> str:
    return prompt.split("Context:\n<<<\n", 1)[1].split("\n>>>", 1)[0]


def reply(score: float, reason: str = "because") -> str:
    return json.dumps({"score": score, "reason": reason})


def keyword_scorer(rules: dict[str, float], default: float = 0.1) -> Callable[[str], str]:
    """Score = rules[k] for the first keyword k found in the memory text, else ``default``."""

    def score(prompt: str) -> str:
        memory = memory_of(prompt)
        for key, value in rules.items():
            if key in memory:
                return reply(value, f"mentions {key}")
        return reply(default, "unrelated")

    return score


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
