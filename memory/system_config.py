"""Validated retrieval configuration and batch-input parsing for ``MemorySystem``.

Why separate: the memory API raises ``ValueError`` for out-of-range configuration both in the
constructor and in ``update_retrieval_config`` (docs/memory-api.md); one frozen dataclass checks
both paths the same way, all-or-nothing. Its defaults are ``defaults.MEMORY_DEFAULTS``;
``CodeRetrievalConfig`` adds a code memory's boosts, with ``defaults.CODE_MEMORY_DEFAULTS``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .defaults import CODE_MEMORY_DEFAULTS as CODE
from .defaults import MEMORY_DEFAULTS as DEFAULTS
from .store.support import Metadata

SCORING_MODES = ("listwise", "pointwise")

#: One ``add_memories`` item after parsing: text, metadata, a precomputed embedding (checked
#: later against the embedder's dimension, so still unchecked here) or None
ParsedItem = tuple[str, Metadata | None, object]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


@dataclass(frozen=True)
class RetrievalConfig:
    """Retrieval knobs; construction raises ``ValueError`` on any out-of-range value."""

    #: minimum LLM score (0.0-1.0) for a memory to be returned
    relevance_threshold: float = DEFAULTS.relevance_threshold
    #: most memories returned per retrieval (>= 1)
    max_memories: int = DEFAULTS.max_memories
    #: scoring calls in flight at once (>= 1)
    batch_size: int = DEFAULTS.batch_size
    #: scoring attempts per candidate, the first included (>= 1)
    retry_attempts: int = DEFAULTS.retry_attempts
    #: seconds before attempt 2; doubles after each further failure (>= 0)
    retry_delay: float = DEFAULTS.retry_delay
    #: candidates sent to the LLM per query (>= 1); the real bound is max(this, max_memories)
    candidate_limit: int = DEFAULTS.candidate_limit
    #: reuse scores by (context, memory content) across queries and restarts
    enable_caching: bool = DEFAULTS.enable_caching
    #: seconds one scoring call may take (None = unlimited)
    llm_timeout: float | None = DEFAULTS.llm_timeout
    #: "listwise" (one call scores all candidates, by id) or "pointwise" (one call each)
    scoring_mode: str = DEFAULTS.scoring_mode

    def __post_init__(self) -> None:
        checks = [
            ("relevance_threshold", _is_number(self.relevance_threshold)
             and 0.0 <= self.relevance_threshold <= 1.0, "a number in [0.0, 1.0]"),
            ("max_memories", _is_int(self.max_memories) and self.max_memories >= 1, "an int >= 1"),
            ("batch_size", _is_int(self.batch_size) and self.batch_size >= 1, "an int >= 1"),
            ("retry_attempts", _is_int(self.retry_attempts) and self.retry_attempts >= 1,
             "an int >= 1"),
            ("retry_delay", _is_number(self.retry_delay) and self.retry_delay >= 0,
             "a number >= 0"),
            ("candidate_limit", _is_int(self.candidate_limit) and self.candidate_limit >= 1,
             "an int >= 1"),
            ("enable_caching", isinstance(self.enable_caching, bool), "a bool"),
            ("llm_timeout", self.llm_timeout is None or (_is_number(self.llm_timeout)
                                                         and self.llm_timeout > 0),
             "None or a number > 0"),
            ("scoring_mode", self.scoring_mode in SCORING_MODES,
             f"one of {list(SCORING_MODES)}"),
        ]
        _raise_first(self, checks)


@dataclass(frozen=True)
class CodeRetrievalConfig(RetrievalConfig):
    """A code memory's knobs: the general ones (more memories returned by default) and the
    boosts applied after scoring; ``CodeMemorySystem``'s keyword arguments build one."""

    max_memories: int = CODE.max_memories
    #: raise code the current file imports or calls, or that calls into it, by this much
    enable_dependency_boost: bool = CODE.enable_dependency_boost
    dependency_boost_amount: float = CODE.dependency_boost_amount
    #: raise code changed within ``recency_days`` by this much
    enable_recency_boost: bool = CODE.enable_recency_boost
    recency_boost_amount: float = CODE.recency_boost_amount
    recency_days: int = CODE.recency_days

    def __post_init__(self) -> None:
        super().__post_init__()
        _raise_first(self, [
            ("enable_dependency_boost", isinstance(self.enable_dependency_boost, bool), "a bool"),
            ("dependency_boost_amount", _is_number(self.dependency_boost_amount)
             and 0.0 <= self.dependency_boost_amount <= 1.0, "within [0, 1]"),
            ("enable_recency_boost", isinstance(self.enable_recency_boost, bool), "a bool"),
            ("recency_boost_amount", _is_number(self.recency_boost_amount)
             and 0.0 <= self.recency_boost_amount <= 1.0, "within [0, 1]"),
            ("recency_days", _is_number(self.recency_days) and self.recency_days >= 0, ">= 0"),
        ])


def _raise_first(config: RetrievalConfig, checks: list[tuple[str, bool, str]]) -> None:
    for name, ok, wanted in checks:
        if not ok:
            raise ValueError(f"{name} must be {wanted}, got {getattr(config, name)!r}")


#: Most extra renderings one retrieval may search (each is one more FTS5 query).
MAX_RENDERINGS = 8


def checked_renderings(renderings: object) -> list[str]:
    """The non-blank extra renderings of a retrieval, stripped. ``ValueError`` for a bare
    string (a sequence of strings is expected), a non-string item or more than
    ``MAX_RENDERINGS``."""
    if isinstance(renderings, (str, bytes)) or not isinstance(renderings, (list, tuple)):
        raise ValueError("renderings must be a list or tuple of strings, "
                         f"got {type(renderings).__name__}")
    if len(renderings) > MAX_RENDERINGS:
        raise ValueError(f"at most {MAX_RENDERINGS} renderings, got {len(renderings)}")
    if not all(isinstance(r, str) for r in renderings):
        raise ValueError("every rendering must be a string")
    return [r.strip() for r in renderings if r.strip()]


def _check_text(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ValueError("memory text must be a non-empty string")
    return text


def _check_metadata(metadata: object) -> Metadata | None:
    if metadata is not None and not isinstance(metadata, Mapping):
        raise ValueError(f"metadata must be a dict or None, got {type(metadata).__name__}")
    return metadata


def parse_items(items: Iterable[object]) -> list[ParsedItem]:
    """Normalise ``add_memories`` input to ``(text, metadata, embedding-or-None)`` triples."""
    if isinstance(items, (str, bytes, Mapping)):
        raise ValueError("add_memories takes a list of items, not a single item")
    out: list[ParsedItem] = []
    text: object
    metadata: object
    embedding: object
    for n, item in enumerate(items):
        if isinstance(item, str):
            text, metadata, embedding = item, None, None
        elif isinstance(item, Mapping):
            extra = set(item) - {"text", "metadata", "embedding"}
            if extra:
                raise ValueError(f"item {n}: unknown keys {sorted(extra)}")
            text, metadata, embedding = item.get("text"), item.get("metadata"), item.get(
                "embedding")
        elif isinstance(item, tuple) and len(item) in (2, 3):
            text, metadata, embedding = (*item, None)[:3]
        else:
            raise ValueError(f"item {n}: expected str, (text, metadata[, embedding]) or a dict")
        out.append((_check_text(text), _check_metadata(metadata), embedding))
    return out
