"""Pure store helpers (memory/store/support.py): timestamps, canonical JSON, hashes, mounts."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from codemem.memory.store.support import canonical_json, content_hash, journal_mode_for, utc_now

MOUNTS = ("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
          "40 22 0:50 / /mnt/share rw - nfs4 server:/export rw\n"
          "41 22 0:51 / /mnt/share/local\\040disk rw - ext4 /dev/sdb1 rw\n")


def test_utc_now_is_iso_utc_with_microseconds():
    stamp = utc_now()
    parsed = datetime.fromisoformat(stamp)
    assert parsed.tzinfo is not None and parsed.utcoffset() == timezone.utc.utcoffset(None)
    assert len(stamp.split(".")[1]) == len("000000+00:00")


def test_canonical_json_is_sorted_strict_and_refuses_non_json():
    assert canonical_json(None) == "{}"
    assert canonical_json({"b": 1, "a": "é"}) == '{"a": "é", "b": 1}'
    for bad in ({"x": float("nan")}, {"x": object()}, ["not", "a", "dict"]):
        with pytest.raises(ValueError):
            canonical_json(bad)


def test_content_hash_depends_on_text_and_metadata():
    assert content_hash("t", "{}") == content_hash("t", "{}")
    assert content_hash("t", "{}") != content_hash("t", '{"a": 1}')
    assert len(content_hash("t", "{}")) == 64


def test_journal_mode_follows_the_deepest_mount():
    assert journal_mode_for(":memory:") == "memory"
    assert journal_mode_for("/home/me/m.db", MOUNTS) == "wal"
    assert journal_mode_for("/mnt/share/m.db", MOUNTS) == "delete"
    assert journal_mode_for("/mnt/share/deep/m.db", MOUNTS) == "delete"
    assert journal_mode_for("/mnt/share/local disk/m.db", MOUNTS) == "wal"
