"""A scripted chat model for whole conversations: it answers every prompt the plugin and the
Cat send, the way a competent model would, and can hold the draft loop's code generation until
the test releases it (so a draft is "running" for as long as the test needs).

Meta-code follows the request it is asked about (file and symbol from the prompt), a draft
implements that symbol, scoring is canonical, the tie-break says no, and anything else gets the
Cat's own answer (``CAT_ANSWER``).
"""

from __future__ import annotations

import json
import re
import threading

from ...fakes import FunctionLLM, answer_scoring
from .cat_sim import CAT_ANSWER

GENERATE = "You write Python code for one goal"
METACODE = "You turn a programming request into META-CODE"


def metacode_for(prompt: str) -> dict:
    """A valid meta-code answer for the request the prompt is about."""
    path = re.search(r"Target file: (\S+)", prompt)
    symbol = re.search(r"Symbol: ([\w.]+)", prompt)
    name = (symbol.group(1) if symbol else "helper").rpartition(".")[2]
    return {
        "target_path": path.group(1) if path else "text/slug.py", "symbol": name,
        "kind": "function", "signature": f"def {name}(text: str) -> str",
        "behaviour": "Lower-case the text.",
        "inputs": [{"name": "text", "type": "str", "description": "any text"}],
        "outputs": [{"name": "return", "type": "str", "description": "lower-cased"}],
        "examples": [{"call": f"{name}('AB')", "expected": "ab"}],
        "constraints": [], "acceptance_checks": ["the text is lower-cased"], "assumptions": []}


def draft_for(prompt: str, *, wrong: bool = False) -> str:
    """The target's definition; ``wrong``: with a parameter the meta-code does not have (the
    signature check rejects it)."""
    path = re.search(r"entity=([^\s:]+)::", prompt) or re.search(r"\b([\w/]+\.py)\b", prompt)
    name = re.search(r"def (\w+)\(text: str\) -> str", prompt)
    target, symbol = (path.group(1) if path else "text/slug.py"), (
        name.group(1) if name else "helper")
    params = "text: str, extra: int" if wrong else "text: str"
    return (f"```python entity={target}::{symbol}\ndef {symbol}({params}) -> str:\n"
            "    return text.lower()\n```\n")


class ConversationLLM(FunctionLLM):
    """See the module docstring; ``hold()`` / ``release()`` gate code generation."""

    def __init__(self, *, first_draft_wrong: bool = False) -> None:
        super().__init__(self._answer, limit=100_000)
        #: The first draft of each target is wrong (a task then needs a second draft).
        self.first_draft_wrong = first_draft_wrong
        self._drafted: set[str] = set()
        self._gate = threading.Event()
        self._gate.set()
        self.generating = threading.Event()

    def hold(self) -> None:
        self._gate.clear()

    def release(self) -> None:
        self._gate.set()

    @property
    def held(self) -> bool:
        return not self._gate.is_set()

    def _answer(self, prompt: str) -> str:
        scored = answer_scoring(prompt, lambda memory: (0.9, "relevant"))
        if scored is not None:
            return scored
        if prompt.startswith(METACODE):
            return json.dumps(metacode_for(prompt))
        if prompt.startswith(GENERATE):
            self.generating.set()
            self._gate.wait(120)
            target = re.search(r"entity=(\S+)", prompt)
            key = target.group(1) if target else ""
            wrong = self.first_draft_wrong and key not in self._drafted
            self._drafted.add(key)
            return draft_for(prompt, wrong=wrong)
        if "yes or no" in prompt.lower() or "Answer yes or no" in prompt:
            return "no"
        return CAT_ANSWER
