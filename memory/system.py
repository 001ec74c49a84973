"""``MemorySystem``: the general memory API (docs/memory-api.md), with bounded LLM-scored retrieval.

Why bounded: scoring every memory with a small LLM costs O(N) calls per query. Here a lexical
stage (FTS5 bm25 over text, metadata and identifier parts) and a dense stage (an injectable
embedder; hashing by default) propose candidates, reciprocal-rank fusion merges them, and only
the top ``max(candidate_limit, max_memories)`` are scored by the LLM: listwise by default (one
call scores up to ``candidate_limit`` candidates, follow-ups only for what it left out, at most
``retry_attempts`` calls per chunk), or pointwise (one call per candidate, the specification's
scheme).
Calls per query stay bounded whatever the number of memories.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Sequence

from .errors import StoreCorrupt
from .query_prompt import PrimaryFn, ask_primary, general_query_prompt, memory_item, numbered
from .retrieval.dense import EmbedderFailed
from .retrieval.listwise import LISTWISE_VERSION, score_listwise_chunks
from .retrieval.results import Candidate, ScoredMemory
from .retrieval.scoring import (
    SCORER_VERSION,
    RetryPolicy,
    ScoreOutcome,
    build_scoring_prompt,
    score_all,
)
from .store.lexical import lexical_query
from .store.memory_store import (
    MemoryRecord,
    canonical_json,
)
from .store.primitives import reciprocal_rank_fusion
from .store.support import Filters, JSONDict
from .stored import StoredMemories
from .system_config import (
    checked_renderings,
)

__all__ = ["Candidate", "MemorySystem", "ScoredMemory"]  # the two result types live in results

log = logging.getLogger(__name__)

class MemorySystem(StoredMemories):
    """General-purpose memory with LLM-scored retrieval, persisted in SQLite.

    Use as docs/memory-api.md documents it (defaults: ``defaults.py``); everything after
    ``retry_delay`` is keyword-only and optional:
    ``candidate_limit`` (LLM-scored candidates per query, default 20), ``enable_caching``,
    ``embedder`` (object with ``embed_documents``/``embed_query``; default ``HashingEmbedder``),
    ``use_dense`` (False = lexical stage only, no vectors at all), ``dense_ranking`` (``"auto"``:
    fuse the dense ranking only if the embedder helps, see ``embedder_check``; ``"always"``;
    ``"never"``), ``llm_timeout`` (seconds per scoring call),
    ``scoring_mode`` (``"listwise"``, the default: one call scores all candidates by id;
    ``"pointwise"``: one call per candidate, the specification's scheme), ``sleep`` (async
    ``float -> None`` used between retries; tests inject a fake) and ``clock`` (``() -> datetime``
    for timestamps).

    Extension hooks for subclasses (e.g. ``CodeMemorySystem``), all small and overridable:

    - ``_render_context(context) -> str``: turn the caller's context (a ``str`` here; a richer
      object in a subclass) into the text used for search, the scoring prompt and cache keys.
      Raise ``ValueError`` for unusable input.
    - ``_render_candidate(record: MemoryRecord) -> str``: the memory text the scoring LLM sees
      (default: text, plus metadata JSON when there is any).
    - ``_adjust_scores(context, scored: list[ScoredMemory]) -> list[ScoredMemory]``: runs after LLM
      scoring and before the threshold/sort/``max_memories`` cut; the place for dependency and
      recency boosts (return new objects via ``dataclasses.replace``; keep scores in [0, 1]).
    - ``query_prompt_template`` (class attribute: ``None`` for the built-in ``query`` template
      of ``prompts``, or a ``str.format`` template with ``{context}``, ``{memories}``,
      ``{task}``, ``{data_rule}``; context and memories arrive as escaped data blocks),
      ``_prompt_memory(memory) -> str`` (one memory's text in that prompt) and
      ``_build_query_prompt(context, task, memories) -> str`` for ``query``.
    - ``async _retrieve(context, *, filters=None)``: the whole pipeline, for subclasses whose
      public ``retrieve_relevant_memories`` has a different signature.

    Batch and bulk APIs: ``add_memories(items)`` (one transaction; items may carry precomputed
    embeddings), ``list_memories(filters)``, ``count_memories(filters)``,
    ``delete_memories(filters)``, ``history(memory_id)``, ``clear_cache()``.
    """

    #: ``None``: the built-in prompt; a subclass may set its own ``str.format`` template
    query_prompt_template: str | None = None

    # -- retrieval -------------------------------------------------------------------------------
    async def retrieve_relevant_memories(
        self, context: str, *, filters: Filters | None = None,
        renderings: Sequence[str] = (),
    ) -> list[ScoredMemory]:
        """Memories relevant to ``context``, highest score first, at most ``max_memories``.

        Scored memories below ``relevance_threshold`` are dropped; candidates the LLM failed to
        score after all retries follow, in fused (lexical/dense) order, with ``error`` set.
        ``filters`` restricts candidates by metadata (see ``retrieval.compile_filter``).
        ``renderings``: other wordings of the same need searched too (see ``candidates``);
        the LLM still scores against ``context`` alone.
        """
        return await self._retrieve(context, filters=filters, renderings=renderings)

    async def _retrieve(self, context: object, *, filters: Filters | None = None,
                        renderings: Sequence[str] = ()) -> list[ScoredMemory]:
        rendered = self._render_context(context)
        self._count("queries")
        records = [c.record for c in self.candidates(context, filters=filters,
                                                     renderings=renderings)]
        scored = await self._score(rendered, records)
        return self._select(self._adjust_scores(context, scored))

    def candidates(self, context: object, limit: int | None = None,
                   filters: Filters | None = None, *,
                   renderings: Sequence[str] = ()) -> list[Candidate]:
        """The pre-LLM ranking for ``context``, best first: exactly what the scorer receives.

        ``limit`` defaults to ``max(candidate_limit, max_memories)`` (the scorer's pool).
        The lexical stage always runs; the dense stage's ranking is fused (reciprocal rank)
        only when the embedder helps (see ``dense_ranking``). ``renderings`` (keyword-only,
        none by default): other texts for the same need, e.g. the identifiers and signature a
        model expects; each is searched like the context and every ranking is fused by
        reciprocal rank, so a rendering can add candidates but never removes the context's
        own first ones outright. No LLM call. ``ValueError`` for an empty context, a bad
        ``limit``, a bad filter or a rendering that is not a string.
        """
        cfg = self._config
        wanted = max(cfg.candidate_limit, cfg.max_memories) if limit is None else limit
        if isinstance(wanted, bool) or not isinstance(wanted, int) or wanted < 1:
            raise ValueError(f"limit must be an int >= 1, got {limit!r}")
        texts = [self._search_text(context), *checked_renderings(renderings)]
        pool = max(50, 3 * wanted)
        lexical = [self._store.lexical(lexical_query(text), pool, filters) for text in texts]
        dense = self._dense_rankings(texts, pool, filters)
        fused = reciprocal_rank_fusion([*lexical, *dense])[:wanted]
        by_seq = self._store.get_by_seq(fused)
        lex_rank = {seq: i for i, seq in enumerate(lexical[0], start=1)}
        dense_rank = {seq: i for i, seq in enumerate(dense[0] if dense else [], start=1)}
        found = [seq for seq in fused if seq in by_seq]
        return [Candidate(by_seq[seq], i, lex_rank.get(seq), dense_rank.get(seq))
                for i, seq in enumerate(found, start=1)]

    def _dense_rankings(self, texts: Sequence[str], pool: int,
                        filters: Filters | None) -> list[list[int]]:
        """One dense ranking per text, or none when the dense stage does not rank (or its
        embedder failed: the lexical candidates still answer)."""
        if not self._dense_ranks():
            return []
        try:
            return [self._dense.search(text, pool, filters) for text in texts]
        except EmbedderFailed as err:
            log.warning("dense stage skipped for this query: %s", err)
            return []

    async def _score(self, rendered: str, records: Sequence[MemoryRecord]) -> list[ScoredMemory]:
        cfg = self._config
        version = LISTWISE_VERSION if cfg.scoring_mode == "listwise" else SCORER_VERSION
        ctx_hash = hashlib.sha256(f"{version}\x00{rendered}".encode()).hexdigest()
        cached = (self._store.cached_scores(ctx_hash, [r.content_hash for r in records])
                  if cfg.enable_caching else {})
        todo = [r for r in records if r.content_hash not in cached]
        if cfg.enable_caching:
            self._count("cache_hits", len(records) - len(todo))
            self._count("cache_misses", len(todo))
        outcomes = await self._ask_scores(rendered, [self._render_candidate(r) for r in todo])
        fresh = {r.content_hash: o for r, o in zip(todo, outcomes, strict=False)}
        good = [(h, o.score.score, o.score.reason) for h, o in fresh.items() if o.score]
        self._count("llm_failures", len(fresh) - len(good))
        if cfg.enable_caching and good:
            self._store.cache_scores(ctx_hash, good)
        return [self._scored(r, cached.get(r.content_hash), fresh.get(r.content_hash))
                for r in records]

    async def _ask_scores(self, rendered: str, texts: list[str]) -> list[ScoreOutcome]:
        """The LLM's scores for ``texts``, in order, by the configured scheme."""
        cfg = self._config
        policy = RetryPolicy(cfg.retry_attempts, cfg.retry_delay, cfg.llm_timeout)
        counted = lambda: self._count("llm_calls")  # noqa: E731
        if cfg.scoring_mode == "listwise":
            return await score_listwise_chunks(
                self.small_model_fn, rendered, texts, policy, chunk=cfg.candidate_limit,
                concurrency=cfg.batch_size, sleep=self._sleep, on_call=counted)
        prompts = [build_scoring_prompt(rendered, text) for text in texts]
        return await score_all(self.small_model_fn, prompts, policy, concurrency=cfg.batch_size,
                               sleep=self._sleep, on_call=counted)

    @staticmethod
    def _scored(record: MemoryRecord, hit: tuple[float, str] | None,
                outcome: ScoreOutcome | None) -> ScoredMemory:
        """From the score cache (``hit``) or from this query's LLM call (``outcome``)."""
        error = None
        if hit is not None:
            score, reason = hit
        elif outcome is not None and outcome.score is not None:
            score, reason = outcome.score.score, outcome.score.reason
        else:
            error = outcome.error if outcome is not None else "not asked"
            score, reason = 0.0, f"not scored: {error}"
        return ScoredMemory(record.id, record.text, record.metadata, record.updated_at, score,
                            reason, error, cached=hit is not None)

    def _select(self, scored: Sequence[ScoredMemory]) -> list[ScoredMemory]:
        cfg = self._config
        ok = [m for m in scored if m.error is None and m.relevance_score >= cfg.relevance_threshold]
        ok.sort(key=lambda m: -m.relevance_score)  # stable: ties keep the fused order
        failed = [m for m in scored if m.error is not None]
        return (ok + failed)[: cfg.max_memories]

    # -- hooks -----------------------------------------------------------------------------------
    def _render_context(self, context: object) -> str:
        if not isinstance(context, str) or not context.strip():
            raise ValueError("context must be a non-empty string")
        return context.strip()

    def _search_text(self, context: object) -> str:
        """The words candidate search looks for (no labels, no prompt boilerplate)."""
        return self._render_context(context)

    def _render_candidate(self, record: MemoryRecord) -> str:
        if not record.metadata:
            return record.text
        return f"{record.text}\n(metadata: {canonical_json(record.metadata)})"

    def _adjust_scores(self, context: object, scored: list[ScoredMemory]) -> list[ScoredMemory]:
        return scored

    def _build_query_prompt(self, context: object, task: str,
                            memories: Sequence[ScoredMemory]) -> str:
        return general_query_prompt(self.query_prompt_template,
                                    context=self._render_context(context),
                                    items=[self._prompt_memory(m) for m in memories], task=task)

    def _prompt_memory(self, memory: ScoredMemory) -> str:
        """One memory as the ``query`` prompt shows it (inside its own data block)."""
        return memory_item(memory)

    # -- prompt and query ------------------------------------------------------------------------
    def format_memories_for_prompt(self, memories: list[ScoredMemory],
                                   include_scores: bool = True) -> str:
        """Numbered list of the memories' texts (``""`` for no memories)."""
        return numbered([memory_item(m, include_scores) for m in memories])

    async def query(self, context: str, task: str, primary_model_fn: PrimaryFn) -> str:
        """Retrieve memories for ``context``, then ask ``primary_model_fn`` to do ``task``.

        Errors raised by ``primary_model_fn`` propagate (it is not retried).
        """
        if not callable(primary_model_fn):
            raise ValueError("primary_model_fn must be an async function str -> str")
        memories = await self.retrieve_relevant_memories(context)
        return await ask_primary(primary_model_fn, self._build_query_prompt(context, task,
                                                                            memories))

    # -- stats and lifecycle ---------------------------------------------------------------------
    @property
    def recovery(self) -> StoreCorrupt | None:
        """Set when the database file was found damaged and replaced by a new one: the notice
        (which file, where the damaged one was kept, what was lost, what to do)."""
        return self._store.damage.notice

    def get_stats(self) -> JSONDict:
        """Counts, configuration, LLM calls and score-cache figures of this instance."""
        with self._counts_lock:
            counts = dict(self._counts)
        lookups = counts["cache_hits"] + counts["cache_misses"]
        hit_rate = counts["cache_hits"] / lookups if lookups else 0.0
        cfg = dataclasses.asdict(self._config)
        return {
            "total_memories": self._store.count(), **cfg, **counts, "cache_hit_rate": hit_rate,
            "cache_stats": {"size": self._store.cache_size(), "hits": counts["cache_hits"],
                            "misses": counts["cache_misses"], "hit_rate": hit_rate,
                            "enabled": cfg["enable_caching"]},
            "db_path": self.db_path, "journal_mode": self._store.journal_mode,
            "embedder": self._embedder_name() if self._use_dense else None,
            "dense_ranking": (self._dense.verdict().as_text() if self._use_dense
                              else "off: use_dense=False"),
            "store_recovery": None if self.recovery is None else str(self.recovery),
        }

    def _embedder_name(self) -> str:
        try:
            return self._dense.space()[0]
        except EmbedderFailed as err:
            return f"unavailable: {err}"

    def close(self) -> None:
        """Close the database; idempotent. Later calls raise ``StoreClosed`` (a StoreError)."""
        self._store.close()
        self._dense.invalidate()

    def __enter__(self) -> MemorySystem:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> MemorySystem:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

