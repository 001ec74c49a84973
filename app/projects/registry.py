"""One Registry of projects, each a repository's long-lived core objects.

Non-picklable handles (SQLite connections, the parsing pool, git repositories) must not live in
``cat.working_memory`` (docs/cat-plugin-api.md), so they live here, shared by every user of the
repository. A project is built from one frozen ``ProjectConfig``: when its fingerprint changes,
the registry applies the change to the running project (retrieval tuning, indexing scope), or
rebuilds it when the change touches what the stores are made of (repository, data folder,
the Cat's embedder, whose change makes the Cat re-create its collections). A rebuilt project's
predecessor is closed once the last worker using it lets go of its lease.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ...memory import (
    CatVectorSink,
    CodeMemorySystem,
    CommitIndex,
    Embedder,
    NamedEmbedder,
    SinkMode,
    VectorCollection,
    WalkedFile,
    default_walker,
)
from ..host.cat_types import CatHost
from ..host.core_config import IndexScope, ProjectConfig
from ..host.llm_port import small_model
from .ledger import TaskLedger

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CatVectors:
    """The Cat's embedder and declarative collection as they are now.

    The Cat re-creates ``cat.memory`` whenever the LLM or embedder settings are saved, so these
    are read from the Cat at every use, never kept.
    """

    embedder: Embedder
    name: str
    declarative: VectorCollection

    @classmethod
    def of(cls, cat: CatHost) -> CatVectors:
        declarative = cat.memory.vectors.declarative
        name = getattr(declarative, "embedder_name", "") or type(cat.embedder).__name__
        return cls(cat.embedder, name, declarative)


class ScopedWalker:
    """The indexer's walker with the project's current include globs and languages."""

    def __init__(self, scope: IndexScope) -> None:
        self.scope = scope

    def __call__(self, root: str, exclude: list[str], recursive: bool,
                 max_file_bytes: int) -> Iterable[WalkedFile]:
        return default_walker(root, exclude, recursive, max_file_bytes,
                              include=self.scope.include, languages=self.scope.languages)


@dataclass
class IndexRun:
    """The latest indexing run of a project, as ``GET .../index`` reports it (``indexing.py``
    fills it: phase and counts as the indexer reports them, the summary or the error at the
    end; times from ``time.time()``)."""

    running: bool = False
    phase: str = ""
    done: int = 0
    total: int = 0
    started: float = 0.0
    finished: float = 0.0
    trigger: str = ""
    summary: str = ""
    error: str = ""


#: What the intent detector's lookup reads of the index: names, file paths, their words.
KnownCodeIndex = tuple[set[str], list[str], frozenset[str]]


class Project:
    """One repository's core objects, shared by every user who works on it."""

    def __init__(self, config: ProjectConfig, code: CodeMemorySystem, commits: CommitIndex,
                 ledger: TaskLedger, walker: ScopedWalker) -> None:
        self.config = config
        self.code = code
        self.commits = commits
        self.ledger = ledger
        self._walker = walker
        self.index_lock = threading.Lock()
        self.indexer: threading.Thread | None = None
        self.index_run = IndexRun()
        #: Bumped by every indexing run: per-task retrieval caches are keyed by it.
        self.generation = 0
        self.leases = 0
        self.retired = False
        #: The indexed names, file paths and their words, with the index generation they were
        #: read at (the intent detector's lookup, ``lookup.IndexedNames``).
        self.known_code: tuple[int, set[str], list[str], frozenset[str]] | None = None

    @property
    def root(self) -> str:
        return self.config.root

    @property
    def indexing(self) -> bool:
        return self.indexer is not None and self.indexer.is_alive()

    def apply(self, config: ProjectConfig) -> None:
        """Take the tuning and scope of ``config`` (same identity) without rebuilding."""
        self.code.update_retrieval_config(**config.tuning.retrieval(), **config.tuning.boosts())
        self.code.max_file_bytes = config.scope.max_file_bytes
        self.code.sink_mode = SinkMode(config.cat_memory)
        self._walker.scope = config.scope
        self.config = config

    def close(self) -> None:
        """Release the database, the parsing pool and the git helpers (idempotent)."""
        self.code.close()
        self.commits.close()


def repository_id(root: str) -> str:
    """A stable, path-safe id for a repository folder."""
    digest = hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    base = "".join(c if c.isalnum() or c in "-_" else "_" for c in os.path.basename(root))
    return f"{base or 'repo'}-{digest}"


def project_folder(config: ProjectConfig) -> str:
    return os.path.join(config.data_dir, "repositories", repository_id(config.root))


def build_project(config: ProjectConfig, vectors: CatVectors,
                  ledger: TaskLedger | None = None) -> Project:
    """A project's stores in ``<data folder>/repositories/<repository id>/``."""
    folder = project_folder(config)
    os.makedirs(folder, exist_ok=True)
    walker = ScopedWalker(config.scope)
    code = CodeMemorySystem(
        small_model, db_path=os.path.join(folder, "code_memories.db"),
        **config.tuning.retrieval(), **config.tuning.boosts(),
        embedder=NamedEmbedder(vectors.embedder, vectors.name),
        vector_sink=CatVectorSink(vectors.declarative), sink_mode=config.cat_memory,
        repository_id=repository_id(config.root),
        max_file_bytes=config.scope.max_file_bytes, walker=walker)
    # Episodes are searched without the memory API's LLM scoring here: a task's loop gets its
    # own history directly and other tasks' episodes from its one combined retrieval.
    commits = CommitIndex(os.path.join(folder, "history.git"), episodes=code)
    return Project(config, code, commits, ledger or TaskLedger(os.path.join(folder,
                                                                            "tasks.json")),
                   walker)


class Registry:
    """The process's projects, keyed by data folder and repository."""

    def __init__(self, build: Callable[..., Project] = build_project) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._projects: dict[tuple[str, str], Project] = {}
        #: one lock per key, held while that project is built: a large index opening for one
        #: repository never holds up another repository's turns (nor the registry lock)
        self._building: dict[tuple[str, str], threading.Lock] = {}

    def project(self, config: ProjectConfig, vectors: CatVectors) -> Project:
        """The project for ``config``: built, reconfigured or rebuilt as its fingerprint says.

        A build (opening the store, checking its integrity) runs outside the registry lock;
        callers for the same repository wait for it and share the result.
        """
        found = self._project(config, vectors, wait=True)
        assert found is not None
        return found

    def project_unless_building(self, config: ProjectConfig,
                                vectors: CatVectors) -> Project | None:
        """As ``project``, but ``None`` rather than waiting while another caller builds it (the
        start-up pass opening a large index must not hold up a chat turn's routing)."""
        return self._project(config, vectors, wait=False)

    def _project(self, config: ProjectConfig, vectors: CatVectors, *,
                 wait: bool) -> Project | None:
        key = (config.data_dir, config.root)
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        if not building.acquire(blocking=wait):
            return None
        try:
            with self._lock:
                current = self._projects.get(key)
                if current is not None and current.config.identity == config.identity:
                    current.code.attach_vector_sink(CatVectorSink(vectors.declarative))
                    if current.config.fingerprint() != config.fingerprint():
                        current.apply(config)
                    return current
            project = self._build(config, vectors, current.ledger if current else None)
            with self._lock:
                if current is not None:  # the embedder changed: the old one goes when unused
                    self._retire(current)
                self._projects[key] = project
            return project
        finally:
            building.release()

    @contextlib.contextmanager
    def lease(self, project: Project) -> Iterator[Project]:
        """Hold ``project`` open for long work (a draft loop) even if it is rebuilt meanwhile."""
        with self._lock:
            project.leases += 1
        try:
            yield project
        finally:
            with self._lock:
                project.leases -= 1
                close = project.retired and project.leases == 0
            if close:
                project.close()

    def _retire(self, project: Project) -> None:
        project.retired = True
        if project.leases == 0:
            project.close()

    def close_all(self) -> None:
        """Close every project (at shutdown)."""
        with self._lock:
            projects, self._projects = list(self._projects.values()), {}
        for project in projects:
            project.close()

    def projects(self) -> list[Project]:
        with self._lock:
            return list(self._projects.values())

    def data_folders(self) -> list[str]:
        with self._lock:
            return [project_folder(p.config) for p in self._projects.values()]
