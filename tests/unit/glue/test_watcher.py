"""The index that follows the user's edits: real files, real threads, the generation's stop.

``memory.codeindex.watch`` yields debounced batches of changed paths (file events when
``watchfiles`` is importable, else ``stat`` polling); ``app/chat/watcher.py`` runs one watcher per
configured repository in the generation's threads and re-indexes incrementally on each batch.
"""

from __future__ import annotations

import threading
import time

import pytest

from codemem.app import entry
from codemem.app.chat import watcher
from codemem.app.drafting.sessions import Sessions
from codemem.app.host.lifecycle import Lifecycle
from codemem.app.process import Generation
from codemem.app.projects.registry import Registry
from codemem.memory.codeindex.watch import PollingWatch, watch_changes

from .glue_support import make_cat, settings_of


def _collect(source, stop, batches):
    for batch in source:
        batches.append(batch)
        if stop.is_set():
            return


def test_polling_yields_one_debounced_batch_per_save_and_ends_on_stop(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("A = 1\n")
    (tmp_path / ".git").mkdir()
    stop, batches = threading.Event(), []
    poll = PollingWatch(str(tmp_path), poll_s=0.05, quiet_s=0.1)
    thread = threading.Thread(target=_collect, args=(poll.batches(stop), stop, batches))
    thread.start()
    time.sleep(0.2)
    (tmp_path / ".git" / "index").write_text("ignored")  # never watched
    (tmp_path / "pkg" / "a.py").write_text("A = 22\n")  # size and mtime change
    (tmp_path / "pkg" / "b.py").write_text("B = 2\n")
    deadline = time.monotonic() + 5
    while not batches and time.monotonic() < deadline:
        time.sleep(0.02)
    (tmp_path / "pkg" / "a.py").unlink()
    while len(batches) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    stop.set()
    thread.join(2)
    assert not thread.is_alive()
    assert batches[0] == {str(tmp_path / "pkg" / "a.py"), str(tmp_path / "pkg" / "b.py")}
    assert batches[1] == {str(tmp_path / "pkg" / "a.py")}


def test_forced_polling_is_what_watch_changes_uses_without_events(tmp_path):
    stop, batches = threading.Event(), []
    source = watch_changes(str(tmp_path), stop, events=False, poll_s=0.05, quiet_s=0.05)
    thread = threading.Thread(target=_collect, args=(source, stop, batches))
    thread.start()
    time.sleep(0.15)
    (tmp_path / "new.py").write_text("x = 1\n")
    deadline = time.monotonic() + 5
    while not batches and time.monotonic() < deadline:
        time.sleep(0.02)
    stop.set()
    thread.join(2)
    assert batches == [{str(tmp_path / "new.py")}] and not thread.is_alive()


@pytest.fixture
def watched(tmp_path):
    """A repository indexed once, with the watcher on (it is off in the other glue tests)."""
    repo = tmp_path / "workspace"
    repo.mkdir()
    (repo / "dates.py").write_text("def parse_date(text):\n    return text\n")
    cat, _, _ = make_cat(tmp_path, repo, settings={"follow_edits": True})
    entry.session_turn(cat)[1].workspace.project().code.index_repository(str(repo))
    yield cat, repo
    watcher.stop_watching(join_s=5)


def _names(cat) -> set[str]:
    project = entry.session_turn(cat)[1].workspace.project()
    return {m["metadata"]["name"] for m in project.code.list_memories({"type": "code_entity"})}


def test_an_edit_on_disk_reaches_the_index_within_seconds(watched):
    cat, repo = watched
    [watch] = watcher.watching()
    assert watch.root == str(repo.resolve()) and watch.source in ("events", "polling")
    time.sleep(0.3)  # the first snapshot
    saved = time.monotonic()
    (repo / "dates.py").write_text("def parse_date(text):\n    return text\n\n\n"
                                   "def format_date(day):\n    return str(day)\n")
    while "format_date" not in _names(cat):
        assert time.monotonic() - saved < 10, "the edit never reached the index"
        time.sleep(0.05)
    while watch.runs < 1:  # the run's bookkeeping follows its last write
        assert time.monotonic() - saved < 10
        time.sleep(0.02)
    (repo / "dates.py").unlink()
    while "parse_date" in _names(cat):
        assert time.monotonic() - saved < 20, "the deletion never reached the index"
        time.sleep(0.05)
    project = entry.session_turn(cat)[1].workspace.project()
    assert project.index_run.trigger == "watcher" and not project.index_run.error


def test_turning_the_setting_off_stops_the_watcher(watched):
    cat, _ = watched
    [watch] = watcher.watching()
    settings_of(cat)["follow_edits"] = False
    entry.session_turn(cat)  # the next call sees the setting
    watch.thread.join(5)
    assert not watch.alive and watcher.watching() == []


def test_a_new_repository_path_moves_the_watch(watched, tmp_path):
    cat, _ = watched
    [old] = watcher.watching()
    other = tmp_path / "other"
    other.mkdir()
    settings_of(cat)["repository_path"] = str(other)
    entry.session_turn(cat)
    old.thread.join(5)
    assert not old.alive and [w.root for w in watcher.watching()] == [str(other.resolve())]


def test_the_generation_stops_and_joins_its_watcher(tmp_path, monkeypatch):
    """A toggle, a re-upload or the Cat's shutdown retires the generation: the watcher thread
    ends with it, and no thread is left behind."""
    lifecycle = Lifecycle()
    generation = Generation(lifecycle, Registry(), Sessions())
    monkeypatch.setattr(watcher, "GENERATION", generation)
    monkeypatch.setattr(watcher, "LIFECYCLE", lifecycle)
    repo = tmp_path / "repo"
    repo.mkdir()
    cat, _, _ = make_cat(tmp_path, repo, settings={"follow_edits": True})
    from codemem.app.projects.workspace import Workspace
    watch = watcher.follow_edits(Workspace.of(cat, generation.registry))
    assert watch is not None and watch.alive
    started = time.monotonic()
    generation.retire(join_s=5)
    assert not watch.alive and time.monotonic() - started < 5
    assert not [t for t in threading.enumerate() if t.name.startswith("codemem-watch")
                and t.is_alive()]
    assert watcher.follow_edits(Workspace.of(cat, generation.registry)) is None  # retired


def test_the_plugins_own_data_folder_never_triggers_a_run(tmp_path):
    """Should the data folder be inside the repository, its writes (the index itself) must not
    start a run, whose writes would start the next."""
    from types import SimpleNamespace

    data = tmp_path / "repo" / "cwm-data"
    workspace = SimpleNamespace(config=SimpleNamespace(data_dir=str(data)))
    assert not watcher._relevant({str(data / "code_memories.db-wal")}, workspace)
    assert watcher._relevant({str(data / "x.db"), str(tmp_path / "repo" / "a.py")}, workspace)


def test_a_save_that_changes_no_entity_keeps_the_retrieval_caches(watched):
    cat, repo = watched
    project = entry.session_turn(cat)[1].workspace.project()
    before = project.generation
    time.sleep(0.3)
    (repo / "README.md").write_text("notes\n")  # not code: the run parses nothing
    deadline = time.monotonic() + 10
    while project.index_run.trigger != "watcher" or project.index_run.running:
        assert time.monotonic() < deadline, "no run after the save"
        time.sleep(0.05)
    assert project.generation == before


def test_a_burst_of_saves_is_at_most_three_runs_and_leaves_only_the_final_version(watched):
    """An editor saving one file 30 times in 3 s: at most 3 indexing runs (issue 37 measured
    23 before the watch waited for quiet), never two at once, and the index holds the last
    save's code only."""
    cat, repo = watched
    [watch] = watcher.watching()
    project = entry.session_turn(cat)[1].workspace.project()
    time.sleep(0.5)
    for i in range(30):
        (repo / "dates.py").write_text(f"def parse_date_v{i}(text):\n    return text\n")
        time.sleep(0.1)
    deadline = time.monotonic() + 10
    while "parse_date_v29" not in _names(cat) or project.index_run.running:
        assert time.monotonic() < deadline, "the last save never reached the index"
        time.sleep(0.05)
    time.sleep(1.0)  # nothing more is coming
    assert 1 <= watch.runs <= 3, watch.runs
    assert {n for n in _names(cat) if n.startswith("parse_date")} == {"parse_date_v29"}
