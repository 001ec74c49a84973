"""File points (memory/codeindex/file_points.py): one outline per file for the Cat's collection."""

from __future__ import annotations

from codemem.memory.codeindex.file_points import (
    FILE_KIND,
    MAX_OUTLINE_CHARS,
    file_metadata,
    file_outline,
    file_point_id,
)
from codemem.memory.codeindex.vector_sink import MARKER_KEY, point_id

from ..codebase.sinkworld import ENTITIES, REPO, metadata


def test_outline_lists_definitions_in_file_order_indented_by_nesting():
    metas = [metadata(*e) for e in reversed(ENTITIES) if e[0] == "pkg/a.py"]
    assert file_outline("pkg/a.py", metas) == (
        "File pkg/a.py: 3 definitions\ndef parse(text):\nclass Parser:\n"
        "    def feed(self, chunk):")
    assert file_outline("x.py", [{"kind": "function", "name": "f", "start_line": 1}]) == (
        "File x.py: 1 definition\nfunction f")  # no signature: kind and name


def test_outline_is_cut_at_its_budget():
    metas = [{"signature": f"def function_number_{n}(argument):", "start_line": n}
             for n in range(400)]
    outline = file_outline("big.py", metas)
    assert len(outline) <= MAX_OUTLINE_CHARS + 40
    assert outline.splitlines()[-1].startswith("... and ") and "more" in outline


def test_point_ids_are_stable_and_never_an_entitys():
    assert file_point_id(REPO, "pkg/a.py") == file_point_id(REPO, "pkg/a.py")
    assert file_point_id(REPO, "pkg/a.py") != file_point_id("other", "pkg/a.py")
    assert file_point_id(REPO, "pkg/a.py") != point_id(REPO, "pkg/a.py", "")


def test_metadata_carries_the_keys_recall_reads():
    metas = [metadata(*e) for e in ENTITIES if e[0] == "pkg/a.py"]
    outline = file_outline("pkg/a.py", metas)
    meta = file_metadata(REPO, "pkg/a.py", metas, outline)
    assert meta[MARKER_KEY] is True and meta["repo_id"] == REPO and meta["kind"] == FILE_KIND
    assert (meta["path"], meta["language"], meta["start_line"], meta["end_line"]) == (
        "pkg/a.py", "python", 1, 8)
    assert meta["hash"] != file_metadata(REPO, "pkg/a.py", metas[:1], "other")["hash"]
