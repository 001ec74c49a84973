"""A damaged code-memory database: the code index is rebuilt from the repository, the rest is
named as lost, and the damaged file is kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemem.memory.errors import StoreCorrupt
from codemem.memory.store import integrity as store_integrity

from ..damage import digest, kept_aside, scribble_over_table
from .helpers import SAMPLE, make_system, write_tree


def _indexed_with_a_note(tmp_path: Path, pool) -> tuple[Path, Path, int]:
    repo = tmp_path / "repo"
    write_tree(repo)
    system = make_system(tmp_path, pool)
    entities = len(system.index_repository(str(repo)))
    system.add_documentation_memory("Auth flow", "login issues a token")
    system.close()
    return repo, tmp_path / "code.db", entities


def test_damage_found_at_open_rebuilds_the_code_index_and_names_what_was_lost(tmp_path, pool):
    repo, db, entities = _indexed_with_a_note(tmp_path, pool)
    scribble_over_table(db, "memories")
    before = digest(db)
    system = make_system(tmp_path, pool)
    notice = system.recovery
    assert isinstance(notice, StoreCorrupt) and str(db) in str(notice)
    assert "documentation notes" in str(notice) and "rebuilt from the repository" in str(notice)
    assert digest(kept_aside(db)[0]) == before
    assert system.count_memories() == 0
    ids = system.index_repository(str(repo))  # a full index: every file parsed again
    report = system.last_index_report
    assert sorted(system._extractor.parsed) == sorted(SAMPLE) and len(ids) == entities
    assert report.notices == [str(notice)]
    assert system.list_memories({"type": "documentation"}) == []  # lost, and said so
    system.index_repository(str(repo))
    assert system.last_index_report.notices == []  # told once
    system.close()


def test_damage_in_the_manifest_found_at_first_use(tmp_path, pool, monkeypatch):
    monkeypatch.setattr(store_integrity, "QUICK_CHECK_MAX_BYTES", 0)  # as for a large file
    repo, db, entities = _indexed_with_a_note(tmp_path, pool)
    scribble_over_table(db, "code_files")
    system = make_system(tmp_path, pool)
    assert system.recovery is None
    with pytest.raises(StoreCorrupt, match="malformed"):
        system.index_repository(str(repo))
    assert len(kept_aside(db)) >= 1
    system._extractor.reset()
    ids = system.index_repository(str(repo))  # the manifest reconnected to the new file
    assert sorted(system._extractor.parsed) == sorted(SAMPLE) and len(ids) == entities
    assert system.last_index_report.notices == [str(system.recovery)]
    system.close()
