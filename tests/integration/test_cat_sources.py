"""Associative sources inside a real Cheshire Cat 1.9.2 (opt-in: ``CCAT_CORE_DIR``).

The setting goes through the Cat's admin API; the composition module, as the Cat loaded it,
indexes the sources with the Cat's own embedder into the Cat's own declarative collection, and
a removed source leaves that collection. (Which hook or tool calls these functions is the glue's
business; this checks the parts underneath it in the real Cat.)
"""

from __future__ import annotations

import pytest

from .cat_harness import PLUGIN_ID, STATE_KEY
from .test_cat_plugin import configured

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::FutureWarning")]


def source_points(run, repo_id: str) -> list:
    points, _ = run.ccat.memory.vectors.declarative.get_all_points()
    return [p for p in points if p.payload["metadata"].get(STATE_KEY)
            and p.payload["metadata"].get("repo_id") == repo_id]


def test_the_sources_settings_are_served_and_saved_by_the_admin(cat_run):
    url = f"/plugins/settings/{PLUGIN_ID}"
    schema = cat_run.client.get(url).json()["schema"]["properties"]
    assert schema["index_repository_dependencies"]["title"] == (
        "Index the repository's dependencies")
    assert schema["associative_sources"]["extra"] == {"type": "Textarea"}
    with configured(cat_run, associative_sources="pip:iniconfig\n/srv/docs",
                    package_index_url="http://127.0.0.1:9/simple/"):
        stored = cat_run.client.get(url).json()["value"]
        settings, problems = cat_run.plugin_module("runtime").plugin_settings(cat_run.stray())
    assert stored["associative_sources"] == "pip:iniconfig\n/srv/docs" and problems == []
    assert settings.package_index_url == "http://127.0.0.1:9/simple/"


def test_sources_land_in_the_cats_memory_labelled_and_leave_it_when_removed(cat_run, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text("def main():\n    return 1\n")
    other = tmp_path / "other"
    (other / "kit").mkdir(parents=True)
    (other / "kit" / "__init__.py").write_text(
        "def greet(name: str, *, loud: bool = False) -> str:\n"
        '    """Say hello to ``name``."""\n    return name\n')
    runtime = cat_run.plugin_module("runtime")
    sources = cat_run.plugin_module("sources")
    with configured(cat_run, repository_path=str(repo), data_folder=str(tmp_path / "data"),
                    associative_sources=f"{other}\npip:iniconfig"):
        stray = cat_run.stray("ivan")
        project, settings = runtime.project_of(stray)
        data_dir = runtime.data_dir(settings)
        summary = sources.index_sources(project, settings, data_dir, lambda _: None,
                                        protected=(runtime.cat_data_dir(),))
        folder_id = sources.configured_sources(settings)[0][0].repo_id
        kit = source_points(cat_run, folder_id)
        installed = source_points(cat_run, "src-pip-iniconfig")
        facts = sources.api_facts(project)
        removed = sources.remove_source(settings, project, "other")
        after = source_points(cat_run, folder_id)
    assert "Associative sources: 2 indexed" in summary, summary
    assert "`iniconfig` " in summary and "(pip, installed)" in summary, summary
    greet = next(p for p in kit if p.payload["metadata"]["public_name"] == "kit.greet")
    assert greet.payload["metadata"]["source_name"] == "other"
    assert "def greet(name: str, *, loud: bool = False) -> str" in greet.payload["page_content"]
    assert installed and all(p.payload["metadata"]["source_version"] for p in installed)
    assert facts.lookup("kit.greet").signature == (
        "kit.greet(name: str, *, loud: bool = False) -> str")
    assert removed.answer.startswith(f"Removed `{other}`") and after == []
    assert removed.settings_text == "pip:iniconfig"
