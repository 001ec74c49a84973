"""``CodeMemorySystem``, the memory API's code system (docs/memory-guide.md, "Memory API").

It IS a ``MemorySystem``: code entities, documentation and debugging sessions are memories of
the same store, with the same methods and retrieval. It adds incremental indexing
(``codeindex``), the impact of a change, dependency and recency boosts after LLM scoring, a
code-aware prompt, and an optional vector sink (the Cat's declarative collection) receiving
what the sink mode says (entities, file outlines or nothing), repaired when wiped.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from .code_context import (
    CODE_ENTITY,
    DEBUGGING_SESSION,
    DOCUMENTATION,
    CodeContext,
    Request,
    as_context,
    describe,
    render_context,
    require_text,
    search_text,
)
from .code_indexing import CodeIndexing
from .codeindex.manifest import CodeManifest
from .codeindex.records import IndexReport
from .codeindex.sink_sync import SinkMode, SinkSync
from .codeindex.vector_sink import VectorSink
from .codeindex.walk import (
    ExtractorFn,
    WalkerFn,
    default_extractor,
    default_walker,
)
from .defaults import CODE_MEMORY_DEFAULTS as DEFAULTS
from .query_prompt import PrimaryFn, ask_primary, code_query_prompt, score_label
from .retrieval.code_focus import Boosts, CodeFocus
from .retrieval.recency import RecencyTracker
from .retrieval.results import Candidate, ScoredMemory
from .store.lexical import query_tokens
from .store.memory_store import MemoryRecord
from .store.support import Filters, JSONDict
from .system_config import CodeRetrievalConfig

MAX_CANDIDATE_CHARS = 4000


class CodeMemorySystem(CodeIndexing):
    """Code intelligence memory: index repositories, retrieve entities for a ``CodeContext``.

    Positional parameters as docs/memory-api.md lists them, defaults from ``defaults.py``.
    Keyword-only extras: ``embedder`` (default ``HashingEmbedder``; in the Cat ``cat.embedder``),
    ``vector_sink`` (e.g. ``CatVectorSink(cat.memory.vectors.declarative)``), ``sink_mode`` (what
    the sink receives, a ``codeindex.sink_sync.SinkMode``), ``repository_id`` (fixed id for the
    indexed repository; default derived from its path), ``max_file_bytes``, ``walker`` /
    ``extractor`` (defaults: the extraction package's safe walker and crash-contained worker
    pool), ``workers`` (pool size) and any ``MemorySystem`` keyword (``candidate_limit``...).
    """

    #: ``None``: the built-in ``code_query`` prompt; or a ``str.format`` template (``{query}``,
    #: ``{task}``, ``{context}``, ``{memories}``, ``{data_rule}``)
    query_prompt_template: str | None = None
    lost_on_corruption: str = (
        "documentation notes, debugging sessions, task notes and any other memory added "
        "directly, their change history and the score cache; the code index is rebuilt from "
        "the repository by the next index_repository (a full index)")

    def __init__(
        self,
        small_model_fn: Callable[[str], Awaitable[str]],
        db_path: str = "code_memories.db",
        relevance_threshold: float = DEFAULTS.relevance_threshold,
        max_memories: int = DEFAULTS.max_memories,
        batch_size: int = DEFAULTS.batch_size,
        enable_caching: bool = DEFAULTS.enable_caching,
        enable_dependency_boost: bool = DEFAULTS.enable_dependency_boost,
        enable_recency_boost: bool = DEFAULTS.enable_recency_boost,
        dependency_boost_amount: float = DEFAULTS.dependency_boost_amount,
        recency_boost_amount: float = DEFAULTS.recency_boost_amount,
        recency_days: int = DEFAULTS.recency_days,
        retry_attempts: int = DEFAULTS.retry_attempts,
        retry_delay: float = DEFAULTS.retry_delay,
        *,
        vector_sink: VectorSink | None = None,
        sink_mode: SinkMode | str = SinkMode.ENTITIES,
        repository_id: str | None = None,
        max_file_bytes: int = 1_000_000,
        walker: WalkerFn | None = None,
        extractor: ExtractorFn | None = None,
        workers: int | None = None,
        **memory_kwargs: Any,  # Any: forwarded to MemorySystem, whose parameters check them
    ) -> None:
        boosts = CodeRetrievalConfig(  # checked before the store opens: ValueError
            enable_dependency_boost=bool(enable_dependency_boost),
            dependency_boost_amount=dependency_boost_amount,
            enable_recency_boost=bool(enable_recency_boost),
            recency_boost_amount=recency_boost_amount, recency_days=recency_days)
        super().__init__(small_model_fn, db_path, relevance_threshold, max_memories, batch_size,
                         retry_attempts, retry_delay, enable_caching=enable_caching,
                         **memory_kwargs)
        self._config = dataclasses.replace(boosts, **dataclasses.asdict(self._config))
        self.max_file_bytes = max_file_bytes
        self._repository_id = repository_id
        # A damaged file is replaced by an empty one (the manifest's connection moves with the
        # store's): the next index_repository is a full index; recency snapshots start over.
        self._manifest = CodeManifest(db_path, on_damage=self._store.damage_found)
        self._recency = RecencyTracker(recency_days)  # its window follows the config (below)
        self._store.damage.listeners.append(lambda notice: self._recency.invalidate())
        self._focus = CodeFocus(self._manifest, self._recency, self.list_memories)
        self._walker = walker or default_walker
        self._extractor = extractor or default_extractor(workers)
        self.sink_mode = SinkMode(sink_mode)
        self._sink = SinkSync(self._manifest, self._entity_payloads, vector_sink,
                              mode=self._resolved_sink_mode, embed=self._dense.embed_documents)
        self.last_index_report: IndexReport | None = None
        self._recovery_told: Exception | None = None
        self._index_lock = threading.RLock()

    # -- memories of other kinds -----------------------------------------------------------------
    def add_documentation_memory(self, title: str, content: str,
                                 category: str = "documentation",
                                 file_path: str | None = None,
                                 metadata: JSONDict | None = None) -> str:
        """Store a documentation note; returns its memory id. ``ValueError`` if empty."""
        require_text(title=title, content=content)
        meta = {**(metadata or {}), "type": DOCUMENTATION, "title": title,
                "category": category, "file_path": file_path}
        return self.add_memory(f"{title}\n\n{content}", meta)

    def add_debugging_session(self, description: str, error: str, solution: str,
                              file_path: str | None = None,
                              metadata: JSONDict | None = None) -> str:
        """Store how a problem was solved; returns its memory id. ``ValueError`` if empty."""
        require_text(description=description, error=error, solution=solution)
        meta = {**(metadata or {}), "type": DEBUGGING_SESSION, "file_path": file_path}
        text = f"Problem: {description}\nError: {error}\nSolution: {solution}"
        return self.add_memory(text, meta)

    # -- retrieval -------------------------------------------------------------------------------
    async def retrieve_relevant_memories(
        self, context: str | CodeContext, include_file_hashes: bool = True, *,
        filters: Filters | None = None, renderings: Sequence[str] = (),
    ) -> list[ScoredMemory]:
        """Memories relevant to ``context`` (a string or ``CodeContext``), best first.

        Candidates come from the Memory API's bounded lexical + dense stage and are scored by
        the small LLM (cached); then the dependency and recency boosts apply (capped at 1.0),
        then the threshold and ``max_memories``. ``include_file_hashes`` folds the content
        hashes of the current and accessed files into the cache key, so edits invalidate it.
        ``filters`` (keyword-only extra) restricts candidates by metadata, e.g.
        ``{"type": "code_entity", "repo_id": ...}``; ``renderings``: other wordings searched
        and fused with the context's own ranking (see ``MemorySystem.candidates``).
        """
        return await self._retrieve(Request(as_context(context), bool(include_file_hashes)),
                                    filters=filters, renderings=renderings)

    async def query(self, context: str | CodeContext,  # type: ignore[override]
                    primary_model_fn: PrimaryFn,
                    custom_prompt_template: str | None = None) -> str:
        """Retrieve for ``context`` and ask ``primary_model_fn`` to answer its ``user_query``.

        ``custom_prompt_template`` may use ``{query}``, ``{context}``, ``{memories}`` and
        ``{data_rule}`` (see ``build_prompt``).
        """
        if not callable(primary_model_fn):
            raise ValueError("primary_model_fn must be an async function str -> str")
        ctx = as_context(context)
        memories = await self.retrieve_relevant_memories(ctx)
        return await ask_primary(primary_model_fn,
                                 self.build_prompt(ctx, memories, custom_prompt_template))

    def build_prompt(self, context: str | CodeContext, memories: Sequence[ScoredMemory],
                     template: str | None = None) -> str:
        """The ``query`` prompt for ``memories`` (also usable by the Cat glue).

        ``template`` (else ``query_prompt_template``, else the built-in prompt) may use
        ``{query}``, ``{context}``, ``{memories}`` and ``{data_rule}``; the context and each
        memory arrive as escaped data blocks."""
        ctx = as_context(context)
        return code_query_prompt(template or self.query_prompt_template,
                                 context=render_context(ctx, None),
                                 items=[self._prompt_memory(m) for m in memories],
                                 query=ctx.user_query)

    def _prompt_memory(self, memory: ScoredMemory) -> str:
        return self._memory_text(memory, include_scores=True)

    @staticmethod
    def _memory_text(memory: ScoredMemory, include_scores: bool) -> str:
        """A ``path:lines qualified_name`` header (what the memory is), then its text."""
        score = score_label(memory, unscored=bool(memory.error)) if include_scores else ""
        return f"{score}{describe(memory.metadata)}\n{memory.text}"

    def format_memories_for_prompt(self, memories: list[ScoredMemory],
                                   include_scores: bool = True) -> str:
        """Numbered memories; code entities get a ``path:lines qualified_name`` header."""
        return "\n\n".join(f"{i}. {self._memory_text(m, include_scores)}"
                            for i, m in enumerate(memories, start=1))

    def candidates(self, context: object, limit: int | None = None,
                   filters: Filters | None = None, *,
                   renderings: Sequence[str] = ()) -> list[Candidate]:
        """As ``MemorySystem.candidates``; a ``current_file`` also fills free slots with what it
        imports or calls and its callers, so the dependency boost has something to raise."""
        found = super().candidates(context, limit, filters, renderings=renderings)
        cfg = self.config
        room = (max(cfg.candidate_limit, cfg.max_memories) if limit is None else limit) - len(found)
        ctx = context.context if isinstance(context, Request) else as_context(context)
        if room <= 0 or not ctx.current_file or not self.enable_dependency_boost:
            return found
        focus = self._focus.focus(ctx)
        if focus is None or not focus.names():
            return found
        wanted = {"$and": [filters, {"type": CODE_ENTITY}]} if filters else {"type": CODE_ENTITY}
        seqs = self._store.lexical(query_tokens(" ".join(focus.names()), 64), 4 * room, wanted)
        taken = {c.record.seq for c in found}
        records = self._store.get_by_seq([s for s in seqs if s not in taken])
        related = [records[s] for s in seqs if s in records and focus.relation(records[s].metadata)]
        return found + [Candidate(r, len(found) + i) for i, r in enumerate(related[:room], 1)]

    # -- MemorySystem hooks ----------------------------------------------------------------------
    def _render_context(self, context: object) -> str:
        if isinstance(context, Request):
            hashes = (self._focus.file_hashes(context.context) if context.include_file_hashes
                      else None)
            return render_context(context.context, hashes)
        return render_context(as_context(context), None)

    def _search_text(self, context: object) -> str:
        ctx = context.context if isinstance(context, Request) else as_context(context)
        return search_text(ctx)

    def _render_candidate(self, record: MemoryRecord) -> str:
        text = record.text
        if len(text) > MAX_CANDIDATE_CHARS:
            text = text[:MAX_CANDIDATE_CHARS] + "\n... (truncated)"
        return f"{describe(record.metadata)}\n{text}"

    @property
    def config(self) -> CodeRetrievalConfig:
        """The retrieval configuration with the boosts (immutable; change it with
        ``update_retrieval_config``, which takes the boosts too)."""
        return cast(CodeRetrievalConfig, self._config)

    enable_dependency_boost = property(lambda self: self.config.enable_dependency_boost)
    dependency_boost_amount = property(lambda self: self.config.dependency_boost_amount)
    enable_recency_boost = property(lambda self: self.config.enable_recency_boost)
    recency_boost_amount = property(lambda self: self.config.recency_boost_amount)
    recency_days = property(lambda self: self.config.recency_days)

    def update_retrieval_config(self, **kwargs: Any) -> None:  # Any: the config checks
        """``MemorySystem.update_retrieval_config``, the boosts included; a new recency window
        drops the recency snapshots taken with the old one."""
        super().update_retrieval_config(**kwargs)
        if self._recency.window_days != self.config.recency_days:
            self._recency.window_days = self.config.recency_days
            self._recency.invalidate()

    def _adjust_scores(self, context: object, scored: list[ScoredMemory]) -> list[ScoredMemory]:
        ctx = context.context if isinstance(context, Request) else as_context(context)
        c = self.config
        return self._focus.adjust(ctx, scored, Boosts(
            c.enable_dependency_boost, c.dependency_boost_amount,
            c.enable_recency_boost, c.recency_boost_amount, c.recency_days))

    # -- stats and lifecycle ---------------------------------------------------------------------
    def clear_cache(self) -> None:
        """Forget cached LLM scores and recency snapshots (after major code changes)."""
        super().clear_cache()
        self._recency.invalidate()

    def get_stats(self) -> JSONDict:
        """The memory API's keys (``total_code_memories``, ``total_non_code_memories``,
        ``total_memories``, ``cache_stats``) plus retrieval and boost configuration."""
        stats = super().get_stats()
        code = self.count_memories({"type": CODE_ENTITY})
        stats.update(
            total_code_memories=code, total_non_code_memories=stats["total_memories"] - code,
            enable_dependency_boost=self.enable_dependency_boost,
            enable_recency_boost=self.enable_recency_boost,
            dependency_boost_amount=self.dependency_boost_amount,
            recency_boost_amount=self.recency_boost_amount, recency_days=self.recency_days,
            repositories=[{"repository_id": r.repo_id, "root": r.root,
                           "embedder": r.embedder, "dimension": r.dimension,
                           "vector_sink_points": r.sink_count} for r in self._manifest.repos()])
        return stats

    def close(self) -> None:
        """Close the database, the manifest and the worker pool; idempotent."""
        closer = getattr(self._extractor, "close", None)
        if callable(closer):
            closer()
        self._manifest.close()
        super().close()


