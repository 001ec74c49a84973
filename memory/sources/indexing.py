"""``AssociativeMemory``: the associative sources of one project, indexed into its code memory.

Each source gets its own namespace (repository id) in the project's ``CodeMemorySystem``, so it
is indexed by the same incremental machinery (content hashes, vector reuse, the Cat's collection
as sink) and retrieved and scored with the repository's memories. This module adds what a
source needs on top: resolving it (folder, installed or downloaded distribution), the module
facts that validation uses, the public surface, the caps, the labels, and a catalog row per
source for the status and the chat commands. A removed source leaves everywhere.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from ..codebase import CodeMemorySystem
from ..codeindex.records import IndexProgress, IndexReport, WalkedFile
from ..errors import CodeMemoryError
from ..repository.root import check_repository_root
from .api_facts import ModuleFact, read_module, with_runtime
from .api_lookup import ApiTable
from .archives import ArchiveLimits
from .catalog import FileFacts, SourceCatalog, SourceRow
from .clone import CloneFailed, CloneLimits, clone_state, fetch_clone, remove_clone
from .distributions import resolve_distribution
from .extraction import SourceExtractor, labeller
from .package_index import PackageIndex
from .public import PublicSurface, public_surface
from .spec import FolderSource, Source, UrlSource, source_label
from .trees import SourceTree, folder_tree

OK, CAPPED, ERROR = "ok", "capped", "error"
Progress = Callable[[IndexProgress], None]


@dataclass(frozen=True)
class SourceOptions:
    """How sources are read: privates and tests, caps, where downloads come from and go."""

    cache_dir: str
    index_url: str = ""
    include_private: bool = False
    max_entities: int = 20_000
    max_bytes: int = 64 << 20
    max_file_bytes: int = 1 << 20
    #: Folders a source may not be (nor contain): the plugin's and the Cat's data.
    protected: tuple[str, ...] = ()
    #: Where repositories by URL are cloned (one folder each, named by the source's id).
    clones_dir: str = ""
    clone_limits: CloneLimits = field(default_factory=CloneLimits)


@dataclass(frozen=True)
class SourceResult:
    """What indexing one source did (``report`` is None when it could not be read)."""

    row: SourceRow
    report: IndexReport | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class Update:
    """What "update source" did: the commit indexed before (``previous``), and either
    ``unchanged`` (the ref had not moved: nothing fetched or indexed) or the new result."""

    result: SourceResult
    previous: str = ""
    unchanged: bool = False


class AssociativeMemory:
    """Index, remove and look up the associative sources of one project's code memory."""

    def __init__(self, code: CodeMemorySystem, catalog: SourceCatalog | None = None) -> None:
        self.code = code
        self.catalog = catalog or SourceCatalog(code.db_path)
        self._lock = threading.RLock()
        self._table: tuple[tuple[tuple[str, str], ...], ApiTable] | None = None

    def close(self) -> None:
        self.catalog.close()

    # -- listing ---------------------------------------------------------------------------------
    def rows(self) -> list[SourceRow]:
        return self.catalog.sources()

    # -- indexing --------------------------------------------------------------------------------
    def sync(self, sources: Sequence[Source], options: SourceOptions,
             progress: Progress | None = None) -> tuple[list[SourceResult], list[SourceRow]]:
        """Index every source, and remove the indexed ones no longer configured."""
        with self._lock:
            wanted = {s.repo_id for s in sources}
            removed = [row for row in self.rows() if row.repo_id not in wanted]
            for row in removed:
                self.remove(row.repo_id, options.clones_dir)
            index = _index_for(options)  # shared: an unreachable index is tried once per pass
            return [self.index(s, options, progress, index) for s in sources], removed

    def index(self, source: Source, options: SourceOptions, progress: Progress | None = None,
              index: PackageIndex | None = None) -> SourceResult:
        """Index one source incrementally; a source that cannot be read keeps its entities and
        gets an ``error`` row saying why."""
        started = time.monotonic()
        with self._lock:
            if progress is not None:
                progress(IndexProgress("resolve", 0, 1, source_label(source)))
            try:
                tree = self._tree(source, options, index or _index_for(options))
                try:
                    row, report = self._index_tree(source, tree, options, progress)
                finally:
                    tree.close()
            except (CodeMemoryError, OSError) as err:  # this source only: the others go on
                return SourceResult(self._failed(source, str(err)), None,
                                    time.monotonic() - started)
            return SourceResult(row, report, time.monotonic() - started)

    def update(self, source: UrlSource, options: SourceOptions,
               progress: Progress | None = None) -> Update:
        """Fetch a repository's ref again; re-index (incrementally) only when it moved. A
        failed fetch keeps the clone and the entities of the commit indexed before."""
        started = time.monotonic()
        with self._lock:
            old = self.catalog.source(source.repo_id)
            indexed = old.revision if old is not None and old.status != ERROR else ""
            dest = clone_folder(source, options)
            known = indexed if indexed and clone_state(dest)[0] == indexed else ""
            if progress is not None:
                progress(IndexProgress("fetch", 0, 1, source_label(source)))
            try:
                fetched = fetch_clone(source.location, dest, options.clone_limits, known)
            except CloneFailed as err:
                row = self._failed(source, f"update failed: {err}")
                return Update(SourceResult(row, None, time.monotonic() - started), indexed)
            if fetched.unchanged and old is not None:
                return Update(SourceResult(old, None, time.monotonic() - started), indexed,
                              unchanged=True)
            return Update(self.index(source, options, progress), indexed)

    def remove(self, repo_id: str, clones_dir: str = "") -> int:
        """Remove a source's entities from the store, the manifest and the Cat's collection,
        and its clone (a repository by URL) from ``clones_dir``."""
        with self._lock:
            deleted = self.code.forget_repository(repo_id)
            self.catalog.drop_source(repo_id)
            if clones_dir and repo_id.startswith("src-git-"):
                remove_clone(os.path.join(clones_dir, repo_id))
            self._table = None
            return deleted

    def _tree(self, source: Source, options: SourceOptions,
              index: PackageIndex | None) -> SourceTree:
        if isinstance(source, FolderSource):
            root = check_repository_root(source.path, protected=options.protected)
            return folder_tree(root, include_private=options.include_private,
                               max_file_bytes=options.max_file_bytes)
        if isinstance(source, UrlSource):
            return self._clone_tree(source, options)
        limits = ArchiveLimits(options.max_file_bytes, options.max_bytes)
        return resolve_distribution(source, cache_dir=options.cache_dir, index=index,
                                    include_private=options.include_private, limits=limits)

    @staticmethod
    def _clone_tree(source: UrlSource, options: SourceOptions) -> SourceTree:
        """The source's clone (fetched first when there is none: a clone stays at its commit
        until "update source"), walked like a folder."""
        dest = clone_folder(source, options)
        commit, ref = clone_state(dest)
        if not commit:
            fetched = fetch_clone(source.location, dest, options.clone_limits)
            commit, ref = fetched.commit, fetched.ref
        tree = folder_tree(dest, include_private=options.include_private,
                           max_file_bytes=options.max_file_bytes)
        return replace(tree, version=ref or source.ref or "HEAD", origin="", revision=commit)

    def _failed(self, source: Source, message: str) -> SourceRow:
        old = self.catalog.source(source.repo_id)
        label = source_label(source)
        row = SourceRow(source.repo_id, source.name, source.kind, label,
                        status=ERROR, detail=message[:500])
        if old is not None:  # keep what was indexed before: a failed refresh loses nothing
            row = replace(old, spec=label, status=ERROR, detail=message[:500])
        self.catalog.put_source(row)
        return row

    def _index_tree(self, source: Source, tree: SourceTree, options: SourceOptions,
                    progress: Progress | None) -> tuple[SourceRow, IndexReport]:
        from .trees import ordered

        previous = self.catalog.files(source.repo_id)
        walked, cut = ordered(_prefer_sources_over_stubs(tree.walked), tree.layout,
                              options.max_bytes)
        facts = self._facts(tree, walked, previous, options)
        surface = public_surface(facts, options.include_private)
        old = self.catalog.source(source.repo_id)
        labels_key = json.dumps([source.name, tree.version, options.include_private])
        force = _forced(walked, previous, surface, tree, relabel=(
            old is None or old.labels != labels_key))
        extractor = SourceExtractor(
            self.code.extractor, layout=tree.layout, surface=surface,
            order={w.path: i for i, w in enumerate(walked)},
            budget=_budget(walked, previous, options.max_entities),
            max_file_bytes=options.max_file_bytes)
        report = self.code.index_tree(
            tree.root, walked, repository_id=source.repo_id, read=tree.read,
            extractor=extractor, labels=labeller(extractor, name=source.name,
                                                 version=tree.version, kind=source.kind),
            force=force, progress=progress)
        self.catalog.replace_files(source.repo_id, _file_rows(walked, tree, facts, surface,
                                                               previous, extractor))
        row = _row(source, tree, labels_key, report, cut, extractor.capped, options)
        self.catalog.put_source(row)
        self._table = None
        return row, report

    def _facts(self, tree: SourceTree, walked: Sequence[WalkedFile],
               previous: Mapping[str, FileFacts],
               options: SourceOptions) -> dict[str, ModuleFact]:
        """Module facts of every Python module (reused when none of its files changed; a stub
        and its ``.py`` merged), plus the modules that exist but are not read (compiled,
        excluded, over a cap)."""
        modules: dict[str, ModuleFact] = {m: ModuleFact(m, "", parsed=False)
                                          for m in tree.opaque}
        groups: dict[str, list[WalkedFile]] = {}
        for wf in sorted(walked, key=lambda w: (not w.path.endswith(".pyi"), w.path)):
            module = tree.layout.module(wf.path)
            if module is not None:
                groups.setdefault(module, []).append(wf)
        for module, files in groups.items():
            readable = [w for w in files if w.status in (None, "skipped:stub")]
            if not readable:
                modules[module] = ModuleFact(module, files[0].path, parsed=False)
                continue
            old = previous.get(readable[0].path)
            if old is not None and old.facts is not None and all(_unchanged(w, previous)
                                                                 for w in readable):
                modules[module] = old.facts
                continue
            facts = [self._read_facts(tree, w.path, module, options) for w in readable]
            modules[module] = facts[0] if len(facts) == 1 else with_runtime(facts[0], facts[1])
        return modules

    @staticmethod
    def _read_facts(tree: SourceTree, path: str, module: str,
                    options: SourceOptions) -> ModuleFact:
        from ..extract.walker import read_file_safely

        data = (tree.read or read_file_safely)(tree.root, path, options.max_file_bytes).data
        return (read_module(path, module, data) if data is not None
                else ModuleFact(module, path, parsed=False))

    # -- lookups ---------------------------------------------------------------------------------
    def api_table(self) -> ApiTable:
        """The API facts of every indexed source (rebuilt after each indexing run)."""
        rows = self.rows()
        key = tuple((r.repo_id, r.indexed_at) for r in rows)
        cached = self._table
        if cached is not None and cached[0] == key:
            return cached[1]
        labels = {r.repo_id: f"{r.name} {r.version}".strip() for r in rows}
        modules: dict[str, tuple[ModuleFact, str]] = {}
        for repo_id, fact in self.catalog.module_facts():
            if repo_id in labels:
                modules.setdefault(fact.module, (fact, labels[repo_id]))
        table = ApiTable(modules)
        self._table = (key, table)
        return table


def clone_folder(source: UrlSource, options: SourceOptions) -> str:
    """Where a repository by URL is cloned: the clones folder, the source's id (its name and a
    hash of its URL and ref, never the credentials), then the repository's own name (the
    folder's name is the package's when the repository's root is one)."""
    if not options.clones_dir:
        raise CloneFailed("no folder for clones is configured")
    folder = re.sub(r"[^A-Za-z0-9._-]", "_", source.location.name).strip(".") or "repository"
    return os.path.join(options.clones_dir, source.repo_id, folder)


def _index_for(options: SourceOptions) -> PackageIndex | None:
    return PackageIndex(options.index_url) if options.index_url else None


def _unchanged(wf: WalkedFile, previous: Mapping[str, FileFacts]) -> bool:
    old = previous.get(wf.path)
    return (old is not None and wf.mtime_ns is not None
            and (old.size, old.mtime_ns) == (wf.size, wf.mtime_ns))


def _prefer_sources_over_stubs(walked: Iterable[WalkedFile]) -> list[WalkedFile]:
    """A ``.pyi`` next to its ``.py``: its facts are read, but entities (with docstrings) come
    from the ``.py`` only."""
    walked = list(walked)
    paths = {w.path for w in walked}
    return [replace(w, status="skipped:stub", detail="the .py next to it is indexed")
            if w.status is None and w.path.endswith(".pyi") and w.path[:-1] in paths else w
            for w in walked]


def _budget(walked: Sequence[WalkedFile], previous: Mapping[str, FileFacts],
            max_entities: int) -> Callable[[set[str]], int]:
    """Entities left for the files extracted now: the cap minus what unchanged files hold."""
    walking = {w.path for w in walked if w.status is None}

    def left(extracted: set[str]) -> int:
        kept = sum(f.entities for p, f in previous.items()
                   if p in walking and p not in extracted and not f.capped)
        return max_entities - kept

    return left


def _forced(walked: Sequence[WalkedFile], previous: Mapping[str, FileFacts],
            surface: PublicSurface, tree: SourceTree, relabel: bool) -> list[str]:
    """Files re-extracted although unchanged: all on a new version (labels change), those
    whose public names changed, and those the entity cap left out last time."""
    out = []
    for wf in walked:
        if wf.status is not None:
            continue
        old = previous.get(wf.path)
        module = tree.layout.module(wf.path)
        public = surface.module_hash(module) if module else ""
        if relabel or old is None or old.capped or old.public_hash != public:
            out.append(wf.path)
    return out


def _file_rows(walked: Sequence[WalkedFile], tree: SourceTree, facts: Mapping[str, ModuleFact],
               surface: PublicSurface, previous: Mapping[str, FileFacts],
               extractor: SourceExtractor) -> list[FileFacts]:
    rows = []
    for wf in walked:
        module = tree.layout.module(wf.path) or ""
        fact = facts.get(module) if module else None
        if fact is not None and fact.path != wf.path:
            fact = None
        old = previous.get(wf.path)
        entities = extractor.counts.get(wf.path, old.entities if old is not None else 0)
        rows.append(FileFacts(wf.path, module, wf.size, wf.mtime_ns, fact,
                              surface.module_hash(module) if module else "",
                              entities if wf.status is None else 0,
                              wf.path in extractor.capped))
    return rows


def _row(source: Source, tree: SourceTree, labels_key: str, report: IndexReport, cut: int,
         capped: set[str], options: SourceOptions) -> SourceRow:
    notes = []
    if cut:
        notes.append(f"{cut} file(s) over the {options.max_bytes >> 20} MiB size cap")
    if capped:
        notes.append(f"{len(capped)} file(s) over the {options.max_entities} entity cap")
    return SourceRow(source.repo_id, source.name, source.kind, source_label(source),
                     tree.version, tree.origin, tree.root, labels_key, len(report.memory_ids),
                     time.strftime("%Y-%m-%d %H:%M:%S"), CAPPED if notes else OK,
                     "; ".join(notes), tree.revision)
