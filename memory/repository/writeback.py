"""Writing a finished draft into the user's repository without ever losing the user's work.

Rules (Aider's guarantees, made stricter):
- compare-and-swap, as one step: the whole check-then-write runs under an exclusive lock on the
  repository folder (``flock``: threads and processes alike), so two applies of drafts with the
  same base serialise and the second is refused, naming the file the first one changed;
- a file is written only if its current content is exactly what the draft started from
  (``base``); anything the user changed since is refused with the reason, never overwritten;
- paths stay inside the repository: no absolute paths, no ``..``, no ``.git``, no symlinked
  target or parent folder; every read and write goes through folder descriptors opened without
  following symlinks (``safe_fs``), so a parent swapped for a symlink mid-apply cannot redirect
  a write;
- all or nothing: every file is checked before the first write, each write is a temp file plus
  fsync plus rename (a crash leaves the old or the new content, never half), and a failure part
  way restores what was already replaced;
- the previous content is returned, so the caller can keep it (the draft history has it too).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..commits.names import check_path
from ..errors import CodeMemoryError, UnsafeInput
from ..oslocks import flock_within
from .safe_fs import NEW_FILE_MODE, FolderTree, read_file, remove_file, replace_file

#: Seconds an apply waits for another apply on the same repository before it is refused.
LOCK_TIMEOUT = 10.0


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


@dataclass(frozen=True)
class _Step:
    """One file of a checked plan: where it goes, its new bytes, and what to restore."""

    rel: str
    folder: tuple[str, ...]
    name: str
    data: bytes
    before: str | None
    mode: int


def _safe_parts(rel: str) -> list[str]:
    """The path's components, if it is a plain path inside the repository.

    The same rules as the draft history's paths (a draft can only hold such paths anyway).
    """
    try:
        return check_path(rel).split("/")
    except UnsafeInput as err:
        raise UnsafeInput(f"refusing to write {rel!r}: not a plain path inside the repository "
                          f"({err})") from None


@contextmanager
def _repository_lock(tree: FolderTree, timeout: float) -> Iterator[None]:
    """Hold the exclusive apply lock of the repository for the whole compare-and-swap.

    The lock is a ``flock`` on the repository folder itself: nothing is created in the user's
    repository, and every process that sees the folder (a bind mount included) sees the same
    lock. A file system without ``flock`` on folders (some network mounts) falls back to a lock
    file named after the folder in the system temp folder, which serialises this host.
    """
    fd, own = tree.root_fd, False
    try:
        got = flock_within(fd, timeout)
    except OSError:
        digest = hashlib.sha256(tree.root.encode("utf-8", "surrogateescape")).hexdigest()[:24]
        path = os.path.join(tempfile.gettempdir(), f"codemem-apply-{digest}.lock")
        fd, own = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600), True
        got = flock_within(fd, timeout)
    try:
        if not got:
            raise WriteBackRefused([f"another apply to {tree.root} is still running after "
                                    f"{timeout:.0f} s; nothing was written, try again shortly"])
        yield
    finally:
        if own:
            os.close(fd)  # closing drops the flock; the root's is dropped when the tree closes


def _check(tree: FolderTree, rel: str, text: str, base: str | None) -> _Step:
    """The plan step for one file, or ``WriteBackRefused``/``UnsafeInput`` naming the problem."""
    parts = _safe_parts(rel)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise UnsafeInput(f"{rel}: the draft holds text that cannot be written as UTF-8 "
                          "(a lone surrogate)") from None
    folder = tuple(parts[:-1])
    folder_fd = tree.folder(folder, create=False)
    found = None if folder_fd is None else read_file(folder_fd, parts[-1], rel)
    now = None if found is None else found[0].decode("utf-8")
    if now != base:
        state = "was created" if base is None else ("was deleted" if now is None else "was edited")
        raise WriteBackRefused([f"{rel} {state} since the draft started; refusing to overwrite it"])
    return _Step(rel, folder, parts[-1], data, now, NEW_FILE_MODE if found is None else found[1])


def _plan(tree: FolderTree, files: Mapping[str, str],
          base: Mapping[str, str | None]) -> list[_Step]:
    """Check every file before anything is written; refuse with every problem at once."""
    plan: list[_Step] = []
    problems: list[str] = []
    for rel in sorted(files):
        try:
            plan.append(_check(tree, rel, files[rel], base.get(rel)))
        except WriteBackRefused as err:
            problems.extend(err.problems)
        except UnsafeInput as err:
            problems.append(str(err))
        except (UnicodeDecodeError, OSError) as err:
            problems.append(f"{rel}: {err}")
    if problems:
        raise WriteBackRefused(problems)
    return plan


def _apply(tree: FolderTree, plan: list[_Step]) -> None:
    """Write every step; on any failure, restore the steps already written, newest first.

    A folder that turned into a symlink (or a file) between the check and the write is a refusal
    like any other: what was written is restored and ``WriteBackRefused`` names the folder.
    """
    done: list[_Step] = []
    try:
        for step in plan:
            folder_fd = tree.folder(step.folder, create=True)
            assert folder_fd is not None  # created on demand
            replace_file(folder_fd, step.name, step.data, step.mode)
            done.append(step)
    except BaseException as err:
        _restore(tree, done)
        if isinstance(err, UnsafeInput):
            raise WriteBackRefused([f"{err}; nothing was written"]) from None
        raise


def _restore(tree: FolderTree, done: list[_Step]) -> None:
    """Undo written steps, newest first (all or nothing), through the same folder descriptors."""
    for step in reversed(done):
        folder_fd = tree.folder(step.folder, create=False)
        assert folder_fd is not None  # opened by the write being undone
        if step.before is None:
            remove_file(folder_fd, step.name)
        else:
            replace_file(folder_fd, step.name, step.before.encode("utf-8"), step.mode)


def write_back(root: str, files: Mapping[str, str], base: Mapping[str, str | None], *,
               lock_timeout: float = LOCK_TIMEOUT) -> WriteBackResult:
    """Write ``files`` into ``root`` if every one still has its ``base`` content.

    ``base[path]`` is the content the draft started from (``None``: the file did not exist).
    Raises ``WriteBackRefused`` listing every problem, before anything is written; the check and
    the writes are one step under the repository's apply lock (waited for ``lock_timeout`` s).
    """
    with FolderTree(os.path.realpath(root)) as tree, _repository_lock(tree, lock_timeout):
        plan = _plan(tree, files, base)
        _apply(tree, plan)
    return WriteBackResult(tuple(step.rel for step in plan),
                           {step.rel: step.before for step in plan})
