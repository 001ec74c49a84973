"""Ask for a structured answer within a small budget, quoting each refusal back to the model.

The exchange is sans-IO (``Exchange``: next prompt, feed the reply) so the synchronous driver of
``codegen`` and the asynchronous one of ``memory`` share one policy: a refused reply is answered
with the exact refusal and the original instructions; a failed call (the model's client raised)
repeats the same prompt. Either way it uses one attempt of the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from .bounds import CallOptions, call
from .errors import ReplyRefused
from .reader import ReplySpec, read_reply
from .templates import TemplateSet, data_block

T = TypeVar("T")

TEMPLATES = TemplateSet({
    "retry": """Your previous answer could not be used: $refusal
$data_rule

Your previous answer:
$previous

Answer again, following the instructions below exactly, with ONE JSON object.

$original
""",
})


@runtime_checkable
class JsonCompleter(Protocol):
    """A completer that can ask its model for JSON natively (JSON mode or a JSON schema)."""

    def complete_json(self, prompt: str, json_schema: Mapping[str, Any]) -> str: ...


RetryPrompt = Callable[[str, str, str], str]
"""``(refusal, previous reply, original prompt) -> the next prompt``."""


def retry_prompt(refusal: str, previous: str, original: str) -> str:
    """The default retry prompt: the refusal, the previous answer (as data), the instructions."""
    shown = previous if len(previous) <= 4000 else previous[:4000] + "\n... (cut)"
    return TEMPLATES.render("retry", refusal=refusal, original=original,
                            previous=data_block("previous_answer", "llm", shown))


@dataclass(frozen=True)
class Asked(Generic[T]):
    """The outcome of an exchange: the value, or the last refusal; and what it cost."""

    value: T | None
    refusal: str
    calls: int
    replies: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return self.value is not None


class Exchange(Generic[T]):
    """The retry policy without I/O: ask ``next_prompt()``, then ``feed`` or ``fail``."""

    def __init__(self, prompt: str, spec: ReplySpec[T], *, attempts: int = 2,
                 retry: RetryPrompt = retry_prompt) -> None:
        self.original, self.spec, self.attempts, self._retry = prompt, spec, max(1, attempts), retry
        self._prompt: str | None = prompt
        self._value: T | None = None
        self._refusal = ""
        self._replies: list[str] = []
        self._calls = 0

    def next_prompt(self) -> str | None:
        """The prompt to send now, or None when the exchange is over."""
        if self._value is not None or self._calls >= self.attempts:
            return None
        return self._prompt

    def feed(self, reply: str) -> T | None:
        """Read one reply; a refusal prepares the retry prompt quoting it."""
        self._calls += 1
        self._replies.append(reply if isinstance(reply, str) else repr(reply))
        try:
            self._value = read_reply(reply, self.spec)
        except ReplyRefused as err:
            self._refusal = str(err)
            self._prompt = self._retry(self._refusal, self._replies[-1], self.original)
        return self._value

    def fail(self, message: str) -> None:
        """A call that produced no reply (the client raised, timed out): same prompt again."""
        self._calls += 1
        self._refusal = message

    def result(self) -> Asked[T]:
        return Asked(self._value, "" if self._value is not None else self._refusal,
                     self._calls, tuple(self._replies))


def complete(llm: Callable[[str], Any], prompt: str, spec: ReplySpec[Any],
             timeout_s: float | None = None) -> Any:
    """Call ``llm`` with the spec's completion limit and schema where it accepts them
    (``bounds.call``: natively asking for JSON when it can)."""
    return call(llm, prompt, CallOptions(spec.max_tokens, spec.json_schema, timeout_s))


def ask(llm: Callable[[str], str], prompt: str, spec: ReplySpec[T], *, attempts: int = 2,
        retry: RetryPrompt = retry_prompt) -> Asked[T]:
    """Ask until a reply is read or ``attempts`` calls were made (the client's errors propagate)."""
    exchange = Exchange(prompt, spec, attempts=attempts, retry=retry)
    while (next_prompt := exchange.next_prompt()) is not None:
        exchange.feed(complete(llm, next_prompt, spec))
    return exchange.result()
