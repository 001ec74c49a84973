"""``CodeMemorySystem``, the memory API's code system (README, "Memory API").

It IS a ``MemorySystem``: code entities, documentation and debugging sessions are memories of
the same store, with the same methods and retrieval. It adds incremental indexing
(``codeindex``), the impact of a change, dependency and recency boosts after LLM scoring, a
code-aware prompt, and an optional vector sink (the Cat's declarative collection) receiving
what the sink mode says (entities, file outlines or nothing), repaired when wiped.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import numpy as np

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
from .codeindex.impact import Impact, compute_impact
from .codeindex.indexer import (
    IndexProgress,
    IndexReport,
    LabelFn,
    MemoryOps,
    ReadFn,
    RepositoryIndexer,
    WalkedFile,
)
from .codeindex.manifest import CodeManifest
from .codeindex.refs import INDEX_FORMAT
from .codeindex.sink_sync import Payload, SinkMode, SinkSync, SyncResult
from .codeindex.vector_sink import VectorSink
from .codeindex.walk import (
    ExtractorFn,
    WalkerFn,
    checked_dir,
    default_extractor,
    default_walker,
    locate_file,
    walk_single,
)
from .defaults import CODE_MEMORY_DEFAULTS as DEFAULTS
from .embedding import Vectors
from .query_prompt import PrimaryFn, ask_primary, code_query_prompt, score_label
from .retrieval.code_focus import Boosts, CodeFocus
from .retrieval.recency import RecencyTracker
from .retrieval.results import Candidate, ScoredMemory
from .store.lexical import query_tokens
from .store.memory_store import MemoryRecord
from .store.support import Filters, JSONDict
from .system import MemorySystem

MAX_CANDIDATE_CHARS = 4000


class CodeMemorySystem(MemorySystem):
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
        for name, amount in (("dependency_boost_amount", dependency_boost_amount),
                             ("recency_boost_amount", recency_boost_amount)):
            if not 0.0 <= float(amount) <= 1.0:
                raise ValueError(f"{name} must be within [0, 1], got {amount!r}")
        if recency_days < 0:
            raise ValueError(f"recency_days must be >= 0, got {recency_days!r}")
        super().__init__(small_model_fn, db_path, relevance_threshold, max_memories, batch_size,
                         retry_attempts, retry_delay, enable_caching=enable_caching,
                         **memory_kwargs)
        self.enable_dependency_boost = bool(enable_dependency_boost)
        self.enable_recency_boost = bool(enable_recency_boost)
        self.dependency_boost_amount = float(dependency_boost_amount)
        self.recency_boost_amount = float(recency_boost_amount)
        self.recency_days = recency_days
        self.max_file_bytes = max_file_bytes
        self._repository_id = repository_id
        # A damaged file is replaced by an empty one (the manifest's connection moves with the
        # store's): the next index_repository is a full index; recency snapshots start over.
        self._manifest = CodeManifest(db_path, on_damage=self._store.damage_found)
        self._recency = RecencyTracker(recency_days)
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

    # -- indexing --------------------------------------------------------------------------------
    def index_repository(self, directory: str, exclude_patterns: list[str] | None = None,
                         recursive: bool = True, *,
                         progress: Callable[[IndexProgress], None] | None = None
                         ) -> list[str]:
        """Index ``directory`` incrementally; returns the memory ids of all its entities.

        Only files whose content changed are parsed and only changed entities embedded;
        entities of deleted files are removed; renames move entities. ``.gitignore`` and
        ``exclude_patterns`` (globs such as ``*/tests/*``) are honoured. Every walked file gets
        a status in ``last_index_report.statuses``. ``progress`` receives ``IndexProgress``.
        """
        root = checked_dir(directory)
        with self._index_lock:  # one indexing run at a time per system
            indexer = self._indexer(root, progress)
            walked = self._walker(root, list(exclude_patterns or []), recursive,
                                  self.max_file_bytes)
            return self._finish(indexer.run(walked, complete=True))

    def index_file(self, file_path: str) -> list[str]:
        """Index one file; its entities' memory ids (``FileNotFoundError``: no such file;
        ``ValueError``: an unsupported type)."""
        return self._index_one(file_path, force=False)

    def reindex_file(self, file_path: str) -> list[str]:
        """Re-parse one file (call after editing it); its entities' memory ids. Entities whose
        source did not change keep their memory (and their vector)."""
        return self._index_one(file_path, force=True)

    def _index_one(self, file_path: str, force: bool) -> list[str]:
        root, rel = locate_file(file_path, [r.root for r in self._manifest.repos()])
        with self._index_lock:
            report = self._indexer(root, None).run(walk_single(root, rel), complete=False,
                                                   force=[rel] if force else [])
            self._finish(report, all_ids=False)
        return [r.memory_id for r in self._manifest.entities(report.repo_id, rel)]

    def repository_id_for(self, root: str) -> str:
        """The repository id used for ``root`` (fixed by ``repository_id`` or path-derived)."""
        if self._repository_id:
            return self._repository_id
        digest = hashlib.sha1(os.path.realpath(root).encode("utf-8", "surrogateescape"))
        return f"{os.path.basename(root.rstrip(os.sep)) or 'root'}-{digest.hexdigest()[:8]}"

    def index_tree(self, root: str, walked: Iterable[WalkedFile], *, repository_id: str,
                   read: ReadFn | None = None, extractor: ExtractorFn | None = None,
                   labels: LabelFn | None = None, force: Sequence[str] = (),
                   progress: Callable[[IndexProgress], None] | None = None) -> IndexReport:
        """Index a walked tree under its own id (an associative source), incrementally.

        ``read`` replaces the disk reader (files in an archive), ``extractor`` the parsing pool
        (wrap ``self.extractor``), ``labels`` adds metadata per entity; ``force`` paths are
        re-extracted. The walk is complete; ``last_index_report`` is left alone.
        """
        with self._index_lock:
            indexer = self._indexer(root, progress, repo_id=repository_id, read=read,
                                    extract=extractor, labels=labels, track_refs=False)
            report = indexer.run(walked, complete=True, force=force)
            self._finish(report, record=False)
            return report

    def impact(self, directory: str, path: str, symbol: str, *,
               second_level: bool = True) -> Impact:
        """Who uses ``symbol`` of ``path``, one level further, and the tests (``impact``)."""
        repo_id = self.repository_id_for(directory)
        return compute_impact(self._manifest.read, repo_id, path, symbol,
                              stale=self._manifest.index_format(repo_id) < INDEX_FORMAT,
                              second_level=second_level)

    def indexed_paths(self, directory: str) -> list[str]:
        """The files of the repository indexed from ``directory`` that define an entity."""
        return self._manifest.entity_paths(self.repository_id_for(directory))

    def indexed_names(self) -> set[str]:
        """Every indexed entity's qualified name and its last part (repositories, sources)."""
        return {n for q in self._manifest.entity_names() for n in (q, q.rsplit(".", 1)[-1])}

    def forget_repository(self, repository_id: str) -> int:
        """Remove a repository id's memories from the store, the manifest and the sink."""
        with self._index_lock:
            deleted = MemorySystem.delete_memories(self, {"repo_id": repository_id})
            self._manifest.drop_repo(repository_id)
            self._sink.forget_repository(repository_id)
            return deleted

    @property
    def extractor(self) -> ExtractorFn:
        """The parsing seam in use (the crash-contained pool by default)."""
        return self._extractor

    def _indexer(self, root: str, progress: Callable[[IndexProgress], None] | None, *,
                 repo_id: str | None = None, read: ReadFn | None = None,
                 extract: ExtractorFn | None = None, labels: LabelFn | None = None,
                 track_refs: bool = True) -> RepositoryIndexer:
        repo_id = repo_id or self.repository_id_for(root)
        if not repo_id:
            raise ValueError("repository_id must be non-empty")
        self._ensure_space(repo_id, root)
        self._sink.check(repo_id, self._dense.space()[1])
        ops = MemoryOps(add=lambda items: MemorySystem.add_memories(self, items),
                        update_metadata=lambda mid, meta: MemorySystem.update_memory(
                            self, mid, metadata=meta),
                        delete=lambda mid: MemorySystem.delete_memory(self, mid),
                        get=lambda mid: MemorySystem.get_memory(self, mid),
                        embed=self._index_vectors)
        return RepositoryIndexer(self._manifest, ops, repo_id=repo_id, root=root,
                                 extract=extract or self._extractor,
                                 max_file_bytes=self.max_file_bytes,
                                 sink_push=self._sink.pusher(repo_id), progress=progress,
                                 read=read, labels=labels, track_refs=track_refs)

    def _finish(self, report: IndexReport, *, record: bool = True,
                all_ids: bool = True) -> list[str]:
        """Record the run (``record``: as ``last_index_report``); ``all_ids`` lists every entity
        of the repository (what ``index_repository`` returns; a one-file index returns its own
        entities instead)."""
        if self.recovery is not None and self.recovery is not self._recovery_told:
            report.notices.append(str(self.recovery))
            self._recovery_told = self.recovery
        self._sink.mark_synced(report.repo_id)
        self._recency.invalidate()
        if all_ids:
            report.memory_ids = self._manifest.entity_ids(report.repo_id)
        if record:
            self.last_index_report = report
        return list(report.memory_ids)

    def _ensure_space(self, repo_id: str, root: str) -> None:
        """Record the embedder; if it changed since the last run, re-embed the stored texts."""
        key, dimension = self._dense.space()
        previous = self._manifest.repo(repo_id)
        self._manifest.upsert_repo(repo_id, root, key, dimension)
        if previous is not None and previous.embedder != key:
            self._reembed(repo_id)

    def _reembed(self, repo_id: str) -> None:
        """The embedder changed: re-embed every entity text (no re-parsing) for the sink, or
        drop the old vectors when nothing uses entity vectors (they are made when needed)."""
        if not (self._dense_ranks() or self._sink.mode is SinkMode.ENTITIES):
            self._manifest.clear_vectors(repo_id)
            return
        rows = self._manifest.entities(repo_id)
        for start in range(0, len(rows), 512):
            chunk = rows[start:start + 512]
            texts = [(self.get_memory(r.memory_id) or {}).get("text") or r.qualified_name
                     for r in chunk]
            vectors = self._dense.embed_documents(texts)
            self._manifest.set_vectors([(r.memory_id, np.asarray(v, np.float32).tobytes())
                                        for r, v in zip(chunk, vectors, strict=True)])

    # -- the vector sink -------------------------------------------------------------------------
    def _resolved_sink_mode(self) -> SinkMode:
        """``auto``: nothing for an embedder that cannot rank code, one point per file else."""
        if self.sink_mode is not SinkMode.AUTO:
            return self.sink_mode
        return SinkMode.FILES if self._dense.ranks() else SinkMode.NONE

    def _index_vectors(self, texts: list[str]) -> Sequence[Vectors | None]:
        """Entity vectors for the indexer, or ``None`` each when nothing would use them (the
        dense ranking is off and the sink does not hold entities): no embedding cost then."""
        if self._dense_ranks() or self._sink.mode is SinkMode.ENTITIES:
            return list(self._dense.embed_documents(texts))
        return [None] * len(texts)

    def attach_vector_sink(self, sink: VectorSink | None) -> None:
        """Use ``sink`` from now on (the glue re-attaches after the Cat replaced its memory)."""
        self._sink.attach(sink)

    def sync_vector_sink(self, repository_id: str | None = None) -> dict[str, SyncResult]:
        """Check the sink for each repository (or one) and re-push everything if it was wiped,
        re-created, or holds a different number of this repository's points."""
        out = {}
        for repo in self._manifest.repos():
            if repository_id is None or repo.repo_id == repository_id:
                self._ensure_space(repo.repo_id, repo.root)
                out[repo.repo_id] = self._sink.check(repo.repo_id, self._dense.space()[1])
        return out

    def _entity_payloads(self, repo_id: str, memory_ids: Sequence[str]) -> list[Payload]:
        found = ((mid, MemorySystem.get_memory(self, mid)) for mid in memory_ids)
        return [(mid, m["text"], m["metadata"]) for mid, m in found if m is not None]

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

    # -- MemorySystem CRUD kept consistent with the manifest and the sink ------------------------
    def update_memory(self, memory_id: str, text: str | None = None,
                      metadata: JSONDict | None = None) -> bool:
        """As ``MemorySystem.update_memory``; an edited code entity's copy in the sink follows."""
        changed = super().update_memory(memory_id, text=text, metadata=metadata)
        if changed and isinstance(memory_id, str):
            self._sink.refresh_entity(memory_id, text, self._dense.embed_documents)
        return changed

    def delete_memory(self, memory_id: str) -> bool:
        """As ``MemorySystem.delete_memory``; a code entity also leaves the manifest and sink."""
        deleted = super().delete_memory(memory_id)
        if deleted:
            self._sink.forget_entity(memory_id)
        return deleted

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

    def _adjust_scores(self, context: object, scored: list[ScoredMemory]) -> list[ScoredMemory]:
        ctx = context.context if isinstance(context, Request) else as_context(context)
        return self._focus.adjust(ctx, scored, Boosts(
            self.enable_dependency_boost, self.dependency_boost_amount,
            self.enable_recency_boost, self.recency_boost_amount, self.recency_days))

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


