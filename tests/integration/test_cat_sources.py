"""Associative sources inside a real Cheshire Cat 1.9.2 (opt-in: ``CCAT_CORE_DIR``).

The setting goes through the Cat's admin API; the composition module, as the Cat loaded it,
indexes the sources with the Cat's own embedder into the Cat's own declarative collection, and
a removed source leaves that collection; the chat commands and a code request use a source.
"""

from __future__ import annotations

import json

import pytest

from . import cat_harness
from .cat_harness import PLUGIN_ID, STATE_KEY, configured

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
        environment = cat_run.plugin_module("app.host.environment")
        settings, problems = environment.plugin_settings(cat_run.stray())
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
    runtime = cat_run.plugin_module("app.entry")
    sources = cat_run.plugin_module("app.projects.associative")
    settings_model = cat_run.plugin_module("app.host.settings_model")
    entities = settings_model.CatMemory.entities.value  # every entity
    with configured(cat_run, repository_path=str(repo), data_folder=str(tmp_path / "data"),
                    associative_sources=f"{other}\npip:iniconfig", cat_memory=entities):
        workspace = runtime.session_turn(cat_run.stray("ivan"))[1].workspace
        project, settings = workspace.project(), workspace.settings
        summary = sources.index_sources(project, settings, workspace.config.data_dir,
                                        lambda _: None)
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


WELCOME_META = {
    "target_path": "app.py", "symbol": "welcome", "kind": "function",
    "signature": "def welcome(name: str) -> str", "behaviour": "Greet the user with kit.",
    "inputs": [{"name": "name", "type": "str", "description": "who"}],
    "outputs": [{"name": "return", "type": "str", "description": "the greeting"}],
    "examples": [{"call": "welcome('ann')", "expected": "ann"}],
    "constraints": [], "acceptance_checks": ["uses kit.greet"], "assumptions": []}
WELCOME = ("```python entity=app.py::welcome\nimport kit\n\n\ndef welcome(name: str) -> str:\n"
           "    return kit.greet(name)\n```\n")


def test_chat_commands_and_a_request_use_the_source(cat_run, tmp_path):
    """"list sources" and "add source" are answered by the plugin in a chat turn (no tool
    selection with the default embedder); a code request's generation prompt carries the
    source's API as a labelled reference and the result names it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text("def main():\n    return 1\n")
    other = tmp_path / "other"
    (other / "kit").mkdir(parents=True)
    kit = ("def greet(name: str, *, loud: bool = False) -> str:\n"
           '    """Say hello to ``name``."""\n    return name\n')
    (other / "kit" / "__init__.py").write_text(kit)
    (repo / "kit").mkdir()  # the library as the project uses it (vendored), for its tests
    (repo / "kit" / "__init__.py").write_text(kit)
    script = cat_run.script
    with configured(cat_run, repository_path=str(repo), data_folder=str(tmp_path / "data"),
                    max_iterations=2, check_judge=False, extended_loop=False):
        script.rules += [("into META-CODE", json.dumps(WELCOME_META)),
                         ("You write Python code", WELCOME)]
        script.relevance = 0.9
        try:
            assert "No associative sources" in cat_run.chat("list sources", user="kim")["text"]
            added = cat_run.chat(f"add source {other}", user="kim")["text"]
            assert added.startswith(f"Added `{other}` to the associative sources"), added
            cat_harness.wait_for_indexing(cat_run)
            assert "| `other` | folder |" in cat_run.chat("list sources", user="kim")["text"]
            mark = len(script.prompts)
            with cat_run.session("kim") as chat:
                assert "**go**" in chat.say("write a function welcome in app.py that greets "
                                            "a user with kit")["text"]
                chat.say("go")
                cat_harness.wait_for_draft(cat_run, "kim")
                done = chat.wait_for(lambda f: "LLM calls" in str(f.get("content")), 60)
        finally:
            script.relevance = None
            del script.rules[-2:]
    generate = [p for p in script.prompts[mark:] if p.startswith("You write Python code")]
    assert generate and 'kind="api"' in generate[0] and "kit.greet" in generate[0]
    assert "def greet(name: str, *, loud: bool = False) -> str" in generate[0]
    assert done is not None and "Draft committed" in str(done["content"]), done
    assert "Library APIs that informed this draft: `kit.greet" in str(done["content"])
