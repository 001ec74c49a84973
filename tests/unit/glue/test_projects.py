"""The Registry: one frozen configuration per project; a changed setting reaches the running
project without a restart; a rebuilt project's predecessor closes when its last user lets go."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from codemem.app import entry
from codemem.app.host.core_config import PluginConfig, ProjectConfig, RetrievalTuning
from codemem.app.host.settings_model import PluginSettings
from codemem.app.process import GENERATION
from codemem.memory.store.memory_store import StoreClosed

from .glue_support import make_cat, other_user, say, settings_of


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "workspace"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "core.py").write_text("def answer():\n    return 42\n")
    (root / "web").mkdir()
    (root / "web" / "app.js").write_text("function hello() { return 1; }\n")
    return root


def project_of(cat):
    return entry.session_turn(cat)[1].workspace.project()


def index(cat):
    reply = entry.start_indexing(cat)
    project = project_of(cat)
    project.indexer.join(120)
    return reply, project


def test_every_retrieval_setting_is_mapped_by_name():
    settings = PluginSettings(relevance_threshold=0.4, recency_days=3, batch_size=2)
    config = PluginConfig.from_settings(settings, "/data")
    for field in dataclasses.fields(RetrievalTuning):
        assert getattr(config.tuning, field.name) == getattr(settings, field.name)
    assert config.scope.max_file_bytes == settings.max_file_kb * 1024


def test_a_changed_threshold_reaches_the_running_project_without_a_rebuild(tmp_path, repo):
    cat, _, _ = make_cat(tmp_path, repo)
    first = project_of(cat)
    assert first.code.relevance_threshold == 0.7
    before = first.config.fingerprint()
    settings_of(cat).update(relevance_threshold=0.35, recency_days=2, max_memories=4)
    again = project_of(cat)
    assert again is first  # reconfigured, not rebuilt
    assert first.code.relevance_threshold == 0.35 and first.code.max_memories == 4
    assert first.code.recency_days == 2 and first.config.fingerprint() != before


def test_the_languages_and_include_settings_narrow_the_next_indexing_run(tmp_path, repo):
    cat, _, _ = make_cat(tmp_path, repo)
    _, project = index(cat)
    names = {m["metadata"]["qualified_name"] for m in project.code.list_memories(
        {"type": "code_entity"})}
    assert names == {"answer", "hello"}
    settings_of(cat).update(languages="python")
    _, project = index(cat)
    statuses = project.code.last_index_report.statuses
    assert statuses["web/app.js"].startswith("skipped:language_filtered"), statuses


def test_an_identity_change_rebuilds_and_the_old_project_closes_after_its_lease(tmp_path, repo):
    cat, _, _ = make_cat(tmp_path, repo)
    first = project_of(cat)
    with GENERATION.registry.lease(first):
        cat.memory.vectors.declarative.embedder_name = "AnotherEmbedder"
        second = project_of(cat)
        assert second is not first and second.config.embedder_name == "AnotherEmbedder"
        assert first.code.count_memories() >= 0  # still usable by the worker holding it
        assert second.ledger is first.ledger  # task ownership survives the rebuild
    with pytest.raises(StoreClosed):
        first.code.get_memory("anything")


def test_identity_and_fingerprint():
    base = ProjectConfig(root="/r", data_dir="/d", embedder_name="E")
    tuned = dataclasses.replace(base, tuning=dataclasses.replace(base.tuning,
                                                                 relevance_threshold=0.5))
    assert tuned.identity == base.identity and tuned.fingerprint() != base.fingerprint()
    assert dataclasses.replace(base, embedder_name="F").identity != base.identity


def test_the_start_up_pass_holds_up_neither_the_boot_nor_another_repository(
        tmp_path, repo, fresh_registries, monkeypatch):
    """Opening a large project takes time (integrity check, manifest): the Cat's boot hook
    returns at once, and a user of another repository is served while it opens."""
    registry, _ = fresh_registries
    gate, entered = threading.Event(), threading.Event()
    real_build = registry._build

    def slow_build(config, *rest):
        if config.root == str(repo):
            entered.set()
            assert gate.wait(60)
        return real_build(config, *rest)

    monkeypatch.setattr(registry, "_build", slow_build)
    cat, _, _ = make_cat(tmp_path, repo)
    started = time.monotonic()
    entry.index_at_startup(cat)
    assert entered.wait(10) and time.monotonic() - started < 5  # returned while it opens

    other_root = tmp_path / "other"
    other_root.mkdir()
    (other_root / "m.py").write_text("def other():\n    return 1\n")
    other, _, _ = make_cat(tmp_path / "o", other_root, user="bob")
    assert project_of(other).root == str(other_root)  # not held up by the opening project
    started = time.monotonic()
    assert say(cat, "hello there, how is the weather in Rome?") is None  # the Cat answers
    assert time.monotonic() - started < 5  # routing did not wait for the opening project

    gate.set()
    project = project_of(cat)
    deadline = time.monotonic() + 60
    while (project.indexer is None or project.indexer.ident is None) \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    project.indexer.join(120)
    assert project.code.list_memories({"type": "code_entity", "name": "answer"})


def test_callers_of_one_repository_share_one_build(tmp_path, repo, fresh_registries,
                                                   monkeypatch):
    registry, _ = fresh_registries
    builds = []
    real_build = registry._build

    def counted(*args):
        builds.append(1)
        time.sleep(0.3)
        return real_build(*args)

    monkeypatch.setattr(registry, "_build", counted)
    cat, _, _ = make_cat(tmp_path, repo)
    twin, _ = other_user(cat, "bob")
    found = []
    threads = [threading.Thread(target=lambda c=c: found.append(project_of(c)))
               for c in (cat, twin, cat)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(builds) == 1 and len(found) == 3 and len({id(p) for p in found}) == 1


def test_the_intent_lookup_reads_the_index_once_per_indexing_run(tmp_path, repo, monkeypatch):
    """A message's names are looked up in sets read once per indexing run (two manifest indexes,
    no entity row): ordinary messages cost no query over every memory."""
    from codemem.app.projects.lookup import IndexedNames

    cat, _, _ = make_cat(tmp_path, repo)
    _, project = index(cat)
    reads = []
    names = project.code.indexed_names
    monkeypatch.setattr(project.code, "indexed_names", lambda: reads.append(1) or names())
    monkeypatch.setattr(project.code, "list_memories", lambda *a, **k: 1 / 0)  # never asked
    first = IndexedNames(lambda: project).known(["answer", "hello", "core.py", "pkg/core.py",
                                         "weather", "nowhere.py"])
    assert first == {"answer", "hello", "core.py", "pkg/core.py"}
    assert IndexedNames(lambda: project).known(["weather", "Rome"]) == set()
    assert reads == [1]
    project.generation += 1  # an indexing run: read again
    IndexedNames(lambda: project).known(["answer"])
    assert reads == [1, 1]
    # the repository's words come from the same read: "pkg/core.py", "hello", "answer"
    assert IndexedNames(lambda: project).terms({"hello", "answ", "weath", "pkg"}) == {
        "hello", "answ", "pkg"}
    assert reads == [1, 1]
