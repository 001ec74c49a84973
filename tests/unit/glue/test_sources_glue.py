"""Associative sources through the glue, on a real project (SQLite, the parsing pool, a
Cat-shaped Qdrant collection) built by the runtime's registry from the settings.

Covers indexing from the settings (a folder, an installed and a downloaded distribution), the
chat commands (as turns, and as functions), the status tool, ``search_code``, and the task's
combined retrieval and API facts down to the generation prompt of a request that needs a
library. Only the LLM is scripted.
"""

from __future__ import annotations

import json

import pytest

from codemem.app import entry
from codemem.app.drafting.task_context import TaskContext
from codemem.app.host import llm_port
from codemem.app.host.llm_port import Meter
from codemem.app.host.settings_model import CatMemory
from codemem.app.process import GENERATION
from codemem.app.projects import associative, lookup
from codemem.app.projects.workspace import Turn
from codemem.codegen.loop.draft_loop import Committed, LoopConfig, LoopDeps, run_draft_loop
from codemem.codegen.reading.commands import Command, Found, detect_command
from codemem.memory.scratchpad import Scratchpad

from ...fakes import FunctionLLM, answer_scoring
from ..codegen.helpers_codegen import GOOD_SLUG, entity, slug_meta
from ..memory.sources.library import TEXTKIT_V1, publish, serve
from .glue_support import make_cat, say, settings_of

WRONG = ("import textkit\n\n\ndef slugify(text: str, sep: str = '-') -> str:\n"
         "    return textkit.slugify(text, separator=sep)\n")


def answer(prompt: str) -> str:
    scored = answer_scoring(prompt, lambda text: (0.9, "relevant"))
    if scored is not None:
        return scored
    if prompt.startswith("You write Python code for one goal"):
        first = "Feedback on the previous attempt:\n(first attempt)" in prompt
        return entity("text/slug.py", "slugify", WRONG if first else GOOD_SLUG)
    if prompt.startswith("You are a strict reviewer"):
        return json.dumps({"checks": [{"check": 1, "pass": True, "reason": "ok"},
                                      {"check": 2, "pass": True, "reason": "ok"}]})
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


@pytest.fixture
def setup(tmp_path, monkeypatch):
    repo = tmp_path / "workspace"
    (repo / "text").mkdir(parents=True)
    (repo / "text" / "slug.py").write_text("def slugify(text, sep='-'):\n    return text\n")
    other = tmp_path / "other"
    (other / "docs").mkdir(parents=True)
    (other / "docs" / "slugs.md").write_text("# Slugs\n\nSlugs are lower-case, dash-joined.\n")
    cat, sent, declarative = make_cat(tmp_path, repo)
    settings = settings_of(cat)
    llm = FunctionLLM(answer, limit=200)
    monkeypatch.setattr(llm_port, "cat_llm", llm)
    publish(tmp_path / "index", "textkit", "1.0", TEXTKIT_V1)
    with serve(tmp_path / "index") as (url, _):
        settings.update(associative_sources=f"{other}\npip:iniconfig, pip:textkit",
                        package_index_url=url, extended_loop=False)
        yield cat, sent, declarative, llm, other


def current(cat):
    workspace = Turn.of(cat, GENERATION.registry).workspace
    return workspace.project(), workspace.settings, workspace.config.data_dir


def index(cat) -> str:
    project, settings, data_dir = current(cat)
    notes: list[str] = []
    summary = associative.index_sources(project, settings, data_dir, notes.append)
    assert any(n.startswith("Associative sources: resolve pip:textkit") for n in notes)
    return summary


def points_of(declarative, repo_id):
    records, _ = declarative.get_all_points()
    return [r for r in records if r.payload["metadata"].get("repo_id") == repo_id]


def test_index_list_status_and_search(setup):
    cat, _, declarative, llm, _ = setup
    summary = index(cat)
    assert summary.startswith("Associative sources: 3 indexed in ")
    assert "- `other` (folder): 1 entities" in summary
    assert "`textkit` 1.0 (pip, downloaded): " in summary
    assert "`iniconfig` " in summary and "(pip, installed)" in summary
    project, settings, _ = current(cat)
    table = associative.list_sources(settings, project)
    assert "| `textkit` | pip (downloaded) | 1.0 |" in table and "| ok |" in table
    assert any(line.startswith("- source `textkit` 1.0 (pip, downloaded): ")
               for line in associative.status_lines(project))
    found = lookup.search(project, "make a URL slug with textkit")
    assert "[textkit 1.0 function] textkit.slugify (textkit/slug.py:1)" in found
    docs = lookup.search(project, "are slugs lower-case and dash-joined?")
    assert "[documentation: other docs] other: Slugs" in docs
    # the default (auto) with a weak embedder: sources stay out of the Cat's memory too
    assert points_of(declarative, "src-pip-textkit") == []
    settings_of(cat)["cat_memory"] = CatMemory.files.value
    index(cat)
    files = {p.payload["metadata"]["qualified_name"]: p.payload["metadata"]["kind"]
             for p in points_of(declarative, "src-pip-textkit")}
    assert files["textkit/slug.py"] == "file" and set(files.values()) == {"file"}


def test_the_generation_prompt_carries_the_library_api_and_a_wrong_call_is_caught(setup):
    cat, _, _, llm, _ = setup
    index(cat)
    project, _, _ = current(cat)
    pad = Scratchpad()
    pad.start_task("t1")
    context = TaskContext(project, user="alice", task_id="t1",
                          query="turn a title into a URL slug with textkit",
                          current_file="text/slug.py", share_finished=False, meter=Meter())
    deps = LoopDeps(
        llm=llm, store=project.commits, notes=pad,
        repo_files={"text/__init__.py": "", "text/slug.py": "def slugify(t):\n    return t\n"},
        repo_context=context.repo_source, associative=context.associative_source,
        api_facts=associative.api_facts(project))
    outcome = run_draft_loop(slug_meta(constraints=[]), deps, task_id="t1",
                             config=LoopConfig(max_iterations=3))
    assert isinstance(outcome, Committed) and outcome.iterations == 2
    generate = [p for p in llm.prompts if p.startswith("You write Python code")]
    api = generate[0].split("Library APIs you may call", 1)[1].split("Earlier attempts")[0]
    assert '<<<DATA kind="api" source="textkit 1.0 textkit.slugify">>>' in api
    assert "from textkit import slugify" in api
    assert "def slugify(text: str, sep: str = '-') -> str" in api
    assert ("has no keyword argument `separator`. Real signature: "
            "`textkit.slugify(text: str, sep: str = '-') -> str` (textkit 1.0)") in generate[1]
    assert "textkit.slugify (textkit 1.0)" in outcome.api_references
    assert associative.references_note(outcome).startswith(
        "Library APIs that informed this draft: `")


def test_chat_commands_add_list_and_remove_everywhere(setup, tmp_path):
    cat, _, declarative, _, other = setup
    index(cat)
    project, settings, data_dir = current(cat)
    assert detect_command("add source /srv/lib") == Found(Command.ADD_SOURCE, "/srv/lib", True)
    assert detect_command("Please remove the source `pip:textkit`") == Found(
        Command.REMOVE_SOURCE, "pip:textkit", True)
    assert detect_command("list sources?") == Found(Command.LIST_SOURCES, "", False)
    assert detect_command("write a function that lists sources") is None

    added = associative.add_source(settings, data_dir, "pip:attrs==23.1, pip:rich")
    assert added.reindex and added.settings_text.splitlines()[-2:] == ["pip:attrs==23.1",
                                                                       "pip:rich"]
    assert added.answer.startswith("Added `pip:attrs==23.1`, `pip:rich` to the associative")
    assert "already a source" in associative.add_source(settings, data_dir, str(other)).answer
    assert "system folder" in associative.add_source(settings, data_dir, "/").answer
    assert "overlaps" in associative.add_source(settings, data_dir, data_dir).answer
    assert associative.add_source(settings, data_dir, "nope/relative").settings_text is None

    settings_of(cat)["cat_memory"] = CatMemory.files.value  # points for the removal to remove
    index(cat)
    assert points_of(declarative, "src-pip-textkit")
    removed = associative.remove_source(settings, project, "textkit")
    assert removed.answer.startswith("Removed `pip:textkit`: ")
    assert removed.settings_text == f"{other}\npip:iniconfig"
    assert points_of(declarative, "src-pip-textkit") == []
    assert project.code.count_memories({"repo_id": "src-pip-textkit"}) == 0
    assert "textkit" not in associative.list_sources(settings.model_copy(
        update={"associative_sources": removed.settings_text}), project)
    assert "is not a source" in associative.remove_source(settings, project, "flask").answer


def test_dependencies_switch_and_nothing_configured(setup, tmp_path):
    cat, _, _, _, _ = setup
    project, settings, data_dir = current(cat)
    (tmp_path / "workspace" / "requirements.txt").write_text("iniconfig\n")
    quiet = settings.model_copy(update={"associative_sources": "",
                                        "index_repository_dependencies": True})
    found, problems = associative.configured_sources(quiet, project.root)
    assert [s.spec for s in found] == ["pip:iniconfig"] and found[0].kind == "dependency"
    assert "dependency the repository declares" in associative.remove_source(
        quiet, project, "iniconfig").answer
    none = settings.model_copy(update={"associative_sources": ""})
    assert associative.index_sources(project, none, data_dir, lambda _: None) == ""
    assert associative.list_sources(none, project).startswith("No associative sources.")


def test_chat_turns_status_and_indexing_reach_the_sources(setup):
    cat, sent, declarative, llm, other = setup
    assert say(cat, "list sources").startswith("| source | kind | version |")
    assert "not indexed yet" in say(cat, "list sources")
    started = say(cat, "add source pip:iniconfig")
    assert "already a source" in started
    project = current(cat)[0]
    answer_ = say(cat, "remove source textkit")
    assert answer_.startswith("Removed `pip:textkit`")
    assert settings_of(cat)["associative_sources"] == f"{other}\npip:iniconfig"
    status = entry.status(cat)
    assert "- sandbox: files=" in status
    entry.start_indexing(cat)
    project.indexer.join(120)
    summaries = [text for kind, text in sent if kind == "chat"]
    assert any(t.startswith("Indexed `") for t in summaries)
    assert any(t.startswith("Associative sources: 2 indexed in ") for t in summaries)
    assert any(line.startswith("- source `iniconfig` ")
               for line in entry.status(cat).splitlines())
    assert project.code.count_memories({"repo_id": "src-pip-iniconfig"}) > 0
    assert points_of(declarative, "src-pip-iniconfig") == []  # auto + weak embedder: none
