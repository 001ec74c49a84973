"""Value types of extraction: one ``CodeEntity`` per definition, one ``FileExtraction`` per file.

They are frozen and JSON-friendly because they cross a process boundary (the parsing worker
sends them back as plain dicts) and end up as memory metadata and golden files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any  # only for JSON objects (to_dict/from_dict): values are any JSON

INDEXED = "indexed"
"""Status of a file whose entities were extracted (possibly zero entities)."""

UNCHANGED = "unchanged"
"""Status of a file the caller asked to skip because its content hash did not change."""


def sha256_hex(data: bytes | str) -> str:
    """Content hash used for files (raw bytes) and entities (UTF-8 source)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def skipped(reason: str) -> str:
    """``skipped:<reason>``: the file was left out on purpose (policy, not failure)."""
    return f"skipped:{reason}"


def error(reason: str) -> str:
    """``error:<reason>``: the file should have been indexed but could not be."""
    return f"error:{reason}"


@dataclass(frozen=True)
class CodeEntity:
    """One definition (function, class, method, struct, ...) found in a source file.

    ``path`` + ``qualified_name`` + ``occurrence`` identify it inside a repository: the same
    qualified name can be defined twice in one file (a property getter and setter, a function
    defined in both branches of an ``if``), and ``occurrence`` counts those from 0.
    ``source`` is the exact text of the full lines ``start_line``..``end_line`` (1-based,
    inclusive), decorators included, trailing comments after the last statement excluded.
    """

    path: str
    language: str
    kind: str
    name: str
    qualified_name: str
    signature: str
    source: str
    start_line: int
    end_line: int
    content_hash: str
    decorators: tuple[str, ...] = ()
    docstring: str | None = None
    imports: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    parent: str | None = None
    occurrence: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible dict (tuples become lists)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CodeEntity:
        """Inverse of ``to_dict`` (unknown keys are ignored so old payloads still load)."""
        kwargs: dict[str, Any] = {}
        for f in fields(cls):
            if f.name in data:
                value = data[f.name]
                kwargs[f.name] = tuple(value) if isinstance(value, list) else value
        return cls(**kwargs)


@dataclass(frozen=True)
class FileExtraction:
    """The outcome for one file: a status, and the entities when the status is ``indexed``.

    ``status`` is ``indexed``, ``unchanged``, ``skipped:<reason>`` or ``error:<reason>``;
    ``detail`` is a human-readable explanation (e.g. the syntax error's line).
    ``syntax_errors`` is true when a tolerant parser (tree-sitter) indexed a file that does
    not fully parse: its entities are best effort.
    """

    path: str
    status: str
    language: str | None = None
    file_hash: str | None = None
    size: int = 0
    line_count: int = 0
    encoding: str | None = None
    entities: tuple[CodeEntity, ...] = ()
    imports: tuple[str, ...] = ()
    detail: str = ""
    syntax_errors: bool = False
    engine: str = ""
    mtime: float | None = field(default=None, compare=False)

    @property
    def ok(self) -> bool:
        """True when the file was indexed (its entity list is authoritative)."""
        return self.status == INDEXED

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible dict, entities included."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "entities":
                out[f.name] = [e.to_dict() for e in value]
            elif isinstance(value, tuple):
                out[f.name] = list(value)
            else:
                out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FileExtraction:
        """Inverse of ``to_dict``."""
        kwargs: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            if f.name == "entities":
                value = tuple(CodeEntity.from_dict(e) for e in value)
            elif isinstance(value, list):
                value = tuple(value)
            kwargs[f.name] = value
        return cls(**kwargs)
