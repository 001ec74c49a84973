"""Test doubles of the real-Cat harness: the scripted LLM, the loguru capture, tiktoken offline.

Imported by the Cat too (it imports every ``.py`` of the plugin): tiktoken, langchain and loguru
are imported inside functions only.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from ..fakes import answer_scoring

_CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


# -- tiktoken -------------------------------------------------------------------------------


def cl100k_cached() -> bool:
    """Whether tiktoken would find ``cl100k_base`` in its cache (no download needed)."""
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR") \
        or os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return os.path.isfile(os.path.join(cache_dir, hashlib.sha1(_CL100K_URL.encode()).hexdigest()))


def offline_cl100k() -> Any:
    """A byte-level stand-in for ``cl100k_base`` (one token per byte; test harness only)."""
    import tiktoken

    return tiktoken.Encoding(
        name="cl100k_base",
        pat_str=r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}"""
        r"""| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+""",
        mergeable_ranks={bytes([i]): i for i in range(256)},
        special_tokens={"<|endoftext|>": 256, "<|fim_prefix|>": 257, "<|fim_middle|>": 258,
                        "<|fim_suffix|>": 259, "<|endofprompt|>": 260},
    )


# -- the fake LLM ---------------------------------------------------------------------------


#: A valid meta-code answer for "write a function slugify in text/slug.py ..." and a draft that
#: passes it (shared by the request and restart tests).
SLUGIFY_METACODE = {
    "target_path": "text/slug.py", "symbol": "slugify", "kind": "function",
    "signature": "def slugify(text: str) -> str", "behaviour": "Join the lower-cased words.",
    "inputs": [{"name": "text", "type": "str", "description": "a title"}],
    "outputs": [{"name": "return", "type": "str", "description": "the slug"}],
    "examples": [{"call": "slugify('A b')", "expected": "a-b"},
                 {"call": "slugify('x')", "expected": "x"}],
    "constraints": [], "acceptance_checks": ["words are joined with -"], "assumptions": []}
SLUGIFY_DRAFT = ("```python entity=text/slug.py::slugify\ndef slugify(text: str) -> str:\n"
                 "    return '-'.join(text.lower().split())\n```\n")


@dataclass
class LLMScript:
    """What the fake LLM answers, by the prompt it recognises (docs/cat-plugin-api.md).

    ``prompts`` records every prompt, so tests can assert which calls a turn made.
    """

    tool_action: str = "no_action"
    tool_input: str | None = None
    form_json: dict = field(default_factory=dict)
    confirm: bool = True
    answer: str = "FAKE-LLM-ANSWER"
    #: ``(substring, reply)`` pairs tried first, for the plugin's own prompts (a list of
    #: replies is answered in turn).
    rules: list = field(default_factory=list)
    #: ``(substring of the user's message, tool name)``: tool selection by message.
    tools: list = field(default_factory=list)
    #: The relevance every memory gets from the plugin's scoring prompts (either scheme,
    #: answered canonically for every id asked); ``None``: scoring prompts fall through.
    relevance: float | None = None
    #: ``(substring, seconds, flag file)``: a prompt holding the substring touches the flag
    #: file, then waits ``seconds`` before answering (a slow model call in flight).
    slow: list = field(default_factory=list)
    #: Answer the plugin's prompts as ``sim_llm.ConversationLLM`` does (meta-code for the
    #: request asked about, a draft of its symbol, scoring, "no" to the tie-break).
    conversation: bool = False
    #: A file: while it exists, code generation waits (a draft stays "running" for the test).
    gate: str = ""
    prompts: list = field(default_factory=list)

    @classmethod
    def from_json(cls, text: str) -> LLMScript:
        """A script from its JSON form (for a Cat in another process)."""
        data = json.loads(text)
        return cls(**{k: [tuple(v) for v in data[k]] if isinstance(data[k], list) else data[k]
                      for k in data})

    def reply(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.conversation:
            answered = _conversation_reply(prompt, self.gate)
            if answered is not None:
                return answered
        for marker, seconds, flag in self.slow:
            if marker in prompt:
                with open(flag, "a", encoding="utf-8") as handle:
                    handle.write("in flight\n")
                time.sleep(float(seconds))
        for marker, answer in self.rules:
            if marker in prompt:  # a list: its answers in turn, the last one for good
                return (answer.pop(0) if len(answer) > 1 else answer[0]) \
                    if isinstance(answer, list) else answer
        if self.relevance is not None:
            scored = answer_scoring(prompt, lambda _: (self.relevance, "relevant"))
            if scored is not None:
                return scored
        return self._cats_own(prompt)

    def _cats_own(self, prompt: str) -> str:
        """The Cat's own prompts: tool choice, form extraction and checks, its answer."""
        if 'Create a JSON with the correct "action"' in prompt:
            action = next((tool for text, tool in self.tools if text in prompt), self.tool_action)
            return json.dumps({"action": action, "action_input": self.tool_input})
        if "Your task is to fill up a JSON" in prompt:
            return json.dumps(self.form_json)
        if "whether a user wants to exit" in prompt:
            return "false"
        if "whether a user is confirming" in prompt:
            return "true" if self.confirm else "false"
        return self.answer


def _conversation_reply(prompt: str, gate: str) -> str | None:
    """The plugin's prompts answered like ``sim_llm.ConversationLLM`` (None: not one of them);
    code generation waits while the ``gate`` file exists (at most ten minutes)."""
    from ..unit.glue.sim_llm import GENERATE, METACODE, draft_for, metacode_for

    if prompt.startswith(METACODE):
        return json.dumps(metacode_for(prompt))
    if prompt.startswith(GENERATE):
        deadline = time.monotonic() + 600
        while gate and os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.05)
        return draft_for(prompt)
    if "yes or no" in prompt.lower():
        return "no"
    scored = answer_scoring(prompt, lambda _: (0.9, "relevant"))
    return scored


def make_fake_llm(script: LLMScript) -> Any:
    """A LangChain chat model that answers from ``script`` (class built lazily: no langchain
    import at module level)."""
    from langchain_core.language_models.chat_models import SimpleChatModel

    class ScriptedChatModel(SimpleChatModel):
        @property
        def _llm_type(self) -> str:
            return "code-working-memory-scripted"

        def _call(self, messages, stop=None, run_manager=None, **kwargs) -> str:
            return script.reply("\n".join(str(m.content) for m in messages))

    return ScriptedChatModel()


# -- log capture ----------------------------------------------------------------------------


@dataclass
class LogCapture:
    """Every loguru record the Cat emits, with the traceback of the exception being handled.

    The Cat logs "Unable to load plugin" inside the ``except`` that caught the import error and
    prints the traceback to stderr; the sink runs synchronously in that ``except``, so
    ``sys.exc_info()`` still names the error and the test can show it.
    """

    records: list = field(default_factory=list)
    sink_id: int | None = None

    def sink(self, message: Any) -> None:
        record = message.record
        exc = traceback.format_exc() if sys.exc_info()[0] is not None else ""
        self.records.append((record["level"].name, record["message"], exc))

    def start(self) -> None:
        from loguru import logger

        self.sink_id = logger.add(self.sink, level="DEBUG", format="{message}")

    def stop(self) -> None:
        from loguru import logger

        if self.sink_id is not None:
            logger.remove(self.sink_id)
            self.sink_id = None

    def errors_since(self, mark: int) -> list[str]:
        """ERROR/CRITICAL records after the first ``mark`` ones, each with its traceback."""
        return [f"{lvl}: {msg}\n{exc}".rstrip() for lvl, msg, exc in self.records[mark:]
                if lvl in ("ERROR", "CRITICAL")]

    def matching(self, text: str, level: str | None = None) -> list[str]:
        """Messages containing ``text`` (at ``level`` when given), each with its traceback."""
        return [f"{lvl}: {msg}\n{exc}".rstrip() for lvl, msg, exc in self.records
                if text in msg and (level is None or lvl == level)]
