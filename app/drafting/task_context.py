"""One retrieval per phase of a task: its proposal, then its drafts.

A code request retrieves (and LLM-scores) its context twice: for the proposal, from the
request's own words (its revisions reuse that retrieval), and, once the user confirms the
meta-code, from the meta-code (target, signature, behaviour, constraints: "store the note in
the TinyDB table" names a library the request did not), which every iteration of the loop
reuses. Each retrieval scores the repository and the associative context *together* (one
candidate list, one scoring call), and is reused until the query or the code index changes
(the cache key is the query and the project's index generation). The loop's own query wording
is ignored on purpose: a new wording per iteration would only buy another scoring pass.

What the retrieval may contain is scoped by ``projects/ledger.py``: shared code and
documentation, this user's finished tasks' notes (everyone's when sharing is on), and episodes
of allowed tasks.
"""

from __future__ import annotations

import threading

from ...codegen import API_REFERENCE, ContextSnippet
from ...llm import Meter
from ...memory import ScoredMemory
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
                self._cache = {key: retrieve(self.project, self.query,
                                             current_file=self.current_file, filters=wanted,
                                             meter=self.meter)}
            return self._cache[key]

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


def _type(memory: ScoredMemory) -> str:
    return str((memory.metadata or {}).get("type", ""))
