"""Fitting a prompt into the model's context window before it is sent, never after.

A server whose window is smaller than the prompt cuts it silently (Ollama drops the start of a
longer prompt: the instructions), or refuses it. So every prompt is measured before it is sent
(the model's tokenizer where the host exposes one, else ``bounds.estimate_tokens``), and a prompt
that would not leave room for the step's completion limit is fitted:

1. retrieved context goes first, least relevant first: every prompt shows retrieved material as
   ``<<<DATA kind=...>>>`` blocks in relevance order (``llm/templates.py``), so the blocks of
   the retrieved kinds (``DROPPABLE``) are removed from the last one backwards;
2. then the longest shortenable blocks (``SHORTENABLE``: memories being scored, test output, a
   quoted previous answer, feedback) are cut at the end, each keeping a head, with a note;
3. what still does not fit (the instructions, the draft itself) is refused with
   ``PromptTooLong``, whose message says the sizes and the setting to change.

The completion limit is then lowered to what the window leaves, when that is less.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from .bounds import CallOptions, estimate_tokens
from .errors import LLMError

Measure = Callable[[str], int]

#: retrieved material, dropped block by block (the last block of a kind is its least relevant);
#: a ``context`` block is retrieved code unless its source is the scoring query
DROPPABLE = ("associative", "api", "repo", "context")
#: material that may be shortened (its head kept)
SHORTENABLE = ("memory", "test_results", "previous_answer", "feedback", "context", "impact")
_KEPT_SOURCES = ("query",)
#: tokens kept for the chat template's wrapping of the prompt (role markers, BOS/EOS)
TEMPLATE_RESERVE = 48
#: the smallest completion limit worth sending; below it the prompt is fitted harder
MIN_COMPLETION = 16

_BLOCK = re.compile(r'<<<DATA kind="(?P<kind>[a-z0-9_-]+)" source="(?P<source>[^"]*)">>>\n'
                    r'(?P<body>.*?)\n<<<END DATA>>>', re.S)
_MIN_BODY = 100
_CUT_NOTE = "\n... (cut to fit the window)"


class PromptTooLong(LLMError):
    """The prompt cannot be made to fit the window without cutting its instructions."""


@dataclass(frozen=True)
class Fitted:
    """The prompt and options to send, and what fitting removed."""

    prompt: str
    options: CallOptions
    tokens: int
    dropped: int = 0
    shortened: int = 0


def fit_prompt(prompt: str, options: CallOptions, window: int, measure: Measure = estimate_tokens,
        *, what: str = "this step") -> Fitted:
    """``prompt`` fitted so that its measure plus the completion limit stays within ``window``."""
    wanted = options.max_tokens or max(MIN_COMPLETION, window // 4)
    room = window - TEMPLATE_RESERVE
    budget = room - min(wanted, max(MIN_COMPLETION, room // 2))
    tokens = measure(prompt)
    dropped = shortened = 0
    if tokens > room - wanted:
        prompt, dropped = _drop(prompt, budget, measure)
        tokens = measure(prompt)
    if tokens > budget:
        prompt, shortened = _shorten(prompt, budget, measure)
        tokens = measure(prompt)
    if tokens > room - MIN_COMPLETION:
        raise PromptTooLong(
            f"the prompt for {what} needs about {tokens} tokens and the model's context window "
            f"is {window} (with room for a {MIN_COMPLETION}-token answer); raise the plugin's "
            "'Context window (tokens)' setting if the model has a larger window, or use a "
            "model with a larger one")
    limit = room - tokens
    if options.max_tokens is None or options.max_tokens > limit:
        options = replace(options, max_tokens=limit)
    return Fitted(prompt, options, tokens, dropped, shortened)


def _drop(prompt: str, budget: int, measure: Measure) -> tuple[str, int]:
    """Remove retrieved blocks, the last (least relevant) first, until ``budget`` is met."""
    dropped = 0
    while measure(prompt) > budget:
        blocks = [m for m in _BLOCK.finditer(prompt) if m.group("kind") in DROPPABLE
                  and m.group("source") not in _KEPT_SOURCES]
        if not blocks:
            break
        last = blocks[-1]
        start, end = last.span()
        if prompt[end:end + 1] == "\n":
            end += 1
        prompt = prompt[:start] + ("(more was cut to fit the model's context window)\n"
                                   if dropped == 0 else "") + prompt[end:]
        dropped += 1
    return prompt, dropped


def _shorten(prompt: str, budget: int, measure: Measure) -> tuple[str, int]:
    """Cut the longest shortenable blocks' ends until ``budget`` is met (or nothing is left)."""
    shortened: set[int] = set()
    for _ in range(1000):
        excess = measure(prompt) - budget
        if excess <= 0:
            break
        blocks = sorted((m for m in _BLOCK.finditer(prompt) if m.group("kind") in SHORTENABLE
                         and len(m.group("body")) > _MIN_BODY), key=lambda m: -len(m.group("body")))
        if not blocks:
            break
        longest = blocks[0]
        body = longest.group("body").removesuffix(_CUT_NOTE)
        # down to the next longest block at most (the longest are evened out first), and by at
        # least an eighth, so a few rounds do it
        floor = len(blocks[1].group("body")) if len(blocks) > 1 else 0
        keep = max(_MIN_BODY // 2, min(len(body) - max(1, len(body) // 8),
                                       max(floor, len(body) - excess * 3)))
        start, end = longest.span("body")
        prompt = prompt[:start] + body[:keep] + _CUT_NOTE + prompt[end:]
        shortened.add(start)
    return prompt, len(shortened)
