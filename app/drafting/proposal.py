"""From a code request to proposed meta-code: the proposal and its revisions.

The request's words, its file and symbol, and the user's corrections so far (in order) become
one meta-code prompt, with the task's code context and, for an existing target, its impact (who
calls it: the model proposes the scope of the change). What the user said wins over the model's
guess for the file and the symbol.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence

from ...codegen import ContextSnippet, MetaCode, MetaCodeInvalid, generate_metacode
from ...memory import Impact
from ..projects.registry import Project

log = logging.getLogger(__name__)

#: Snippets of code context shown to the meta-code prompt.
PROPOSAL_CONTEXT = 6

PROPOSAL_HELP = ("Reply **go** to start drafting, **cancel** to drop the request, or tell me "
                 "what to change.")


def retrieval_query(request: Mapping[str, str]) -> str:
    """The task's one retrieval query: the request, its file and its symbol."""
    parts = [str(request.get("request", "")), str(request.get("target_path", "")),
             str(request.get("symbol", ""))]
    return " ".join(p.strip() for p in parts if p.strip())


def metacode_query(meta: MetaCode) -> str:
    """The drafting retrieval's query: what the user confirmed (target, signature, behaviour,
    constraints), so a library or helper the meta-code names reaches the drafts' context."""
    parts = [meta.symbol, meta.target_path, meta.signature, meta.behaviour, *meta.constraints]
    return " ".join(str(p).strip() for p in parts if str(p or "").strip())


def task_impact(project: Project, request: Mapping[str, str]) -> Impact | None:
    """Who uses the request's target, from the index (None: a new entity, or none named)."""
    path, symbol = (str(request.get(k, "")).strip() for k in ("target_path", "symbol"))
    if not path or not symbol:
        return None
    impact = project.code.impact(project.root, path, symbol)
    return impact if impact.found else None


def proposal_text(meta: MetaCode, impact: Impact | None, *, revised: bool = False) -> str:
    """The proposal as the user reads it: the meta-code (with its scope), who uses the target,
    and what to say next."""
    parts = [f"Revised:\n\n{meta.render_markdown()}" if revised else meta.render_markdown()]
    if impact is not None and impact.sites:
        parts.append(impact.render())
    return "\n\n".join([*parts, PROPOSAL_HELP])


def propose(request: Mapping[str, str], feedback: Sequence[str], llm: Callable[[str], str],
            context: Sequence[ContextSnippet], impact: Impact | None = None) -> MetaCode:
    """Meta-code for the request and the user's corrections so far (in order); with the
    target's ``impact``, the model proposes the scope (the callers the change must update)."""
    lines = [str(request["request"]), f"Target file: {request['target_path']}"]
    if str(request.get("symbol", "")).strip():
        lines.append(f"Symbol: {request['symbol']}")
    if str(request.get("kind", "")).strip():
        lines.append(f"Kind: {request['kind']}")
    if feedback:
        lines.append("The user's corrections to the previous proposal, in order:")
        lines.extend(f"- {item}" for item in feedback)
    target = tuple(str(request.get(k, "")).strip() for k in ("target_path", "symbol", "kind"))
    meta = generate_metacode("\n".join(lines), llm=llm, context=context, impact=impact,
                             target=(target[0], target[1], target[2]))
    for key in ("target_path", "symbol"):  # what the user said wins over the model's guess...
        wanted = str(request.get(key, "")).strip()
        if wanted and getattr(meta, key) != wanted:
            try:
                meta = meta.with_changes(**{key: wanted})
            except MetaCodeInvalid as err:  # ...unless the rest of the proposal contradicts it
                log.info("kept the proposal's %s: %s", key, err)
    return meta
