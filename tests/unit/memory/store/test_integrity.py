"""A damaged memory database: clear error, file kept aside, fresh start.

Real SQLite files damaged the ways disks and crashes damage them: truncated, overwritten with
garbage, one table's pages scribbled over (the file opens, then list/filter/add fail with
"database disk image is malformed"). The damaged bytes must survive untouched under a new name.
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import pytest

from codemem.memory.errors import StoreCorrupt, StoreError
from codemem.memory.store import integrity as store_integrity
from codemem.memory.system import MemorySystem

from ..api.helpers import async_llm
from ..damage import digest, kept_aside, scribble_over_table


def _filled(path: Path, n: int = 300) -> None:
    system = MemorySystem(async_llm(), str(path))
    system.add_memories([(f"memory number {i} " + "words " * 40, {"i": i, "kind": "note"})
                         for i in range(n)])
    system.close()
    assert not Path(f"{path}-wal").exists()


def _assert_recovered(system: MemorySystem, path: Path, before: str, reason: str) -> None:
    notice = system.recovery
    assert isinstance(notice, StoreCorrupt) and isinstance(notice, StoreError)
    text = str(notice)
    assert str(path) in text and reason in text and "sqlite3" in text  # what, where, what to do
    assert "every memory" in text  # what could not be recovered
    kept = kept_aside(path)
    assert [str(p) for p in kept] == list(notice.kept_as)
    assert digest(kept[0]) == before  # the damaged bytes, untouched
    assert system.list_memories() == []
    system.add_memory("after the repair")
    assert [m["text"] for m in system.list_memories()] == ["after the repair"]
    assert system.get_stats()["store_recovery"] == text


def _truncate(path: Path) -> None:
    _filled(path)
    os.truncate(path, path.stat().st_size // 2)


def _garbage(path: Path) -> None:
    path.write_bytes(os.urandom(50_000))


def _bad_page(path: Path) -> None:
    _filled(path)
    scribble_over_table(path, "memories")


@pytest.mark.parametrize(("damage", "reason"), [
    (_truncate, "truncated"), (_garbage, "not an SQLite database"), (_bad_page, "quick_check")])
def test_damage_found_at_open_is_set_aside(tmp_path: Path, damage, reason: str) -> None:
    path = tmp_path / "memories.db"
    damage(path)
    before = digest(path)
    system = MemorySystem(async_llm(), str(path))
    _assert_recovered(system, path, before, reason)
    system.close()


@pytest.mark.parametrize("operation", ["list", "filter", "add", "count"])
def test_a_damaged_page_missed_at_open_is_handled_at_first_use(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, operation: str) -> None:
    monkeypatch.setattr(store_integrity, "QUICK_CHECK_MAX_BYTES", 0)  # as for a large file
    path = tmp_path / "memories.db"
    _filled(path)
    scribble_over_table(path, "memories")
    before = digest(path)
    system = MemorySystem(async_llm(), str(path))
    assert system.recovery is None  # it opened fine
    calls = {"list": lambda: system.list_memories(),
             "filter": lambda: system.list_memories({"kind": "note"}),
             "add": lambda: system.add_memory("one more", {"kind": "note"}),
             "count": lambda: system.count_memories({"i": {"$gte": 3}})}
    with pytest.raises(StoreCorrupt, match="malformed") as raised:
        calls[operation]()
    assert raised.value is system.recovery
    _assert_recovered(system, path, before, "malformed")
    system.close()


def test_a_damaged_file_is_never_overwritten_by_a_second_recovery(tmp_path: Path) -> None:
    path = tmp_path / "memories.db"
    path.write_bytes(b"first garbage" * 1000)
    MemorySystem(async_llm(), str(path)).close()
    path.write_bytes(b"second garbage" * 1000)  # damaged again within the same second
    MemorySystem(async_llm(), str(path)).close()
    kept = kept_aside(path)
    assert len(kept) == 2
    assert {p.read_bytes()[:14] for p in kept} == {b"first garbagef", b"second garbage"}


def test_two_systems_on_one_file_recover_it_once(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_integrity, "QUICK_CHECK_MAX_BYTES", 0)
    path = tmp_path / "memories.db"
    _filled(path)
    first = MemorySystem(async_llm(), str(path))
    second = MemorySystem(async_llm(), str(path))
    first.list_memories(limit=1)  # both connections are live (WAL files in use)
    second.list_memories(limit=1)
    scribble_over_table(path, "memories")
    with pytest.raises(StoreCorrupt):
        first.list_memories()
    first.add_memory("written after the repair")
    # the second system's connection was moved to the new file with the first's
    assert [m["text"] for m in second.list_memories()] == ["written after the repair"]
    assert second.recovery is first.recovery
    second.add_memory("second after the repair")
    first.close()
    second.close()
    reopened = MemorySystem(async_llm(), str(path))  # nothing was lost from the new file's WAL
    assert reopened.count_memories() == 2 and reopened.recovery is None
    reopened.close()
    assert len([p for p in kept_aside(path) if re.search(r"\.corrupt-\d{8}T\d{6}Z$", p.name)]) == 1


def test_errors_that_are_not_damage_are_not_mistaken_for_it() -> None:
    assert store_integrity.is_corruption(sqlite3.DatabaseError("database disk image is malformed"))
    assert store_integrity.is_corruption(sqlite3.DatabaseError("file is not a database"))
    assert not store_integrity.is_corruption(sqlite3.OperationalError("database is locked"))
    assert not store_integrity.is_corruption(sqlite3.IntegrityError("UNIQUE constraint failed"))
    assert not store_integrity.is_corruption(OSError("disk image"))


def test_a_new_empty_file_and_a_sound_file_pass_the_header_check(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    assert store_integrity.header_problem(str(empty)) is None
    assert store_integrity.header_problem(str(tmp_path / "missing.db")) is None
    sound = tmp_path / "sound.db"
    _filled(sound, 5)
    assert store_integrity.header_problem(str(sound)) is None
