"""A repository's declared dependencies, read safely from its own files."""

from __future__ import annotations

import os

from codemem.memory.sources.declared import declared_dependencies
from codemem.memory.sources.spec import DEPENDENCY, PipSource


def test_requirement_files_includes_and_pyproject(tmp_path):
    (tmp_path / "requirements.txt").write_text(
        "# runtime\nrequests>=2.28  # http\n-r requirements/extra.txt\n"
        "--index-url https://example/simple\n-e ./local\n"
        "git+https://github.com/x/y\nattrs==23.1 ; python_version >= '3'\n")
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "extra.txt").write_text("rich\n-r ../requirements.txt\n")
    (tmp_path / "requirements-dev.txt").write_text("pytest\n")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "app"\ndependencies = ["Flask>=3", "requests"]\n'
        '[tool.poetry.dependencies]\npython = "^3.10"\npydantic = "^2"\n')
    found = declared_dependencies(str(tmp_path))
    assert [s.spec for s in found.sources] == [
        "pip:requests>=2.28", "pip:rich", "pip:attrs==23.1", "pip:pytest", "pip:flask>=3",
        "pip:pydantic"]
    assert all(s.origin == DEPENDENCY for s in found.sources)
    assert any("git+https" in note for note in found.notes)


def test_includes_cannot_leave_the_repository(tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("leaked-package\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "requirements.txt").write_text("-r ../secret.txt\nok-package\n")
    os.symlink(outside, repo / "requirements-link.txt")
    found = declared_dependencies(str(repo))
    assert found.sources == (PipSource("ok-package", "", DEPENDENCY),)
    assert any("../secret.txt" in note for note in found.notes)
    assert any("requirements-link.txt" in note and "symlink" in note for note in found.notes)


def test_a_broken_pyproject_is_a_note_not_a_failure(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project\ndependencies = [")
    found = declared_dependencies(str(tmp_path))
    assert found.sources == ()
    assert found.notes and found.notes[0].startswith("`pyproject.toml` not read")


def test_the_number_of_dependencies_is_capped(tmp_path):
    (tmp_path / "requirements.txt").write_text("\n".join(f"pkg{i}" for i in range(60)) + "\n")
    found = declared_dependencies(str(tmp_path))
    assert len(found.sources) == 40
    assert "60 dependencies declared" in found.notes[-1]
