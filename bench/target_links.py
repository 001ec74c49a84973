"""Which thing to change a request's words link to, with a fake index (``intent_bench``).

The glue completes a request's target from the repository's index
(``app/projects/lookup.py`` ``linked_details``: the symbol the words name, else the first word
standing where the thing to change stands that the index knows in one file). This module runs
that function over a split's entities (qualified name, path, kind) through a project double
that answers the two entity queries it makes, so a labelled ``target`` can be checked without
an index on disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..app.projects.lookup import linked_details
from ..codegen.reading.intent import KnownNames, detect_intent


class _Entities:
    """``list_memories`` over (qualified name, path, kind) rows, for the filters
    ``linked_details`` uses: by name, by name and path, by path and a list of names."""

    def __init__(self, rows: Sequence[Sequence[str]]) -> None:
        self.rows = [{"name": q.rsplit(".", 1)[-1], "qualified_name": q, "path": p, "kind": k}
                     for q, p, k in rows]

    def list_memories(self, filters: dict[str, Any], limit: int = 100) -> list[dict[str, Any]]:
        def wanted(row: dict[str, str]) -> bool:
            for key, value in filters.items():
                if key == "type":
                    continue
                if isinstance(value, dict):
                    if row.get(key) not in value.get("$in", []):
                        return False
                elif row.get(key) != value:
                    return False
            return True
        return [{"metadata": dict(row)} for row in self.rows if wanted(row)][:limit]


class _Project:
    def __init__(self, rows: Sequence[Sequence[str]]) -> None:
        self.code = _Entities(rows)


def linked_targets(items: Sequence[dict[str, Any]], entities: Sequence[Sequence[str]],
                   ) -> tuple[int, int, list[str]]:
    """``(linked right, requests with a target, the misses)``."""
    project = _Project(entities)
    index = KnownNames([row[0] for row in entities] + [row[1] for row in entities])
    right, total, wrong = 0, 0, []
    for item in items:
        if item["label"] != "request" or not item.get("target"):
            continue
        total += 1
        details = detect_intent(item["text"], index).details
        linked = linked_details(project, details, item["text"])  # type: ignore[arg-type]
        if linked.symbol == item["target"]:
            right += 1
        else:
            wrong.append(f"{item['text']!r}: {linked.symbol!r}, wanted {item['target']!r}")
    return right, total, wrong
