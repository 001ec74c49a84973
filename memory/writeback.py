"""Writing a finished draft into the user's repository without ever losing the user's work.

Rules (Aider's guarantees, made stricter):
- compare-and-swap: a file is written only if its current content is exactly what the draft
  started from (``base``); anything the user changed since is refused with the reason, never
  overwritten;
- paths stay inside the repository: no absolute paths, no ``..``, no ``.git``, no symlinked
  target or parent folder (a symlink could point anywhere);
- all or nothing: every file is checked before the first write, each write is a temp file plus
  fsync plus rename (a crash leaves the old or the new content, never half), and a failure part
  way restores what was already replaced;
- the previous content is returned, so the caller can keep it (the draft history has it too).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field

from .commits.names import check_path
from .errors import CodeMemoryError, UnsafeInput


class WriteBackRefused(CodeMemoryError):
    """The draft cannot be written: a file changed underneath, or a path is unsafe."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class WriteBackResult:
    """What was written, and the content each file had before (``None``: it did not exist)."""

    written: tuple[str, ...]
    previous: dict[str, str | None] = field(default_factory=dict)


def _safe_parts(rel: str) -> list[str]:
    """The path's components, if it is a plain path inside the repository.

    The same rules as the draft history's paths (a draft can only hold such paths anyway).
    """
    try:
        return check_path(rel).split("/")
    except UnsafeInput as err:
        raise UnsafeInput(f"refusing to write {rel!r}: not a plain path inside the repository "
                          f"({err})") from None


def _current(root: str, parts: list[str]) -> str | None:
    """The file's current text, ``None`` when absent; symlinks anywhere are refused."""
    here = root
    for i, part in enumerate(parts):
        here = os.path.join(here, part)
        try:
            info = os.lstat(here)
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(info.st_mode):
            raise UnsafeInput(f"refusing to write through the symlink {'/'.join(parts[:i + 1])}")
        last = i == len(parts) - 1
        if last and not stat.S_ISREG(info.st_mode):
            raise UnsafeInput(f"refusing to write {'/'.join(parts)}: not a regular file")
        if not last and not stat.S_ISDIR(info.st_mode):
            raise UnsafeInput(f"refusing to write {'/'.join(parts)}: a parent is not a folder")
    with open(here, encoding="utf-8", newline="") as handle:
        return handle.read()


def _replace(root: str, parts: list[str], text: str) -> None:
    folder = os.path.join(root, *parts[:-1])
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, parts[-1])
    mode = stat.S_IMODE(os.stat(target).st_mode) if os.path.exists(target) else 0o644
    fd, temp = tempfile.mkstemp(dir=folder, prefix=".codemem-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def _remove(root: str, parts: list[str]) -> None:
    os.unlink(os.path.join(root, *parts))


def write_back(root: str, files: Mapping[str, str],
               base: Mapping[str, str | None]) -> WriteBackResult:
    """Write ``files`` into ``root`` if every one still has its ``base`` content.

    ``base[path]`` is the content the draft started from (``None``: the file did not exist).
    Raises ``WriteBackRefused`` listing every problem, before anything is written.
    """
    root = os.path.realpath(root)
    plan: list[tuple[str, list[str], str | None]] = []
    problems: list[str] = []
    for rel in sorted(files):
        try:
            parts = _safe_parts(rel)
            now = _current(root, parts)
        except (UnsafeInput, UnicodeDecodeError, OSError) as err:
            problems.append(str(err) if isinstance(err, UnsafeInput) else f"{rel}: {err}")
            continue
        if now != base.get(rel):
            state = "was created" if base.get(rel) is None else (
                "was deleted" if now is None else "was edited")
            problems.append(f"{rel} {state} since the draft started; refusing to overwrite it")
            continue
        plan.append((rel, parts, now))
    if problems:
        raise WriteBackRefused(problems)
    done: list[tuple[list[str], str | None]] = []
    try:
        for rel, parts, before in plan:
            _replace(root, parts, files[rel])
            done.append((parts, before))
    except BaseException:
        for parts, before in reversed(done):  # all or nothing
            if before is None:
                _remove(root, parts)
            else:
                _replace(root, parts, before)
        raise
    return WriteBackResult(tuple(rel for rel, _, _ in plan),
                           {rel: before for rel, _, before in plan})
