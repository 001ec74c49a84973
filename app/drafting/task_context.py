"""One retrieval per phase of a task: its proposal, then its drafts.

A code request retrieves (and LLM-scores) its context for the proposal, from the request's own
words (its revisions reuse that retrieval), and, once the user confirms the meta-code, again
from the meta-code (target, signature, behaviour, constraints: "store the note in the TinyDB
table" names a library the request did not), which every iteration of the loop reuses. The
second scoring is skipped when it could show nothing new: when the meta-code's query adds no
term to the first, or when its best candidates (the pre-LLM ranking: no call) are all memories
the first scoring kept as relevant, the first's scored result is reused. Each retrieval scores
the repository and the associative context *together* (one candidate list, one scoring call),
and is reused until the query or the code index changes (the cache key is the query and the
project's index generation). The loop's own query wording is ignored on purpose: a new wording
per iteration would only buy another scoring pass.

What the retrieval may contain is scoped by ``projects/ledger.py``: shared code and
documentation, this user's finished tasks' notes (everyone's when sharing is on), and episodes
of allowed tasks.
"""

from __future__ import annotations

import re
import threading

from ...codegen import API_REFERENCE, ContextSnippet
from ...llm import Meter
from ...memory import CodeContext, Filters, ScoredMemory
from ..projects.associative import snippet
from ..projects.ledger import SHARED_TYPES, TASK_NOTE, RecalledEpisode, context_filter
from ..projects.lookup import retrieve
from ..projects.registry import Project

CODE_TYPE = "code_entity"
ASSOCIATIVE_TYPES = frozenset({*SHARED_TYPES, TASK_NOTE} - {CODE_TYPE})


class TaskContext:
    """The context of one task, retrieved at most once per (query, index generation)."""

    def __init__(self, project: Project, *, user: str, task_id: str, query: str,
                 current_file: str, share_finished: bool, meter: Meter) -> None:
        self.project = project
        self.user = user
        self.task_id = task_id
        self.query = query
        self.current_file = current_file
        self.share_finished = share_finished
        self.meter = meter
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, int], list[ScoredMemory]] = {}
        #: (query, current file, index generation) the cached result was scored for
        self._scored_for: tuple[str, str, int] | None = None
        #: how many retrievals reused an earlier one's scores (the meta-code added nothing)
        self.reused = 0

    def refocus(self, query: str, current_file: str) -> None:
        """Retrieve for ``query`` from now on (the confirmed meta-code); the next use pays one
        retrieval, later uses reuse it."""
        with self._lock:
            self.query, self.current_file = query, current_file

    def memories(self) -> list[ScoredMemory]:
        """The scored memories of the task's query (retrieved on first use, then reused)."""
        key = (self.query, self.project.generation)
        with self._lock:  # the loop asks for two sources concurrently: one retrieval
            if key not in self._cache:
                visible = self.project.ledger.visible_tasks(
                    self.user, share_finished=self.share_finished)
                wanted = context_filter(self.user, visible, share_finished=self.share_finished,
                                        exclude_task=self.task_id)
                earlier = self._reusable(wanted)
                if earlier is not None:
                    self.reused += 1
                    self._cache = {key: earlier}
                else:
                    self._cache = {key: retrieve(self.project, self.query,
                                                 current_file=self.current_file,
                                                 filters=wanted, meter=self.meter)}
                    self._scored_for = (self.query, self.current_file, key[1])
            return self._cache[key]

    def _reusable(self, wanted: Filters) -> list[ScoredMemory] | None:
        """The earlier scored result when the current query can show nothing it did not: it
        adds no term, or its best candidates (as many as the earlier result holds) are all
        memories the earlier scoring kept as relevant. Same index generation, all scored."""
        if self._scored_for is None:
            return None
        query, _, generation = self._scored_for
        earlier = self._cache.get((query, generation))
        if not earlier or generation != self.project.generation or any(
                m.error for m in earlier):
            return None
        if _terms(self.query) <= _terms(query):
            return earlier
        context = CodeContext(user_query=self.query, current_file=self.current_file or None)
        best = [c.record.id for c in self.project.code.candidates(context, filters=wanted)]
        kept = {m.memory_id for m in earlier}
        return earlier if set(best[:len(earlier)]) <= kept else None

    def code(self, limit: int) -> list[ContextSnippet]:
        return [snippet(m) for m in self.memories() if _type(m) == CODE_TYPE][:limit]

    def associative(self, limit: int) -> list[ContextSnippet]:
        """Up to ``limit`` library API references plus up to ``limit`` other memories."""
        found = [snippet(m) for m in self.memories() if _type(m) in ASSOCIATIVE_TYPES]
        api = [s for s in found if s.kind == API_REFERENCE][:limit]
        return api + [s for s in found if s.kind != API_REFERENCE][:limit]

    def episodes(self) -> list[RecalledEpisode]:
        """Other allowed tasks' episodes among the task's memories, best first."""
        return [RecalledEpisode.from_memory(m.metadata or {}, m.text) for m in self.memories()
                if (m.metadata or {}).get("kind") == "episode"
                and (m.metadata or {}).get("task_id") != self.task_id]

    # -- the loop's ContextSource shape: (query, current_file, limit) ------------------------
    def repo_source(self, query: str, current_file: str | None, limit: int) -> list[ContextSnippet]:
        return self.code(limit)

    def associative_source(self, query: str, current_file: str | None,
                           limit: int) -> list[ContextSnippet]:
        return self.associative(limit)


def _terms(query: str) -> set[str]:
    """A query's words, lower-cased (identifiers split at underscores and dots too)."""
    return set(re.findall(r"[a-z0-9]+", query.lower()))


def _type(memory: ScoredMemory) -> str:
    return str((memory.metadata or {}).get("type", ""))
