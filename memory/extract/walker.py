"""Walk a repository without ever leaving it, and read its files safely.

Every directory is opened relative to its parent's descriptor with ``O_NOFOLLOW``, so no
symlink in any path component is followed, even if the tree changes while we walk it.
Files are classified with ``lstat`` data before anything is opened (FIFOs, sockets and
devices are never opened); reading uses ``O_NOFOLLOW | O_NONBLOCK`` and re-checks
``S_ISREG`` and the size on the open descriptor. Every entry gets a status.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..errors import UnsafeInput
from .gitignore import IgnoreStack, parse_gitignore
from .languages import detect_language

OK = "ok"
"""Walker status of a file that should be read and extracted."""

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_VCS_DIRS = frozenset({".git", ".hg", ".svn"})
MAX_GITIGNORE_BYTES = 1 << 20


@dataclass(frozen=True)
class FileEntry:
    """One walked path: ``status`` is ``ok`` (to index), ``skipped:<reason>`` or ``error:<reason>``.

    Pruned directories (ignored, excluded, version-control data) appear once, with
    ``is_dir=True``, instead of one entry per file inside them.
    """

    path: str
    status: str
    reason: str = ""
    size: int = 0
    mtime: float | None = None
    language: str | None = None
    is_dir: bool = False

    @property
    def ok(self) -> bool:
        """True when the file should be read and extracted."""
        return self.status == OK


@dataclass(frozen=True)
class ReadResult:
    """The bytes of a file, or why they were not read."""

    path: str
    data: bytes | None
    status: str
    reason: str = ""
    size: int = 0
    mtime: float | None = None


def undecodable(name: str) -> bool:
    """True for a file name that is not valid UTF-8 (Python holds its bytes as surrogates).

    Such a name cannot go into SQLite, JSON payloads or git, so the file gets a status instead.
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def printable(rel: str) -> str:
    """``rel`` with undecodable bytes shown as ``\\xff`` escapes (a safe key for reports)."""
    return os.fsencode(rel).decode("utf-8", "backslashreplace")


def _check_rel(rel: str) -> list[str]:
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\0" in rel:
        raise UnsafeInput(f"not a safe repository-relative path: {rel!r}")
    return parts


def open_dir(root_fd: int, parts: Iterable[str]) -> int:
    """Descriptor of ``root/parts...``, refusing a symlink at every component."""
    fd = os.dup(root_fd)
    try:
        for part in parts:
            nxt = os.open(part, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def _matches(patterns: Iterable[str], rel: str) -> bool:
    """Glob match on the relative path; ``*/x/*`` style patterns also match at the top."""
    anchored = "/" + rel
    return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(anchored, p) for p in patterns)


def read_file_safely(root: str, rel: str, max_bytes: int = 1 << 20) -> ReadResult:
    """Read ``root/rel`` without following symlinks, opening special files, or reading past
    ``max_bytes``. Raises ``UnsafeInput`` for a path that is absolute or has ``..``."""
    parts = _check_rel(rel)
    root_fd = os.open(os.path.realpath(root), DIR_FLAGS)
    try:
        return read_at(root_fd, parts, rel, max_bytes)
    finally:
        os.close(root_fd)


def read_at(root_fd: int, parts: list[str], rel: str, max_bytes: int) -> ReadResult:
    """``read_file_safely`` relative to an open root descriptor (for bulk reads)."""
    try:
        dir_fd = open_dir(root_fd, parts[:-1])
    except OSError as exc:
        reason = "skipped:symlink" if exc.errno in (errno.ELOOP, errno.ENOTDIR) else "error:io"
        return ReadResult(rel, None, reason, exc.strerror or "")
    try:
        try:
            fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return ReadResult(rel, None, "skipped:symlink")
            if exc.errno == errno.ENOENT:
                return ReadResult(rel, None, "error:vanished")
            return ReadResult(rel, None, f"error:{errno.errorcode.get(exc.errno or 0, 'io')}")
    finally:
        os.close(dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return ReadResult(rel, None, "skipped:not_regular")
        if st.st_size > max_bytes:
            return ReadResult(rel, None, "skipped:too_large", f"{st.st_size} bytes",
                              st.st_size, st.st_mtime)
        chunks, total = [], 0
        while total <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            return ReadResult(rel, None, "skipped:too_large", "grew while reading", total)
        return ReadResult(rel, b"".join(chunks), OK, "", total, st.st_mtime)
    except OSError as exc:
        return ReadResult(rel, None, "error:io", exc.strerror or "")
    finally:
        os.close(fd)


def _read_gitignore(dir_fd: int) -> str | None:
    return _read_gitignore_named(dir_fd, ".gitignore")


@dataclass(frozen=True)
class WalkOptions:
    """Filters of ``walk_repository`` (see there)."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    languages: frozenset[str] | None = None
    max_file_bytes: int = 1 << 20
    respect_gitignore: bool = True
    recursive: bool = True
    skip_hardlinks: bool = True


def walk_repository(
    root: str | os.PathLike[str],
    *,
    include: Iterable[str] = (),
    exclude: Iterable[str] = (),
    languages: Iterable[str] | None = None,
    max_file_bytes: int = 1 << 20,
    respect_gitignore: bool = True,
    recursive: bool = True,
    skip_hardlinks: bool = True,
) -> Iterator[FileEntry]:
    """Every file and pruned directory under ``root``, each with a status; ``ok`` ones to index.

    ``include``/``exclude`` are globs on the relative posix path (``*/tests/*`` also matches
    a top-level ``tests/``); ``languages`` limits to those language ids; ``.gitignore`` files
    (nested ones too) and ``.git/info/exclude`` apply when ``respect_gitignore``. Symlinks are
    reported, never followed; FIFOs, sockets and devices are reported, never opened; files
    with several hard links are skipped by default (one may be a file outside the root).
    """
    options = WalkOptions(
        tuple(include), tuple(exclude), frozenset(languages) if languages is not None else None,
        max_file_bytes, respect_gitignore, recursive, skip_hardlinks,
    )
    root_fd = os.open(os.path.realpath(os.fspath(root)), DIR_FLAGS)
    try:
        yield from _walk(root_fd, options)
    finally:
        os.close(root_fd)


def _walk(root_fd: int, options: WalkOptions) -> Iterator[FileEntry]:
    ignores = IgnoreStack()
    if options.respect_gitignore:
        try:
            info_fd = open_dir(root_fd, [".git", "info"])
        except OSError:
            info_fd = -1
        if info_fd >= 0:
            try:
                text = _read_gitignore_named(info_fd, "exclude")
            finally:
                os.close(info_fd)
            ignores.add("", parse_gitignore(text or ""))
    pending = [""]
    while pending:
        rel_dir = pending.pop()
        try:
            dir_fd = open_dir(root_fd, rel_dir.split("/") if rel_dir else [])
        except OSError as exc:
            yield FileEntry(rel_dir, "error:unreadable_dir", exc.strerror or "", is_dir=True)
            continue
        try:
            if options.respect_gitignore:
                text = _read_gitignore(dir_fd)
                if text:
                    ignores.add(rel_dir, parse_gitignore(text))
            with os.scandir(dir_fd) as iterator:
                listed = sorted(iterator, key=lambda e: e.name)
            subdirs = []
            for entry in listed:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                result = _odd_name(entry, rel) or _classify(entry, rel, ignores, options, dir_fd)
                if result is None:
                    subdirs.append(rel)
                else:
                    yield result
        finally:
            os.close(dir_fd)
        pending.extend(reversed(subdirs))


def _read_gitignore_named(dir_fd: int, name: str) -> str | None:
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_GITIGNORE_BYTES:
            return None
        return os.read(fd, MAX_GITIGNORE_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def _special_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special"


def _odd_name(entry: os.DirEntry[str], rel: str) -> FileEntry | None:
    """A status for a name that cannot be stored (not UTF-8), reported with ``\\xNN``."""
    if not undecodable(entry.name):
        return None
    try:
        is_dir = entry.is_dir(follow_symlinks=False)
    except OSError:
        is_dir = False
    return FileEntry(printable(rel), "skipped:undecodable_name",
                     "the name is not valid UTF-8; rename it to index it", is_dir=is_dir)


def _classify(
    entry: os.DirEntry[str], rel: str, ignores: IgnoreStack, options: WalkOptions, dir_fd: int
) -> FileEntry | None:
    """The entry's status, or None for a directory to descend into."""
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError as exc:
        return FileEntry(printable(rel), "error:stat", exc.strerror or "")
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        return FileEntry(rel, "skipped:symlink", "symbolic links are never followed")
    if stat.S_ISDIR(mode):
        return _classify_dir(entry.name, rel, ignores, options, dir_fd)
    if not stat.S_ISREG(mode):
        return FileEntry(rel, "skipped:not_regular", _special_kind(mode))
    return _classify_file(rel, st, ignores, options)


def _classify_file(
    rel: str, st: os.stat_result, ignores: IgnoreStack, options: WalkOptions
) -> FileEntry:
    """The status of a regular file (``st`` is its stat), with its size and mtime."""

    def entry(status: str, reason: str = "", language: str | None = None) -> FileEntry:
        return FileEntry(rel, status, reason, size=st.st_size, mtime=st.st_mtime,
                         language=language)

    if options.respect_gitignore and ignores.is_ignored(rel, is_dir=False):
        return entry("skipped:ignored", ".gitignore")
    if options.exclude and _matches(options.exclude, rel):
        return entry("skipped:excluded", "exclude pattern")
    if options.include and not _matches(options.include, rel):
        return entry("skipped:not_included", "no include pattern matches")
    language = detect_language(rel)
    if language is None:
        return entry("skipped:unsupported_language")
    if options.languages is not None and language not in options.languages:
        return entry("skipped:language_filtered", language, language)
    if st.st_size > options.max_file_bytes:
        return entry("skipped:too_large", f"{st.st_size} bytes > {options.max_file_bytes}",
                     language)
    if options.skip_hardlinks and st.st_nlink > 1:
        return entry("skipped:hardlink", f"{st.st_nlink} hard links", language)
    return entry(OK, language=language)


def is_virtualenv(parent_fd: int, name: str) -> bool:
    """True for a Python virtual environment: a folder holding ``pyvenv.cfg`` (PEP 405).

    Virtual environments are recognised by what they are, not by a folder name such as
    ``venv`` (the standard library has its own ``venv`` package, which must be indexed).
    """
    try:
        info = os.stat(f"{name}/pyvenv.cfg", dir_fd=parent_fd, follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode)


def _classify_dir(
    name: str, rel: str, ignores: IgnoreStack, options: WalkOptions, parent_fd: int
) -> FileEntry | None:
    if name in _VCS_DIRS:
        return FileEntry(rel, "skipped:vcs", "version-control data", is_dir=True)
    if is_virtualenv(parent_fd, name):
        return FileEntry(rel, "skipped:virtualenv", "a Python virtual environment (pyvenv.cfg)",
                         is_dir=True)
    if options.respect_gitignore and ignores.is_ignored(rel, is_dir=True):
        return FileEntry(rel, "skipped:ignored", ".gitignore", is_dir=True)
    if options.exclude and (_matches(options.exclude, rel) or _matches(options.exclude, rel + "/")):
        return FileEntry(rel, "skipped:excluded", "exclude pattern", is_dir=True)
    if not options.recursive:
        return FileEntry(rel, "skipped:not_recursive", is_dir=True)
    return None
