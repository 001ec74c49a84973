"""The small storage contract both git backends fulfil, and the choice between them.

The index builds every object itself (``objects.py``), so a backend only has to persist and fetch
raw objects and move refs with compare-and-swap. That keeps the two backends tiny and makes the
contract test meaningful: same input, same bytes, same commit ids.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from ..errors import BackendUnavailable
from .errors import RepositoryCorrupt
from .objects import RawObject

BACKENDS = ("auto", "gitpython", "dulwich")


class Backend(Protocol):
    """Object and ref storage of one bare repository. Not thread-safe: the index serialises."""

    name: str

    def write_objects(self, objects: Sequence[RawObject]) -> None:
        """Persist (durably) every object that is not there yet."""

    def read_object(self, sha: str) -> tuple[str, bytes]:
        """``(type, body)``; ``KeyError`` when absent, ``RepositoryCorrupt`` when unreadable."""

    def has_object(self, sha: str) -> bool:
        """True when the object exists."""

    def get_ref(self, ref: str) -> str | None:
        """The commit id a ref points to, or None."""

    def list_refs(self, prefix: str) -> dict[str, str]:
        """Full ref name -> id for every ref starting with ``prefix`` (which ends with ``/``)."""

    def cas_ref(self, ref: str, old: str | None, new: str | None) -> bool:
        """Atomically move ``ref`` from ``old`` (None: must not exist) to ``new`` (None: delete).

        Returns False when the ref did not hold ``old``; raises ``RepositoryLocked`` when a lock
        file is in the way.
        """

    def close(self) -> None:
        """Release files and processes."""


def choose(backend: str) -> str:
    """Resolve ``"auto"``: GitPython when a ``git`` executable exists, else dulwich."""
    if backend not in BACKENDS:
        raise BackendUnavailable(f"unknown commit-index backend {backend!r}; use one of {BACKENDS}")
    if backend == "auto":
        return "gitpython" if shutil.which("git") else "dulwich"
    return backend


def check_repository(path: Path) -> bool:
    """True if ``path`` must be initialised (absent or empty); raise if it is not a bare repo."""
    if not path.exists():
        return True
    if not path.is_dir():
        raise RepositoryCorrupt(f"commit history {path} exists but is not a folder")
    if not any(path.iterdir()):
        return True
    missing = [name for name in ("HEAD", "objects", "refs") if not (path / name).exists()]
    if missing:
        raise RepositoryCorrupt(
            f"commit history {path} is not a bare git repository (missing {', '.join(missing)}); "
            "move it aside to start a new history, nothing was changed"
        )
    return False


def open_backend(path: Path, backend: str = "auto") -> Backend:
    """Open (creating if needed) the bare repository at ``path`` with the chosen backend."""
    name = choose(backend)
    create = check_repository(path)
    if create:
        path.mkdir(parents=True, exist_ok=True)
    if name == "gitpython":
        from .gitpython_backend import GitPythonBackend

        return GitPythonBackend(path, create=create)
    from .dulwich_backend import DulwichBackend

    return DulwichBackend(path, create=create)

