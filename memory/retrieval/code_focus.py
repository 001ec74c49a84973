"""The code system's scoring focus: where a request's files are, and the boosts that follow.

Kept apart from ``codebase`` because it answers one question, "how does this request's place in
the repository change the LLM's scores?", with the manifest and the recency tracker alone: the
current file is located in an indexed repository (``resolve_path``), its dependencies become a
``DependencyFocus``, entities related to it or changed lately are raised (``adjust``), and the
content hashes of the files in view key the score cache (``file_hashes``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..code_context import CODE_ENTITY, CodeContext
from ..codeindex.manifest import CodeManifest
from ..store.support import Filters, JSONDict, Metadata
from .dependencies import DependencyFocus
from .recency import RecencyTracker
from .results import ScoredMemory

#: ``list_memories``: metadata filter -> memories as ``get_memory`` dicts (JSON: hence ``Any``)
ListFn = Callable[[Filters], list[JSONDict]]


@dataclass(frozen=True)
class Boosts:
    """The boost settings of one retrieval (read from the system's public attributes)."""

    dependency: bool
    dependency_amount: float
    recency: bool
    recency_amount: float
    recency_days: int


class CodeFocus:
    """Locates files of a ``CodeContext`` in the manifest and applies the two score boosts."""

    def __init__(self, manifest: CodeManifest, recency: RecencyTracker,
                 list_memories: ListFn) -> None:
        self._manifest = manifest
        self._recency = recency
        self._list = list_memories

    def adjust(self, ctx: CodeContext, scored: Sequence[ScoredMemory],
               boosts: Boosts) -> list[ScoredMemory]:
        """Scores after the boosts (scored memories only; capped at 1.0, reason extended)."""
        focus = self.focus(ctx) if boosts.dependency else None
        return [self.boosted(m, focus, boosts) if m.error is None else m for m in scored]

    def boosted(self, m: ScoredMemory, focus: DependencyFocus | None,
                boosts: Boosts) -> ScoredMemory:
        meta = m.metadata or {}
        if meta.get("type") != CODE_ENTITY:
            return m
        score, notes = m.relevance_score, []
        if focus is not None:
            relation = focus.relation(meta)
            if relation:
                score, notes = score + boosts.dependency_amount, [relation]
        if boosts.recency and self.is_recent(meta):
            score += boosts.recency_amount
            notes.append(f"changed in the last {boosts.recency_days} days")
        if not notes:
            return m
        return replace(m, relevance_score=min(1.0, score),
                       reasoning=f"{m.reasoning} (boosted: {'; '.join(notes)})")

    def focus(self, ctx: CodeContext) -> DependencyFocus | None:
        """What the current file imports and defines, or ``None`` if it is not indexed."""
        found = self.resolve_path(ctx.current_file) if ctx.current_file else None
        if found is None:
            return None
        repo_id, rel = found
        row = self._manifest.files(repo_id).get(rel)
        entities = [m["metadata"] for m in self._list(
            {"type": CODE_ENTITY, "repo_id": repo_id, "path": rel})]
        return DependencyFocus.build(rel, row.imports if row else (), entities, repo_id)

    def resolve_path(self, path: str) -> tuple[str, str] | None:
        """``(repo_id, repo-relative path)`` of a path given absolute, cwd- or repo-relative."""
        norm = path.replace("\\", "/").lstrip("./") if not os.path.isabs(path) else path
        full = os.path.realpath(path)
        for repo in self._manifest.repos():
            files = self._manifest.files(repo.repo_id)
            if full.startswith(repo.root.rstrip(os.sep) + os.sep):
                rel = os.path.relpath(full, repo.root).replace(os.sep, "/")
                if rel in files:
                    return repo.repo_id, rel
            if norm in files:
                return repo.repo_id, norm
            for rel in files:
                if norm.endswith("/" + rel) or rel.endswith("/" + norm):
                    return repo.repo_id, rel
        return None

    def is_recent(self, meta: Metadata) -> bool:
        """Whether the entity's file changed within the recency window."""
        repo = self._manifest.repo(str(meta.get("repo_id")))
        if repo is None or not meta.get("path"):
            return False
        snapshot = self._recency.snapshot(repo.root, self._manifest.files(repo.repo_id))
        return snapshot.is_recent(str(meta["path"]))

    def file_hashes(self, ctx: CodeContext) -> dict[str, str]:
        """``{path: short content hash}`` of the current and accessed files that are indexed."""
        out = {}
        for path in [ctx.current_file, *(ctx.accessed_files or [])]:
            found = self.resolve_path(path) if path else None
            if found is not None:
                row = self._manifest.files(found[0]).get(found[1])
                if row is not None and row.file_hash:
                    out[found[1]] = row.file_hash[:12]
        return out
