"""Torn working-memory files of the Cat's cache are set aside at start-up; sound ones stay."""

from __future__ import annotations

import pickle

from codemem.app.host.cat_cache import cache_folder, set_aside_unreadable


def test_a_torn_or_empty_file_is_set_aside_and_a_sound_one_kept(tmp_path):
    sound = pickle.dumps({"history": ["hello"] * 50})
    (tmp_path / "alice_working_memory.cache").write_bytes(sound)
    (tmp_path / "bob_working_memory.cache").write_bytes(sound[:len(sound) // 2])
    (tmp_path / "carol_working_memory.cache").write_bytes(b"")
    (tmp_path / "other.cache").write_bytes(b"")  # not a working memory: not the plugin's
    assert set_aside_unreadable(str(tmp_path)) == ["bob", "carol"]
    left = sorted(p.name.split(".unreadable-")[0] for p in tmp_path.iterdir())
    assert left == ["alice_working_memory.cache", "bob_working_memory.cache",
                    "carol_working_memory.cache", "other.cache"]
    assert (tmp_path / "alice_working_memory.cache").read_bytes() == sound
    assert not (tmp_path / "bob_working_memory.cache").exists()
    assert set_aside_unreadable(str(tmp_path / "missing")) == []


def test_only_the_file_system_cache_is_looked_at(monkeypatch, tmp_path):
    monkeypatch.setenv("CCAT_CACHE_TYPE", "in_memory")
    assert cache_folder() is None
    monkeypatch.setenv("CCAT_CACHE_TYPE", "file_system")
    monkeypatch.setenv("CCAT_CACHE_DIR", str(tmp_path))
    assert cache_folder() == str(tmp_path)
