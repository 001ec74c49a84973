"""Fitting a prompt into the model's context window before it is sent, never after.

A server whose window is smaller than the prompt cuts it silently (Ollama drops the start of a
longer prompt: the instructions), or refuses it. So every prompt is measured before it is sent
(the model's tokenizer where the host exposes one, else ``bounds.estimate_tokens``), and a prompt
that would not leave room for the step's completion limit is fitted:

1. retrieved context is made shorter, then goes, keeping first what the goal needs: every
   prompt shows retrieved material as ``<<<DATA kind=...>>>`` blocks in relevance order
   (``llm/templates.py``). First the long docstrings in the blocks of the retrieved kinds
   (``DROPPABLE``: code, API facts, notes) are cut to their first paragraph, the longest first
   (a class's page of usage notes is worth less than another method's signature); then blocks
   are removed, from the last one backwards, those whose name the goal does not mention first
   (``CallOptions.focus``: the goal's names and words; a block ``tinydb.Table.insert`` is named
   by "table" or "insert"); what was removed is named where it stood;
2. then the longest shortenable blocks (``SHORTENABLE``: memories being scored, test output, a
   quoted previous answer, feedback) are cut at the end, each keeping a head, with a note;
3. what still does not fit (the instructions, the draft itself) is refused with
   ``PromptTooLong``, whose message says the sizes and the setting to change.

The completion limit is then lowered to what the window leaves, when that is less.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
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
#: a docstring longer than this is cut to its first paragraph before any block is dropped
LONG_DOC = 240
_DOC_CUT = "... (the rest of this docstring was cut to fit the model's context window)"
#: an API fact's docstring: the indented lines after its ``def``/``class`` line
_API_DOC = re.compile(r"^((?:async def|def|class) [^\n]*\n)((?: {4}[^\n]*(?:\n|$)|\n)+)",
                      re.M)
#: a code block's docstring
_CODE_DOC = re.compile(r'(""\"|\'\'\')(.*?)\1', re.S)
_NAME = re.compile(r"[A-Za-z0-9]+")


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
        prompt = _cut_docstrings(prompt, budget, measure)
        prompt, dropped = _drop(prompt, budget, measure, frozenset(options.focus))
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


def _droppable(prompt: str) -> list[re.Match[str]]:
    return [m for m in _BLOCK.finditer(prompt) if m.group("kind") in DROPPABLE
            and m.group("source") not in _KEPT_SOURCES]


def _cut_docstrings(prompt: str, budget: int, measure: Measure) -> str:
    """Cut the long docstrings of retrieved blocks to their first paragraph, the longest
    first, until ``budget`` is met (or none is left to cut)."""
    while measure(prompt) > budget:
        found = [(len(doc), m, doc) for m in _droppable(prompt)
                 for doc in _long_docs(m.group("kind"), m.group("body"))]
        for _, block, doc in sorted(found, key=lambda item: -item[0]):
            body = block.group("body")
            cut = body.replace(doc, _first_paragraph(doc), 1)
            if cut != body:
                start, end = block.span("body")
                prompt = prompt[:start] + cut + prompt[end:]
                break
        else:
            break
    return prompt


def _long_docs(kind: str, body: str) -> list[str]:
    """The long docstrings of a block: an API fact's indented text, else code's strings."""
    docs = [m.group(2) for m in (_API_DOC if kind == "api" else _CODE_DOC).finditer(body)]
    return [d for d in docs if len(d) > LONG_DOC and _first_paragraph(d) != d]


def _first_paragraph(doc: str) -> str:
    """The docstring's first paragraph and a note that the rest was cut."""
    head = re.split(r"\n[ \t]*\n", doc.strip("\n"), maxsplit=1)[0]
    if _DOC_CUT in head or len(head) >= len(doc.strip("\n")):
        return doc
    indent = re.match(r"[ \t]*", doc.lstrip("\n")).group(0)  # type: ignore[union-attr]
    return f"{head}\n{indent}{_DOC_CUT}\n" + ("" if doc.endswith("\n") else indent)


def block_name(source: str) -> str:
    """What a block is called: the last word of its source (``vendor tinydb.Table.insert``
    -> ``tinydb.Table.insert``)."""
    return source.split()[-1] if source.split() else source


def _named(source: str, focus: Collection[str]) -> bool:
    """Whether the goal names the block: the last two parts of its name (the entity and its
    class) hold a word of the goal."""
    parts = [p.lower() for p in re.split(r"[.:/]", block_name(source)) if p][-2:]
    words = {w.lower() for part in parts for w in _NAME.findall(part.replace("_", " "))}
    return bool(focus and ({p for p in parts} | words) & set(focus))


def _drop(prompt: str, budget: int, measure: Measure,
          focus: Collection[str] = ()) -> tuple[str, int]:
    """Remove retrieved blocks until ``budget`` is met: the last first, among those the goal
    does not name first; what went is named where the first of them stood."""
    names: list[str] = []
    mark = "\x00cut\x00"
    while measure(prompt.replace(mark, "")) > budget:
        blocks = _droppable(prompt)
        if not blocks:
            break
        unnamed = [m for m in blocks if not _named(m.group("source"), focus)]
        last = (unnamed or blocks)[-1]
        start, end = last.span()
        if prompt[end:end + 1] == "\n":
            end += 1
        names.append(block_name(last.group("source")))
        prompt = prompt[:start] + mark + prompt[end:]
    if not names:
        return prompt, 0
    shown = list(dict.fromkeys(n for n in names if n))
    more = f" and {len(shown) - 12} more" if len(shown) > 12 else ""
    note = f"(more was cut to fit the model's context window: {', '.join(shown[:12])}{more})\n"
    first = prompt.index(mark)
    prompt = prompt[:first] + note + prompt[first:].replace(mark, "")
    return prompt, len(names)


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
