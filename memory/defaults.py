"""The memory API's defaults, stated once (docs/memory-api.md, "Constructor parameters").

Every declaration of these parameters reads this table: the constructors of ``MemorySystem``,
``SyncMemorySystem`` and ``CodeMemorySystem``, the fields of ``RetrievalConfig``, and the plugin's
settings model (``app/host/settings_model.py``, whose project is a ``CodeMemorySystem``).
tests/unit/test_settings_tables.py fails when one of them states another value.

The two systems differ only in ``max_memories``: 10 for a general memory, 15 for code.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class RetrievalDefaults:
    """How a memory system retrieves and scores by default."""

    #: minimum LLM score (0.0-1.0) for a memory to be returned
    relevance_threshold: float
    #: most memories returned per retrieval
    max_memories: int
    #: scoring calls in flight at once
    batch_size: int
    #: scoring attempts per call, the first included
    retry_attempts: int
    #: seconds before the second attempt; doubled after each further failure
    retry_delay: float
    #: reuse scores by (context, memory content) across queries and restarts
    enable_caching: bool
    #: candidates sent to the LLM per query (the bound is max(this, max_memories))
    candidate_limit: int
    #: seconds one scoring call may take (None: unlimited)
    llm_timeout: float | None
    #: "listwise" (one call scores all candidates, by id) or "pointwise" (one call each)
    scoring_mode: str


@dataclass(frozen=True)
class CodeRetrievalDefaults(RetrievalDefaults):
    """A code memory's defaults: the general ones, plus the boosts applied after scoring."""

    #: raise code the current file imports or calls, or that calls into it
    enable_dependency_boost: bool
    dependency_boost_amount: float
    #: raise code changed recently
    enable_recency_boost: bool
    recency_boost_amount: float
    #: code changed within this many days counts as recent
    recency_days: int


#: ``MemorySystem`` and ``SyncMemorySystem``.
MEMORY_DEFAULTS = RetrievalDefaults(
    relevance_threshold=0.7, max_memories=10, batch_size=10, retry_attempts=3, retry_delay=1.0,
    enable_caching=True, candidate_limit=20, llm_timeout=60.0, scoring_mode="listwise")

#: ``CodeMemorySystem``: the general defaults but ``max_memories``, and the boosts.
CODE_MEMORY_DEFAULTS = CodeRetrievalDefaults(
    **{**asdict(MEMORY_DEFAULTS), "max_memories": 15},
    enable_dependency_boost=True, dependency_boost_amount=0.15,
    enable_recency_boost=True, recency_boost_amount=0.10, recency_days=7)
