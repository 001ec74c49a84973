"""Downloaded distributions, kept as one normalised zip per version and read in place.

Why never unpack: the Cat's data folder usually lies under ``/app``, where a new ``.py`` file
restarts the Cat (uvicorn's reload watches every ``*.py``), and unpacking is where archive
attacks live (absolute paths, ``..``, links, bombs). So a wheel or sdist is read member by
member, with a name check, a per-file and a total size cap, regular files only, and the files a
source needs (Python code and docs) are copied into a fresh zip in the cache; the indexer then
reads that zip through ``ArchiveTree``. Nothing from an archive is ever executed or imported.
"""

from __future__ import annotations

import os
import re
import stat
import tarfile
import tempfile
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import IO

from ..codeindex.records import WalkedFile
from ..errors import CodeMemoryError
from ..extract.walker import OK, ReadResult
from .docs import docs_language

#: Files kept from a distribution: Python code and stubs, documentation, package description.
KEPT_SUFFIXES = frozenset({".py", ".pyi", ".md", ".markdown", ".rst"})
MAX_MEMBERS = 50_000


class ArchiveRefused(CodeMemoryError):
    """A downloaded archive is damaged, hostile or over a size cap (the message says which)."""


@dataclass(frozen=True)
class ArchiveLimits:
    """Caps while reading an archive: per kept file, total kept bytes, total bytes inflated."""

    max_file_bytes: int = 1 << 20
    max_total_bytes: int = 64 << 20
    max_inflated_bytes: int = 512 << 20


def safe_member_name(name: str) -> str | None:
    """The member's relative posix path, or None for anything that could leave the folder."""
    if not name or "\x00" in name or "\\" in name or name.startswith("/"):
        return None
    if re.match(r"^[A-Za-z]:", name):
        return None
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        return None
    return "/".join(parts)


def is_kept(path: str) -> bool:
    """Whether a member is worth keeping for indexing (code, stubs, docs, METADATA)."""
    pure = PurePosixPath(path)
    return pure.suffix.lower() in KEPT_SUFFIXES or docs_language(path) == "metadata"


def normalise_archive(archive: str, destination: str, limits: ArchiveLimits,
                      strip_top: bool = False) -> int:
    """Copy the kept regular files of a wheel/zip or tar archive into a new zip; returns how
    many. ``strip_top`` drops the single top folder of an sdist (``name-1.0/``).

    Raises ``ArchiveRefused`` for a damaged archive or one over ``limits``; the destination is
    only created (atomically) when everything was read.
    """
    members = list(_members(archive, limits))
    if strip_top:
        members = _strip_top(members)
    folder = os.path.dirname(destination) or "."
    handle, temp = tempfile.mkstemp(prefix=".archive-", suffix=".zip", dir=folder)
    os.close(handle)
    try:
        with zipfile.ZipFile(temp, "w", compression=zipfile.ZIP_DEFLATED) as out:
            for name, data, date_time in members:
                info = zipfile.ZipInfo(name, date_time=date_time)
                info.external_attr = (stat.S_IFREG | 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                out.writestr(info, data)
        os.replace(temp, destination)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    return len(members)


Member = tuple[str, bytes, tuple[int, int, int, int, int, int]]


def _members(archive: str, limits: ArchiveLimits) -> Iterator[Member]:
    if zipfile.is_zipfile(archive):
        yield from _zip_members(archive, limits)
    elif tarfile.is_tarfile(archive):
        yield from _tar_members(archive, limits)
    else:
        raise ArchiveRefused("not a zip, wheel or tar archive")


class _Budget:
    """Counts kept and inflated bytes; raises when a cap is crossed."""

    def __init__(self, limits: ArchiveLimits) -> None:
        self.limits, self.kept, self.inflated, self.members = limits, 0, 0, 0

    def member(self) -> None:
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise ArchiveRefused(f"more than {MAX_MEMBERS} members")

    def keep(self, size: int) -> None:
        self.kept += size
        if self.kept > self.limits.max_total_bytes:
            raise ArchiveRefused(f"more than {self.limits.max_total_bytes} bytes of sources")

    def inflate(self, size: int) -> None:
        self.inflated += size
        if self.inflated > self.limits.max_inflated_bytes:
            raise ArchiveRefused(f"inflates past {self.limits.max_inflated_bytes} bytes")


def _read_capped(stream: IO[bytes], limit: int) -> bytes | None:
    """At most ``limit`` bytes (None when the member is bigger: skipped, not an error)."""
    data = stream.read(limit + 1)
    return None if len(data) > limit else data


def _zip_members(archive: str, limits: ArchiveLimits) -> Iterator[Member]:
    budget = _Budget(limits)
    try:
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                budget.member()
                kind = stat.S_IFMT(info.external_attr >> 16)  # 0: no type recorded
                name = safe_member_name(info.filename)
                if (info.is_dir() or name is None or not is_kept(name)
                        or (kind and kind != stat.S_IFREG)):
                    continue
                with zf.open(info) as stream:
                    data = stream.read(limits.max_file_bytes + 1)
                budget.inflate(len(data))
                if len(data) > limits.max_file_bytes:
                    continue
                budget.keep(len(data))
                yield name, data, info.date_time
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as err:
        raise ArchiveRefused(f"damaged zip archive: {err}") from None


def _tar_members(archive: str, limits: ArchiveLimits) -> Iterator[Member]:
    budget = _Budget(limits)
    try:
        with tarfile.open(archive, "r:*") as tf:
            for info in tf:
                budget.member()
                budget.inflate(info.size if info.isreg() else 0)
                if info.offset_data + info.size > limits.max_inflated_bytes:
                    raise ArchiveRefused(f"inflates past {limits.max_inflated_bytes} bytes")
                name = safe_member_name(info.name)
                if not info.isreg() or name is None or not is_kept(name):
                    continue
                stream = tf.extractfile(info)
                data = _read_capped(stream, limits.max_file_bytes) if stream else None
                if data is None:
                    continue
                budget.keep(len(data))
                yield name, data, _tar_time(info.mtime)
    except (tarfile.TarError, OSError, EOFError, ValueError) as err:
        raise ArchiveRefused(f"damaged tar archive: {err}") from None


def _tar_time(mtime: float) -> tuple[int, int, int, int, int, int]:
    import time

    stamp = time.gmtime(max(315532800, int(mtime)))  # zip dates start in 1980
    return (stamp.tm_year, stamp.tm_mon, stamp.tm_mday, stamp.tm_hour, stamp.tm_min,
            stamp.tm_sec)


def _strip_top(members: list[Member]) -> list[Member]:
    tops = {name.split("/", 1)[0] for name, _, _ in members}
    if len(tops) != 1 or not all("/" in name for name, _, _ in members):
        return members
    return [(name.split("/", 1)[1], data, when) for name, data, when in members]


class ArchiveTree:
    """A normalised cache zip as the indexer sees a folder: a walk and a safe reader.

    One open handle, shared under a lock (the indexer reads from two threads); ``close`` it.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._zip: zipfile.ZipFile | None = None

    def _open(self) -> zipfile.ZipFile:
        if self._zip is None:
            try:
                self._zip = zipfile.ZipFile(self.path)
            except (zipfile.BadZipFile, OSError) as err:
                raise ArchiveRefused(f"cached archive {self.path} is damaged: {err}") from None
        return self._zip

    def close(self) -> None:
        with self._lock:
            if self._zip is not None:
                self._zip.close()
                self._zip = None

    def walk(self) -> list[WalkedFile]:
        """Every regular member, in name order, with its size and (archive) time."""
        import calendar

        out = []
        with self._lock:
            infos = sorted(self._open().infolist(), key=lambda i: i.filename)
        for info in infos:
            name = safe_member_name(info.filename)
            if info.is_dir() or name is None:
                continue
            seconds = calendar.timegm((*info.date_time, 0, 0, 0))
            out.append(WalkedFile(name, None, info.file_size, seconds * 10**9))
        return out

    def read(self, root: str, rel: str, max_bytes: int) -> ReadResult:
        """``ReadResult`` of one member (``root`` is ignored: the tree is the archive)."""
        name = safe_member_name(rel)
        if name is None or name != rel:
            return ReadResult(rel, None, "skipped:unsafe_path")
        try:
            with self._lock:
                info = self._open().getinfo(name)
                if info.file_size > max_bytes:
                    return ReadResult(rel, None, "skipped:too_large", f"{info.file_size} bytes")
                with self._open().open(info) as stream:
                    data = _read_capped(stream, max_bytes)
        except KeyError:
            return ReadResult(rel, None, "error:vanished")
        except (zipfile.BadZipFile, OSError, ValueError, ArchiveRefused) as err:
            return ReadResult(rel, None, "error:io", str(err)[:200])
        if data is None:
            return ReadResult(rel, None, "skipped:too_large", "grew while reading")
        return ReadResult(rel, data, OK, "", len(data), None)
