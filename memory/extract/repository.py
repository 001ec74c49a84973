"""One call from a repository root to a status for every file: walk, read safely, extract.

This is the function ``CodeMemorySystem`` builds on: it yields a ``FileExtraction`` for
every walked entry (skipped ones included, so the index report accounts for every file),
parses in crash-isolated workers by default, and lets the caller skip files whose content
hash did not change before anything is parsed (incremental indexing).
"""

from __future__ import annotations

import collections
import dataclasses
import os
from collections.abc import Callable, Iterable, Iterator

from .api import extract_file
from .entities import UNCHANGED, FileExtraction, sha256_hex
from .pool import ExtractionPool, PoolConfig
from .safety import Limits
from .walker import DIR_FLAGS, OK, FileEntry, ReadResult, read_at, walk_repository

UnchangedCheck = Callable[[str, str], bool]
"""``(path_rel, file_sha256) -> True`` when the caller already has this exact content."""


def _from_entry(entry: FileEntry | ReadResult, language: str | None = None) -> FileExtraction:
    return FileExtraction(
        path=entry.path, status=entry.status, detail=entry.reason, size=entry.size,
        language=getattr(entry, "language", None) or language, mtime=entry.mtime,
    )


def extract_repository(
    root: str | os.PathLike[str],
    *,
    include: Iterable[str] = (),
    exclude: Iterable[str] = (),
    languages: Iterable[str] | None = None,
    recursive: bool = True,
    respect_gitignore: bool = True,
    limits: Limits | None = None,
    python_engine: str = "treesitter",
    pool: ExtractionPool | None = None,
    workers: int = 2,
    is_unchanged: UnchangedCheck | None = None,
) -> Iterator[FileExtraction]:
    """Yield one ``FileExtraction`` per walked entry of ``root`` (order not guaranteed).

    ``pool``: a caller-owned ``ExtractionPool`` (kept open across runs); otherwise one with
    ``workers`` processes is created and closed here. ``workers=0`` parses in-process: only
    for trusted code, since a parser crash would then take this process down.
    ``is_unchanged``: files it accepts come back as ``unchanged`` without being parsed.
    """
    limits = limits or Limits()
    real_root = os.path.realpath(os.fspath(root))
    entries = walk_repository(
        real_root, include=include, exclude=exclude, languages=languages,
        max_file_bytes=limits.max_file_bytes, respect_gitignore=respect_gitignore,
        recursive=recursive,
    )
    root_fd = os.open(real_root, DIR_FLAGS)
    try:
        side: collections.deque[FileExtraction] = collections.deque()
        mtimes: dict[str, float | None] = {}
        items = _readable(root_fd, entries, limits, is_unchanged, side, mtimes)
        if workers == 0 and pool is None:
            for path, data in items:
                yield from _drain(side)
                result = extract_file(path, data, python_engine=python_engine, limits=limits)
                yield dataclasses.replace(result, mtime=mtimes.pop(path, None))
            yield from _drain(side)
            return
        owned = pool is None
        active = pool or ExtractionPool(
            PoolConfig(workers=workers, python_engine=python_engine, limits=limits)
        )
        try:
            for result in active.extract(items):
                yield from _drain(side)
                yield dataclasses.replace(result, mtime=mtimes.pop(result.path, None))
            yield from _drain(side)
        finally:
            if owned:
                active.close()
    finally:
        os.close(root_fd)


def _drain(side: collections.deque[FileExtraction]) -> Iterator[FileExtraction]:
    while side:
        yield side.popleft()


def _readable(
    root_fd: int,
    entries: Iterator[FileEntry],
    limits: Limits,
    is_unchanged: UnchangedCheck | None,
    side: collections.deque[FileExtraction],
    mtimes: dict[str, float | None],
) -> Iterator[tuple[str, bytes]]:
    """``(path, bytes)`` of files to parse; everything else goes to ``side`` as a result."""
    for entry in entries:
        if entry.status != OK:
            side.append(_from_entry(entry))
            continue
        read = read_at(root_fd, entry.path.split("/"), entry.path, limits.max_file_bytes)
        if read.data is None:
            side.append(_from_entry(read, entry.language))
            continue
        file_hash = sha256_hex(read.data)
        if is_unchanged is not None and is_unchanged(entry.path, file_hash):
            side.append(FileExtraction(
                path=entry.path, status=UNCHANGED, language=entry.language, file_hash=file_hash,
                size=len(read.data), mtime=read.mtime,
            ))
            continue
        mtimes[entry.path] = read.mtime
        yield entry.path, read.data


def summarize(results: Iterable[FileExtraction]) -> dict[str, int]:
    """Count of files per status, for the index report."""
    counts: collections.Counter[str] = collections.Counter(r.status for r in results)
    return dict(sorted(counts.items()))
