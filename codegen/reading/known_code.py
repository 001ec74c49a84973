"""What the repository's index knows, as the intent detector asks it.

The detector reads a message's names ("parse_date should also accept a trailing Z") and asks,
in one batched call, which of them the index holds: a name the repository defines turns a
plain sentence into a request about that code, and the same sentence without it is small talk.
``KnownCode`` is that one call; the glue answers it with one query on its entity table. Its
second question, ``terms``, is the repository's vocabulary (``repo_terms``), asked only of a
message the words leave as ordinary chat.
``KnownNames`` answers it from a list in memory, with the matching rules the glue's query
follows, so the benchmark and the tests evaluate a corpus against a fake index of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from .repo_terms import name_terms


class KnownCode(Protocol):
    """The index of the configured repository, asked once per message.

    ``names`` holds what the message contains that could name code, as written (case kept):
    bare identifiers (``parse_date``, ``login``), dotted names (``Invoice.to_json``) and file
    paths (``utils/dates.py``, ``dates.py``). The answer is the subset that names an indexed
    entity (by its name or its qualified name) or an indexed file (by its path, or a path
    ending in ``/`` + the name). It must not raise: an index that cannot be read answers an
    empty set (the detector then decides from the words alone).
    """

    def known(self, names: Sequence[str]) -> set[str]:
        """The subset of ``names`` the index holds (see the class docstring)."""
        ...  # pragma: no cover - a Protocol

    def terms(self, stems: set[str]) -> set[str]:
        """The subset of ``stems`` (``repo_terms.message_terms``) that the index's names and
        paths are made of (``repo_terms.name_terms``); the same no-raise rule."""
        ...  # pragma: no cover - a Protocol


class KnownNames:
    """``KnownCode`` over a list of names: entity names, qualified names and file paths.

    ``Invoice.to_json`` in the list makes ``Invoice.to_json`` and ``to_json`` known (a method
    is found by its own name, as the index finds it); ``utils/dates.py`` makes
    ``utils/dates.py`` and ``dates.py`` known. ``calls`` counts the lookups, so a test can
    check that a message costs at most one.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self.paths: set[str] = set()
        self.entities: set[str] = set()
        for name in names:
            if "/" in name or is_file_name(name):
                self.paths.add(name)
            else:
                self.entities.add(name)
                self.entities.add(name.rsplit(".", 1)[-1])
        self.calls = 0
        self._terms = name_terms([*self.entities, *self.paths])

    def known(self, names: Sequence[str]) -> set[str]:
        self.calls += 1
        return {n for n in names if n in self.entities
                or (("/" in n or is_file_name(n)) and self._file(n))}

    def terms(self, stems: set[str]) -> set[str]:
        return stems & self._terms

    def _file(self, name: str) -> bool:
        return any(p == name or p.endswith("/" + name) for p in self.paths)


def is_file_name(name: str) -> bool:
    """``config.py``, ``routes.ts``: a last part that is a file extension (not a method, as in
    ``Invoice.to_json``)."""
    stem, _, ending = name.rpartition(".")
    return bool(stem) and ending in _EXTENSIONS


_EXTENSIONS = frozenset({"py", "pyi", "js", "jsx", "ts", "tsx", "java", "c", "h", "cc", "cpp",
                         "hpp", "go", "rs", "rb", "php", "cs", "toml", "cfg", "ini", "json",
                         "yaml", "yml"})
