"""Adapters from the extraction package (safe walker, crash-contained parsing pool) to the
indexer's two seams: ``WalkerFn`` and ``ExtractorFn``.

Why seams: the indexer only needs "which files, with which stat" and "entities of these
bytes". Keeping the extraction package behind two callables lets tests wrap the real ones with
counters (how many files were parsed) without replacing them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from .records import ExtractorFn as ExtractorFn  # re-exported: the seam is named here too
from .records import WalkedFile

if TYPE_CHECKING:  # the extraction package loads when first used
    from ..extract.entities import FileExtraction
    from ..extract.pool import ExtractionPool
    from ..extract.walker import FileEntry

WalkerFn = Callable[[str, list[str], bool, int], Iterable[WalkedFile]]
"""``(root, exclude_patterns, recursive, max_file_bytes) -> walked files``."""


def _mtime_ns(mtime: float | None) -> int | None:
    return None if mtime is None else int(round(mtime * 1e9))


def from_entry(entry: FileEntry) -> WalkedFile:
    """A walker ``FileEntry`` as the indexer's ``WalkedFile`` (status None = to index)."""
    status = None if entry.status == "ok" else entry.status
    return WalkedFile(entry.path, status, entry.size, _mtime_ns(entry.mtime),
                      getattr(entry, "reason", ""))


def default_walker(root: str, exclude: list[str], recursive: bool, max_file_bytes: int, *,
                   include: Iterable[str] = (),
                   languages: Iterable[str] | None = None) -> Iterable[WalkedFile]:
    """The extraction package's ``walk_repository`` (no symlinks followed, .gitignore).

    ``include`` globs and ``languages`` narrow the walk further (a ``WalkerFn`` binds them).
    """
    from ..extract.walker import walk_repository

    for entry in walk_repository(root, include=include, exclude=exclude, languages=languages,
                                 recursive=recursive, max_file_bytes=max_file_bytes):
        if entry.is_dir:  # a pruned directory: one status for everything under it
            yield WalkedFile(entry.path.rstrip("/") + "/", entry.status, detail=entry.reason)
        else:
            yield from_entry(entry)


def checked_dir(directory: str) -> str:
    """The real path of an existing folder; ``ValueError``/``FileNotFoundError`` otherwise."""
    if not isinstance(directory, (str, os.PathLike)) or not str(directory):
        raise ValueError("directory must be a non-empty path")
    root = os.path.realpath(directory)
    if not os.path.isdir(root):
        raise FileNotFoundError(f"directory not found: {directory}")
    return root


def locate_file(file_path: str, roots: Iterable[str]) -> tuple[str, str]:
    """``(root, relative path)`` of a file to index alone: under the deepest known root,
    else under the working directory, else its own folder. Raises for a missing or
    unsupported file."""
    from ..extract.languages import detect_language
    from ..extract.walker import printable, undecodable

    if not isinstance(file_path, (str, os.PathLike)) or not str(file_path):
        raise ValueError("file_path must be a non-empty path")
    full = os.path.realpath(file_path)
    if not os.path.isfile(full):
        raise FileNotFoundError(f"file not found: {file_path}")
    if detect_language(str(file_path)) is None:
        raise ValueError(f"unsupported file type: {file_path}")
    if undecodable(full):
        raise ValueError(f"the file name is not valid UTF-8: {printable(full)}; rename the "
                         "file to index it")
    for root in [*sorted(roots, key=len, reverse=True), os.path.realpath(os.getcwd())]:
        if full.startswith(root.rstrip(os.sep) + os.sep):
            return root, os.path.relpath(full, root).replace(os.sep, "/")
    return os.path.dirname(full), os.path.basename(full)


def walk_single(root: str, rel: str) -> list[WalkedFile]:
    """One file as a one-entry walk (for ``index_file``/``reindex_file``)."""
    st = os.lstat(os.path.join(root, rel))
    return [WalkedFile(rel, None, st.st_size, _mtime_ns(st.st_mtime))]


class PoolExtractor:
    """Parses files in the extraction package's crash-contained worker pool (lazily started)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers
        self._pool: ExtractionPool | None = None

    def __call__(self, items: Iterable[tuple[str, bytes]]) -> Iterator[FileExtraction]:
        if self._pool is None:
            from ..extract.pool import ExtractionPool

            self._pool = (ExtractionPool() if self.workers is None
                          else ExtractionPool(workers=self.workers))
        return self._pool.extract(items)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()


def default_extractor(workers: int | None = None) -> ExtractorFn:
    return PoolExtractor(workers)
