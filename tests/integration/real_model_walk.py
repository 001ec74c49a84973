"""The conversation the real-model layer walks, shared by its tests and its benchmark.

A user asks a question about the code, makes a small code request, says "go", waits for the
outcome, reads the history, applies a committed draft, rolls back, and checks that the chat is
not stranded: "hi" is answered, and a new request still reaches the plugin. Each step is a
``Turn`` with its answer, its wall time and the LLM calls the server received meanwhile.

The Cat is the in-process harness (cat_harness.py); its LLM is set through the Cat's admin API
(``PUT /llm/settings/LLMOpenAICompatibleConfig``), as a user configures a local server.

Imported by the Cat too (it imports every ``.py`` of the plugin): nothing runs at import time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import cat_harness
from .llama_server import Call, Recorder, kind_of
from .real_models import MODEL

#: Seconds a chat turn may take before the user gets an answer. A turn makes at most a few
#: calls (a question: scoring and the answer); with a completion limit fitted to each step a call
#: writes at most a few hundred tokens, which the bundled 135M model writes at 20 to 60 tokens
#: a second on two busy cores, plus about a second per thousand prompt tokens: a minute is
#: ample, and three leave room for a loaded CI machine. A call that writes until the
#: 4,096-token window is full takes 150 s or more on its own (measured in issue 30): one such
#: call per turn already exceeds this limit.
TURN_SECONDS = 180
#: Seconds from "go" to the outcome message: two iterations (``max_iterations`` below) of
#: code, sandboxed validation and the judge, then the extended loop's documentation and review;
#: about ten bounded calls of a few hundred tokens, and the sandbox runs.
OUTCOME_SECONDS = 600
#: How much longer the walk waits for a turn's late answer before it stops (the late turn
#: fails the time limit either way; waiting keeps the socket in step, so the later steps are
#: still walked and checked).
GRACE_SECONDS = 300
#: The whole walk's budget: a turn after it is not walked (and the tests say so). It bounds the
#: layer's time in CI whatever the model does: with every call bounded the walk takes a few
#: minutes; with the unbounded calls of issue 30 it took 25 minutes on a loaded machine.
WALK_SECONDS = 900
USER = "walker"
QUESTION = "what does parse_date do?"
REQUEST = "write a function slugify in text_utils.py that turns a title into a URL slug"
SECOND_REQUEST = "write a function shout_twice in text_utils.py that repeats the shouted text"
#: Plugin settings of the walk: defaults (the context window ``auto``: read from the server),
#: except where the repository is, two draft iterations (the issue's "two-iteration request")
#: and no package index (nothing downloaded).
SETTINGS = {"max_iterations": 2, "package_index_url": "http://127.0.0.1:9/simple"}
FILES = {
    "dates.py": "def parse_date(text):\n    \"\"\"Split an ISO date into year, month, day.\"\"\"\n"
                "    year, month, day = text.split('-')\n"
                "    return int(year), int(month), int(day)\n",
    "text_utils.py": "def shout(text):\n    \"\"\"The text in capitals.\"\"\"\n"
                     "    return text.upper()\n",
    "auth.py": "def authenticate(user, password):\n    return login(user)\n\n\n"
               "def login(user):\n    return user\n",
}
#: How the final message of a draft loop begins, by outcome.
COMMITTED = "Draft committed"
OUTCOME_STARTS = (COMMITTED, "I gave up", "The draft loop stopped with an error", "Stopped")


def make_repository(root: Any) -> Any:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (root / name).write_text(text)
    return root


def use_openai_compatible_server(run: cat_harness.CatRun, base_url: str) -> dict:
    """Point the Cat's LLM at ``base_url`` (an OpenAI-compatible server) through its admin API,
    with the settings the admin panel offers (the defaults: low temperature, streaming)."""
    payload = {"url": f"{base_url}/v1", "model_name": MODEL, "api_key": "none",
               "temperature": 0.01, "streaming": True}
    answer = run.client.put("/llm/settings/LLMOpenAICompatibleConfig", json=payload)
    assert answer.status_code == 200, answer.text
    assert type(run.ccat._llm).__name__ == "CustomOpenAI", type(run.ccat._llm)
    return dict(answer.json())


@dataclass
class Turn:
    """One step of the walk: what the user said (or waited for) and what came back."""

    action: str
    said: str
    answer: str | None
    seconds: float
    calls: list[Call] = field(default_factory=list)
    #: For the scripted model: the prompts it received (no server, no tokens).
    prompts: list[str] = field(default_factory=list)

    @property
    def call_count(self) -> int:
        return len(self.calls) or len(self.prompts)

    def kinds(self) -> list[str]:
        return [c.kind for c in self.calls] or [kind_of(p) for p in self.prompts]

    def describe(self) -> str:
        answer = "no answer" if self.answer is None else repr(self.answer[:300])
        return (f"{self.action} ({self.said!r}): {answer} after {self.seconds:.0f} s, "
                f"{self.call_count} LLM calls {self.kinds()}")


def _is_answer(frame: dict) -> bool:
    """The turn's own answer (a draft loop's messages carry ``content``, not ``text``)."""
    return frame.get("type") == "error" or (frame.get("type") == "chat" and "text" in frame)


def _is_outcome(frame: dict) -> bool:
    content = frame.get("content")
    return frame.get("type") == "chat" and isinstance(content, str) \
        and content.startswith(OUTCOME_STARTS)


class Walk:
    """The steps on one open socket; every step is recorded in ``turns``."""

    def __init__(self, run: cat_harness.CatRun, chat: cat_harness.ChatSession,
                 recorder: Recorder | None = None,
                 prompts: Callable[[], list[str]] | None = None) -> None:
        self.run, self.chat, self.recorder, self.prompts = run, chat, recorder, prompts
        self.turns: list[Turn] = []
        self.deadline = time.monotonic() + WALK_SECONDS

    def _wait(self, matches: Callable[[dict], bool], limit: float) -> dict | None:
        """The first matching frame within ``limit`` (or, late, within the grace), never past
        the walk's budget."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            return None
        return self.chat.wait_for(matches, min(limit, left)) or self.chat.wait_for(
            matches, max(0.0, min(GRACE_SECONDS, self.deadline - time.monotonic())))

    def dump(self) -> list[dict]:
        """The walk as JSON-ready records (every call with its tokens and reply)."""
        return [{"action": t.action, "said": t.said, "answer": t.answer,
                 "seconds": round(t.seconds, 1), "kinds": t.kinds(),
                 "calls": [{"kind": c.kind, "status": c.status, "max_tokens": c.max_tokens,
                            "response_format": c.response_format,
                            "prompt_tokens": c.prompt_tokens,
                            "completion_tokens": c.completion_tokens,
                            "finish_reason": c.finish_reason, "seconds": round(c.seconds, 1),
                            "client_gone": c.client_gone, "reply": c.reply[:2000]}
                           for c in t.calls]} for t in self.turns]

    def save(self, path: Any) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(self.dump(), handle, indent=1)

    def _mark(self) -> tuple[int, int]:
        calls = self.recorder.mark() if self.recorder else 0
        return calls, len(self.prompts()) if self.prompts else 0

    def _record(self, action: str, said: str, answer: str | None, started: float,
                mark: tuple[int, int]) -> Turn:
        turn = Turn(action, said, answer, time.monotonic() - started,
                    self.recorder.since(mark[0]) if self.recorder else [],
                    self.prompts()[mark[1]:] if self.prompts else [])
        self.turns.append(turn)
        return turn

    def say(self, action: str, text: str, limit: float = TURN_SECONDS) -> Turn:
        mark, started = self._mark(), time.monotonic()
        self.chat.ws.send_json({"text": text})
        frame = self._wait(_is_answer, limit)
        answer = None if frame is None else str(frame.get("text") or frame.get("description"))
        return self._record(action, text, answer, started, mark)

    def outcome(self, limit: float = OUTCOME_SECONDS, since: Turn | None = None) -> Turn:
        """Wait for the draft loop's final message (its calls counted from ``since``)."""
        mark, started = self._mark(), time.monotonic()
        if since is not None:
            mark = (mark[0] - len(since.calls), mark[1] - len(since.prompts))
            started -= since.seconds
        frame = self._wait(_is_outcome, limit)
        answer = None if frame is None else str(frame["content"])
        return self._record("draft loop", "(waiting)", answer, started, mark)

    def request_to_outcome(self, request: str = REQUEST) -> tuple[Turn, Turn | None]:
        """The request, then "go" and the outcome when a proposal came (else None)."""
        proposal = self.say("request", request)
        if proposal.answer is None or "**go**" not in proposal.answer:
            return proposal, None
        go = self.say("go", "go")
        if go.answer is None or not go.answer.startswith("Drafting"):
            return proposal, go
        return proposal, self.outcome(since=go)
