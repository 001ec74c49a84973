"""GLUE (composition, with ``runtime``): the long-lived core objects of each repository.

Non-picklable handles (SQLite connections, the parsing pool, git repositories) must not live
in ``cat.working_memory`` (cat-v1-api.md §7), so they live here, in a registry keyed by what
determines them: data folder, repository and embedder. Built lazily on first use (never at
import or in ``activated``), rebuilt when the Cat's embedder changes (the Cat re-creates its
collections then, and ``CodeMemorySystem`` re-pushes the vectors it keeps).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .memory.code_index import IndexProgress
from .memory.codebase import CodeContext, CodeMemorySystem
from .memory.commits import CommitIndex
from .memory.repo_root import check_repository_root
from .memory.vector_sink import CatVectorSink, NamedEmbedder
from .settings import PluginSettings

log = logging.getLogger(__name__)

#: Seconds between two progress notifications of one indexing run.
PROGRESS_INTERVAL_S = 3.0


def cat_llm(prompt: str) -> str:
    """The Cat's LLM, resolved at call time (it changes when the admin saves LLM settings)."""
    from cat.looking_glass.cheshire_cat import CheshireCat

    return CheshireCat().llm(prompt)


async def small_model(prompt: str) -> str:
    """``small_model_fn`` for the memory systems: the Cat's synchronous LLM, off the loop."""
    return await asyncio.to_thread(cat_llm, prompt)


@dataclass
class Project:
    """One repository's core objects, shared by every user who works on it."""

    root: str
    data_dir: str
    embedder_key: str
    code: CodeMemorySystem
    commits: CommitIndex
    index_lock: threading.Lock = field(default_factory=threading.Lock)
    last_index: str = ""


_registry_lock = threading.Lock()
_projects: dict[tuple[str, str], Project] = {}


def repository_id(root: str) -> str:
    """A stable, path-safe id for a repository folder."""
    digest = hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    base = "".join(c if c.isalnum() or c in "-_" else "_" for c in os.path.basename(root))
    return f"{base or 'repo'}-{digest}"


def _embedder_parts(cat: Any) -> tuple[Any, str, Any]:
    """The Cat's embedder, its collection's embedder name, and the declarative collection."""
    declarative = cat.memory.vectors.declarative
    name = getattr(declarative, "embedder_name", "") or type(cat.embedder).__name__
    return cat.embedder, name, declarative


def project_for(cat: Any, settings: PluginSettings, data_dir: str,
                protected: tuple[str, ...] = ()) -> Project:
    """The repository's project, built on first use or when the embedder changed.

    ``protected`` folders (the Cat's data) may not overlap the repository, nor may the
    plugin's own ``data_dir``.
    """
    root = check_repository_root(settings.repository_path, protected=[data_dir, *protected])
    embedder, embedder_name, declarative = _embedder_parts(cat)
    key = (data_dir, root)
    with _registry_lock:
        project = _projects.get(key)
        if project is not None and project.embedder_key == embedder_name:
            project.code.attach_vector_sink(CatVectorSink(declarative))
            return project
        if project is not None:  # the embedder changed: rebuild, releasing the old handles
            project.code.close()
            project.commits.close()
        project = _build(root, data_dir, settings, embedder, embedder_name, declarative)
        _projects[key] = project
        return project


def _build(root: str, data_dir: str, settings: PluginSettings, embedder: Any,
           embedder_name: str, declarative: Any) -> Project:
    repo_id = repository_id(root)
    folder = os.path.join(data_dir, "repositories", repo_id)
    os.makedirs(folder, exist_ok=True)
    code = CodeMemorySystem(
        small_model,
        db_path=os.path.join(folder, "code_memories.db"),
        relevance_threshold=settings.relevance_threshold,
        max_memories=settings.max_memories,
        batch_size=settings.batch_size,
        enable_caching=settings.enable_caching,
        enable_dependency_boost=settings.enable_dependency_boost,
        enable_recency_boost=settings.enable_recency_boost,
        dependency_boost_amount=settings.dependency_boost_amount,
        recency_boost_amount=settings.recency_boost_amount,
        recency_days=settings.recency_days,
        retry_attempts=settings.retry_attempts,
        retry_delay=settings.retry_delay,
        embedder=NamedEmbedder(embedder, embedder_name),
        vector_sink=CatVectorSink(declarative),
        repository_id=repo_id,
        max_file_bytes=settings.max_file_kb * 1024,
    )
    commits = CommitIndex(os.path.join(folder, "history.git"), episodes=code,
                          episode_search=episode_search(code))
    return Project(root=root, data_dir=data_dir, embedder_key=embedder_name, code=code,
                   commits=commits)


#: Memory types that answer questions about the code (episodes are the loop's own business).
CODE_TYPES = ("code_entity", "documentation", "debugging_session")


def episode_search(code: CodeMemorySystem) -> Callable[[str, int], list[Any]]:
    """The draft history's episode search through the Memory API's retrieval.

    Every commit is added to ``code`` as an episode memory (``kind: episode``); this finds the
    relevant ones with the same bounded lexical + dense + LLM-scored retrieval. The commit index
    falls back to its built-in ranking when this fails.
    """

    def search(query: str, limit: int) -> list[Any]:
        found = asyncio.run(code.retrieve_relevant_memories(
            query or "recent drafts", filters={"kind": "episode"}))
        return found[:limit]

    return search


def exclude_patterns(settings: PluginSettings) -> list[str]:
    """The settings' comma-separated exclude globs as a list."""
    return [p.strip() for p in settings.exclude_globs.split(",") if p.strip()]


class Throttle:
    """Lets a call through at most once per ``interval`` seconds (progress notifications)."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval = interval
        self._clock = clock
        self._last = float("-inf")

    def ready(self) -> bool:
        now = self._clock()
        if now - self._last >= self._interval:
            self._last = now
            return True
        return False


def index_project(project: Project, settings: PluginSettings,
                  notify: Callable[[str], None]) -> str:
    """Index (incrementally) and return a Markdown summary; progress goes to ``notify``."""
    throttle = Throttle(PROGRESS_INTERVAL_S)

    def progress(event: IndexProgress) -> None:
        if event.phase != "done" and throttle.ready():
            notify(f"Indexing {project.root}: {event.phase} {event.done}/{event.total}")

    started = time.monotonic()
    ids = project.code.index_repository(project.root, exclude_patterns=exclude_patterns(settings),
                                        progress=progress)
    report = project.code.last_index_report
    project.last_index = time.strftime("%Y-%m-%d %H:%M:%S")
    return summarise_index(project.root, len(ids), report, time.monotonic() - started)


def summarise_index(root: str, entities: int, report: Any, seconds: float) -> str:
    """The user-facing summary of an indexing run, with every file status counted."""
    statuses: dict[str, int] = {}
    for status in (getattr(report, "statuses", None) or {}).values():
        kind = str(status).split(":", 1)[0]
        statuses[kind] = statuses.get(kind, 0) + 1
    skipped = [f"`{path}`: {status}" for path, status in
               sorted((getattr(report, "statuses", None) or {}).items())
               if not str(status).startswith("indexed")][:10]
    lines = [f"Indexed `{root}` in {seconds:.1f} s: {entities} code entities.",
             "Files: " + (", ".join(f"{n} {k}" for k, n in sorted(statuses.items())) or "none")]
    counts = {k: getattr(report, k) for k in ("parsed", "unchanged", "renamed", "deleted",
                                              "embedded") if hasattr(report, k)}
    if counts:
        lines.append("Changes: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if skipped:
        lines.append("Not indexed (first 10):")
        lines.extend(f"- {item}" for item in skipped)
    return "\n".join(lines)


def search(project: Project, question: str, current_file: str = "") -> str:
    """Code relevant to ``question``, scored by the LLM, formatted for a prompt."""
    context = CodeContext(user_query=question, current_file=current_file or None)
    memories = asyncio.run(project.code.retrieve_relevant_memories(
        context, filters={"type": {"$in": list(CODE_TYPES)}}))
    if not memories:
        return "No indexed code is relevant to that question."
    return project.code.format_memories_for_prompt(memories)
