"""``pip:NAME`` as a tree to index: installed here, cached earlier, or downloaded once.

Order of preference: the distribution installed in the running environment (read through
``importlib.metadata``: its version and file list; the package is never imported) when its
version fits the specifier; else a version already in the download cache; else the best file
the package index offers (newest fitting version, a wheel before an sdist), downloaded, checked
and normalised into the cache. The cache is the plugin's data folder, so a restart or a second
project never downloads the same version again.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass

from ..errors import CodeMemoryError
from .archives import ArchiveLimits, ArchiveRefused, normalise_archive
from .package_index import IndexFile, PackageIndex, PackageIndexError
from .spec import PipSource, canonical_name
from .trees import SourceTree, archive_tree, installed_tree

INSTALLED = "installed"
CACHED = "cached"
DOWNLOADED = "downloaded"


class SourceUnavailable(CodeMemoryError):
    """A source could not be found, fetched or read; the message says what to do."""


@dataclass(frozen=True)
class ReleaseFile:
    """A file of the index with the version and kind its name declares."""

    file: IndexFile
    version: str
    wheel: bool
    pure: bool


def resolve_distribution(source: PipSource, *, cache_dir: str, index: PackageIndex | None,
                         include_private: bool, limits: ArchiveLimits) -> SourceTree:
    """The tree to index for ``source``; ``SourceUnavailable`` when there is none."""
    installed = _installed(source, include_private)
    if installed is not None:
        return installed
    cached = cached_archive(cache_dir, source)
    if cached is not None:
        path, version = cached
        try:
            return archive_tree(path, include_private=include_private, version=version,
                                origin=CACHED)
        except ArchiveRefused:
            if index is None:
                raise
            _evict(path)  # a damaged cache entry is fetched again
    if index is None:
        raise SourceUnavailable(f"{source.spec} is not installed here and no package index "
                                "is configured")
    path, version = download(source, index, cache_dir, limits)
    return archive_tree(path, include_private=include_private, version=version,
                        origin=DOWNLOADED)


def _fits(version: str, specifier: str, prereleases: bool | None = None) -> bool:
    """Whether ``version`` satisfies ``specifier``; an installed or cached pre-release counts
    (``prereleases=True``), a new download avoids one unless the specifier names it."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        specifiers = SpecifierSet(specifier)
        if prereleases is None:  # explicit, so packaging versions cannot disagree
            prereleases = any(Version(s.version.rstrip(".*")).is_prerelease for s in specifiers)
        return specifiers.contains(Version(version), prereleases=prereleases)
    except (InvalidVersion, InvalidSpecifier):
        return False


def _installed(source: PipSource, include_private: bool) -> SourceTree | None:
    from importlib import metadata

    try:
        dist = metadata.distribution(source.name)
    except (metadata.PackageNotFoundError, ValueError):
        return None
    version = str(dist.version or "")
    if not _fits(version, source.specifier, prereleases=True):
        return None
    files = dist.files
    if files is None:
        raise SourceUnavailable(f"{source.name} {version} is installed without a file list "
                                "(RECORD); add its folder as a source instead")
    root = os.path.realpath(str(dist.locate_file("")))
    return installed_tree(root, [str(f.as_posix()) for f in files],
                          include_private=include_private, version=version)


# -- the download cache ------------------------------------------------------------------------
def _cache_name(name: str, version: str) -> str:
    return f"{canonical_name(name)}-{version}".replace("/", "_")


def cached_archive(cache_dir: str, source: PipSource) -> tuple[str, str] | None:
    """``(zip path, version)`` of the newest cached version that fits, if any."""
    from packaging.version import InvalidVersion, Version

    if not os.path.isdir(cache_dir):
        return None
    best: tuple[Version, str, str] | None = None
    for entry in os.listdir(cache_dir):
        if not entry.endswith(".json") or not entry.startswith(source.name + "-"):
            continue
        try:
            with open(os.path.join(cache_dir, entry), encoding="utf-8") as handle:
                record = json.load(handle)
            version, archive = str(record["version"]), str(record["archive"])
            parsed = Version(version)
        except (OSError, ValueError, KeyError, TypeError, InvalidVersion):
            continue
        path = os.path.join(cache_dir, os.path.basename(archive))
        if (canonical_name(str(record.get("name", ""))) == source.name and os.path.isfile(path)
                and _fits(version, source.specifier, True) and (best is None or parsed > best[0])):
            best = (parsed, path, version)
    return None if best is None else (best[1], best[2])


def _evict(archive: str) -> None:
    for path in (archive, archive[:-len(".zip")] + ".json"):
        if os.path.exists(path):
            os.unlink(path)


def download(source: PipSource, index: PackageIndex, cache_dir: str,
             limits: ArchiveLimits) -> tuple[str, str]:
    """Fetch the best fitting file, normalise it into the cache; ``(zip path, version)``."""
    try:
        files = index.files(source.name)
    except PackageIndexError as err:
        raise SourceUnavailable(str(err)) from None
    candidate = best_candidate(source, files)
    if candidate is None:
        raise SourceUnavailable(f"the package index offers no file of {source.spec}"
                                + (f" ({len(files)} files listed)" if files else ""))
    os.makedirs(cache_dir, exist_ok=True)
    stem = _cache_name(source.name, candidate.version)
    handle, temp = tempfile.mkstemp(prefix=".download-", dir=cache_dir)
    os.close(handle)
    try:
        sha = index.download(candidate.file, temp, limits.max_total_bytes)
        target = os.path.join(cache_dir, stem + ".zip")
        normalise_archive(temp, target, limits, strip_top=not candidate.wheel)
    except (PackageIndexError, ArchiveRefused) as err:
        raise SourceUnavailable(f"{candidate.file.filename}: {err}") from None
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
    record = {"name": source.name, "version": candidate.version, "archive": stem + ".zip",
              "file": candidate.file.filename, "sha256": sha}
    with open(os.path.join(cache_dir, stem + ".json"), "w", encoding="utf-8") as out:
        json.dump(record, out)
    return target, candidate.version


def best_candidate(source: PipSource, files: list[IndexFile]) -> ReleaseFile | None:
    """Newest version fitting the specifier (yanked files only when pinned exactly); within
    it a pure wheel, then any wheel, then an sdist."""
    from packaging.version import Version

    pinned = source.specifier.startswith("==")
    found = [c for c in (_candidate(source.name, f) for f in files) if c is not None
             and _fits(c.version, source.specifier) and (pinned or not c.file.yanked)]
    if not found:
        return None
    return max(found, key=lambda c: (Version(c.version), c.wheel, c.pure))


def _candidate(name: str, file: IndexFile) -> ReleaseFile | None:
    from packaging.utils import (
        InvalidSdistFilename,
        InvalidWheelFilename,
        parse_sdist_filename,
        parse_wheel_filename,
    )
    from packaging.version import InvalidVersion

    try:
        if file.filename.endswith(".whl"):
            dist, version, _, tags = parse_wheel_filename(file.filename)
            pure = any(t.abi == "none" and t.platform == "any" for t in tags)
            wheel = True
        elif file.filename.endswith((".tar.gz", ".zip")):
            dist, version = parse_sdist_filename(file.filename)
            pure, wheel = False, False
        else:
            return None
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None
    if canonical_name(str(dist)) != name:
        return None
    return ReleaseFile(file, str(version), wheel, pure)
