"""What an indexing run reads and reports: the walked files (``WalkedFile``), the progress and
the report of a run, an entity's memory text and metadata, and the seams a caller may replace
(how a file is read, parsed and labelled). ``indexer.RepositoryIndexer`` does the run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..code_context import CODE_ENTITY
from ..store.support import JSONDict, Metadata

if TYPE_CHECKING:  # the extraction package loads when a file is parsed, not at import
    from ..extract.entities import CodeEntity, FileExtraction
    from ..extract.walker import ReadResult

MAX_TEXT_CHARS = 32_000
"""Entity sources longer than this are truncated in the memory text (the span stays exact)."""

MAX_CALLS = 64
INDEXED = "indexed"


@dataclass(frozen=True)
class WalkedFile:
    """A file the walker accepted (``status`` None) or accounted for with a status."""

    path: str
    status: str | None = None
    size: int | None = None
    mtime_ns: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class IndexProgress:
    """Reported to the progress callback: ``phase`` (walk/extract/store/done), counts, path."""

    phase: str
    done: int
    total: int
    path: str = ""


@dataclass
class IndexReport:
    """What one indexing run did; ``statuses`` accounts for every walked file."""

    repo_id: str
    root: str
    statuses: dict[str, str] = field(default_factory=dict)
    parsed: int = 0
    unchanged: int = 0
    renamed: int = 0
    deleted: int = 0
    embedded: int = 0
    entities_added: int = 0
    entities_removed: int = 0
    entities_kept: int = 0
    memory_ids: list[str] = field(default_factory=list)
    #: things the user must be told (a damaged database replaced since the last run)
    notices: list[str] = field(default_factory=list)


def entity_metadata(repo_id: str, entity: CodeEntity) -> JSONDict:
    """Memory metadata of one ``CodeEntity`` (path, qualified name, kind, language, span...)."""
    calls = sorted({str(c).rsplit(".", 1)[-1] for c in entity.calls})[:MAX_CALLS]
    return {
        "type": CODE_ENTITY, "repo_id": repo_id, "path": entity.path,
        "qualified_name": entity.qualified_name, "name": entity.name, "kind": entity.kind,
        "language": entity.language, "signature": entity.signature,
        "start_line": entity.start_line, "end_line": entity.end_line,
        "entity_hash": entity.content_hash, "occurrence": entity.occurrence, "calls": calls,
    }


def entity_text(entity: CodeEntity) -> str:
    """The memory text of an entity: its source (truncated past ``MAX_TEXT_CHARS``)."""
    source = entity.source if entity.source.strip() else entity.signature or entity.name
    if len(source) > MAX_TEXT_CHARS:
        source = source[:MAX_TEXT_CHARS] + "\n... (truncated)"
    return source


ReadFn = Callable[[str, str, int], "ReadResult"]
"""``(root, relative path, max bytes) -> ReadResult`` (default: the safe on-disk reader)."""

LabelFn = Callable[["CodeEntity"], Metadata]
"""``entity -> extra metadata`` merged over ``entity_metadata`` (source name, version...)."""


ExtractorFn = Callable[[Iterable[tuple[str, bytes]]], Iterable["FileExtraction"]]
"""``(repo-relative path, bytes) pairs -> FileExtraction`` results, in any order."""
