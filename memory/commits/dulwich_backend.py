"""Pure-Python backend (dulwich): the stock Cat image has no ``git`` executable.

dulwich writes loose objects and refs through ``<file>.lock`` + fsync + rename, which is exactly
the crash-safety protocol we need; hooks do not exist for it at all.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from pathlib import Path

from dulwich.errors import ChecksumMismatch, ObjectFormatException
from dulwich.file import FileLocked
from dulwich.object_store import BaseObjectStore
from dulwich.objects import ShaFile
from dulwich.refs import DiskRefsContainer
from dulwich.repo import Repo

from .errors import CommitIndexError, RepositoryCorrupt, RepositoryLocked
from .objects import RawObject

_TYPE_NUMS = {"commit": 1, "tree": 2, "blob": 3}


def read_object(store: BaseObjectStore, sha: str, where: Path) -> tuple[str, bytes]:
    """``(type, body)`` of an object, read in this process (loose or packed; no subprocess,
    so a read always completes or fails). ``KeyError`` when absent."""
    try:
        obj = store[sha.encode()]
    except KeyError:
        raise
    except (zlib.error, ChecksumMismatch, ObjectFormatException, OSError, ValueError) as err:
        raise RepositoryCorrupt(f"object {sha} in {where} is unreadable: {err}") from err
    return obj.type_name.decode(), obj.as_raw_string()


class DulwichBackend:
    """``Backend`` over ``dulwich.repo.Repo`` (bare)."""

    name = "dulwich"

    def __init__(self, path: Path, *, create: bool) -> None:
        self._path = path
        try:
            self._repo = Repo.init_bare(str(path)) if create else Repo(str(path))
        except (OSError, ValueError) as err:
            raise RepositoryCorrupt(f"cannot open commit history {path}: {err}") from err
        self._store = self._repo.object_store

    def write_objects(self, objects: Sequence[RawObject]) -> None:
        for raw in objects:
            if raw.sha.encode() in self._store:
                continue
            obj = ShaFile.from_raw_string(_TYPE_NUMS[raw.kind], raw.body)
            if obj.id.decode() != raw.sha:  # would mean objects.py and git disagree on the format
                raise CommitIndexError(f"dulwich hashed {raw.kind} {raw.sha} as {obj.id.decode()}")
            try:
                self._store.add_object(obj)  # GitFile: .lock, fsync, rename
            except FileLocked as err:
                raise RepositoryLocked(f"object {raw.sha} is locked: {err}") from err

    def read_object(self, sha: str) -> tuple[str, bytes]:
        return read_object(self._store, sha, self._path)

    def has_object(self, sha: str) -> bool:
        return sha.encode() in self._store

    def _refresh(self) -> None:
        """Forget dulwich's cached packed-refs: ``git gc`` or another process may have rewritten
        them (dulwich reads the file once per ``Repo`` otherwise)."""
        refs = self._repo.refs
        if isinstance(refs, DiskRefsContainer):  # the container that caches the packed refs
            refs._packed_refs = None
            refs._peeled_refs = None
        refs.get_packed_refs()  # reload now: removal skips packed refs when the cache is empty

    def get_ref(self, ref: str) -> str | None:
        self._refresh()
        try:
            return self._repo.refs[ref.encode()].decode()
        except KeyError:
            return None

    def list_refs(self, prefix: str) -> dict[str, str]:
        self._refresh()
        found = {}
        # ``subkeys`` matches packed refs by plain prefix: pass the trailing "/" so task "t"
        # never lists task "t2"'s refs.
        for key in self._repo.refs.subkeys(prefix.encode()):
            try:
                found[prefix + key.decode()] = self._repo.refs[prefix.encode() + key].decode()
            except KeyError:  # deleted meanwhile
                continue
        return found

    def cas_ref(self, ref: str, old: str | None, new: str | None) -> bool:
        name = ref.encode()
        self._refresh()
        # No reflog message: like git in a bare repo, no reflog is written (an append that a kill
        # could tear would be one more file to repair).
        try:
            if new is None:
                assert old is not None, "deleting needs the expected old value"
                return bool(self._repo.refs.remove_if_equals(name, old.encode()))
            if old is None:
                return bool(self._repo.refs.add_if_new(name, new.encode()))
            return bool(self._repo.refs.set_if_equals(name, old.encode(), new.encode()))
        except FileLocked as err:
            raise RepositoryLocked(
                f"ref {ref} is locked ({err}); a writer crashed or is busy"
            ) from err

    def close(self) -> None:
        self._repo.close()
