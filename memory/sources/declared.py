"""The dependencies a repository declares: ``requirements*.txt`` and ``pyproject.toml``.

Why read them: a request for code in a repository will call its dependencies, and those are
exactly the libraries whose API the model should see. Files are read with the safe reader
(inside the repository only, no symlinks); ``-r`` includes are followed inside the repository;
options, URLs, editable installs and unparsable lines are skipped with a note, never fatal.
TOML is read with ``tomli`` (a dependency of the Cat itself on Python 3.10).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import dataclass

from ..extract.walker import read_file_safely
from .spec import DEPENDENCY, PipSource, parse_pip, unique_sources

MAX_INCLUDE_DEPTH = 5
MAX_FILE_BYTES = 1 << 20
#: Dependencies indexed at most (each is a download when it is not installed).
MAX_DEPENDENCIES = 40


@dataclass(frozen=True)
class Declared:
    """The repository's dependencies and notes about what was skipped."""

    sources: tuple[PipSource, ...]
    notes: tuple[str, ...] = ()


def declared_dependencies(root: str) -> Declared:
    """Every dependency named by the repository's requirement files and ``pyproject.toml``."""
    found: list[PipSource] = []
    notes: list[str] = []
    for rel in _requirement_files(root):
        found.extend(_requirements(root, rel, notes, set(), 0))
    found.extend(_pyproject(root, notes))
    sources = [s for s in unique_sources(found) if isinstance(s, PipSource)]
    if len(sources) > MAX_DEPENDENCIES:
        notes.append(f"{len(sources)} dependencies declared: only the first "
                     f"{MAX_DEPENDENCIES} are indexed")
        sources = sources[:MAX_DEPENDENCIES]
    return Declared(tuple(sources), tuple(notes))


def _requirement_files(root: str) -> list[str]:
    import os

    names = []
    for folder in ("", "requirements"):
        path = os.path.join(root, folder) if folder else root
        try:
            entries = sorted(os.listdir(path), key=lambda n: (n != "requirements.txt", n))
        except OSError:
            continue
        for name in entries:
            if name.endswith(".txt") and (folder or name.startswith("requirements")):
                names.append(f"{folder}/{name}" if folder else name)
    return names


def _read(root: str, rel: str, notes: list[str]) -> str | None:
    try:
        read = read_file_safely(root, rel, MAX_FILE_BYTES)
    except ValueError as err:  # UnsafeInput: a path leaving the repository
        notes.append(f"`{rel}` not read: {err}")
        return None
    if read.data is None:
        if read.status != "error:vanished":
            notes.append(f"`{rel}` not read: {read.status}")
        return None
    return read.data.decode("utf-8", "replace")


def _requirements(root: str, rel: str, notes: list[str], seen: set[str],
                  depth: int) -> Iterator[PipSource]:
    if rel in seen or depth > MAX_INCLUDE_DEPTH:
        return
    seen.add(rel)
    text = _read(root, rel, notes)
    for number, raw in enumerate((text or "").splitlines(), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        target = _include(line)
        if target:
            include = posixpath.normpath(posixpath.join(posixpath.dirname(rel), target))
            yield from _requirements(root, include, notes, seen, depth + 1)
            continue
        if line.startswith("-"):
            continue  # options, constraints, editable installs: not a library to read
        try:
            yield parse_pip(line, DEPENDENCY)
        except ValueError as err:
            notes.append(f"`{rel}` line {number} skipped: {err}")


def _include(line: str) -> str:
    """The file of ``-r file``, ``-rfile``, ``--requirement file`` or ``--requirement=file``."""
    for flag in ("--requirement", "-r"):
        if line.startswith(flag):
            return line[len(flag):].lstrip(" =\t").strip()
    return ""


def _pyproject(root: str, notes: list[str]) -> list[PipSource]:
    text = _read(root, "pyproject.toml", notes)
    if text is None:
        return []
    try:
        import tomli
    except ImportError:
        notes.append("`pyproject.toml` not read: the tomli package is missing")
        return []
    try:
        data = tomli.loads(text)
    except tomli.TOMLDecodeError as err:
        notes.append(f"`pyproject.toml` not read: {err}")
        return []
    names = list(_pep621(data)) + list(_poetry(data))
    out = []
    for item in names:
        try:
            out.append(parse_pip(item, DEPENDENCY))
        except ValueError as err:
            notes.append(f"`pyproject.toml` dependency {item!r:.60} skipped: {err}")
    return out


def _pep621(data: dict[str, object]) -> Iterator[str]:
    project = data.get("project")
    deps = project.get("dependencies") if isinstance(project, dict) else None
    if isinstance(deps, list):
        yield from (d for d in deps if isinstance(d, str))


def _poetry(data: dict[str, object]) -> Iterator[str]:
    tool = data.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    deps = poetry.get("dependencies") if isinstance(poetry, dict) else None
    if isinstance(deps, dict):
        yield from (name for name in deps if isinstance(name, str) and name != "python")
