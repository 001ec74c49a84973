"""The ``query`` prompt of both memory systems, and how a retrieved memory is shown to a model.

Why here: the default prompts are templates of ``prompts`` (strict, pinned by golden files), but
the memory API also lets a user pass their own ``str.format`` template (``query_prompt_template``,
``custom_prompt_template``). Both kinds receive the same values: the context and every memory as
escaped data blocks (text from a repository cannot close its block and speak as instructions),
the caller's task or request as plain text (it IS the instruction). A user template may also use
``{data_rule}``, the sentence that tells the model what a data block is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence

from ..llm.templates import DATA_RULE, data_block, data_blocks
from .prompts import render
from .retrieval.results import ScoredMemory

NO_MEMORIES = "(no relevant memories)"

#: The caller's primary model: async ``str -> str`` (a plain function works too)
PrimaryFn = Callable[[str], "Awaitable[str] | str"]


class _KeepUnknown(dict[str, str]):
    """``format_map`` values that leave an unknown ``{name}`` as written (docs/memory-api.md)."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def score_label(memory: ScoredMemory, *, unscored: bool) -> str:
    """``[relevance: 0.80] `` (``[relevance: unscored] `` when ``unscored``)."""
    return "[relevance: unscored] " if unscored else f"[relevance: {memory.relevance_score:.2f}] "


def memory_item(memory: ScoredMemory, include_scores: bool = True) -> str:
    """One general memory as a model sees it: its score label, then its text."""
    if not include_scores:
        return memory.text
    return score_label(memory, unscored=memory.error is not None) + memory.text


def numbered(items: Sequence[str]) -> str:
    """``1. first`` / ``2. second``..., continuation lines indented under their number."""
    return "\n".join(f"{i}. " + item.replace("\n", "\n   ") for i, item in enumerate(items, 1))


def memory_blocks(items: Sequence[str]) -> str:
    """Each memory in its own data block (``memory 1`` is the most relevant)."""
    return data_blocks([("memory", f"memory {i}", text) for i, text in enumerate(items, 1)],
                       empty=NO_MEMORIES)


def _data(context: str, items: Sequence[str]) -> dict[str, str]:
    return {"context": data_block("context", "query", context), "memories": memory_blocks(items)}


def general_query_prompt(template: str | None, *, context: str, items: Sequence[str],
                         task: str) -> str:
    """``MemorySystem.query``'s prompt: the ``query`` template, or the user's ``template``
    (``{context}``, ``{memories}``, ``{task}``, ``{data_rule}``; an unknown name raises
    ``KeyError`` as ``str.format`` does)."""
    values = _data(context, items)
    if template is None:
        return render("query", task=task, **values)
    return template.format(**values, task=task, data_rule=DATA_RULE)


def code_query_prompt(template: str | None, *, context: str, items: Sequence[str],
                      query: str) -> str:
    """``CodeMemorySystem.build_prompt``: the ``code_query`` template, or the user's
    ``template`` (``{query}``, ``{task}`` = ``{query}``, ``{context}``, ``{memories}``,
    ``{data_rule}``; an unknown ``{name}`` is left as written)."""
    values = _data(context, items)
    if template is None:
        return render("code_query", query=query, **values)
    return _fill_leniently(template, {**values, "query": query, "task": query,
                                      "data_rule": DATA_RULE})


def _fill_leniently(template: str, values: Mapping[str, str]) -> str:
    return template.format_map(_KeepUnknown(values))


async def ask_primary(primary_model_fn: PrimaryFn, prompt: str) -> str:
    """The primary model's answer to ``prompt``; its errors propagate (it is not retried)."""
    reply = primary_model_fn(prompt)
    if isinstance(reply, str):
        return reply
    return await reply
