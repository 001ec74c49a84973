"""Each object/ref backend on its own: objects round-trip, refs move only by compare-and-swap."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemem.memory.commits.dulwich_backend import DulwichBackend
from codemem.memory.commits.gitpython_backend import GitPythonBackend, pinned_env, scrubbed_env
from codemem.memory.commits.objects import build_commit, build_tree

from .conftest import fsck, git_available

REF = "refs/heads/tasks/t"


def _open(kind: str, path: Path) -> DulwichBackend | GitPythonBackend:
    if kind == "gitpython":
        if not git_available():
            pytest.skip("GitPython needs the git binary")
        return GitPythonBackend(path, create=True)
    return DulwichBackend(path, create=True)


@pytest.mark.parametrize("kind", ["dulwich", "gitpython"])
def test_objects_round_trip_and_refs_move_by_cas(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "h.git"
    path.mkdir()
    backend = _open(kind, path)
    tree, objects = build_tree({"a.py": b"x = 1\n"})
    first = build_commit(tree, (), "one\n", 1_790_000_000)
    second = build_commit(tree, (first.sha,), "two\n", 1_790_000_001)
    backend.write_objects([*objects, first, second])
    backend.write_objects([first])  # writing an existing object again is a no-op
    assert backend.has_object(first.sha) and not backend.has_object("0" * 40)
    assert backend.read_object(first.sha) == ("commit", first.body)
    assert backend.get_ref(REF) is None
    assert backend.cas_ref(REF, None, first.sha)
    assert not backend.cas_ref(REF, None, second.sha)  # expected absent, found first: refused
    assert backend.get_ref(REF) == first.sha
    assert backend.cas_ref(REF, first.sha, second.sha)
    assert backend.list_refs("refs/heads/tasks/") == {REF: second.sha}
    backend.close()
    fsck(path)


def test_gitpython_environment_is_pinned_to_the_repository(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", "/elsewhere")
    pinned = pinned_env(tmp_path)
    assert pinned["GIT_DIR"] == str(tmp_path) and pinned["GIT_ALTERNATE_OBJECT_DIRECTORIES"] == ""
    scrubbed = scrubbed_env(tmp_path)
    assert "GIT_OBJECT_DIRECTORY" not in scrubbed and scrubbed["HOME"] == str(tmp_path)
    assert scrubbed["GIT_CONFIG_NOSYSTEM"] == "1"
