"""Repository-root registration refuses system folders and the plugin's own data."""

from __future__ import annotations

import os

import pytest

from codemem.memory.errors import UnsafeInput
from codemem.memory.repository.root import check_repository_root


def test_a_project_folder_is_accepted_and_resolved(tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "proj")
    assert check_repository_root(str(tmp_path / "proj")) == str(tmp_path / "proj")
    assert check_repository_root(str(tmp_path / "link")) == str(tmp_path / "proj")


@pytest.mark.parametrize("path", ["/", "/proc", "/etc", "/proc/self/..", "/usr/", "/root"])
def test_system_folders_are_refused(path):
    with pytest.raises(UnsafeInput, match="system folder"):
        check_repository_root(path)


def test_symlink_to_a_system_folder_is_refused(tmp_path):
    (tmp_path / "etc").symlink_to("/etc")
    with pytest.raises(UnsafeInput, match="system folder"):
        check_repository_root(str(tmp_path / "etc"))


@pytest.mark.parametrize("bad", ["", "   ", "relative/path", "/nonexistent/x", "/tmp/\x00x", None])
def test_unusable_paths_are_refused_with_a_reason(bad):
    with pytest.raises(UnsafeInput):
        check_repository_root(bad)


def test_protected_folders_may_not_overlap_the_repository(tmp_path):
    data = tmp_path / "cat" / "data"
    data.mkdir(parents=True)
    for candidate in (tmp_path, tmp_path / "cat", data):
        with pytest.raises(UnsafeInput, match="protected"):
            check_repository_root(str(candidate), protected=[str(data / "code_working_memory")])
    sibling = tmp_path / "workspace"
    sibling.mkdir()
    assert check_repository_root(str(sibling), protected=[str(data)]) == str(sibling)


def test_home_subfolders_are_fine(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "proj").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert check_repository_root("~/proj") == os.path.join(str(home), "proj")
