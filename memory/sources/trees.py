"""A source as the indexer sees it: a walk (what to read, in what order) and a reader.

Three shapes of source, one result: a local folder (walked with the extraction package's safe
walker: no symlink is followed, nothing outside the folder is read), an installed distribution
(exactly the files its ``RECORD`` lists, confined to its site-packages folder) and a cached
archive (``archives.ArchiveTree``). Library defaults drop tests and build leftovers; the walk is
ordered so that what a caller needs comes first (public modules, then docs, then private
modules), and the per-source byte cap cuts from the end with a status on every file it cut.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ..codeindex.records import ReadFn, WalkedFile
from ..extract.languages import detect_language
from .api_facts import module_name
from .archives import safe_member_name
from .docs import docs_language
from .public import is_public_module

SIZE_CAP = "skipped:source_size_cap"
COMPILED_SUFFIXES = (".so", ".pyd")

#: Folders never indexed in a source (build leftovers, environments, caches).
#: (Virtual environments are skipped by what they are, a folder holding ``pyvenv.cfg``, by the
#: walker: a library's own ``venv`` package, like the standard library's, is kept.)
ALWAYS_EXCLUDED = ("*/__pycache__/*", "*/.tox/*", "*/node_modules/*", "*/site-packages/*",
                   "*/.eggs/*", "*.egg-info/*", "*/build/*", "*/dist/*")
#: Skipped by default (the "index private names and tests" setting keeps them).
LIBRARY_EXCLUDED = ("*/tests/*", "*/test/*", "*/_private/*", "*/test_*.py", "*/*_test.py",
                    "*/conftest.py", "*/setup.py", "*/noxfile.py", "*/fabfile.py")


@dataclass(frozen=True)
class ModuleLayout:
    """How file paths map to module names: ``strip`` a ``src/`` folder, ``prefix`` a package
    name when the folder itself is the package; ``packages_only`` requires ``__init__`` files
    (a repository's ``docs/conf.py`` is no module; a wheel's namespace package is)."""

    strip: str = ""
    prefix: str = ""
    packages: frozenset[str] = frozenset()
    packages_only: bool = False

    def module(self, path: str) -> str | None:
        if self.strip:
            if not path.startswith(self.strip):
                return None
            path = path[len(self.strip):]
        parent = str(PurePosixPath(path).parent)
        if self.packages_only and parent != "." and parent not in self.packages:
            return None
        return module_name(path, self.prefix)


@dataclass
class SourceTree:
    """What to index for one source, and where it came from."""

    root: str
    walked: list[WalkedFile]
    layout: ModuleLayout
    version: str = ""
    origin: str = ""
    read: ReadFn | None = None
    #: Modules that exist but are not read (compiled, excluded, cut by a cap).
    opaque: set[str] = field(default_factory=set)
    close: Callable[[], None] = lambda: None
    #: The commit of a repository by URL ("" for other trees).
    revision: str = ""


def excluded(rel: str, patterns: Iterable[str]) -> bool:
    anchored = "/" + rel
    return any(fnmatch.fnmatchcase(anchored, p) or fnmatch.fnmatchcase(rel, p)
               for p in patterns)


def exclusions(include_private: bool) -> tuple[str, ...]:
    return ALWAYS_EXCLUDED if include_private else ALWAYS_EXCLUDED + LIBRARY_EXCLUDED


def layout_for(paths: Sequence[str], root_is_package: bool = False, package: str = "",
               packages_only: bool = True) -> ModuleLayout:
    """The layout of a tree from its file list (``src/`` layout, package folder)."""
    inits = {str(PurePosixPath(p).parent) for p in paths
             if PurePosixPath(p).name in ("__init__.py", "__init__.pyi")}
    if not root_is_package and any(p.startswith("src/") for p in inits):
        stripped = frozenset(p[4:] for p in inits if p.startswith("src/"))
        return ModuleLayout("src/", "", stripped, packages_only)
    return ModuleLayout("", package if root_is_package else "", frozenset(inits), packages_only)


def indexable(rel: str) -> bool:
    """Code the extraction package parses, or documentation we split into sections."""
    return detect_language(rel) is not None or docs_language(rel) is not None


def ordered(walked: Iterable[WalkedFile], layout: ModuleLayout,
            max_bytes: int) -> tuple[list[WalkedFile], int]:
    """Public modules first, then docs, then the rest; files past ``max_bytes`` (in that
    order) get the ``source_size_cap`` status. Returns the walk and how many were cut."""
    def rank(wf: WalkedFile) -> tuple[int, int, str]:
        module = layout.module(wf.path)
        if module is not None:
            group = 0 if is_public_module(module) else 2
        else:
            group = 1 if docs_language(wf.path) is not None else 3
        return group, wf.path.count("/"), wf.path

    out, total, cut = [], 0, 0
    for wf in sorted(walked, key=rank):
        if wf.status is None:
            total += wf.size or 0
            if total > max_bytes:
                wf = WalkedFile(wf.path, SIZE_CAP, wf.size, wf.mtime_ns,
                                f"over the source's {max_bytes >> 20} MiB cap")
                cut += 1
        out.append(wf)
    return out, cut


# -- folders -----------------------------------------------------------------------------------
def folder_tree(root: str, *, include_private: bool, max_file_bytes: int) -> SourceTree:
    """A local folder, walked safely; ``.gitignore`` applies, tests are left out by default."""
    from ..extract.walker import walk_repository

    walked: list[WalkedFile] = []
    pruned: list[str] = []
    for entry in walk_repository(root, exclude=exclusions(include_private),
                                 max_file_bytes=max_file_bytes):
        if entry.is_dir:
            pruned.append(entry.path)
            walked.append(WalkedFile(entry.path.rstrip("/") + "/", entry.status,
                                     detail=entry.reason))
        elif entry.ok or (entry.status == "skipped:unsupported_language"
                          and docs_language(entry.path) not in (None, "metadata")):
            walked.append(WalkedFile(entry.path, None, entry.size, _ns(entry.mtime)))
        else:
            walked.append(WalkedFile(entry.path, entry.status, entry.size, _ns(entry.mtime),
                                     entry.reason))
    is_package = os.path.isfile(os.path.join(root, "__init__.py"))
    # a pruned folder that is a package (private, tests) still exists: calls into it are
    # not "unknown names" of the source; the walk never lists its __init__.py, so look
    inits = [f"{p}/__init__.py" for p in (d.rstrip("/") for d in pruned)
             if os.path.isfile(os.path.join(root, p, "__init__.py"))]
    paths = [w.path for w in walked]
    layout = layout_for([*paths, *inits], is_package, os.path.basename(root.rstrip(os.sep)))
    opaque = {m for m in (layout.module(init) for init in inits) if m}
    return SourceTree(root, walked, layout, origin="folder", opaque=opaque)


def _ns(mtime: float | None) -> int | None:
    return None if mtime is None else int(round(mtime * 1e9))


# -- installed distributions -------------------------------------------------------------------
def installed_tree(root: str, files: Iterable[str], *, include_private: bool,
                   version: str) -> SourceTree:
    """The files a distribution's ``RECORD`` lists, inside ``root`` (its site-packages)."""
    walked: list[WalkedFile] = []
    opaque: set[str] = set()
    patterns = exclusions(include_private)
    layout = ModuleLayout()
    for raw in files:
        rel = safe_member_name(raw)
        if rel is None:
            continue  # scripts and data installed outside site-packages: not the library
        if rel.endswith(COMPILED_SUFFIXES):
            opaque |= _compiled_module(rel)
            continue
        if not (indexable(rel) or docs_language(rel) == "metadata"):
            continue
        if excluded(rel, patterns):
            opaque |= {m for m in [layout.module(rel)] if m}
            continue
        walked.append(_stat(root, rel))
    return SourceTree(root, walked, layout, version, "installed", opaque=opaque)


def _compiled_module(rel: str) -> set[str]:
    """``pkg/_speedups.cpython-310-x86_64-linux-gnu.so`` -> ``{"pkg._speedups"}``."""
    folder, _, name = rel.rpartition("/")
    stem = name.split(".", 1)[0]
    module = ".".join([*folder.split("/"), stem] if folder else [stem])
    return {module} if all(p.isidentifier() for p in module.split(".")) else set()


def _stat(root: str, rel: str) -> WalkedFile:
    try:
        st = os.lstat(os.path.join(root, rel))
    except OSError as err:
        return WalkedFile(rel, "error:vanished", detail=err.strerror or "")
    if stat.S_ISLNK(st.st_mode):
        return WalkedFile(rel, "skipped:symlink", detail="symbolic links are never followed")
    if not stat.S_ISREG(st.st_mode):
        return WalkedFile(rel, "skipped:not_regular")
    return WalkedFile(rel, None, st.st_size, st.st_mtime_ns)


# -- cached archives ---------------------------------------------------------------------------
def archive_tree(path: str, *, include_private: bool, version: str, origin: str) -> SourceTree:
    """A normalised cache zip of a downloaded wheel or sdist."""
    from .archives import ArchiveTree

    archive = ArchiveTree(path)
    patterns = exclusions(include_private)
    walked, opaque = [], set()
    everything = archive.walk()
    is_wheel = any(".dist-info/" in w.path for w in everything)
    layout = layout_for([w.path for w in everything], packages_only=not is_wheel)
    for wf in everything:
        if excluded(wf.path, patterns):
            opaque |= {m for m in [layout.module(wf.path)] if m}
        elif indexable(wf.path) or docs_language(wf.path) == "metadata":
            walked.append(wf)
    return SourceTree(path, walked, layout, version, origin, archive.read, opaque,
                      archive.close)
