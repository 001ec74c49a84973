"""extract_repository: a status for every entry, and unchanged files are not parsed again."""

from __future__ import annotations

from codemem.memory.extract.repository import extract_repository, summarize


def test_extract_repository_and_unchanged(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("def a():\n    return 1\n")
    (tmp_path / "pkg" / "b.rs").write_text("fn b() {}\n")
    (tmp_path / "README.md").write_text("hi\n")
    (tmp_path / "pkg" / "c.py").symlink_to(tmp_path / "pkg" / "a.py")
    first = {r.path: r for r in extract_repository(tmp_path, workers=0)}
    assert summarize(first.values()) == {
        "indexed": 2, "skipped:symlink": 1, "skipped:unsupported_language": 1,
    }
    assert first["pkg/a.py"].mtime is not None
    assert [e.qualified_name for e in first["pkg/b.rs"].entities] == ["b"]
    hashes = {p: r.file_hash for p, r in first.items() if r.ok}
    (tmp_path / "pkg" / "a.py").write_text("def a2():\n    return 2\n")
    def unchanged(path, file_hash):
        return hashes.get(path) == file_hash

    second = {r.path: r for r in extract_repository(tmp_path, workers=1, is_unchanged=unchanged)}
    assert second["pkg/b.rs"].status == "unchanged" and not second["pkg/b.rs"].entities
    assert second["pkg/a.py"].status == "indexed"
    assert [e.name for e in second["pkg/a.py"].entities] == ["a2"]
