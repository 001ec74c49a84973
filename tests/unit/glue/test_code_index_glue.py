"""The indexing glue end to end: settings -> project -> index -> Qdrant -> recall split.

Real parts throughout (SQLite, the parsing pool, a local Qdrant collection created as the Cat
creates it); the Cat's StrayCat is stood in for by the attributes runtime reads.
"""

from __future__ import annotations

import threading

import pytest

from codemem.app import entry
from codemem.app.chat import index_jobs, recall
from codemem.app.host.settings_model import CatMemory
from codemem.app.process import GENERATION
from codemem.app.projects import indexing, registry

from ..memory.codebase.catlike import Document
from .glue_support import make_cat, settings_of


def project_of(cat):
    return entry.session_turn(cat)[1].workspace.project()


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "workspace"
    (root / "utils").mkdir(parents=True)
    (root / "utils" / "dates.py").write_text(
        "def parse_iso(text):\n    \"\"\"Parse an ISO date.\"\"\"\n    return {'y': text[:4]}\n")
    (root / "app.py").write_text("from utils.dates import parse_iso\n\n"
                                 "def main():\n    return parse_iso('2026-01-01')\n")
    return root


def wait_for_indexing():
    for project in GENERATION.registry.projects():
        if project.indexer is not None:
            project.indexer.join(timeout=120)
            assert not project.indexer.is_alive()


def code_points(declarative):
    points, _ = declarative.get_all_points()
    return sorted((p.payload["metadata"]["kind"], p.payload["metadata"]["qualified_name"])
                  for p in points)


def test_index_tool_indexes_in_the_background_and_reports_in_chat(tmp_path, repo):
    cat, sent, declarative = make_cat(tmp_path, repo,
                                      settings={"cat_memory": CatMemory.entities.value})
    reply = entry.start_indexing(cat)
    assert reply.startswith(f"Indexing `{repo}` started")
    wait_for_indexing()
    kind, summary = sent[-1]
    assert kind == "chat" and "2 indexed" in summary and "code entities" in summary
    assert code_points(declarative) == [("function", "main"), ("function", "parse_iso")]
    points, _ = declarative.get_all_points()
    assert all(p.payload["metadata"]["source"] for p in points)
    assert not (repo / ".codemem").exists()
    assert (tmp_path / "data" / "repositories").is_dir()


def test_by_default_a_weak_embedder_puts_no_code_into_the_cats_memory(tmp_path, repo):
    """The default (auto) with an embedder that cannot rank code (here the hashing one, like
    the Cat's DumbEmbedder): the Cat's collection stays as it was, code search still works."""
    cat, sent, declarative = make_cat(tmp_path, repo)
    entry.start_indexing(cat)
    wait_for_indexing()
    assert "2 indexed" in sent[-1][1]
    assert code_points(declarative) == []
    assert "parse_iso" in project_of(cat).code.candidates("parse an ISO date")[0].text


def test_files_mode_puts_one_outline_per_file_and_switching_modes_cleans_up(tmp_path, repo):
    cat, _, declarative = make_cat(tmp_path, repo,
                                   settings={"cat_memory": CatMemory.files.value})
    entry.start_indexing(cat)
    wait_for_indexing()
    assert code_points(declarative) == [("file", "app.py"), ("file", "utils/dates.py")]
    points, _ = declarative.get_all_points()
    dates = next(p for p in points if p.payload["metadata"]["path"] == "utils/dates.py")
    assert dates.payload["page_content"] == (
        "File utils/dates.py: 1 definition\ndef parse_iso(text):")

    settings_of(cat)["cat_memory"] = CatMemory.none.value  # the admin changes the setting
    entry.start_indexing(cat)
    wait_for_indexing()
    assert code_points(declarative) == []

    settings_of(cat)["cat_memory"] = CatMemory.entities.value
    entry.start_indexing(cat)
    wait_for_indexing()
    assert code_points(declarative) == [("function", "main"), ("function", "parse_iso")]


def test_a_second_request_while_indexing_is_refused_politely(tmp_path, repo, monkeypatch):
    cat, sent, _ = make_cat(tmp_path, repo)
    gate = threading.Event()
    monkeypatch.setattr(index_jobs, "index_project", lambda *a, **k: gate.wait(30) and "done")
    entry.start_indexing(cat)
    assert "already being indexed" in entry.start_indexing(cat)
    gate.set()
    wait_for_indexing()


@pytest.mark.parametrize("path", ["", "/", "relative/dir", "/does/not/exist"])
def test_bad_repository_settings_give_a_clear_message(tmp_path, path):
    cat, sent, _ = make_cat(tmp_path, path)
    assert entry.start_indexing(cat).startswith("Cannot index: ")
    assert entry.search_code(cat, "dates").startswith("Cannot search the code: ")
    assert sent == []


def test_recall_split_keeps_code_out_of_ordinary_memories_and_formats_it(tmp_path, repo):
    cat, _, declarative = make_cat(tmp_path, repo,
                                   settings={"cat_memory": CatMemory.entities.value})
    entry.start_indexing(cat)
    wait_for_indexing()
    recall.begin_turn()
    config = recall.widen_declarative_recall({"k": 2, "threshold": 0.1, "embedding": None,
                                              "metadata": {}})
    assert config["k"] == 2 + recall.EXTRA_RECALL
    vector = cat.embedder.embed_query("parse iso date")
    code = declarative.recall_memories_from_embedding(vector, k=10, threshold=-1)
    ordinary = [(Document(f"fact {i}", {"source": "user.pdf"}), 0.5, None, f"id{i}")
                for i in range(4)]
    cat.working_memory.declarative_memories = code + ordinary
    entry.after_recall(cat)
    assert [d.page_content for d, *_ in cat.working_memory.declarative_memories] == [
        "fact 0", "fact 1"]
    agent_input = entry.prompt_variables(cat, type("AgentInput", (), {})())
    text = agent_input.code_context
    assert "parse_iso (utils/dates.py:1-3" in text
    assert "return {'y': text[:4]}" in text  # braces intact: it is a prompt variable
    suffix = recall.add_code_section("Base suffix {tools_output}")
    assert suffix.endswith("{code_context}\n") and suffix.count("{") == 2


def test_no_code_recalled_leaves_the_prompt_alone(tmp_path, repo):
    cat, _, _ = make_cat(tmp_path, repo)
    recall.begin_turn()
    recall.widen_declarative_recall({"k": 3})
    cat.working_memory.declarative_memories = []
    entry.after_recall(cat)
    assert entry.prompt_variables(cat, type("AgentInput", (), {})()).code_context == ""
    assert recall.add_code_section("S") == "S"


def test_throttle_lets_one_call_through_per_interval():
    now = [0.0]
    throttle = indexing.Throttle(3.0, clock=lambda: now[0])
    seen = []
    for t in [0.0, 1.0, 2.9, 3.0, 3.5, 7.0]:
        now[0] = t
        seen.append(throttle.ready())
    assert seen == [True, False, False, True, False, True]


def test_repository_ids_are_stable_and_path_safe():
    a = registry.repository_id("/work/my repo/../x")
    assert a == registry.repository_id("/work/my repo/../x")
    assert "/" not in a and " " not in a and a != registry.repository_id("/other/x")


def test_a_damaged_store_reaches_the_index_summary_as_a_warning(tmp_path, repo):
    """The core's recovery notice (a corrupt database set aside) is told to the user."""
    cat, sent, _ = make_cat(tmp_path, repo)
    project = entry.session_turn(cat)[1].workspace.project()
    project.close()
    db = project.code.db_path
    with open(db, "r+b") as handle:  # garbage over the header: the next open repairs
        handle.write(b"not a database at all" * 8)
    GENERATION.registry.close_all()
    entry.start_indexing(cat)
    entry.session_turn(cat)[1].workspace.project().indexer.join(60)
    summary = [text for kind, text in sent if kind == "chat"][-1]
    assert summary.startswith("Indexed `") and "**Warning:** " in summary
    assert ".corrupt-" in summary
