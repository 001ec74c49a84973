"""One compact point per file for the Cat's declarative memory (the ``files`` sink mode).

Why per file: the Cat's local Qdrant loads every point of its collections into memory at
start-up and compares every message with all of them, so one point per code entity (68k for
the standard library) made the Cat slow to start and to answer. A file's outline (its path and
the signatures of what it defines) is what helps the Cat's own recall find "where is X", at a
fortieth of the points; the plugin's own store keeps every entity for code search.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence

from ..store.support import JSONDict, Metadata
from .vector_sink import MARKER_KEY, SOURCE_PREFIX

#: The outline stops after this many characters (embedders truncate long inputs anyway).
MAX_OUTLINE_CHARS = 4000

FILE_KIND = "file"
"""``metadata["kind"]`` of a file point (entity points carry the entity's kind)."""


def file_point_id(repo_id: str, path: str) -> str:
    """Deterministic UUID of a file's point (never equal to an entity's: no ``::`` part)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"codemem:{repo_id}:{path}"))


def _line(meta: Metadata) -> str:
    depth = str(meta.get("qualified_name") or "").count(".")
    head = str(meta.get("signature") or "").strip().splitlines()
    text = head[0] if head else f"{meta.get('kind', '')} {meta.get('name', '')}".strip()
    return "    " * depth + text


def file_outline(path: str, metas: Sequence[Metadata]) -> str:
    """``path`` and one line per definition (signature, indented by nesting), in file order."""
    ordered = sorted(metas, key=lambda m: (int(m.get("start_line") or 0),
                                           str(m.get("qualified_name") or "")))
    noun = "definition" if len(ordered) == 1 else "definitions"
    lines = [f"File {path}: {len(ordered)} {noun}"]
    size = len(lines[0])
    for n, meta in enumerate(ordered):
        line = _line(meta)
        if size + len(line) + 1 > MAX_OUTLINE_CHARS:
            lines.append(f"... and {len(ordered) - n} more")
            break
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def file_metadata(repo_id: str, path: str, metas: Sequence[Metadata],
                  outline: str) -> JSONDict:
    """The point metadata of a file (the same keys the Cat and ``recall`` read for entities)."""
    languages = sorted({str(m.get("language") or "") for m in metas} - {""})
    return {
        "source": SOURCE_PREFIX + path,
        MARKER_KEY: True,
        "repo_id": repo_id,
        "path": path,
        "qualified_name": path,
        "kind": FILE_KIND,
        "language": languages[0] if languages else "",
        "start_line": 1,
        "end_line": max((int(m.get("end_line") or 0) for m in metas), default=0),
        "memory_id": "",
        "hash": hashlib.sha256(outline.encode("utf-8", "surrogateescape")).hexdigest()[:16],
    }
