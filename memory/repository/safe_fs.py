"""Reading and replacing files of a folder tree through directory file descriptors.

Checking a path with ``lstat`` and then writing by path leaves a window in which a parent folder
can be swapped for a symlink, and the write lands wherever the link points. Here every folder is
opened once, component by component, with ``O_NOFOLLOW``, and every later read, temp file, rename
and unlink goes through that descriptor (``dir_fd=``): a folder renamed or replaced after it was
opened can no longer redirect anything. ``lstat`` is still used first, only to name the problem
clearly; ``O_NOFOLLOW`` is what enforces it.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from types import TracebackType

from ..errors import UnsafeInput

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_SWAPPED = (errno.ELOOP, errno.ENOTDIR)
NEW_FILE_MODE = 0o644
TEMP_PREFIX = ".codemem-"


class FolderTree:
    """Descriptors of the folders under one root, opened without following symlinks.

    Use as a context manager; every descriptor is closed on exit. ``root`` itself is opened
    normally (the caller resolved it); everything below it must be a real folder.
    """

    def __init__(self, root: str) -> None:
        self.root = root
        self.root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self._fds: dict[tuple[str, ...], int] = {(): self.root_fd}

    def __enter__(self) -> FolderTree:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close every descriptor (idempotent)."""
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()

    def folder(self, parts: tuple[str, ...], *, create: bool) -> int | None:
        """The descriptor of ``root/parts``; ``None`` when it is missing and ``create`` is off.

        Raises ``UnsafeInput`` when a component is a symlink or not a folder.
        """
        for depth in range(1, len(parts) + 1):
            if parts[:depth] not in self._fds:
                fd = self._open_child(parts[:depth], create=create)
                if fd is None:
                    return None
                self._fds[parts[:depth]] = fd
        return self._fds[parts]

    def _open_child(self, parts: tuple[str, ...], *, create: bool) -> int | None:
        parent, name, shown = self._fds[parts[:-1]], parts[-1], "/".join(parts)
        try:
            info = os.lstat(name, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                return None
            try:
                os.mkdir(name, 0o755, dir_fd=parent)
            except FileExistsError:
                pass
        else:
            if stat.S_ISLNK(info.st_mode):
                raise UnsafeInput(f"refusing to write through the symlink {shown}")
            if not stat.S_ISDIR(info.st_mode):
                raise UnsafeInput(f"refusing to write under {shown}: it is not a folder")
        try:
            return os.open(name, _DIR_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            if create:
                raise
            return None
        except OSError as err:
            if err.errno in _SWAPPED:
                raise UnsafeInput(f"refusing to write under {shown}: it was replaced by a "
                                  "symlink or a file while writing") from None
            raise


def read_file(folder_fd: int, name: str, shown: str) -> tuple[bytes, int] | None:
    """The bytes and permission bits of ``name`` in the folder, ``None`` when it is absent.

    Symlinks and anything but a regular file (a FIFO, a device) are refused, never opened for
    writing through.
    """
    try:
        info = os.lstat(name, dir_fd=folder_fd)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeInput(f"refusing to write through the symlink {shown}")
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeInput(f"refusing to write {shown}: not a regular file")
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=folder_fd)
    except OSError as err:
        if err.errno in _SWAPPED:
            raise UnsafeInput(f"refusing to write through the symlink {shown}") from None
        raise
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise UnsafeInput(f"refusing to write {shown}: not a regular file")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks), stat.S_IMODE(opened.st_mode)
    finally:
        os.close(fd)


def replace_file(folder_fd: int, name: str, data: bytes, mode: int) -> None:
    """Atomically make ``name`` hold ``data``: temp file, fsync, rename, fsync of the folder.

    A crash leaves the old or the new content, never half; the rename replaces a symlink put in
    the target's place instead of following it.
    """
    temp = f"{TEMP_PREFIX}{secrets.token_hex(6)}.tmp"
    fd = os.open(temp, _TEMP_FLAGS, 0o600, dir_fd=folder_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
    except BaseException:
        try:
            os.unlink(temp, dir_fd=folder_fd)
        except FileNotFoundError:
            pass
        raise
    os.fsync(folder_fd)


def remove_file(folder_fd: int, name: str) -> None:
    """Remove ``name`` from the folder (a file the apply had created)."""
    os.unlink(name, dir_fd=folder_fd)
    os.fsync(folder_fd)
