"""entities: statuses, hashes and the JSON round trip that crosses the worker boundary."""

from __future__ import annotations

import hashlib
import json

from codemem.memory.extract.entities import (
    INDEXED,
    CodeEntity,
    FileExtraction,
    error,
    sha256_hex,
    skipped,
)

ENTITY = CodeEntity(path="a.py", language="python", kind="function", name="f",
                    qualified_name="f", signature="def f():", source="def f():\n    pass",
                    start_line=1, end_line=2, content_hash="h", decorators=("d",),
                    calls=("g",), occurrence=1)


def test_status_helpers_and_hashes():
    assert skipped("binary") == "skipped:binary" and error("syntax") == "error:syntax"
    assert sha256_hex(b"x") == hashlib.sha256(b"x").hexdigest() == sha256_hex("x")
    assert sha256_hex("\udcff") == hashlib.sha256(b"\xed\xb3\xbf").hexdigest()  # lone surrogate


def test_entity_round_trip_through_json():
    data = json.loads(json.dumps(ENTITY.to_dict()))
    assert data["decorators"] == ["d"] and data["parent"] is None
    assert CodeEntity.from_dict(data) == ENTITY
    assert CodeEntity.from_dict({**data, "added_later": 1}) == ENTITY  # unknown keys ignored


def test_file_round_trip_through_json():
    result = FileExtraction(path="a.py", status=INDEXED, language="python", size=20,
                            entities=(ENTITY,), imports=("os",), engine="libcst", mtime=5.0)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["entities"][0]["name"] == "f" and data["imports"] == ["os"]
    again = FileExtraction.from_dict(data)
    assert again == result and again.entities[0] == ENTITY and again.ok
    assert FileExtraction.from_dict({"path": "b.py", "status": "error:x"}).detail == ""


def test_ok_and_mtime_does_not_count_for_equality():
    failed = FileExtraction(path="a.py", status=skipped("too_large"))
    assert not failed.ok
    assert FileExtraction("a.py", INDEXED, mtime=1.0) == FileExtraction("a.py", INDEXED)
