"""``CodeContext`` (docs/memory-api.md) and how a context and a memory are rendered as text.

Kept apart from ``codebase`` so the rendering rules (what the scoring LLM and the cache key see)
are small, pure and testable on their own. ``CodeContext`` is re-exported by ``codebase``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .store.support import JSONDict

CODE_ENTITY = "code_entity"
DOCUMENTATION = "documentation"
DEBUGGING_SESSION = "debugging_session"
SOURCE_ENTITY = "source_entity"
"""An entity of an associative source (another repository, a library): reference, not code to
edit. Its metadata names the source (``source_name``, ``source_version``)."""


@dataclass
class CodeContext:
    """Rich context for code-related queries (docs/memory-api.md, "CodeContext")."""

    user_query: str
    current_file: str | None = None
    recent_changes: str | None = None
    errors: str | None = None
    accessed_files: list[str] | None = None
    additional_context: str | None = None


@dataclass(frozen=True)
class Request:
    """A retrieval request as it travels through ``MemorySystem._retrieve``'s hooks."""

    context: CodeContext
    include_file_hashes: bool


def require_text(**fields: object) -> None:
    for name, value in fields.items():
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{name} must be a non-empty string")


def as_context(context: object) -> CodeContext:
    if isinstance(context, CodeContext):
        if not isinstance(context.user_query, str) or not context.user_query.strip():
            raise ValueError("CodeContext.user_query must be a non-empty string")
        return context
    if isinstance(context, str) and context.strip():
        return CodeContext(user_query=context.strip())
    raise ValueError("context must be a non-empty string or a CodeContext")


def render_context(ctx: CodeContext, file_hashes: dict[str, str] | None) -> str:
    """The text used for candidate search, the scoring prompt and the score-cache key."""
    lines = [f"Query: {ctx.user_query.strip()}"]
    for label, value in (("Current file", ctx.current_file), ("Errors", ctx.errors),
                         ("Recent changes", ctx.recent_changes),
                         ("Additional context", ctx.additional_context)):
        if value:
            lines.append(f"{label}: {value}")
    if ctx.accessed_files:
        lines.append("Recently viewed files: " + ", ".join(ctx.accessed_files))
    if file_hashes:
        lines.append("File versions: " + ", ".join(f"{p}@{h}"
                                                   for p, h in sorted(file_hashes.items())))
    return "\n".join(lines)


def search_text(ctx: CodeContext) -> str:
    """What candidate search looks for: the request, then errors and extra context.

    No labels ("Query:", "Errors:"): they would become search terms matching every memory
    that mentions a query or an error. File paths are left out; the dependency boost uses them.
    """
    parts = [ctx.user_query, ctx.errors, ctx.additional_context]
    return "\n".join(p.strip() for p in parts if p and p.strip())


def describe(metadata: JSONDict | None) -> str:
    """One header line for a memory: where a code entity lives, or what a note is."""
    meta = metadata or {}
    kind = meta.get("type")
    if kind == CODE_ENTITY:
        return (f"[{meta.get('language')} {meta.get('kind')}] {meta.get('path')}:"
                f"{meta.get('start_line')}-{meta.get('end_line')} {meta.get('qualified_name')}")
    if kind == SOURCE_ENTITY:
        label = " ".join(str(meta[k]) for k in ("source_name", "source_version") if meta.get(k))
        return (f"[{label} {meta.get('kind')}] {meta.get('public_name')} "
                f"({meta.get('path')}:{meta.get('start_line')})")
    if kind == DOCUMENTATION:
        return f"[documentation: {meta.get('category')}] {meta.get('title')}"
    if kind == DEBUGGING_SESSION:
        where = f" ({meta['file_path']})" if meta.get("file_path") else ""
        return f"[debugging session]{where}"
    return "[memory]"
