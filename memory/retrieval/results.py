"""What retrieval returns: the pre-LLM ``Candidate`` ranking and the LLM-scored ``ScoredMemory``.

Kept apart from ``system`` so the prompt builders (``query_prompt``) and the code system can use
them without importing the whole memory API. Both stay importable from ``system``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..store.memory_store import MemoryRecord
from ..store.support import JSONDict


@dataclass(frozen=True)
class Candidate:
    """One memory of the pre-LLM ranking (``candidates``), best first.

    ``rank`` is 1-based in the fused ranking; ``lexical_rank`` / ``dense_rank`` say where each
    stage put it (None: that stage did not propose it, or did not run).
    """

    record: MemoryRecord
    rank: int
    lexical_rank: int | None = None
    dense_rank: int | None = None

    @property
    def memory_id(self) -> str:
        return self.record.id

    @property
    def text(self) -> str:
        return self.record.text

    @property
    def metadata(self) -> JSONDict:
        return self.record.metadata


@dataclass
class ScoredMemory:
    """A memory with its relevance to one context (docs/memory-api.md's fields first, in order)."""

    memory_id: str
    text: str
    metadata: JSONDict | None
    timestamp: str
    relevance_score: float
    reasoning: str
    #: why the LLM could not score this memory (then ``relevance_score`` is 0.0); None if scored
    error: str | None = None
    #: True when the score came from the score cache (no LLM call)
    cached: bool = False
