"""Write-back never loses the user's work: compare-and-swap, safe paths, all or nothing."""

from __future__ import annotations

import os
import stat

import pytest

from codemem.memory.errors import UnsafeInput
from codemem.memory.repository import safe_fs
from codemem.memory.repository.writeback import WriteBackRefused, write_back


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_bytes(b"def f():\r\n    return 1\r\n")
    os.chmod(root / "pkg" / "mod.py", 0o755)
    return root


def test_writes_new_and_changed_files_and_returns_the_previous_content(repo):
    result = write_back(str(repo), {"pkg/mod.py": "def f():\r\n    return 2\r\n",
                                    "pkg/new/util.py": "X = 1\n"},
                        {"pkg/mod.py": "def f():\r\n    return 1\r\n", "pkg/new/util.py": None})
    assert result.written == ("pkg/mod.py", "pkg/new/util.py")
    assert result.previous == {"pkg/mod.py": "def f():\r\n    return 1\r\n",
                               "pkg/new/util.py": None}
    assert (repo / "pkg" / "mod.py").read_bytes() == b"def f():\r\n    return 2\r\n"  # CRLF kept
    assert stat.S_IMODE((repo / "pkg" / "mod.py").stat().st_mode) == 0o755  # mode kept
    assert (repo / "pkg" / "new" / "util.py").read_text() == "X = 1\n"
    assert not [p for p in repo.rglob(".codemem-*")]


@pytest.mark.parametrize(("disk", "base", "word"), [
    ("def f():\n    return 99\n", "def f():\r\n    return 1\r\n", "edited"),
    (None, "def f():\r\n    return 1\r\n", "deleted"),
    ("def f():\r\n    return 1\r\n", None, "created"),
])
def test_a_file_changed_since_the_draft_started_is_never_overwritten(repo, disk, base, word):
    target = repo / "pkg" / "mod.py"
    if disk is None:
        target.unlink()
    else:
        target.write_bytes(disk.encode())
    before = target.read_bytes() if target.exists() else None
    with pytest.raises(WriteBackRefused, match=f"pkg/mod.py was {word}"):
        write_back(str(repo), {"pkg/mod.py": "new\n"}, {"pkg/mod.py": base})
    assert (target.read_bytes() if target.exists() else None) == before


def test_nothing_is_written_when_any_file_is_refused(repo):
    with pytest.raises(WriteBackRefused) as err:
        write_back(str(repo), {"a.py": "A\n", "pkg/mod.py": "B\n"},
                   {"a.py": None, "pkg/mod.py": "stale"})
    assert err.value.problems == ["pkg/mod.py was edited since the draft started; "
                                  "refusing to overwrite it"]
    assert not (repo / "a.py").exists()


@pytest.mark.parametrize("path", ["/etc/passwd", "../x.py", "pkg/../../x.py", ".git/config",
                                  "pkg/.GIT/hooks/pre-commit", "", "a\x00b.py", "..\\x.py",
                                  "-rf.py", "pkg/a\nb.py", ".gitmodules", "pkg/.git./x"])
def test_unsafe_paths_are_refused(repo, path):
    with pytest.raises(WriteBackRefused, match="not a plain path"):
        write_back(str(repo), {path: "x\n"}, {path: None})


def test_symlinked_targets_and_parents_are_refused(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("keep\n")
    (repo / "link.py").symlink_to(outside / "secret.py")
    (repo / "linkdir").symlink_to(outside)
    for path in ("link.py", "linkdir/secret.py", "linkdir/new.py"):
        with pytest.raises(WriteBackRefused, match="symlink"):
            write_back(str(repo), {path: "owned\n"}, {path: "keep\n" if "secret" in path
                                                     else None})
    assert (outside / "secret.py").read_text() == "keep\n"
    assert not (outside / "new.py").exists()


def test_a_failure_part_way_restores_what_was_already_replaced(repo, monkeypatch):
    real = os.replace
    calls = []

    def failing_replace(src, dst, **dir_fds):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(src, dst, **dir_fds)

    monkeypatch.setattr(safe_fs.os, "replace", failing_replace)
    with pytest.raises(OSError, match="No space"):
        write_back(str(repo), {"pkg/mod.py": "new\n", "pkg/z.py": "Z\n"},
                   {"pkg/mod.py": "def f():\r\n    return 1\r\n", "pkg/z.py": None})
    monkeypatch.setattr(safe_fs.os, "replace", real)
    assert (repo / "pkg" / "mod.py").read_bytes() == b"def f():\r\n    return 1\r\n"
    assert not (repo / "pkg" / "z.py").exists()
    assert not [p for p in repo.rglob(".codemem-*")]


def test_unsafe_input_is_a_value_error_for_callers():
    assert issubclass(UnsafeInput, ValueError)


def test_a_lone_surrogate_is_refused_before_any_file_is_touched(repo):
    with pytest.raises(WriteBackRefused, match="pkg/z.py: .*lone surrogate"):
        write_back(str(repo), {"pkg/a.py": "fine\n", "pkg/z.py": "bad \udcff\n"},
                   {"pkg/a.py": None, "pkg/z.py": None})
    assert not (repo / "pkg" / "a.py").exists()


def test_a_fifo_in_the_targets_place_is_refused_without_blocking(repo):
    os.mkfifo(repo / "pkg" / "pipe.py")
    with pytest.raises(WriteBackRefused, match="pkg/pipe.py: not a regular file"):
        write_back(str(repo), {"pkg/pipe.py": "x\n"}, {"pkg/pipe.py": None})
