"""Repository walk: .gitignore semantics, globs, and links / special files never followed."""

from __future__ import annotations

import os

import pytest

from codemem.memory.errors import UnsafeInput
from codemem.memory.extract.gitignore import IgnoreStack, parse_gitignore
from codemem.memory.extract.walker import read_file_safely, walk_repository


def _write(root, rel, data=b"x = 1\n"):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("path", "is_dir", "expected"),
    [
        ("x.log", False, True), ("deep/x.log", False, True), ("keep.log", False, False),
        ("build", True, True), ("build", False, False), ("top.txt", False, True),
        ("d/top.txt", False, False), ("docs/x.tmp", False, True), ("docs/a/b/x.tmp", False, True),
        ("q/cache", True, True), ("a/x", False, True), ("a", True, False), ("#hash", False, True),
        ("sub/local.txt", False, True), ("sub/x.log", False, False), ("local.txt", False, False),
        ("f1.py", False, True), ("fa.py", False, False), ("trail ", False, False),
    ],
)
def test_gitignore_semantics(path, is_dir, expected):
    stack = IgnoreStack()
    rules = "*.log\n!keep.log\nbuild/\n/top.txt\ndocs/**/*.tmp\n**/cache\na/**\n"
    rules += "\\#hash\nf[0-9].py\n"
    stack.add("", parse_gitignore(rules + "# comment\n\n"))
    stack.add("sub", parse_gitignore("local.txt\n!*.log\n"))
    assert stack.is_ignored(path, is_dir) is expected


def test_walk_statuses(tmp_path):
    repo = tmp_path / "repo"
    _write(repo, "src/app.py")
    _write(repo, "src/lib/util.go", b"package lib\n")
    _write(repo, "src/gen/out.py")
    _write(repo, "src/.gitignore", b"gen/\n*.tmp.py\n")
    _write(repo, "src/x.tmp.py")
    _write(repo, "tests/test_app.py")
    _write(repo, "notes.md", b"# notes\n")
    _write(repo, "big.py", b"#" * 5000)
    _write(repo, ".git/config", b"[core]\n")
    (repo / "link.py").symlink_to(repo / "src" / "app.py")
    os.mkfifo(repo / "pipe.py")
    statuses = {e.path: e.status for e in walk_repository(
        repo, exclude=["*/tests/*"], max_file_bytes=1000)}
    assert statuses == {
        ".git": "skipped:vcs",
        "big.py": "skipped:too_large",
        "link.py": "skipped:symlink",
        "notes.md": "skipped:unsupported_language",
        "pipe.py": "skipped:not_regular",
        "src/.gitignore": "skipped:unsupported_language",
        "src/app.py": "ok",
        "src/gen": "skipped:ignored",
        "src/lib/util.go": "ok",
        "src/x.tmp.py": "skipped:ignored",
        "tests": "skipped:excluded",
    }
    flat = {e.path: e.status for e in walk_repository(
        repo, recursive=False, respect_gitignore=False, languages=["go"])}
    assert flat["src"] == "skipped:not_recursive"
    assert flat["big.py"] == "skipped:language_filtered"
    only = [e.path for e in walk_repository(repo, include=["src/*.py"]) if e.ok]
    assert only == ["src/app.py"]


def test_read_file_safely(tmp_path):
    repo = tmp_path / "repo"
    _write(repo, "a/b.py", b"print(1)\n")
    _write(tmp_path, "secret.py", b"SECRET\n")
    (repo / "a" / "up").symlink_to(tmp_path)
    ok = read_file_safely(str(repo), "a/b.py")
    assert ok.status == "ok" and ok.data == b"print(1)\n"
    assert read_file_safely(str(repo), "a/up/secret.py").status == "skipped:symlink"
    for bad in ("../secret.py", "/etc/passwd", "a/../../secret.py", ""):
        with pytest.raises(UnsafeInput):
            read_file_safely(str(repo), bad)
    assert read_file_safely(str(repo), "a/b.py", max_bytes=3).status == "skipped:too_large"


def test_undecodable_names_get_a_status_with_a_printable_path(tmp_path):
    _write(tmp_path, "good.py")
    os.makedirs(os.path.join(os.fsencode(tmp_path), b"dir_\xff"))
    for name in (b"bad_name_\xff\xfe.py", b"dir_\xff/inner.py"):
        with open(os.path.join(os.fsencode(tmp_path), name), "wb") as handle:
            handle.write(b"x = 1\n")
    entries = {e.path: e for e in walk_repository(tmp_path)}
    assert entries["good.py"].ok
    assert entries["bad_name_\\xff\\xfe.py"].status == "skipped:undecodable_name"
    assert entries["dir_\\xff"].status == "skipped:undecodable_name" and entries["dir_\\xff"].is_dir
    assert all(path.encode("utf-8") for path in entries)  # every reported path is storable


def test_virtual_environments_are_skipped_by_what_they_are_not_their_name(tmp_path):
    _write(tmp_path, "env/pyvenv.cfg", b"home = /usr/bin\n")
    _write(tmp_path, "env/lib/python3.10/site-packages/dep.py")
    _write(tmp_path, "Lib/venv/__init__.py")  # the standard library's own venv package
    _write(tmp_path, "Lib/venv/scripts.py")
    _write(tmp_path, "fake/pyvenv.cfg/x.py")  # a folder named pyvenv.cfg is not the marker
    entries = {e.path: e for e in walk_repository(tmp_path)}
    assert entries["env"].status == "skipped:virtualenv" and entries["env"].is_dir
    assert not any(path.startswith("env/") for path in entries)
    assert entries["Lib/venv/__init__.py"].ok and entries["Lib/venv/scripts.py"].ok
    assert entries["fake/pyvenv.cfg/x.py"].ok
