"""Golden tests: one realistic fixture per language, expected entities as JSON.

Regenerate with ``UPDATE_GOLDEN=1``; review the diff before committing it.
"""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from codemem.memory.extract.api import extract_file
from codemem.memory.extract.languages import LANGUAGES, detect_language

GOLDEN = pathlib.Path(__file__).resolve().parents[4] / "tests" / "golden" / "extract"
FIXTURES = sorted((GOLDEN / "fixtures").iterdir())


def _repo_path(fixture: pathlib.Path) -> str:
    """Python fixtures are stored as ``*.py.txt`` (the Cat imports every ``.py``)."""
    name = fixture.name.removesuffix(".txt")
    return f"src/{name}"


def _golden(fixture: pathlib.Path, data: dict) -> dict:
    target = GOLDEN / (fixture.name.removesuffix(".txt") + ".json")
    if os.environ.get("UPDATE_GOLDEN") == "1":
        target.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return json.loads(target.read_text(encoding="utf-8"))


def test_every_language_has_a_fixture():
    covered = {detect_language(_repo_path(f)) for f in FIXTURES}
    assert covered == set(LANGUAGES)


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_golden(fixture):
    result = extract_file(_repo_path(fixture), fixture.read_bytes())
    assert result.status == "indexed", result.detail
    assert not result.syntax_errors
    assert len(result.entities) >= 6
    data = result.to_dict()
    assert data == _golden(fixture, data)


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_entities_are_consistent(fixture):
    result = extract_file(_repo_path(fixture), fixture.read_bytes())
    lines = fixture.read_text(encoding="utf-8").splitlines()
    qualified = {(e.qualified_name, e.occurrence) for e in result.entities}
    assert len(qualified) == len(result.entities)
    for entity in result.entities:
        assert entity.source == "\n".join(lines[entity.start_line - 1 : entity.end_line])
        assert entity.name in entity.signature or entity.kind == "typedef"
        assert entity.qualified_name.endswith(entity.name)
        parent = entity.parent
        assert parent is None or (parent, 0) in qualified or "<anonymous>" in parent


def test_python_engines_agree_on_golden_fixture():
    fixture = GOLDEN / "fixtures" / "python_sample.py.txt"
    data = fixture.read_bytes()
    fast = extract_file("src/python_sample.py", data, python_engine="treesitter")
    exact = extract_file("src/python_sample.py", data, python_engine="libcst")
    assert exact.status == fast.status == "indexed"
    assert [e.to_dict() for e in exact.entities] == [e.to_dict() for e in fast.entities]
    assert exact.imports == fast.imports
