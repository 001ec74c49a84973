"""Deterministic stand-ins for real LLMs, so the examples run offline and print the same output.

``fake_score`` answers the memory system's scoring prompts (listwise: every memory by id, and
pointwise: one memory) with JSON whose score grows with the words the context and the memory
share; ``fake_answer`` plays the primary model and echoes the
memories it was given. Replace both with real API calls in your own code.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator

_WORD = re.compile(r"[a-z0-9]{3,}")
_IGNORED = {"the", "and", "for", "with", "about", "asking", "user", "customer", "uses",
            "memory", "context", "metadata"}


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _IGNORED}


_BLOCK = re.compile(r'<<<DATA kind="(\w+)" source="([^"]*)">>>\n(.*?)\n<<<END DATA>>>', re.S)


def answer_scoring(prompt: str, score: Callable[[str, str], tuple[float, str]]) -> str:
    """Answer a scoring prompt of either scheme with ``score(context, memory)``."""
    blocks = _BLOCK.findall(prompt)
    context = next((text for kind, _, text in blocks if kind == "context"), "")
    memories = [(source, text) for kind, source, text in blocks if kind == "memory"]
    if "each stored memory" in prompt:  # listwise: one entry per memory id
        entries = []
        for key, text in memories:
            value, reason = score(context, text)
            entries.append({"id": key, "score": value, "reason": reason})
        return json.dumps({"scores": entries})
    value, reason = score(context, memories[0][1] if memories else "")
    return json.dumps({"score": value, "reason": reason})


def _shared_words(context: str, memory: str) -> tuple[float, str]:
    shared = sorted(_words(context) & _words(memory))
    score = min(1.0, 0.5 + 0.25 * len(shared)) if shared else 0.1
    return score, f"shares {', '.join(shared)}" if shared else "nothing in common"


def fake_score(prompt: str) -> str:
    """Score = 0.1 without shared words, else 0.5 + 0.25 per shared word (at most 1.0)."""
    return answer_scoring(prompt, _shared_words)


def fake_answer(prompt: str) -> str:
    """A pretend primary model: restates the task and the memories it was given."""
    memories = prompt.partition("Relevant memories:")[2].partition("Task:")[0].strip()
    task = prompt.rpartition("Task:")[2].strip()
    return f"[fake primary LLM] {task}\nbased on:\n{memories}"


@contextlib.contextmanager
def temporary_working_directory() -> Iterator[str]:
    """Run inside a fresh temporary directory, so the default ``memories.db`` is cleaned up."""
    previous = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="memory-example-") as path:
        os.chdir(path)
        try:
            yield path
        finally:
            os.chdir(previous)
